// Package localfiles is research over local files (issue 9, item 6): the full-text index of
// a conversation's workspace folder and of its uploads, kept in the app's SQLite database
// (migration 0006), searched by the agents' search_files tool and read by read_file.
//
// An indexing pass (Index.Pass) walks the workspace folder, reads every file of a type the
// upload extractor knows (backend/extract: Markdown, text, CSV, JSON, HTML, PDF, DOCX,
// source code) with that same extractor, and stores its text in chunks of a few KB with
// their line and PDF page. Passes are incremental: a file whose size and modification
// time are unchanged is not read again, a changed file is read again, a file no longer
// there leaves the index. The conversation's uploads, whose text the upload already
// extracted, are indexed from the database under the virtual folder "@uploads/" (an
// upload stored as artifact "report.pdf" is "@uploads/report.pdf").
//
// What a pass reads, and what it leaves out:
//   - hidden files and folders (a name starting with "."), and dependency and cache
//     folders (node_modules, __pycache__, bower_components, site-packages, venv), are
//     skipped, as is a top-level "@uploads" (the uploads' virtual folder);
//   - a file over Options.MaxFileBytes (DefaultMaxFileBytes, 20 MB, the upload limit's
//     default) is recorded as skipped, as is one the extractor finds binary or unreadable;
//     files of other types are not looked at;
//   - symbolic links are resolved by the containment rules of declared workspace files
//     (declared.ResolveWorkspaceTarget): one that leads outside the folder is never
//     followed (recorded as skipped), nor is one whose target, relative to the folder, has
//     a hidden or dependency-folder segment (notes.md -> .env, pub -> .secrets,
//     cfg.txt -> .git/config; recorded as skipped, see Resolve); one to a file inside is
//     read under the link's path; one to a folder inside is walked once, after the real
//     folders, unless that folder was walked already, so a link loop ends;
//   - at most Options.MaxFiles (DefaultMaxFiles) files are considered, in path order.
//
// Failures are per file: counted, listed (Index.Unindexed) and never fatal to the pass.
package localfiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"artifactflow/backend/declared"
	"artifactflow/backend/extract"
	"artifactflow/backend/store"
)

// Defaults of Options.
const (
	// DefaultMaxFileBytes is the size over which a file is skipped (20 MB).
	DefaultMaxFileBytes = 20 << 20
	// DefaultMaxFiles bounds the files one workspace may have indexed.
	DefaultMaxFiles = 20000
)

// UploadsDir is the virtual folder of the conversation's uploads in paths the index gives
// and takes ("@uploads/report.pdf").
const UploadsDir = "@uploads"

// Errors callers branch on.
var (
	// ErrNotIndexed: the conversation has no index yet (no pass ever ran for it).
	ErrNotIndexed = errors.New("no local files are indexed for this conversation")
	// ErrEmptyQuery: a search query has nothing to search for.
	ErrEmptyQuery = errors.New("the query has no words to search for")
)

// skipDirs are folder names never walked: dependencies and caches, which hold many files
// and little of the user's own writing.
var skipDirs = map[string]bool{
	"node_modules": true, "__pycache__": true, "bower_components": true, "site-packages": true, "venv": true,
}

// ExtractFunc turns a file's bytes into text; extract.Text is the default.
type ExtractFunc func(ctx context.Context, name string, data []byte) (extract.Result, error)

// Options configure an Index. DB and Workspace are required.
type Options struct {
	DB *store.DB
	// Workspace returns the absolute path of a conversation's workspace folder (which may
	// not exist); the app gives declared.DefaultWorkspace.
	Workspace func(ctx context.Context, conversationID string) (string, error)
	// Extract defaults to extract.Text.
	Extract ExtractFunc
	// MaxFileBytes defaults to DefaultMaxFileBytes; MaxFiles to DefaultMaxFiles.
	MaxFileBytes int64
	MaxFiles     int
	// Workers is how many files are read at once; 0 means min(4, GOMAXPROCS).
	Workers int
	Logger  *slog.Logger
}

// Index reads, stores and searches the local files of conversations. It is safe for
// concurrent use; Manager makes sure at most one pass runs per conversation.
type Index struct {
	opts Options
	// bigMu lets one file over bigFile bytes be read at a time, bounding memory.
	bigMu sync.Mutex
}

// bigFile is the size from which files are read one at a time.
const bigFile = 4 << 20

// New returns an Index for opts. Errors: a missing DB or Workspace.
func New(opts Options) (*Index, error) {
	if opts.DB == nil || opts.Workspace == nil {
		return nil, errors.New("localfiles: DB and Workspace are required")
	}
	if opts.Extract == nil {
		opts.Extract = extract.Text
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.Workers <= 0 {
		opts.Workers = min(4, runtime.GOMAXPROCS(0))
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Index{opts: opts}, nil
}

// Progress is the state of an indexing pass, reported while it runs and at its end.
//
//   - Phase is "scanning" (walking the folder), "indexing" (reading the files that
//     changed) or "done".
//   - Total is the number of files the pass considers (workspace files of a readable type
//     and uploads), Done how many of them are settled (unchanged, read, skipped or
//     failed), Changed how many had to be read, Failed and Skipped how many of those could
//     not be indexed (see Index.Unindexed for why).
//   - Bytes is the size of the files read so far, TotalBytes of all files to read.
//   - Removed counts rows of files that are gone. Truncated is set when the folder has
//     more than MaxFiles files (the rest are left out).
//   - Workspace is the folder; Error the reason a pass stopped early ("" for none).
type Progress struct {
	Phase      string `json:"phase"`
	Workspace  string `json:"workspace"`
	Total      int    `json:"total"`
	Done       int    `json:"done"`
	Changed    int    `json:"changed"`
	Failed     int    `json:"failed"`
	Skipped    int    `json:"skipped"`
	Removed    int    `json:"removed"`
	Bytes      int64  `json:"bytes"`
	TotalBytes int64  `json:"total_bytes"`
	Truncated  bool   `json:"truncated,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Phases of Progress.
const (
	PhaseScanning = "scanning"
	PhaseIndexing = "indexing"
	PhaseDone     = "done"
)

// PassOptions tune one pass. Force reads again the files that were skipped or failed
// before even when they did not change (the user asked for a re-index). Report, when set,
// receives the progress; it is called from the pass's goroutine and must not block long.
type PassOptions struct {
	Force  bool
	Report func(Progress)
}

// candidate is one file a pass considers.
type candidate struct {
	rel     string // index path
	real    string // file to read ("" for an upload)
	upload  string // artifact id of an upload
	ext     string
	size    int64
	modTime int64
	status  string // a status decided without reading (skipped: too large, link outside)
	reason  string
}

// Pass brings the index of conversationID up to date with its workspace folder and its
// uploads (see the package documentation), reporting progress through po.Report. When the
// conversation's folder changed since the last pass, everything is read again.
//
// It returns the final progress. Errors: the conversation does not exist
// (store.ErrNotFound); ctx ended (the files stored so far stay, nothing is removed); a
// database failure. Problems with single files are never errors: they are counted in
// Progress.Failed or Progress.Skipped.
func (ix *Index) Pass(ctx context.Context, conversationID string, po PassOptions) (Progress, error) {
	report := po.Report
	if report == nil {
		report = func(Progress) {}
	}
	ws, err := ix.opts.Workspace(ctx, conversationID)
	if err != nil {
		return Progress{Phase: PhaseDone, Error: err.Error()}, fmt.Errorf("localfiles: workspace of %q: %w", conversationID, err)
	}
	p := Progress{Phase: PhaseScanning, Workspace: ws}
	fail := func(err error) (Progress, error) {
		p.Phase, p.Error = PhaseDone, err.Error()
		report(p)
		return p, err
	}
	report(p)
	root, err := ix.opts.DB.FileRootOf(ctx, conversationID, ws)
	if err != nil {
		return fail(fmt.Errorf("localfiles: %w", err))
	}
	known, err := ix.opts.DB.IndexedFiles(ctx, root.ID)
	if err != nil {
		return fail(fmt.Errorf("localfiles: %w", err))
	}
	w := walker{maxFiles: ix.opts.MaxFiles, maxBytes: ix.opts.MaxFileBytes}
	w.walk(ctx, ws)
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("localfiles: scan %s: %w", ws, err))
	}
	ups, err := ix.opts.DB.UploadInfos(ctx, conversationID)
	if err != nil {
		return fail(fmt.Errorf("localfiles: %w", err))
	}
	for _, u := range ups {
		c := candidate{rel: UploadsDir + "/" + u.ID, upload: u.ID, ext: extOf(u.ID), size: int64(u.Size), modTime: u.UpdatedAt.UnixNano()}
		if u.ContentType == extract.ContentTypeBinary {
			c.status, c.reason = store.FileSkipped, "the upload is not readable text"
		}
		w.found = append(w.found, c)
	}

	byPath := make(map[string]store.IndexedFile, len(known))
	for _, f := range known {
		byPath[f.Path] = f
	}
	var todo []candidate
	seen := make(map[string]bool, len(w.found))
	for _, c := range w.found {
		seen[c.rel] = true
		old, ok := byPath[c.rel]
		same := ok && old.Size == c.size && old.ModTime == c.modTime
		if same && (c.status == "" && (old.Status == store.FileIndexed || !po.Force) ||
			c.status != "" && old.Status == c.status && old.Reason == c.reason) {
			p.Done++ // unchanged: not read again
			continue
		}
		todo = append(todo, c)
		p.TotalBytes += c.size
	}
	p.Total, p.Changed, p.Truncated = len(w.found), len(todo), w.truncated
	p.Phase = PhaseIndexing
	report(p)

	if err := ix.read(ctx, conversationID, root.ID, todo, &p, report); err != nil {
		return fail(err)
	}
	// Files that are gone leave the index; not those under a folder that could not be
	// read this time.
	var gone []string
	for _, f := range known {
		if !seen[f.Path] && !w.underUnreadable(f.Path) {
			gone = append(gone, f.Path)
		}
	}
	if err := ix.opts.DB.DeleteIndexedFiles(ctx, root.ID, gone); err != nil {
		return fail(fmt.Errorf("localfiles: %w", err))
	}
	p.Removed = len(gone)
	p.Phase = PhaseDone
	report(p)
	return p, nil
}

// read reads todo with the pool of workers and stores the results in batches.
func (ix *Index) read(ctx context.Context, conversationID string, rootID int64, todo []candidate, p *Progress, report func(Progress)) error {
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan candidate)
	results := make(chan store.FileWrite, ix.opts.Workers)
	var wg sync.WaitGroup
	for range ix.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				fw := ix.readOne(ctx, conversationID, c)
				select {
				case results <- fw:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, c := range todo {
			select {
			case jobs <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	const maxBatchFiles, maxBatchBytes = 64, 8 << 20
	var batch []store.FileWrite
	batchBytes := 0
	lastReport := time.Now() // the pass has just reported the start of this phase
	var werr error
	flush := func() {
		if len(batch) == 0 || werr != nil {
			return
		}
		if err := ix.opts.DB.PutIndexedFiles(ctx, rootID, batch); err != nil {
			werr = fmt.Errorf("localfiles: %w", err)
			cancel()
			return
		}
		for _, fw := range batch {
			p.Done++
			p.Bytes += fw.File.Size
			switch fw.File.Status {
			case store.FileFailed:
				p.Failed++
			case store.FileSkipped:
				p.Skipped++
			}
		}
		batch, batchBytes = batch[:0], 0
		if time.Since(lastReport) >= 200*time.Millisecond {
			lastReport = time.Now()
			report(*p)
		}
	}
	for fw := range results {
		if ctx.Err() != nil {
			continue // drain: the workers are stopping
		}
		batch = append(batch, fw)
		batchBytes += fw.File.TextBytes
		// A batch is stored when full, or after half a second, so that slow files (PDFs
		// read in a child process) still show progress.
		if len(batch) >= maxBatchFiles || batchBytes >= maxBatchBytes || time.Since(lastReport) >= 500*time.Millisecond {
			flush()
		}
	}
	if werr != nil {
		return werr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("localfiles: indexing stopped: %w", context.Cause(ctx))
	}
	flush()
	return werr
}

// readOne reads and chunks one candidate of conversationID. Its problems become the row's
// status.
func (ix *Index) readOne(ctx context.Context, conversationID string, c candidate) store.FileWrite {
	f := store.IndexedFile{Path: c.rel, Ext: c.ext, Size: c.size, ModTime: c.modTime, Status: c.status, Reason: c.reason}
	if f.Status != "" {
		return store.FileWrite{File: f}
	}
	var text string
	if c.upload != "" {
		a, err := ix.opts.DB.GetArtifact(ctx, conversationID, c.upload)
		if err != nil {
			f.Status, f.Reason = store.FileFailed, "the upload could not be read from the database"
			ix.opts.Logger.Warn("localfiles: read an upload", "conversation", conversationID, "artifact", c.upload, "err", err)
			return store.FileWrite{File: f}
		}
		text = a.Content
	} else {
		if c.size >= bigFile {
			ix.bigMu.Lock()
			defer ix.bigMu.Unlock()
		}
		t, status, reason := ix.extractFile(ctx, c.real, c.rel, ix.opts.MaxFileBytes)
		if status != "" {
			f.Status, f.Reason = status, reason
			return store.FileWrite{File: f}
		}
		text = t
	}
	chunks, lines := chunkText(text, c.ext == "pdf")
	f.Status, f.Lines, f.TextBytes = store.FileIndexed, lines, len(text)
	return store.FileWrite{File: f, Chunks: chunks}
}

// extractFile reads the file at real (named rel for the extractor and messages) and
// extracts its text. status is "" on success, else store.FileSkipped (too large, binary,
// unreadable) or store.FileFailed (it could not be read, or the reader failed) with reason.
func (ix *Index) extractFile(ctx context.Context, real, rel string, limit int64) (text, status, reason string) {
	data, err := readFile(real, limit)
	switch {
	case errors.Is(err, errTooLarge):
		return "", store.FileSkipped, fmt.Sprintf("larger than the %d MB limit", limit>>20)
	case err != nil:
		return "", store.FileFailed, err.Error()
	}
	res, err := ix.opts.Extract(ctx, path.Base(rel), data)
	switch {
	case err != nil:
		return "", store.FileFailed, err.Error()
	case !res.Readable:
		return "", store.FileSkipped, res.Reason
	}
	return res.Text, "", ""
}

// errTooLarge: a file grew over the limit after it was looked at.
var errTooLarge = errors.New("file too large")

// readFile reads a regular file of at most limit bytes.
func readFile(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("could not open: %w", unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("could not read: %w", unwrapPath(err))
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// unwrapPath drops the host path from an *fs.PathError (paths shown to agents are
// workspace-relative).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// extOf returns the lower-case extension of name without the dot ("" for none).
func extOf(name string) string {
	ext := strings.ToLower(path.Ext(path.Base(name)))
	if ext == "" || ext == path.Base(name) {
		return ""
	}
	return strings.TrimPrefix(ext, ".")
}

// walker collects the files of a workspace folder (see the package documentation).
type walker struct {
	maxFiles int
	maxBytes int64

	root       string          // the folder, every link resolved
	visited    map[string]bool // real folders walked
	links      []dirLink       // links to folders, walked after the real folders
	found      []candidate
	unreadable []string // index paths of folders that could not be listed
	truncated  bool
}

// dirLink is a symbolic link to a folder inside the workspace.
type dirLink struct{ rel, real string }

// walk collects the files under ws. A folder that does not exist has no files.
func (w *walker) walk(ctx context.Context, ws string) {
	root, err := declared.RealWorkspace(ws)
	if err != nil {
		w.unreadable = append(w.unreadable, "")
		return
	}
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.unreadable = append(w.unreadable, "")
		}
		return
	}
	w.root, w.visited = root, map[string]bool{root: true}
	w.dir(ctx, root, "")
	for len(w.links) > 0 && !w.truncated && ctx.Err() == nil {
		l := w.links[0]
		w.links = w.links[1:]
		if w.visited[l.real] {
			continue
		}
		w.visited[l.real] = true
		w.dir(ctx, l.real, l.rel)
	}
	sort.Slice(w.found, func(i, j int) bool { return w.found[i].rel < w.found[j].rel })
}

// dir collects the entries of the real folder real, whose index path is rel ("" for the
// root).
func (w *walker) dir(ctx context.Context, real, rel string) {
	if ctx.Err() != nil || w.truncated {
		return
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		w.unreadable = append(w.unreadable, rel)
		return
	}
	for _, e := range entries {
		if ctx.Err() != nil || w.truncated {
			return
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") || (rel == "" && name == UploadsDir) {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		childReal := filepath.Join(real, name)
		mode := e.Type()
		if mode&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			w.link(childRel)
			continue
		}
		if mode.IsDir() {
			if skipDirs[name] {
				continue
			}
			w.visited[childReal] = true
			w.dir(ctx, childReal, childRel)
			continue
		}
		if !mode.IsRegular() {
			continue
		}
		if _, ok := extract.Supported(name); !ok {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		w.add(candidate{rel: childRel, real: childReal, ext: extOf(name), size: info.Size(), modTime: info.ModTime().UnixNano()})
	}
}

// link handles a symbolic link (or a Windows junction) at index path rel.
func (w *walker) link(rel string) {
	name := path.Base(rel)
	_, real, err := Resolve(w.root, rel)
	switch {
	case errors.Is(err, declared.ErrOutsideWorkspace):
		w.add(candidate{rel: rel, ext: extOf(name), status: store.FileSkipped,
			reason: "a symbolic link leading outside the workspace (not followed)"})
		return
	case errors.Is(err, ErrExcludedTarget):
		w.add(candidate{rel: rel, ext: extOf(name), status: store.FileSkipped,
			reason: "a symbolic link to a hidden file or folder, or into a dependency folder (not followed)"})
		return
	case err != nil:
		return // dangling inside, a loop of links, unreadable: nothing to index
	}
	fi, err := os.Stat(real)
	if err != nil {
		return
	}
	switch {
	case fi.IsDir():
		if !skipDirs[name] {
			w.links = append(w.links, dirLink{rel: rel, real: real})
		}
	case fi.Mode().IsRegular():
		if _, ok := extract.Supported(name); ok {
			w.add(candidate{rel: rel, real: real, ext: extOf(name), size: fi.Size(), modTime: fi.ModTime().UnixNano()})
		}
	}
}

// add records a file, unless MaxFiles are already recorded. A file over the size limit is
// recorded as skipped without being read.
func (w *walker) add(c candidate) {
	if len(w.found) >= w.maxFiles {
		w.truncated = true
		return
	}
	if c.status == "" && c.size > w.maxBytes {
		c.status, c.reason = store.FileSkipped, fmt.Sprintf("larger than the %d MB limit", w.maxBytes>>20)
	}
	w.found = append(w.found, c)
}

// underUnreadable reports whether index path p lies in a folder that could not be listed
// in this pass (its files are kept as they were).
func (w *walker) underUnreadable(p string) bool {
	if strings.HasPrefix(p, UploadsDir+"/") {
		return false
	}
	for _, d := range w.unreadable {
		if d == "" || p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

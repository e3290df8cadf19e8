// Package convfile writes one conversation to a self-contained file and reads such a file
// back as a new conversation (docs/ARCHITECTURE.md, "Conversation files and backups").
//
// A conversation file is a zip archive (any unzip tool opens it) holding:
//
//	manifest.json              Manifest: format name and version, the database schema
//	                           version, the conversation's id and title, and every entry
//	                           below with its row count or size
//	tables/<table>.jsonl       the conversation's rows of each table store.TransferTables
//	                           names, one JSON object per line (column → value)
//	blobs/<sha256>             the original of every uploaded file, named by its SHA-256
//	files/<workspace path>     the workspace files its declared artifacts point to
//
// Import checks everything before it keeps anything: the manifest, every entry's name and
// size against Limits (a zip bomb or a path that leaves its folder is refused before a
// byte is inflated: archive/zip fails an entry that inflates past its declared size),
// each blob's SHA-256, each table's row count (a truncated file is refused), and every row
// (store.ImportConversation); the rows are stored in one transaction, and the blobs and
// files written for a refused import are removed again.
package convfile

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"artifactflow/backend/store"
)

// Format is Manifest.Format of a conversation file.
const Format = "artifactflow-conversation"

// Version is the version of the file layout this package writes (Manifest.Version). A
// reader accepts files of its version and older; a change a reader of this version would
// misread takes the next number.
const Version = 1

// Ext is the file name extension of conversation files.
const Ext = ".artifactflow.zip"

// Sentinel errors of Import; test with errors.Is.
var (
	// ErrInvalidFile: the file is not a conversation file, or it is damaged, truncated or
	// inconsistent (the message says what is wrong). Nothing was stored.
	ErrInvalidFile = errors.New("not a valid ArtifactFlow conversation file")
	// ErrTooNew: a newer version of ArtifactFlow wrote the file (its Version, or its
	// database schema, is above this program's).
	ErrTooNew = errors.New("the conversation file was written by a newer version of ArtifactFlow")
	// ErrTooLarge: an entry, or the whole file, is over Limits.
	ErrTooLarge = errors.New("the conversation file is too large")
)

// Manifest is manifest.json.
type Manifest struct {
	Format       string         `json:"format"`
	Version      int            `json:"version"`
	Schema       int            `json:"schema"` // the exporting database's store.SchemaVersion
	ExportedAt   time.Time      `json:"exported_at"`
	Conversation ConvInfo       `json:"conversation"`
	Tables       []TableEntry   `json:"tables"`
	Blobs        []BlobEntry    `json:"blobs"`
	Files        []FileEntry    `json:"files"`
	LeftOut      []LeftOutEntry `json:"left_out,omitempty"`
}

// ConvInfo names the exported conversation.
type ConvInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// TableEntry is one table's entry: tables/<Name>.jsonl with Rows lines.
type TableEntry struct {
	Name string `json:"name"`
	Rows int    `json:"rows"`
}

// BlobEntry is one uploaded original: blobs/<SHA256>, Size bytes.
type BlobEntry struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// FileEntry is one workspace file a declared artifact points to: files/<Path> (Path is
// the declared artifact's workspace path, slash separated), Size bytes.
type FileEntry struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// LeftOutEntry is a blob or workspace file the export could not carry, and why.
type LeftOutEntry struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Limits bound what Import reads. Zero fields take the Default* values.
type Limits struct {
	MaxEntries  int   // entries in the archive
	MaxManifest int64 // bytes of manifest.json
	MaxRow      int64 // bytes of one row (one line of a table)
	MaxEntry    int64 // inflated bytes of one entry
	MaxTotal    int64 // inflated bytes of all entries
}

// Default limits: generous for any real conversation (an upload is at most 256 MB, an
// artifact at most its text), finite for a hostile file.
const (
	DefaultMaxEntries  = 200_000
	DefaultMaxManifest = 64 << 20
	DefaultMaxRow      = 1 << 30
	DefaultMaxEntry    = 4 << 30
	DefaultMaxTotal    = 16 << 30
)

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxManifest <= 0 {
		l.MaxManifest = DefaultMaxManifest
	}
	if l.MaxRow <= 0 {
		l.MaxRow = DefaultMaxRow
	}
	if l.MaxEntry <= 0 {
		l.MaxEntry = DefaultMaxEntry
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultMaxTotal
	}
	return l
}

// DefaultMaxFile is ExportOptions.MaxFile when unset: larger workspace files are left out
// (LeftOut) rather than carried.
const DefaultMaxFile = 256 << 20

// ExportOptions say where a conversation's files are.
type ExportOptions struct {
	// BlobsDir is the data dir's blobs folder (uploaded originals by SHA-256).
	BlobsDir string
	// Workspace is the conversation's workspace folder (absolute); "" carries no files.
	Workspace string
	// MaxFile is the largest workspace file carried, in bytes (0: DefaultMaxFile).
	MaxFile int64
	// Now gives the export time (nil: time.Now).
	Now func() time.Time
}

// blobName is an upload's blob file name: its SHA-256 in lower-case hex.
var blobName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Export writes conversation id of db to w as a conversation file and returns its
// manifest. The rows come from one read transaction (store.ExportConversation), so a
// conversation with a run going is exported as it stood at one instant. Blobs the
// conversation's uploads name are read from opts.BlobsDir; the workspace files its declared
// artifacts point to from opts.Workspace, following no link out of it; a blob or file that
// is missing, unreadable, not a regular file or over opts.MaxFile is listed in
// Manifest.LeftOut instead. Errors: store.ErrNotFound for an unknown conversation; w's
// and the database's errors, wrapped. w holds a partial file after an error.
func Export(ctx context.Context, db *store.DB, id string, w io.Writer, opts ExportOptions) (Manifest, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxFile <= 0 {
		opts.MaxFile = DefaultMaxFile
	}
	zw := zip.NewWriter(w)
	m := Manifest{Format: Format, Version: Version, ExportedAt: opts.Now().UTC().Truncate(time.Second), Conversation: ConvInfo{ID: id},
		Blobs: []BlobEntry{}, Files: []FileEntry{}}
	var (
		cur     string
		enc     *json.Encoder
		blobs   []string
		decl    []string
		curRows int
	)
	finish := func() {
		if cur != "" {
			m.Tables = append(m.Tables, TableEntry{Name: cur, Rows: curRows})
		}
	}
	schema, err := db.ExportConversation(ctx, id, func(table string, r store.Row) error {
		if table != cur {
			finish()
			ew, err := zw.Create("tables/" + table + ".jsonl")
			if err != nil {
				return err
			}
			cur, curRows, enc = table, 0, json.NewEncoder(ew)
			enc.SetEscapeHTML(false)
		}
		switch table {
		case "conversations":
			m.Conversation.Title, _ = r["title"].(string)
		case "artifacts":
			if b := blobOf(r["metadata"]); b != "" && !slices.Contains(blobs, b) {
				blobs = append(blobs, b)
			}
		case "declared_artifacts":
			if p, _ := r["workspace_path"].(string); r["storage"] == "workspace" && p != "" && !slices.Contains(decl, p) {
				decl = append(decl, p)
			}
		}
		curRows++
		return enc.Encode(r)
	})
	if err != nil {
		return Manifest{}, fmt.Errorf("convfile: export %s: %w", id, err)
	}
	finish()
	// Tables without rows get an empty entry, so the file always lists every table.
	for _, t := range store.TransferTables() {
		if !slices.ContainsFunc(m.Tables, func(e TableEntry) bool { return e.Name == t }) {
			if _, err := zw.Create("tables/" + t + ".jsonl"); err != nil {
				return Manifest{}, fmt.Errorf("convfile: export %s: %w", id, err)
			}
			m.Tables = append(m.Tables, TableEntry{Name: t})
		}
	}
	m.Schema = schema
	for _, b := range blobs {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		if !blobName.MatchString(b) {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: "blobs/" + b, Reason: "not a blob name"})
			continue
		}
		size, sum, why, err := copyFile(zw, "blobs/"+b, filepath.Join(opts.BlobsDir, b), -1)
		if err != nil {
			return Manifest{}, fmt.Errorf("convfile: export %s: %w", id, err)
		}
		if why == "" && sum != b {
			why = "its content does not match its name (the blob is damaged)"
		}
		if why != "" {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: "blobs/" + b, Reason: why})
			continue
		}
		m.Blobs = append(m.Blobs, BlobEntry{SHA256: b, Size: size})
	}
	if opts.Workspace != "" {
		if err := exportFiles(ctx, zw, &m, opts, decl); err != nil {
			return Manifest{}, fmt.Errorf("convfile: export %s: %w", id, err)
		}
	}
	mw, err := zw.Create("manifest.json")
	if err == nil {
		enc := json.NewEncoder(mw)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(m)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("convfile: export %s: %w", id, err)
	}
	return m, nil
}

// exportFiles adds the workspace files named by decl (declared workspace paths).
func exportFiles(ctx context.Context, zw *zip.Writer, m *Manifest, opts ExportOptions, decl []string) error {
	root, err := filepath.EvalSymlinks(opts.Workspace)
	if err != nil {
		for _, p := range decl {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: "files/" + p, Reason: "the workspace folder is not there"})
		}
		return nil
	}
	for _, p := range decl {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, ok := cleanRel(p)
		if !ok {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: "files/" + p, Reason: "not a path inside the workspace"})
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: "files/" + rel, Reason: "the file is not there"})
			continue
		}
		if !within(root, real) {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: "files/" + rel, Reason: "it is a link that leaves the workspace"})
			continue
		}
		size, sum, why, err := copyFile(zw, "files/"+rel, real, opts.MaxFile)
		if err != nil {
			return err
		}
		if why != "" {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: "files/" + rel, Reason: why})
			continue
		}
		m.Files = append(m.Files, FileEntry{Path: rel, Size: size, SHA256: sum})
	}
	return nil
}

// copyFile adds the regular file at src to zw as entry name and returns its size and
// SHA-256. why says why the file was not added (missing, not a regular file, over max
// bytes when max >= 0); err is a write error of the archive.
func copyFile(zw *zip.Writer, name, src string, max int64) (size int64, sum, why string, err error) {
	f, oerr := os.Open(src)
	if oerr != nil {
		return 0, "", "the file could not be read: " + oerr.Error(), nil
	}
	defer f.Close()
	st, serr := f.Stat()
	switch {
	case serr != nil:
		return 0, "", "the file could not be read: " + serr.Error(), nil
	case !st.Mode().IsRegular():
		return 0, "", "not a regular file", nil
	case max >= 0 && st.Size() > max:
		return 0, "", fmt.Sprintf("larger than %d MB", max>>20), nil
	}
	// Read it whole before adding the entry, so a file that cannot be read adds nothing.
	// Entries are at most max (256 MB) for files; a blob is at most the upload limit.
	h := sha256.New()
	data, rerr := io.ReadAll(io.TeeReader(f, h))
	if rerr != nil {
		return 0, "", "the file could not be read: " + rerr.Error(), nil
	}
	ew, err := zw.Create(name)
	if err != nil {
		return 0, "", "", err
	}
	if _, err := ew.Write(data); err != nil {
		return 0, "", "", err
	}
	return int64(len(data)), hex.EncodeToString(h.Sum(nil)), "", nil
}

// blobOf returns the "blob" of an artifacts row's metadata ("" when none).
func blobOf(meta any) string {
	s, _ := meta.(string)
	if !strings.Contains(s, `"blob"`) {
		return ""
	}
	var m struct {
		Blob string `json:"blob"`
	}
	if json.Unmarshal([]byte(s), &m) != nil {
		return ""
	}
	return m.Blob
}

// cleanRel returns p cleaned if it is a relative slash path that stays inside its folder
// (no "..", no absolute or drive form, no backslash, no NUL, no empty or "." result).
func cleanRel(p string) (string, bool) {
	if p == "" || len(p) > 4096 || strings.ContainsAny(p, "\\\x00") || strings.HasPrefix(p, "/") ||
		(len(p) >= 2 && p[1] == ':') {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// within reports whether p is root or inside it (both clean and absolute).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ImportOptions say where an imported conversation's files go.
type ImportOptions struct {
	// BlobsDir is the data dir's blobs folder; blobs it lacks are written there.
	BlobsDir string
	// WorkspaceDir returns the folder the new conversation's workspace files go to (its
	// default workspace, <data-dir>/workspaces/<id>); nil drops them.
	WorkspaceDir func(conversationID string) string
	// Lock, when set, is held while blobs are written and the rows stored (the data
	// dir's blob lock: a start-up sweep must not take a new blob for an unused one).
	Lock sync.Locker
	// Limits bound what is read.
	Limits Limits
}

// Result is what Import stored.
type Result struct {
	store.ImportResult
	// Manifest is the file's manifest.
	Manifest Manifest
	// NewBlobs counts the blobs written (the others were already in BlobsDir).
	NewBlobs int
	// Files counts the workspace files written.
	Files int
}

// Import reads the conversation file in r (size bytes) into db as a new conversation
// (store.ImportConversation: new ids, so importing a file twice gives two copies) and
// returns what it stored. See the package comment for what is checked. On any error
// nothing stays: no row, no blob this import wrote, no workspace file. Errors:
// ErrInvalidFile (not a zip, no or a bad manifest, an entry missing, unlisted or with a
// bad name, a wrong row count, a blob whose content is not its name, a row the store
// refuses: store.ErrInvalid or store.ErrSchemaMismatch are wrapped too), ErrTooNew (also
// wrapping store.ErrSchemaTooNew when the schema is newer), ErrTooLarge; ctx's error; file
// system and database errors, wrapped.
func Import(ctx context.Context, db *store.DB, r io.ReaderAt, size int64, opts ImportOptions) (Result, error) {
	lim := opts.Limits.withDefaults()
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Result{}, fmt.Errorf("convfile: import: %w: not a zip archive (%v)", ErrInvalidFile, err)
	}
	f, err := index(zr, lim)
	if err != nil {
		return Result{}, err
	}
	m, err := readManifest(f, lim)
	if err != nil {
		return Result{}, err
	}
	if err := f.check(m, lim); err != nil {
		return Result{}, err
	}
	if opts.Lock != nil {
		opts.Lock.Lock()
		defer opts.Lock.Unlock()
	}
	newID := uuid.NewString()
	var written []string // blobs and the workspace folder this import created
	ok := false
	defer func() {
		if !ok {
			for _, p := range written {
				_ = os.RemoveAll(p)
			}
		}
	}()
	res := Result{Manifest: m}
	for _, b := range m.Blobs {
		made, err := writeBlob(ctx, f.files["blobs/"+b.SHA256], opts.BlobsDir, b)
		if err != nil {
			return Result{}, err
		}
		if made != "" {
			written = append(written, made)
			res.NewBlobs++
		}
	}
	if opts.WorkspaceDir != nil && len(m.Files) > 0 {
		dir := opts.WorkspaceDir(newID)
		if _, err := os.Lstat(dir); err == nil {
			return Result{}, fmt.Errorf("convfile: import: the new conversation's workspace folder %s exists already", dir)
		}
		written = append(written, dir)
		for _, fe := range m.Files {
			if err := writeFile(ctx, f.files["files/"+fe.Path], dir, fe); err != nil {
				return Result{}, err
			}
			res.Files++
		}
	}
	rows := func(table string, each func(store.Row) error) error {
		for _, t := range m.Tables {
			if t.Name == table {
				return readTable(ctx, f.files["tables/"+table+".jsonl"], t, lim, each)
			}
		}
		return nil // a table the exporting version did not have: no rows
	}
	ir, err := db.ImportConversation(ctx, newID, m.Schema, rows)
	switch {
	case errors.Is(err, store.ErrSchemaTooNew):
		return Result{}, fmt.Errorf("convfile: import: %w: %w", ErrTooNew, err)
	case errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrSchemaMismatch):
		return Result{}, fmt.Errorf("convfile: import: %w: %w", ErrInvalidFile, err)
	case err != nil:
		return Result{}, fmt.Errorf("convfile: import: %w", err)
	}
	res.ImportResult = ir
	ok = true
	return res, nil
}

// archive is a conversation file's entries by name.
type archive struct {
	files map[string]*zip.File
}

// index lists the archive's entries, refusing duplicates and archives over the limits.
func index(zr *zip.Reader, lim Limits) (*archive, error) {
	if len(zr.File) > lim.MaxEntries {
		return nil, fmt.Errorf("convfile: import: %w: %d entries, the limit is %d", ErrTooLarge, len(zr.File), lim.MaxEntries)
	}
	a := &archive{files: map[string]*zip.File{}}
	var total uint64
	for _, zf := range zr.File {
		if _, dup := a.files[zf.Name]; dup {
			return nil, fmt.Errorf("convfile: import: %w: entry %q appears twice", ErrInvalidFile, zf.Name)
		}
		if zf.UncompressedSize64 > uint64(lim.MaxEntry) {
			return nil, fmt.Errorf("convfile: import: %w: entry %q inflates to %d bytes, the limit is %d", ErrTooLarge, zf.Name, zf.UncompressedSize64, lim.MaxEntry)
		}
		total += zf.UncompressedSize64
		if total > uint64(lim.MaxTotal) {
			return nil, fmt.Errorf("convfile: import: %w: its entries inflate to more than %d bytes", ErrTooLarge, lim.MaxTotal)
		}
		a.files[zf.Name] = zf
	}
	return a, nil
}

// readManifest reads and checks manifest.json.
func readManifest(a *archive, lim Limits) (Manifest, error) {
	zf := a.files["manifest.json"]
	if zf == nil {
		return Manifest{}, fmt.Errorf("convfile: import: %w: it has no manifest.json", ErrInvalidFile)
	}
	if zf.UncompressedSize64 > uint64(lim.MaxManifest) {
		return Manifest{}, fmt.Errorf("convfile: import: %w: manifest.json is over %d bytes", ErrTooLarge, lim.MaxManifest)
	}
	rc, err := zf.Open()
	if err != nil {
		return Manifest{}, fmt.Errorf("convfile: import: %w: manifest.json: %v", ErrInvalidFile, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, lim.MaxManifest+1))
	if err != nil {
		return Manifest{}, fmt.Errorf("convfile: import: %w: manifest.json: %v", ErrInvalidFile, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("convfile: import: %w: manifest.json: %v", ErrInvalidFile, err)
	}
	switch {
	case m.Format != Format:
		return Manifest{}, fmt.Errorf("convfile: import: %w: its format is %q, not %q", ErrInvalidFile, m.Format, Format)
	case m.Version > Version:
		return Manifest{}, fmt.Errorf("convfile: import: %w: file version %d, this one reads up to %d", ErrTooNew, m.Version, Version)
	case m.Version < 1 || m.Schema < 1:
		return Manifest{}, fmt.Errorf("convfile: import: %w: version %d, schema %d", ErrInvalidFile, m.Version, m.Schema)
	}
	return m, nil
}

// check matches the manifest with the entries: every table, blob and file it lists has
// its entry, with a plain name, and no entry is unlisted.
func (a *archive) check(m Manifest, lim Limits) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("convfile: import: %w: %s", ErrInvalidFile, fmt.Sprintf(format, args...))
	}
	listed := map[string]bool{"manifest.json": true}
	known := store.TransferTables()
	for _, t := range m.Tables {
		name := "tables/" + t.Name + ".jsonl"
		switch {
		case !slices.Contains(known, t.Name):
			return bad("unknown table %q", t.Name)
		case listed[name]:
			return bad("table %q is listed twice", t.Name)
		case t.Rows < 0:
			return bad("table %q has %d rows", t.Name, t.Rows)
		case a.files[name] == nil:
			return bad("entry %s is missing", name)
		}
		listed[name] = true
	}
	if len(m.Tables) == 0 || m.Tables[0].Name != "conversations" {
		return bad("it holds no conversation")
	}
	for _, b := range m.Blobs {
		name := "blobs/" + b.SHA256
		switch {
		case !blobName.MatchString(b.SHA256):
			return bad("blob name %q is not a SHA-256", b.SHA256)
		case listed[name]:
			return bad("blob %s is listed twice", b.SHA256)
		case a.files[name] == nil:
			return bad("entry %s is missing", name)
		case a.files[name].UncompressedSize64 != uint64(b.Size) || b.Size < 0:
			return bad("entry %s has %d bytes, the manifest says %d", name, a.files[name].UncompressedSize64, b.Size)
		}
		listed[name] = true
	}
	for _, fe := range m.Files {
		rel, ok := cleanRel(fe.Path)
		name := "files/" + fe.Path
		switch {
		case !ok || rel != fe.Path:
			return bad("file path %q leaves its folder or is not clean", fe.Path)
		case listed[name]:
			return bad("file %q is listed twice", fe.Path)
		case a.files[name] == nil:
			return bad("entry %s is missing", name)
		case a.files[name].UncompressedSize64 != uint64(fe.Size) || fe.Size < 0:
			return bad("entry %s has %d bytes, the manifest says %d", name, a.files[name].UncompressedSize64, fe.Size)
		case !blobName.MatchString(fe.SHA256):
			return bad("file %q has no SHA-256", fe.Path)
		}
		listed[name] = true
	}
	// A file whose path is a folder of another (a and a/b) cannot be written.
	for _, fe := range m.Files {
		if listed["files/"+path.Dir(fe.Path)] {
			return bad("file %q is inside file %q", fe.Path, path.Dir(fe.Path))
		}
	}
	for name := range a.files {
		if !listed[name] {
			return bad("entry %q is not in the manifest", name)
		}
	}
	return nil
}

// readTable calls each with every row of a table entry, checking the count.
func readTable(ctx context.Context, zf *zip.File, t TableEntry, lim Limits, each func(store.Row) error) error {
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalidFile, zf.Name, err)
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	maxRow := int(min(lim.MaxRow, int64(^uint(0)>>1)))
	sc.Buffer(make([]byte, 0, min(64<<10, maxRow)), maxRow) // the larger of the two is the bound
	n := 0
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		n++
		if n > t.Rows {
			return fmt.Errorf("%w: %s has more rows than the manifest's %d", ErrInvalidFile, zf.Name, t.Rows)
		}
		row, err := decodeRow(line)
		if err != nil {
			return fmt.Errorf("%w: %s line %d: %v", ErrInvalidFile, zf.Name, n, err)
		}
		if err := each(row); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%w: %s: a row is over %d bytes", ErrTooLarge, zf.Name, lim.MaxRow)
		}
		return fmt.Errorf("%w: %s: %v", ErrInvalidFile, zf.Name, err) // damaged: checksum, truncated
	}
	if n != t.Rows {
		return fmt.Errorf("%w: %s has %d rows, the manifest says %d (the file is truncated?)", ErrInvalidFile, zf.Name, n, t.Rows)
	}
	return nil
}

// decodeRow reads one JSON object line into a store.Row: numbers become int64 when
// integral, else float64; nested objects and arrays are kept as they decode (the store
// refuses them).
func decodeRow(line []byte) (store.Row, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var raw map[string]any
	if err := d.Decode(&raw); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	if raw == nil {
		return nil, errors.New("not a JSON object")
	}
	row := store.Row{}
	for k, v := range raw {
		if num, ok := v.(json.Number); ok {
			if i, err := num.Int64(); err == nil {
				v = i
			} else if f, err := num.Float64(); err == nil {
				v = f
			} else {
				return nil, fmt.Errorf("column %s: number %s", k, num)
			}
		}
		row[k] = v
	}
	return row, nil
}

// writeBlob stores blob b from its entry in dir unless dir has it, checking its SHA-256;
// it returns the path it created ("" when the blob was there).
func writeBlob(ctx context.Context, zf *zip.File, dir string, b BlobEntry) (string, error) {
	dst := filepath.Join(dir, b.SHA256)
	if st, err := os.Stat(dst); err == nil && st.Mode().IsRegular() {
		return "", nil // content addressed: the same bytes
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("convfile: import: %w", err)
	}
	sum, err := extract(ctx, zf, dir, dst, b.Size)
	if err != nil {
		return "", err
	}
	if sum != b.SHA256 {
		_ = os.Remove(dst)
		return "", fmt.Errorf("convfile: import: %w: blob %s: its content does not match its name", ErrInvalidFile, b.SHA256)
	}
	return dst, nil
}

// writeFile stores workspace file fe under dir.
func writeFile(ctx context.Context, zf *zip.File, dir string, fe FileEntry) error {
	dst := filepath.Join(dir, filepath.FromSlash(fe.Path))
	if !within(dir, dst) {
		return fmt.Errorf("convfile: import: %w: file path %q leaves its folder", ErrInvalidFile, fe.Path)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("convfile: import: %w", err)
	}
	sum, err := extract(ctx, zf, filepath.Dir(dst), dst, fe.Size)
	if err != nil {
		return err
	}
	if sum != fe.SHA256 {
		return fmt.Errorf("convfile: import: %w: file %q: its content does not match its SHA-256", ErrInvalidFile, fe.Path)
	}
	return nil
}

// extract inflates zf (size bytes) into a temporary file in tmpDir, renames it to dst
// (which must not exist) and returns its SHA-256.
func extract(ctx context.Context, zf *zip.File, tmpDir, dst string, size int64) (string, error) {
	rc, err := zf.Open()
	if err != nil {
		return "", fmt.Errorf("convfile: import: %w: %s: %v", ErrInvalidFile, zf.Name, err)
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(tmpDir, ".import-*.tmp")
	if err != nil {
		return "", fmt.Errorf("convfile: import: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing to remove
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(ctxReader{ctx, rc}, size+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", fmt.Errorf("convfile: import: %w: %s: %v", ErrInvalidFile, zf.Name, err)
	case n != size:
		return "", fmt.Errorf("convfile: import: %w: %s has %d bytes, the manifest says %d", ErrInvalidFile, zf.Name, n, size)
	}
	if _, err := os.Lstat(dst); err == nil {
		return "", fmt.Errorf("convfile: import: %s exists already", dst)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("convfile: import: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ctxReader stops reading once ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

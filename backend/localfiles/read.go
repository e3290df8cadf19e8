package localfiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"artifactflow/backend/artifact"
	"artifactflow/backend/declared"
	"artifactflow/backend/extract"
	"artifactflow/backend/store"
)

// Read limits (the read_file tool's offset and limit parameters).
const (
	// DefaultReadLines is how many lines Read returns when limit <= 0, MaxReadLines the
	// most it returns.
	DefaultReadLines = 400
	MaxReadLines     = 2000
	// MaxReadBytes bounds the text one Read returns; a longer range ends early (More).
	MaxReadBytes = 40000
)

// Errors of Read; each error Read returns for a bad path wraps one of them.
var (
	// ErrOutside: the path is absolute, escapes the workspace with "..", or a symbolic
	// link on it leads outside the workspace (declared.ResolveWorkspacePath's rules).
	ErrOutside = errors.New("the path is not inside the workspace")
	// ErrNoFile: nothing exists at the path, or the upload does not exist.
	ErrNoFile = errors.New("no such file")
	// ErrNotText: the path is a folder, a file type that is not read, a binary or
	// unreadable file, or a file over the size limit.
	ErrNotText = errors.New("not a readable text file")
	// ErrNotIndexedFile: the path names no file of the conversation's index: a hidden file
	// or folder (a name starting with "."), a dependency or cache folder (node_modules,
	// venv, …), the real top-level "@uploads" folder, a symbolic link leading to one of
	// those, or a file no pass has recorded (new since the last pass, or the
	// conversation's folder not indexed yet).
	ErrNotIndexedFile = errors.New("not an indexed file of the workspace")
)

// Excerpt is part of a file's text, as Read returns it: Path (clean, as the index names
// it), Title (the file name; an upload's original name), lines FromLine to ToLine
// (1-based, inclusive; ToLine < FromLine when the range is past the end) of TotalLines,
// Page the PDF page FromLine is on (0 when none), Text those lines, More whether lines
// follow ToLine.
type Excerpt struct {
	Path       string
	Title      string
	FromLine   int
	ToLine     int
	TotalLines int
	Page       int
	Text       string
	More       bool
}

// Read returns lines offset to offset+limit-1 (offset 1-based; <= 0 means 1; limit <= 0
// means DefaultReadLines, at most MaxReadLines, and at most MaxReadBytes of text) of the
// text of file p of conversationID's workspace, or of an upload ("@uploads/<artifact
// id>").
//
// Only files of the conversation's index are read: a workspace file must have a row from
// the last pass over the conversation's current folder (so it is one a pass takes: not
// hidden, not in a dependency folder, of a type the extractor reads), and a path with a
// hidden or dependency-folder segment is refused before the disk is looked at. The path is
// also checked every time by the containment rules of declared workspace files and by the
// hidden-file rule on where it leads (Resolve), so a file swapped for a link leading
// outside, or to a hidden file (notes.md -> .env), is refused even when its row or text
// is indexed. The text comes from the index when the
// file is indexed and unchanged (same size and modification time); a file the pass
// skipped and that is unchanged is refused with the pass's reason; a file changed since,
// or one that failed, is read with the same extractor the index uses.
//
// Errors: ErrOutside, ErrNoFile, ErrNotText or ErrNotIndexedFile (wrapped, with the
// reason); a failure to resolve the workspace or read the database.
func (ix *Index) Read(ctx context.Context, conversationID, p string, offset, limit int) (Excerpt, error) {
	offset = max(offset, 1)
	if limit <= 0 {
		limit = DefaultReadLines
	}
	limit = min(limit, MaxReadLines)
	if clean, err := declared.CleanWorkspacePath(p); err == nil {
		if rest, ok := strings.CutPrefix(clean, UploadsDir+"/"); ok {
			return ix.readUpload(ctx, conversationID, rest, offset, limit)
		}
		if !walked(clean) {
			return Excerpt{}, fmt.Errorf("%w: %s: hidden folders and dependency folders are not read", ErrNotIndexedFile, clean)
		}
	}
	ws, err := ix.opts.Workspace(ctx, conversationID)
	if err != nil {
		return Excerpt{}, fmt.Errorf("localfiles: workspace of %q: %w", conversationID, err)
	}
	clean, real, err := Resolve(ws, p)
	switch {
	case errors.Is(err, ErrExcludedTarget):
		return Excerpt{}, fmt.Errorf("%w: %s is a symbolic link to a hidden file or folder or into a dependency folder, which are never read", ErrNotIndexedFile, clean)
	case errors.Is(err, declared.ErrBadWorkspacePath):
		return Excerpt{}, fmt.Errorf("%w: %w; give a path relative to the workspace folder, as search_files shows it", ErrOutside, err)
	case errors.Is(err, declared.ErrOutsideWorkspace):
		return Excerpt{}, fmt.Errorf("%w: %w", ErrOutside, err)
	case errors.Is(err, declared.ErrNotInWorkspace):
		return Excerpt{}, fmt.Errorf("%w: %s is not in the workspace (search_files lists the files that are)", ErrNoFile, clean)
	case err != nil:
		return Excerpt{}, fmt.Errorf("%w: %s could not be checked: %w", ErrNoFile, clean, unwrapPath(err))
	}
	fi, err := os.Stat(real)
	switch {
	case err != nil:
		return Excerpt{}, fmt.Errorf("%w: %s: %w", ErrNoFile, clean, unwrapPath(err))
	case fi.IsDir():
		return Excerpt{}, fmt.Errorf("%w: %s is a folder; give the path of a file in it", ErrNotText, clean)
	case !fi.Mode().IsRegular():
		return Excerpt{}, fmt.Errorf("%w: %s is not a regular file", ErrNotText, clean)
	}
	if _, ok := extract.Supported(clean); !ok {
		return Excerpt{}, fmt.Errorf("%w: %s is not a file type the app reads (text, Markdown, CSV, JSON, HTML, PDF, Word, source code)", ErrNotText, clean)
	}
	notIndexed := fmt.Errorf("%w: %s (search_files finds the files that are; hidden folders and dependency folders are not read, and a new file only after the next indexing)", ErrNotIndexedFile, clean)
	root, err := ix.opts.DB.FileRoot(ctx, conversationID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Excerpt{}, notIndexed
	case err != nil:
		return Excerpt{}, fmt.Errorf("localfiles: read %s: %w", clean, err)
	case root.Workspace != ws:
		return Excerpt{}, notIndexed // the rows are of another folder
	}
	row, err := ix.opts.DB.IndexedFile(ctx, root.ID, clean)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Excerpt{}, notIndexed
	case err != nil:
		return Excerpt{}, fmt.Errorf("localfiles: read %s: %w", clean, err)
	}
	ex := Excerpt{Path: clean, Title: path.Base(clean)}
	if row.Size == fi.Size() && row.ModTime == fi.ModTime().UnixNano() {
		switch row.Status {
		case store.FileIndexed:
			return ix.readIndexed(ctx, root.ID, row, ex, offset, limit)
		case store.FileSkipped:
			return Excerpt{}, fmt.Errorf("%w: %s could not be read: %s", ErrNotText, clean, row.Reason)
		}
	}
	if fi.Size() > ix.opts.MaxFileBytes {
		return Excerpt{}, fmt.Errorf("%w: %s is larger than the %d MB limit", ErrNotText, clean, ix.opts.MaxFileBytes>>20)
	}
	text, status, reason := ix.extractFile(ctx, real, clean, ix.opts.MaxFileBytes)
	if status != "" {
		if err := ctx.Err(); err != nil {
			return Excerpt{}, fmt.Errorf("localfiles: read %s: %w", clean, err)
		}
		return Excerpt{}, fmt.Errorf("%w: %s could not be read: %s", ErrNotText, clean, reason)
	}
	paged := extOf(clean) == "pdf"
	chunks, lines := chunkText(text, paged)
	ex.TotalLines = lines
	return sliceLines(ex, chunks, offset, limit, paged), nil
}

// walked reports whether a pass would walk to the clean workspace path rel: no segment is
// hidden (starts with ".") or a dependency or cache folder (skipDirs, in any case, since
// file systems may ignore it), and it is not under the real top-level "@uploads" folder.
func walked(rel string) bool {
	segs := strings.Split(rel, "/")
	if segs[0] == UploadsDir {
		return false
	}
	for _, s := range segs {
		if strings.HasPrefix(s, ".") || skipDirs[strings.ToLower(s)] {
			return false
		}
	}
	return true
}

// readUpload reads the text of upload id of conversationID.
func (ix *Index) readUpload(ctx context.Context, conversationID, id string, offset, limit int) (Excerpt, error) {
	a, err := ix.opts.DB.GetArtifact(ctx, conversationID, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && a.Source != artifact.SourceUpload) {
		return Excerpt{}, fmt.Errorf("%w: the conversation has no upload %q", ErrNoFile, id)
	}
	if err != nil {
		return Excerpt{}, fmt.Errorf("localfiles: read upload %q: %w", id, err)
	}
	if a.ContentType == extract.ContentTypeBinary {
		return Excerpt{}, fmt.Errorf("%w: the upload %q has no readable text", ErrNotText, id)
	}
	paged := extOf(id) == "pdf"
	chunks, lines := chunkText(a.Content, paged)
	ex := Excerpt{Path: UploadsDir + "/" + id, Title: a.Title, TotalLines: lines}
	if ex.Title == "" {
		ex.Title = id
	}
	return sliceLines(ex, chunks, offset, limit, paged), nil
}

// readIndexed reads the lines of an indexed file from its stored chunks.
func (ix *Index) readIndexed(ctx context.Context, rootID int64, row store.IndexedFile, ex Excerpt, offset, limit int) (Excerpt, error) {
	chunks, err := ix.opts.DB.FileChunks(ctx, rootID, row.Path, offset, offset+limit-1)
	if err != nil {
		return Excerpt{}, fmt.Errorf("localfiles: read %s: %w", row.Path, err)
	}
	ex.TotalLines = row.Lines
	return sliceLines(ex, chunks, offset, limit, row.Ext == "pdf"), nil
}

// sliceLines fills ex with lines offset to offset+limit-1 of the text made of chunks (in
// order, contiguous; the first may start before offset), at most MaxReadBytes of it: a
// range that would pass it ends at the line before (More), and a first line longer than
// it is cut, with a note. With paged set (PDF text), Page is the page line offset is on.
func sliceLines(ex Excerpt, chunks []store.FileChunk, offset, limit int, paged bool) Excerpt {
	ex.FromLine, ex.ToLine = offset, offset-1
	if len(chunks) == 0 {
		return ex
	}
	line, page := chunks[0].Line, chunks[0].Page
	var b strings.Builder
	for _, c := range chunks {
		for rest := c.Text; rest != ""; {
			l := rest
			if i := strings.IndexByte(rest, '\n'); i >= 0 {
				l = rest[:i+1]
			}
			rest = rest[len(l):]
			if line > offset+limit-1 {
				break
			}
			if n, ok := pageMarker(l); ok && paged && line <= offset {
				page = n
			}
			if line >= offset {
				if b.Len()+len(l) > MaxReadBytes {
					// At a line end the range simply stops; inside a line longer than the
					// cap (the first line, or a line split over chunks) the line is cut.
					if b.Len() == 0 || !strings.HasSuffix(b.String(), "\n") {
						if room := MaxReadBytes - b.Len(); room >= 16 {
							b.WriteString(l[:cutAt(l, room)])
						}
						b.WriteString("… [line cut]\n")
						ex.ToLine = line
					}
					ex.Text, ex.Page, ex.More = b.String(), pageIf(paged, page), true
					return ex
				}
				b.WriteString(l)
				ex.ToLine = line
			}
			if strings.HasSuffix(l, "\n") {
				line++
			}
		}
	}
	ex.Text, ex.Page = b.String(), pageIf(paged, page)
	ex.More = ex.ToLine >= ex.FromLine && ex.ToLine < ex.TotalLines
	return ex
}

// pageIf returns page when paged, else 0.
func pageIf(paged bool, page int) int {
	if paged {
		return page
	}
	return 0
}

package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/google/uuid"

	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/export"
	"artifactflow/backend/store"
)

// Dialogs are the native dialogs of the window; browser mode and the command line have
// none. main supplies them through Core.SetDialogs.
type Dialogs interface {
	// SaveFile asks where to save a file, starting in defaultDir (absolute; "" leaves
	// the choice to the system) with defaultName filled in; "" with a nil error means the
	// user cancelled.
	SaveFile(defaultDir, defaultName string) (string, error)
}

// SetDialogs installs the window's native dialogs.
func (c *Core) SetDialogs(d Dialogs) {
	c.mu.Lock()
	c.dialogs = d
	c.mu.Unlock()
}

// Export formats accepted by ArtifactService.Export.
const (
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
	FormatDOCX     = "docx"
)

// Export renders one version of an artifact (0 = the current content, including a running
// research's unsaved changes) as markdown, html or docx, with the references its [n]
// citations make to the conversation's sources. In the window it asks where to
// save and writes the file; in browser mode it returns the bytes.
func (s *ArtifactService) Export(conversationID, artifactID string, version int, format string) (ExportResult, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	snap, err := s.manager(conversationID).Read(ctx, artifactID, version)
	if err != nil {
		return ExportResult{}, err
	}
	list, err := s.core.db.Sources(ctx, conversationID) // the [n] of the export resolve against these (issue 9)
	if err != nil {
		return ExportResult{}, err
	}
	doc := export.Doc{Title: snap.Title, ContentType: snap.ContentType, Content: snap.Content, Version: snap.Version, Sources: list}
	var res ExportResult
	switch format {
	case FormatMarkdown:
		res = ExportResult{Filename: export.Filename(snap.Title, ".md"), MIME: "text/markdown", Data: export.Markdown(doc)}
	case FormatHTML:
		b, err := export.HTML(doc)
		if err != nil {
			return ExportResult{}, err
		}
		res = ExportResult{Filename: export.Filename(snap.Title, ".html"), MIME: "text/html", Data: b}
	case FormatDOCX:
		b, err := export.DOCX(doc)
		if err != nil {
			return ExportResult{}, err
		}
		res = ExportResult{Filename: export.Filename(snap.Title, ".docx"),
			MIME: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Data: b}
	default:
		return ExportResult{}, fmt.Errorf("unknown export format %q: use markdown, html or docx", format)
	}
	s.core.mu.Lock()
	d := s.core.dialogs
	s.core.mu.Unlock()
	if d == nil {
		return res, nil
	}
	path, err := d.SaveFile(s.core.exportDir(ctx, conversationID), res.Filename)
	if err != nil || path == "" {
		return ExportResult{Filename: res.Filename}, err
	}
	if err := os.WriteFile(path, res.Data, 0o644); err != nil {
		return ExportResult{}, fmt.Errorf("export: write %s: %w", path, err)
	}
	s.core.rememberExport(path)
	return ExportResult{Filename: res.Filename, MIME: res.MIME, SavedPath: path}, nil
}

// ErrNotExported: RevealExport was asked for a path this app did not save an export to.
var ErrNotExported = errors.New("not an exported file")

// RevealExport opens the folder holding a file that Export saved in this session (the
// SavedPath of its result) in the system's file manager: the exported notice's "Show in
// folder" (issue 10, item 4). Only paths Export wrote are accepted, so a page cannot make
// the computer open an arbitrary folder; browser mode refuses the method (desktopOnly).
// Errors: ErrNotExported; ErrFileUnavailable when the file is gone; ErrOpenFailed.
func (s *ArtifactService) RevealExport(path string) error {
	return s.core.revealExport(path, systemOpen)
}

// revealExport is RevealExport with the opener injected (tests pass a fake).
func (c *Core) revealExport(path string, launch opener) error {
	c.mu.Lock()
	ok := c.exported[path]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotExported, path)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFileUnavailable, filepath.Base(path), err)
	}
	ctx, cancel := c.ctx()
	defer cancel()
	if err := launch(ctx, filepath.Dir(path)); err != nil {
		return fmt.Errorf("%w: %w", ErrOpenFailed, err)
	}
	return nil
}

// rememberExport records a path Export saved to, for RevealExport.
func (c *Core) rememberExport(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exported == nil {
		c.exported = map[string]bool{}
	}
	c.exported[path] = true
}

// exportDir is the folder the export dialog starts in (issue 10, item 4): the
// conversation's workspace folder (Core.Workspace), created if missing; else the user's
// Documents folder (documentsDir); else "" (the system's choice). It never returns the
// directory the app was launched from unless that is one of these.
func (c *Core) exportDir(ctx context.Context, conversationID string) string {
	if ws, err := c.Workspace(ctx, conversationID); err == nil && ws != "" {
		err := os.MkdirAll(ws, 0o755)
		if err == nil {
			return ws
		}
		c.log.Warn("export: workspace folder unavailable, using Documents", "dir", ws, "err", err)
	}
	return documentsDir()
}

// documentsDir returns the user's Documents folder if it exists: on Linux and the BSDs
// XDG_DOCUMENTS_DIR from $XDG_CONFIG_HOME/user-dirs.dirs (the xdg-user-dirs file, which
// names it in the user's language, e.g. "$HOME/文档"), else ~/Documents; else the home
// folder; else "".
func documentsDir() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	var candidates []string
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if cfg == "" {
			cfg = filepath.Join(home, ".config")
		}
		if d := xdgUserDir(filepath.Join(cfg, "user-dirs.dirs"), "XDG_DOCUMENTS_DIR", home); d != "" {
			candidates = append(candidates, d)
		}
	}
	candidates = append(candidates, filepath.Join(home, "Documents"))
	for _, d := range candidates {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return home
}

// xdgUserDir reads key's value from an xdg-user-dirs file (lines KEY="$HOME/Dir"), with
// $HOME replaced by home; "" when the file or key is missing or the value is not absolute.
func xdgUserDir(file, key, home string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || k != key {
			continue
		}
		v = strings.Trim(v, `"`)
		v = strings.Replace(v, "$HOME", home, 1)
		if !filepath.IsAbs(v) {
			return ""
		}
		return filepath.Clean(v)
	}
	return ""
}

// Upload stores files sent from the page as artifacts at once (seed 000, upload bypass).
// conversationID "" creates a conversation named after the first file. Each file gets its
// own result: a file that is too large or cannot be stored fails alone.
func (s *ArtifactService) Upload(conversationID string, files []UploadFile) ([]UploadResult, error) {
	ups := make([]artifact.Upload, len(files))
	for i, f := range files {
		ups[i] = artifact.Upload{Name: f.Name, Data: f.Data}
	}
	return s.upload(conversationID, ups, nil)
}

// UploadPaths stores files dropped on the window (Wails gives their paths) as artifacts.
// Files over the size limit are refused before they are read.
func (s *ArtifactService) UploadPaths(conversationID string, paths []string) ([]UploadResult, error) {
	ups := make([]artifact.Upload, 0, len(paths))
	var failed []UploadResult
	for _, p := range paths {
		data, err := readLimited(p, s.core.maxUploadBytes())
		if err != nil {
			failed = append(failed, UploadResult{Name: filepath.Base(p), Error: err.Error()})
			continue
		}
		ups = append(ups, artifact.Upload{Name: filepath.Base(p), Data: data})
	}
	return s.upload(conversationID, ups, failed)
}

// maxUploadBytes is the upload size limit of the settings, in bytes.
func (c *Core) maxUploadBytes() int64 {
	return int64(c.Settings().MaxUploadMB) << 20
}

// readLimited reads a regular file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", filepath.Base(path), err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder; drop the files inside it", filepath.Base(path))
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %.1f MB, over the %d MB upload limit", filepath.Base(path), float64(st.Size())/(1<<20), limit>>20)
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}

func (s *ArtifactService) upload(conversationID string, ups []artifact.Upload, results []UploadResult) ([]UploadResult, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	if len(ups) == 0 {
		return results, nil
	}
	created := conversationID == ""
	if created {
		conversationID = uuid.NewString()
		title := "Files: " + ups[0].Name
		if err := s.core.db.CreateConversation(ctx, store.Conversation{ID: conversationID, Title: clip(title, 60)}); err != nil {
			return nil, err
		}
	} else if _, err := s.core.db.GetConversation(ctx, conversationID); err != nil {
		return nil, err
	}
	m := s.manager(conversationID)
	blobs := filepath.Join(s.core.dataDir, config.BlobsDir)
	m.SetBlobLock(&s.core.blobMu) // see removeUnusedBlobs; held only while an original is written and stored
	for _, up := range ups {
		r, err := m.CreateFromUpload(ctx, blobs, up, s.core.maxUploadBytes())
		res := UploadResult{Name: up.Name, ConversationID: conversationID, Size: len(up.Data)}
		if err != nil {
			res.Error = uploadError(err)
		} else {
			res.ArtifactID, res.Title, res.ContentType, res.Readable, res.Note = r.ArtifactID, r.Title, r.ContentType, r.Readable, r.Note
		}
		results = append(results, res)
	}
	stored := false
	for _, r := range results {
		stored = stored || r.Error == ""
	}
	if created && !stored { // a conversation made for these files alone would stay empty
		if err := s.core.db.DeleteConversation(ctx, conversationID); err != nil {
			s.core.log.Warn("app: removing the conversation of a failed upload", "conversation", conversationID, "err", err)
		}
		for i := range results {
			results[i].ConversationID = ""
		}
		return results, nil
	}
	for i := range results {
		results[i].ConversationID = conversationID
	}
	_ = s.core.db.TouchConversation(ctx, conversationID)
	s.core.files.Refresh(conversationID) // the uploads become searchable (search_files) in the background
	return results, nil
}

func uploadError(err error) string {
	if errors.Is(err, artifact.ErrTooLarge) {
		return err.Error()
	}
	return strings.TrimPrefix(err.Error(), "artifact: ")
}

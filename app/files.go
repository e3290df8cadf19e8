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

	"artifactflow/backend/artifact"
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

// ErrNotExported: RevealExport was asked for a path this app did not save an export to.
var ErrNotExported = errors.New("not an exported file")

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

// MaxUploadBytes is the upload size limit of the settings, in bytes (browser mode bounds
// an upload's request body by it).
func (c *Core) MaxUploadBytes() int64 {
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

func uploadError(err error) string {
	if errors.Is(err, artifact.ErrTooLarge) {
		return err.Error()
	}
	return strings.TrimPrefix(err.Error(), "artifact: ")
}

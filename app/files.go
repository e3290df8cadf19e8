package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
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
	if err := launch(ctx, path, true); err != nil {
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

// exportDir is the folder the export dialog starts in: the research folder the user chose
// for the conversation (ChooseWorkspace) when it is a folder on disk now; else the user's
// Documents folder (documentsDir); else "" (the system's choice). It never creates a folder
// and never offers the default workspace folder under the data dir: a file saved there
// would be indexed and searched by the agents as if the user had chosen a research
// folder, and that folder is hidden from the user.
func (c *Core) exportDir(ctx context.Context, conversationID string) string {
	chosen, err := c.db.ConversationWorkspace(ctx, conversationID)
	if err != nil {
		c.log.Warn("export: read the research folder, using Documents", "err", err)
	} else if chosen != "" {
		if st, err := os.Stat(chosen); err == nil && st.IsDir() {
			return chosen
		}
		c.log.Warn("export: research folder unavailable, using Documents", "dir", chosen)
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

// ErrNotRegularFile: a path dropped on the window is not a regular file (a device, a
// named pipe, a socket), so it is not read.
var ErrNotRegularFile = errors.New("not a regular file")

// readLimited reads the regular file at path (a symbolic link is followed) if it is at most
// limit bytes. Its size is checked by stat before anything is read, and the read stops at
// limit+1 bytes whatever stat said, so a file of any size (a 1 GB file, one growing while
// it is read) costs at most limit+1 bytes of memory. Errors: artifact.ErrTooLarge naming
// the file, its size and the limit in MB; ErrNotRegularFile for a device, named pipe or
// socket (not opened: opening a pipe would wait for a writer), and a plain message for a
// folder; the open, stat or read error, wrapped, naming the file.
func readLimited(path string, limit int64) ([]byte, error) {
	name := filepath.Base(path)
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if err := uploadable(name, st, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil { // the file opened may not be the one stat saw
		return nil, fmt.Errorf("stat %s: %w", name, err)
	}
	if err := uploadable(name, st, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(name, int64(len(data)), limit, "or more")
	}
	return data, nil
}

// uploadable returns why the file name with info st cannot be uploaded under limit bytes,
// nil when it can.
func uploadable(name string, st os.FileInfo, limit int64) error {
	switch {
	case st.IsDir():
		return fmt.Errorf("%s is a folder; drop the files inside it", name)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%w: %s is a %s, not a file; only files can be uploaded", ErrNotRegularFile, name, fileKind(st.Mode()))
	case st.Size() > limit:
		return tooLarge(name, st.Size(), limit, "")
	}
	return nil
}

// tooLarge is artifact.ErrTooLarge for a file of size bytes over limit bytes, both given
// in MB; more ("or more") follows the size when it is a lower bound.
func tooLarge(name string, size, limit int64, more string) error {
	return &tooLargeError{name: name, size: size, limit: limit, atLeast: more != ""}
}

// tooLargeError is a file over the upload limit: size and limit in bytes; atLeast when
// size is a lower bound. It is artifact.ErrTooLarge.
type tooLargeError struct {
	name        string
	size, limit int64
	atLeast     bool
}

func (e *tooLargeError) Error() string {
	mb := strings.TrimSuffix(fmt.Sprintf("%.1f", float64(e.size)/(1<<20)), ".0")
	if e.atLeast {
		mb += " or more"
	}
	return fmt.Sprintf("%v: %s is %s MB, over the %d MB upload limit; upload a smaller file or raise the limit in Settings",
		artifact.ErrTooLarge, e.name, mb, e.limit>>20)
}

func (e *tooLargeError) Unwrap() error { return artifact.ErrTooLarge }

// failedUpload is the result of a file that could not be uploaded: the error's text, its
// AppError code and, for a file over the limit, its size and the limit (UploadResult).
// size and limit are in bytes; size is used when err does not carry one.
func failedUpload(res UploadResult, err error, size, limit int64) UploadResult {
	res.Error = uploadError(err)
	res.ErrorCode = ToAppError(err).Code
	if res.ErrorCode == CodeFileTooLarge {
		atLeast := false
		var tl *tooLargeError
		if errors.As(err, &tl) {
			size, limit, atLeast = tl.size, tl.limit, tl.atLeast
		}
		res.ErrorArgs = map[string]string{"size": strconv.FormatInt(size, 10), "limit_mb": strconv.FormatInt(limit>>20, 10)}
		if atLeast {
			res.ErrorArgs["at_least"] = "1"
		}
	}
	return res
}

// noteParts converts an upload's note parts for the page.
func noteParts(parts []artifact.NotePart) []UploadNotePart {
	var out []UploadNotePart
	for _, p := range parts {
		out = append(out, UploadNotePart{Code: p.Code, Args: p.Args})
	}
	return out
}

// fileKind names the kind of a file that is neither a folder nor a regular file.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

func uploadError(err error) string {
	if errors.Is(err, artifact.ErrTooLarge) {
		return err.Error()
	}
	return strings.TrimPrefix(err.Error(), "artifact: ")
}

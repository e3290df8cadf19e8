package declared

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"artifactflow/backend/store"
)

// Reasons a workspace artifact is missing (Artifact.MissingReason). They never name a host
// path (the host's absolute workspace path is not exposed).
const (
	reasonNotExist = "the file does not exist"
	reasonEscapes  = "it is a link that leaves the workspace"
	reasonUnknown  = "the file could not be checked"
)

// maxLinks bounds the symbolic links followed while resolving one path (as the kernel's
// ELOOP limit does).
const maxLinks = 255

// errTooManyLinks: a path resolves through more than maxLinks symbolic links (a loop).
var errTooManyLinks = errors.New("too many levels of symbolic links")

// wsStat is the result of checking a workspace path on disk: escape when the path,
// followed through every symbolic link (existing or dangling), ends outside the
// workspace; otherwise status available with the size of a regular file, or missing with
// a reason. err is set when the check could not be made (permission, link loop); status
// is then missing with reasonUnknown.
type wsStat struct {
	status string
	reason string
	size   *int64
	escape bool
	err    error
}

// DefaultWorkspace returns an Options.Workspace function for db: the folder the user chose
// for the conversation (store.ConversationWorkspace), else
// <dataDir>/workspaces/<conversation-id> (a workspace folder per conversation). The folder
// is not created. Errors: store.ErrNotFound for an unknown conversation; a conversation id
// that is not a single path element (empty, ".", "..", or holding a separator) is refused
// rather than joined.
func DefaultWorkspace(db *store.DB, dataDir string) func(ctx context.Context, conversationID string) (string, error) {
	return func(ctx context.Context, conversationID string) (string, error) {
		ws, err := db.ConversationWorkspace(ctx, conversationID)
		if err != nil {
			return "", fmt.Errorf("declared: workspace: %w", err)
		}
		if ws != "" {
			return ws, nil
		}
		if conversationID == "" || conversationID == "." || conversationID == ".." ||
			strings.ContainsAny(conversationID, `/\`+"\x00") || filepath.VolumeName(conversationID) != "" {
			return "", fmt.Errorf("declared: workspace: conversation id %q cannot name a folder", conversationID)
		}
		abs, err := filepath.Abs(filepath.Join(dataDir, "workspaces", conversationID))
		if err != nil {
			return "", fmt.Errorf("declared: workspace of %q: %w", conversationID, err)
		}
		return abs, nil
	}
}

// cleanWorkspacePath normalizes a workspacePath input: backslashes are separators on every
// platform (so `..\x` is the traversal it looks like), the path is cleaned, "./" dropped
// and case kept. It returns "" and a message when the path is absolute (including a drive
// letter or UNC form), escapes with "..", or names the workspace itself. A name that
// merely starts with ".." (e.g. "..notes.md") is fine.
func cleanWorkspacePath(p string) (string, string) {
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(p, "/") || hasDriveLetter(p) {
		return "", "must be relative to the workspace"
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", "must stay inside the workspace"
	}
	if c == "." {
		return "", "must name a file inside the workspace"
	}
	return c, ""
}

// hasDriveLetter reports a Windows drive prefix such as "C:" (absolute or drive-relative).
func hasDriveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}

// workspaceRoot is a workspace folder resolved once for a batch of checks: real is its
// path with every existing symbolic link resolved (a folder that does not exist yet is
// resolved as far as it exists). dirs remembers the real directories (not links) seen by
// the batch's checks so that files in one folder do not lstat its parents again; a root
// lives for one operation only.
type workspaceRoot struct {
	real string
	err  error
	dirs map[string]bool
}

// resolveRoot resolves the workspace folder ws (absolute).
func resolveRoot(ws string) workspaceRoot {
	abs, err := filepath.Abs(ws)
	if err != nil {
		return workspaceRoot{err: err}
	}
	dirs := map[string]bool{}
	real, _, err := realPath(abs, dirs)
	return workspaceRoot{real: real, err: err, dirs: dirs}
}

// check stats rel (a cleaned workspace path) inside the workspace: the path is joined to
// the real root and resolved component by component, following every symbolic link
// (dangling ones included, so a link to a place outside that does not exist yet still
// counts as leaving); the final path must lie inside the root.
func (w workspaceRoot) check(rel string) wsStat {
	if w.err != nil {
		return wsStat{status: StatusMissing, reason: reasonUnknown, err: w.err}
	}
	real, exists, err := realPath(filepath.Join(w.real, filepath.FromSlash(rel)), w.dirs)
	if err != nil {
		return wsStat{status: StatusMissing, reason: reasonUnknown, err: err}
	}
	if !within(w.real, real) {
		return wsStat{status: StatusMissing, reason: reasonEscapes, escape: true}
	}
	if !exists {
		return wsStat{status: StatusMissing, reason: reasonNotExist}
	}
	fi, err := os.Stat(real)
	if err != nil {
		if notExist(err) {
			return wsStat{status: StatusMissing, reason: reasonNotExist}
		}
		return wsStat{status: StatusMissing, reason: reasonUnknown, err: err}
	}
	st := wsStat{status: StatusAvailable}
	if fi.Mode().IsRegular() {
		n := fi.Size()
		st.size = &n
	}
	return st
}

// within reports whether p is root or inside it (both clean and absolute).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// notExist reports an error meaning a path (or one of its parents) does not exist.
func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// realPath resolves the absolute path p like realpath(3), following every symbolic link
// (including relative targets and "..", which apply to the resolved directory). When a
// component does not exist, the rest is joined lexically and exists is false; this is how
// a dangling link is followed to where it points. dirs, when not nil, holds real
// directories already seen (their lstat is skipped) and receives the ones found; the last
// component is always looked at. Errors: a link loop (errTooManyLinks) or an lstat
// failure other than "does not exist".
func realPath(p string, dirs map[string]bool) (resolved string, exists bool, err error) {
	p = filepath.Clean(p)
	vol := filepath.VolumeName(p)
	sep := string(filepath.Separator)
	cur := vol + sep
	todo := splitPath(p[len(vol):])
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if len(todo) > 0 && dirs[next] {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			if notExist(err) {
				return filepath.Join(append([]string{next}, todo...)...), false, nil
			}
			return "", false, err
		}
		// A Windows junction (mount point) reports ModeIrregular, not ModeSymlink, since Go
		// 1.23, yet redirects like a link: follow it with Readlink too (which resolves
		// junctions), and refuse an irregular entry that cannot be read as a link.
		if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) == 0 {
			if dirs != nil && fi.IsDir() {
				dirs[next] = true
			}
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", false, errTooManyLinks
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false, err
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			cur = v + sep
			target = target[len(v):]
		}
		todo = append(splitPath(target), todo...)
	}
	return cur, true, nil
}

// splitPath splits a path into its components on the platform's separators.
func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return os.IsPathSeparator(uint8(r)) && r < 0x80 })
}

package declared

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Errors of ResolveWorkspacePath. Each error it returns wraps one of them, or the file
// system's error when the check itself failed (permission, a symbolic-link loop).
var (
	// ErrBadWorkspacePath: the path is absolute (a drive letter or UNC form included),
	// escapes with "..", names the workspace itself, or holds a control character.
	ErrBadWorkspacePath = errors.New("not a path inside the workspace")
	// ErrOutsideWorkspace: the path, followed through every symbolic link (dangling ones
	// included), ends outside the workspace.
	ErrOutsideWorkspace = errors.New("a symbolic link leads outside the workspace")
	// ErrNotInWorkspace: the path stays inside the workspace but nothing exists there.
	ErrNotInWorkspace = errors.New("no such file in the workspace")
)

// CleanWorkspacePath normalizes a workspace-relative path by the rules declared artifacts
// use for workspacePath (seed 002, normalizedWorkspacePath): backslashes are separators on
// every platform, the path is cleaned and "./" dropped, case is kept. It returns the clean
// slash path, or an error wrapping ErrBadWorkspacePath when the path is empty, absolute
// (a drive letter or UNC form included), escapes with "..", names the workspace itself or
// holds a control character. A name that merely starts with ".." ("..notes.md") is fine.
func CleanWorkspacePath(p string) (string, error) {
	if len(p) > maxPathBytes {
		return "", fmt.Errorf("%w: the path is longer than %d bytes", ErrBadWorkspacePath, maxPathBytes)
	}
	if hasControl(p) {
		return "", fmt.Errorf("%w: the path holds control characters", ErrBadWorkspacePath)
	}
	clean, msg := cleanWorkspacePath(p)
	if msg != "" {
		return "", fmt.Errorf("%w: %q %s", ErrBadWorkspacePath, p, msg)
	}
	return clean, nil
}

// ResolveWorkspacePath applies the containment rules of declared workspace artifacts
// (seed 002, section 7.1; the same code as record_artifact's check) to rel inside the
// workspace folder workspace (absolute; it may itself be or lie under a symbolic link,
// which is resolved first). It returns rel cleaned (CleanWorkspacePath) and the absolute
// path the file really is at, every symbolic link resolved, for the caller to open.
//
// Errors: ErrBadWorkspacePath (see CleanWorkspacePath); ErrOutsideWorkspace when rel,
// followed through every symbolic link (existing or dangling), ends outside the
// workspace; ErrNotInWorkspace when it stays inside but nothing exists there; the file
// system's error, wrapped, when the check could not be made (a link loop, permission).
// The result is a check made now: a caller that opens the real path right away opens
// what was checked, not what a link swapped in later points to.
func ResolveWorkspacePath(workspace, rel string) (clean, real string, err error) {
	clean, real, _, err = ResolveWorkspaceTarget(workspace, rel)
	return clean, real, err
}

// ResolveWorkspaceTarget is ResolveWorkspacePath that also says where rel leads: target is
// real relative to the workspace folder (the folder's own links resolved too), as a clean
// slash path, "." when rel leads to the folder itself. rel "notes.md", a link to ".env",
// has target ".env"; "pub/key.md" under a link "pub" to ".secrets" has ".secrets/key.md".
// Rules about which files may be read (local files leave out hidden and dependency
// folders) are applied to target, since a link's own name says nothing of what it opens.
// Errors: those of ResolveWorkspacePath; target is "" with any error.
func ResolveWorkspaceTarget(workspace, rel string) (clean, real, target string, err error) {
	clean, err = CleanWorkspacePath(rel)
	if err != nil {
		return "", "", "", err
	}
	root := resolveRoot(workspace)
	if root.err != nil {
		return clean, "", "", fmt.Errorf("workspace folder: %w", root.err)
	}
	real, exists, err := realPath(filepath.Join(root.real, filepath.FromSlash(clean)), root.dirs)
	if err != nil {
		return clean, "", "", fmt.Errorf("check %s: %w", clean, err)
	}
	if !within(root.real, real) {
		return clean, "", "", fmt.Errorf("%s: %w", clean, ErrOutsideWorkspace)
	}
	if !exists {
		return clean, "", "", fmt.Errorf("%s: %w", clean, ErrNotInWorkspace)
	}
	t, err := filepath.Rel(root.real, real)
	if err != nil {
		return clean, "", "", fmt.Errorf("check %s: %w", clean, err)
	}
	return clean, real, filepath.ToSlash(t), nil
}

// RealWorkspace returns the workspace folder with every symbolic link in it resolved
// (resolved as far as it exists when it does not exist yet), the root that
// WithinWorkspace compares against.
func RealWorkspace(workspace string) (string, error) {
	r := resolveRoot(workspace)
	return r.real, r.err
}

// WithinWorkspace reports whether the absolute, clean path p is realRoot or lies inside
// it (a lexical comparison: resolve links first, with RealWorkspace and
// filepath.EvalSymlinks).
func WithinWorkspace(realRoot, p string) bool { return within(realRoot, p) }

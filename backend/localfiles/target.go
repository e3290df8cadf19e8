package localfiles

import (
	"errors"
	"fmt"

	"artifactflow/backend/declared"
)

// ErrExcludedTarget: a workspace path is, or leads through a symbolic link to, a hidden
// file or folder (a name starting with "."), a dependency or cache folder (node_modules,
// venv, …) or the real top-level "@uploads" folder: what an indexing pass never reads. A
// link's own name does not count: "notes.md" linking to ".env" and "pub/key.md" under a
// link "pub" to ".secrets" are refused like ".env" and ".secrets/key.md" themselves.
var ErrExcludedTarget = errors.New("it is or leads to a hidden file or folder, or into a dependency folder")

// Excluded reports whether an indexing pass leaves out the clean workspace slash path rel
// (relative to the workspace folder, every link resolved): one of its segments is hidden
// (starts with ".") or a dependency or cache folder (node_modules, __pycache__,
// bower_components, site-packages, venv, in any case), or it lies under the real
// top-level "@uploads" folder. "." (the workspace folder itself) is not excluded.
func Excluded(rel string) bool { return rel != "." && !walked(rel) }

// Resolve checks the workspace path rel of the workspace folder workspace (absolute) by
// the containment rules of declared workspace files (declared.ResolveWorkspaceTarget: no
// absolute path, no "..", no link leading outside, something must exist there) and then
// by the hidden-file rule on where it leads (Excluded of its target, so a link is judged
// by what it opens). It returns rel cleaned and the real path to open.
//
// Errors: those of declared.ResolveWorkspaceTarget (ErrBadWorkspacePath,
// ErrOutsideWorkspace, ErrNotInWorkspace, a failed check), or ErrExcludedTarget, wrapped
// with the clean path; real is "" with any error. The check is made now: open real right
// away.
func Resolve(workspace, rel string) (clean, real string, err error) {
	clean, real, target, err := declared.ResolveWorkspaceTarget(workspace, rel)
	if err != nil {
		return clean, "", err
	}
	if Excluded(target) {
		return clean, "", fmt.Errorf("%s: %w", clean, ErrExcludedTarget)
	}
	return clean, real, nil
}

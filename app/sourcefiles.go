package app

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"artifactflow/backend/declared"
	"artifactflow/backend/localfiles"
	"artifactflow/backend/sources"
)

// OpenSourceFile opens a file the conversation cites as a source (a citation chip of a
// workspace file, "[6]" for notes/moon.md, line 3) with the system's default application,
// under OpenDeclared's rules: path must be the location of a file source of the
// conversation (the page cannot name any other path), it must resolve, through every
// symbolic link, inside the conversation's workspace folder and not to a hidden file or
// one in a dependency folder, and only a document or media type of the allow-list opens
// (opensAsDocument); any other file is shown in its folder and ErrRevealedInstead says so.
// An upload ("@uploads/<artifact id>") is not a file on disk: the page shows its artifact
// instead, and this method refuses it with ErrNotAFile. Browser mode refuses the method
// (desktop only). Errors: ErrNotFound-kind (ErrDeclaredNotFound's code) for a path the
// conversation does not cite; ErrNotAFile; ErrFileUnavailable with the reason (no
// workspace, missing, outside it, hidden); ErrOpenFailed; store errors.
func (s *ArtifactService) OpenSourceFile(conversationID, path string) error {
	return sourceFiles{core: s.core, launch: systemOpen}.open(conversationID, path)
}

// ErrSourceNotFound: the path is not the location of a file source of the conversation.
var ErrSourceNotFound = fmt.Errorf("%w: no such cited file", ErrDeclaredNotFound)

// sourceFiles opens cited workspace files through launch (a stand-in in tests).
type sourceFiles struct {
	core   *Core
	launch opener
}

// open checks path against the conversation's sources and workspace and opens it (see
// OpenSourceFile).
func (f sourceFiles) open(conversationID, path string) error {
	ctx, cancel := f.core.ctx()
	defer cancel()
	list, err := f.core.db.Sources(ctx, conversationID)
	if err != nil {
		return err
	}
	cited := false
	for _, s := range list {
		cited = cited || s.Kind == sources.KindFile && s.Location == path
	}
	if !cited {
		return fmt.Errorf("%w: the conversation cites no file %q", ErrSourceNotFound, path)
	}
	if path == localfiles.UploadsDir || strings.HasPrefix(path, localfiles.UploadsDir+"/") {
		return fmt.Errorf("%w: %s is an uploaded file, kept as a document of the conversation; open it in the panel", ErrNotAFile, path)
	}
	ws, err := f.core.Workspace(ctx, conversationID)
	if err != nil {
		return err
	}
	clean, real, target, err := declared.ResolveWorkspaceTarget(ws, path)
	if err != nil {
		return fmt.Errorf("%w: %s cannot be opened: %w", ErrFileUnavailable, path, err)
	}
	if localfiles.Excluded(target) {
		return fmt.Errorf("%w: %s leads to a hidden file or a file in a dependency folder; the app does not open those (they can hold passwords and keys)",
			ErrFileUnavailable, clean)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFileUnavailable, clean, err)
	}
	reveal := !opensAsDocument(runtime.GOOS, filepath.Base(real), fi.Mode())
	if err := f.launch(ctx, real, reveal); err != nil {
		return fmt.Errorf("%w: %w", ErrOpenFailed, err)
	}
	if reveal {
		return fmt.Errorf("%w: %s is not a document type the app opens (it could run a program); open it from there yourself if you trust it",
			ErrRevealedInstead, filepath.Base(real))
	}
	return nil
}

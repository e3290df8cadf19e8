package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/localfiles"
)

// Sentinel errors of the panel's declared-artifact and delete calls. Their text is the
// code the page's ApiError reads from a "code: message" error.
var (
	// ErrDeclaredNotFound: the conversation has no declared artifact with that id.
	ErrDeclaredNotFound = errors.New("not_found")
	// ErrNotAFile: OpenDeclared or RevealDeclared was asked for a declared artifact that is
	// not a file in the workspace (a link opens in the browser; a managed one has nothing
	// to open).
	ErrNotAFile = errors.New("not_a_file")
	// ErrFileUnavailable: the workspace file does not exist now, its path leads out of
	// the workspace (a symbolic link), or, to open it, it is or leads to a hidden file or
	// folder or into a dependency folder (localfiles.Excluded); the message gives the
	// reason.
	ErrFileUnavailable = errors.New("file_unavailable")
	// ErrOpenFailed: the system's opener could not be started or reported a failure.
	ErrOpenFailed = errors.New("open_failed")
)

// emitArtifactRemoved tells every sink that the user deleted a document (see
// emitArtifactChanged): Action "removed", Reason "explicit", ArtifactID and the artifact's
// last state.
func (c *Core) emitArtifactRemoved(conversationID string, last events.ArtifactSnapshot) {
	c.emitArtifactChanged(conversationID, events.DataArtifactChanged{Artifact: last, Action: declared.ActionRemoved,
		ArtifactID: last.ID, Reason: declared.ReasonExplicit})
}

// opener hands the file path to the system: with reveal false it opens it with its
// default application; with reveal true it shows it in its folder in the file manager
// (systemOpen). Tests inject a fake one so that nothing is launched.
type opener func(ctx context.Context, path string, reveal bool) error

// declaredFiles opens declared workspace files and their folders through launch.
type declaredFiles struct {
	core   *Core
	launch opener
}

// ErrRevealedInstead: Open was asked for a workspace file that is not a document type the
// app opens (opensAsDocument), so its folder was shown instead. It is a kind of
// ErrNotAFile (code not_a_file), so the page tells the user why nothing opened.
var ErrRevealedInstead = fmt.Errorf("%w: shown in its folder instead", ErrNotAFile)

// open checks artifactID of conversationID through the declared service and opens its
// file (folder false) or reveals it in its folder (folder true). A file that is not a
// document type the app opens on this system (opensAsDocument: an allow-list of document
// and media types, regular files without an execute bit) is revealed instead, and
// ErrRevealedInstead says so.
func (f declaredFiles) open(conversationID, artifactID string, folder bool) error {
	ctx, cancel := f.core.ctx()
	defer cancel()
	p, err := f.locate(ctx, conversationID, artifactID, folder)
	if err != nil {
		return err
	}
	reveal := folder
	if !folder {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrFileUnavailable, filepath.Base(p), err)
		}
		reveal = !opensAsDocument(runtime.GOOS, filepath.Base(p), fi.Mode())
	}
	if err := f.launch(ctx, p, reveal); err != nil {
		return fmt.Errorf("%w: %w", ErrOpenFailed, err)
	}
	if reveal && !folder {
		return fmt.Errorf("%w: %s is not a document type the app opens (it could run a program); open it from there yourself if you trust it",
			ErrRevealedInstead, filepath.Base(p))
	}
	return nil
}

// locate asks the declared service to check a workspace artifact again, now
// (declared.Service.Recheck: the same containment and realpath rules as on upsert), and
// returns the absolute path of its file, so a file deleted or swapped for a symbolic link
// a moment ago is refused. A file to open (folder false) must also pass the local files'
// hidden-file rule on where it leads (localfiles.Resolve): "notes.md" linking to ".env",
// or into .git or node_modules, is refused with ErrFileUnavailable saying so, while
// Reveal in folder (folder true) still shows the folder holding the real file, for the
// user to look at it there. No rule is reimplemented here.
func (f declaredFiles) locate(ctx context.Context, conversationID, artifactID string, folder bool) (string, error) {
	got, err := f.core.Declared().Recheck(ctx, conversationID, artifactID)
	if errors.Is(err, declared.ErrNoArtifact) {
		return "", fmt.Errorf("%w: the conversation has no declared artifact %q", ErrDeclaredNotFound, artifactID)
	}
	if err != nil {
		return "", err
	}
	a := &got
	ws, err := f.core.Workspace(ctx, conversationID)
	if err != nil {
		return "", err
	}
	rel := a.WorkspacePath
	switch {
	case a.Storage == declared.StoragePublish && strings.HasPrefix(a.URL, "file:"):
		// A page Publish wrote: its file: URL, read back as a path in the workspace, gets
		// the same checks as a workspace file.
		if rel, err = publishedPath(ws, a.URL); err != nil {
			return "", err
		}
	case a.Storage != declared.StorageWorkspace || a.WorkspacePath == "":
		return "", notAFile(a.Storage)
	case a.Status != declared.StatusAvailable:
		reason := a.MissingReason
		if reason == "" {
			reason = "it is missing"
		}
		return "", fmt.Errorf("%w: %s cannot be opened: %s", ErrFileUnavailable, a.WorkspacePath, reason)
	}
	// Open what the path resolves to now (the check above just passed), so a link swapped
	// in after it is not followed to somewhere else by the opener.
	clean, real, target, err := declared.ResolveWorkspaceTarget(ws, rel)
	if err != nil {
		return "", fmt.Errorf("%w: %s cannot be opened: %w", ErrFileUnavailable, rel, err)
	}
	if localfiles.Excluded(target) && !folder {
		what := clean + " is a hidden file or in a dependency folder"
		if target != clean {
			what = fmt.Sprintf("%s is a link to %s, a hidden file or a file in a dependency folder", clean, target)
		}
		return "", fmt.Errorf("%w: %s; the app does not open those (they can hold passwords and keys) — Reveal in folder shows where it is",
			ErrFileUnavailable, what)
	}
	return real, nil
}

// publishedPath returns the workspace-relative path of a published page's file: URL u,
// or ErrFileUnavailable when it does not name a file inside the workspace ws.
func publishedPath(ws, u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil || (pu.Host != "" && pu.Host != "localhost") {
		return "", fmt.Errorf("%w: %s is not a file on this computer", ErrFileUnavailable, u)
	}
	root, err := declared.RealWorkspace(ws)
	if err != nil {
		return "", fmt.Errorf("%w: the workspace folder: %w", ErrFileUnavailable, err)
	}
	rel, err := filepath.Rel(root, filepath.FromSlash(pu.Path))
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%w: %s is not inside the workspace", ErrFileUnavailable, pu.Path)
	}
	return filepath.ToSlash(rel), nil
}

// notAFile explains why an artifact of storage st has no file to open.
func notAFile(st string) error {
	if st == declared.StorageManaged {
		return fmt.Errorf("%w: a client keeps this artifact; there is no file to open", ErrNotAFile)
	}
	return fmt.Errorf("%w: this artifact is a link, not a file in the workspace; it opens in the browser", ErrNotAFile)
}

// openerWait is how long systemOpen waits for the opener to report a failure; an opener
// still running then has handed the file to an application.
const openerWait = 3 * time.Second

// systemOpen opens path p with the system's default application (reveal false) or shows
// it in its folder (reveal true), through openCommand. The program runs directly (os/exec,
// no shell), with the path as one argument (always absolute here, so it cannot read as an
// option). A failure it reports within openerWait is returned with the end of its stderr;
// after that it is left running and reaped in the background.
func systemOpen(ctx context.Context, p string, reveal bool) error {
	name, args := openCommand(runtime.GOOS, p, reveal)
	cmd := exec.Command(name, args...) // not CommandContext: the opener may outlive the call
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				return fmt.Errorf("%s: %w: %s", name, err, msg)
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	case <-time.After(openerWait):
		return nil
	case <-ctx.Done():
		return nil // the call ends; the opener goes on and is reaped by the goroutine
	}
}

// openCommand is the program and arguments that open p on goos (a GOOS value) with its
// default application, or, with reveal, show p in its folder: xdg-open on Linux and the
// BSDs, rundll32 url.dll,FileProtocolHandler on Windows, each given the folder holding p;
// on macOS "open -R p", which selects p in Finder and never opens the folder itself (open
// on a folder named x.app would launch it as an application).
func openCommand(goos, p string, reveal bool) (string, []string) {
	if reveal {
		if goos == "darwin" {
			return "open", []string{"-R", p}
		}
		p = filepath.Dir(p)
	}
	switch goos {
	case "darwin":
		return "open", []string{p}
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", p}
	default:
		return "xdg-open", []string{p}
	}
}

// tailBuffer keeps the last 2 KB written to it; safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p, dropping the oldest bytes past 2 KB.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - 2048; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

// String returns what is kept.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package app

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/export"
)

// ErrNotHTML: Publish was asked for an artifact whose content is not an HTML page
// (invalid_request).
var ErrNotHTML = fmt.Errorf("%w: only an HTML artifact can be published", ErrInvalidRequest)

// maxPublishSuffix bounds the " (n)" suffixes Publish tries before it gives up.
const maxPublishSuffix = 1000

// PublishResult is what Publish did: the declared artifact (storage "published", its url
// the file: URL of the page) and the page's absolute path.
type PublishResult struct {
	Artifact events.DeclaredArtifact `json:"artifact"`
	Path     string                  `json:"path"`
}

// Publish writes the current version of an HTML artifact (its content type names html) as
// one self-contained page (export.SelfContainedHTML: inline styles kept, no script,
// nothing fetched on open, remote images left as links) into the conversation's workspace
// folder, named after its title (export.Filename, .html), and declares it as a published
// artifact through the declared store's trusted publisher (storage "published", a file:
// URL inside the workspace, source client with no client id: a hold only the user lifts),
// so it shows in Links & files and opens with a click (OpenDeclared). The file is created,
// never replaced: a name already taken, by a user's file or a symbolic link, gets " (2)",
// " (3)", … instead, and the folder is the workspace's real path, so the page lands inside
// it. Errors: not_found (the conversation or artifact); invalid_request (ErrNotHTML);
// the file system's, wrapped; the declared store's.
func (s *ArtifactService) Publish(conversationID, artifactID string) (PublishResult, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	snap, err := s.manager(conversationID).Read(ctx, artifactID, 0)
	if err != nil {
		return PublishResult{}, err
	}
	if !strings.Contains(strings.ToLower(snap.ContentType), "html") {
		return PublishResult{}, fmt.Errorf("%w (%q is %s)", ErrNotHTML, snap.Title, snap.ContentType)
	}
	page, err := export.SelfContainedHTML(snap.Title, snap.Content)
	if err != nil {
		return PublishResult{}, err
	}
	ws, err := s.core.Workspace(ctx, conversationID)
	if err != nil {
		return PublishResult{}, err
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return PublishResult{}, fmt.Errorf("publish: the workspace folder: %w", err)
	}
	root, err := declared.RealWorkspace(ws)
	if err != nil {
		return PublishResult{}, fmt.Errorf("publish: the workspace folder: %w", err)
	}
	path, err := createUnique(root, export.Filename(snap.Title, ".html"), page)
	if err != nil {
		return PublishResult{}, err
	}
	title := strings.TrimSpace(snap.Title)
	if title == "" {
		title = filepath.Base(path)
	}
	changes, err := s.core.Declared().Upsert(ctx, conversationID, []declared.Input{{
		Kind: declared.KindHTML, Storage: declared.StoragePublish, Title: title, MimeType: "text/html",
		URL: (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String(), ManagedID: artifactID,
		Description: "Published from the artifact " + title + ".", Source: declared.SourceClient, TrustedPublisher: true,
	}}, true)
	if err != nil {
		_ = os.Remove(path) // not declared: leave no stray page behind
		return PublishResult{}, err
	}
	s.core.rememberExport(path) // the viewer's "Show in folder" (RevealExport)
	for _, ch := range changes {
		if ch.Action != declared.ActionRemoved && ch.Artifact != nil {
			return PublishResult{Artifact: *ch.Artifact, Path: path}, nil
		}
	}
	return PublishResult{Path: path}, nil
}

// createUnique creates name in dir with data, never replacing anything: when name is
// taken (a file, a folder or a symbolic link, dangling or not) it tries "stem (2).ext",
// "stem (3).ext", … (O_EXCL, so a file or link made meanwhile is not overwritten either).
// It returns the path written.
func createUnique(dir, name string, data []byte) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for n := 1; n <= maxPublishSuffix; n++ {
		try := name
		if n > 1 {
			try = fmt.Sprintf("%s (%d)%s", stem, n, ext)
		}
		p := filepath.Join(dir, try)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("publish: create %s: %w", try, err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(p)
			return "", fmt.Errorf("publish: write %s: %w", try, err)
		}
		return p, nil
	}
	return "", fmt.Errorf("publish: %s and %d numbered names are all taken in %s", name, maxPublishSuffix, dir)
}

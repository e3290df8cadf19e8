package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"artifactflow/app/internal/text"
	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/export"
	"artifactflow/backend/store"
)

// ArtifactService reads artifacts. During a run it reads the run's write-back cache, so
// the user sees edits before they are flushed.
type ArtifactService struct{ core *Core }

func (s *ArtifactService) manager(conversationID string) *artifact.Manager {
	if run := s.core.eng.Active(conversationID); run != nil {
		return run.Artifacts()
	}
	return artifact.NewManager(s.core.db, conversationID, "")
}

// items lists the artifacts of a conversation, stored ones overlaid with the working
// copies of the research running there, marked unsaved: this process's run's write-back
// cache, or, for a run another process holds (`artifactflow ask`, shown through
// Options.FollowOtherRuns), its last checkpoint (store.RunningDrafts, written after every
// tool round), so an artifact that run created can be opened before it is stored.
func (s *ArtifactService) items(ctx context.Context, conversationID string) ([]artifact.Item, error) {
	items, err := s.manager(conversationID).List(ctx)
	if err != nil || s.core.eng.Active(conversationID) != nil {
		return items, err
	}
	drafts, err := s.core.db.RunningDrafts(ctx, conversationID, s.core.instance)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(items))
	for i, it := range items {
		at[it.ID] = i
	}
	seen := map[string]bool{}
	for _, d := range drafts { // newest first: the first draft of an artifact wins
		if seen[d.ArtifactID] {
			continue
		}
		seen[d.ArtifactID] = true
		it := artifact.Item{ArtifactSnapshot: events.ArtifactSnapshot{ID: d.ArtifactID, ContentType: d.ContentType,
			Title: d.Title, Content: d.Content, Version: d.Version, Source: d.Source, UpdateType: d.UpdateType},
			UpdatedAt: d.UpdatedAt, Unsaved: true}
		if i, ok := at[d.ArtifactID]; ok {
			items[i] = it
		} else {
			items = append(items, it)
		}
	}
	return items, nil
}

// List returns the artifacts of a conversation, oldest first, with 200-rune previews.
func (s *ArtifactService) List(conversationID string) ([]ArtifactSummary, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	items, err := s.items(ctx, conversationID)
	if err != nil {
		return nil, err
	}
	out := make([]ArtifactSummary, len(items))
	for i, it := range items {
		out[i] = summaryOf(it)
	}
	return out, nil
}

// Get returns one artifact with its content.
func (s *ArtifactService) Get(conversationID, artifactID string) (ArtifactView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	items, err := s.items(ctx, conversationID)
	if err != nil {
		return ArtifactView{}, err
	}
	for _, it := range items {
		if it.ID == artifactID {
			return ArtifactView{ArtifactSummary: summaryOf(it), Content: it.Content}, nil
		}
	}
	return ArtifactView{}, fmt.Errorf("%w: %q", artifact.ErrNotFound, artifactID)
}

// Versions lists the stored versions of an artifact, oldest first (numbers may be sparse;
// edits inside one run are folded into one version). An artifact the running research
// created but has not stored yet (its working copy lives in the run's write-back cache
// until the run ends; for a run another process holds, in its checkpoint) has no stored
// version: the list is empty, not an error. Errors: an artifact that exists nowhere →
// store.ErrNotFound.
func (s *ArtifactService) Versions(conversationID, artifactID string) ([]VersionView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	infos, err := s.core.db.ListVersions(ctx, conversationID, artifactID)
	if errors.Is(err, store.ErrNotFound) && s.unstored(ctx, conversationID, artifactID) {
		return []VersionView{}, nil
	}
	if err != nil {
		return nil, err
	}
	questions := map[string]string{}
	out := make([]VersionView, len(infos))
	for i, v := range infos {
		q, seen := questions[v.MessageID]
		if !seen && v.MessageID != "" {
			if m, err := s.core.db.GetMessage(ctx, v.MessageID); err == nil {
				q = text.Clip(m.Content, 80)
			}
			questions[v.MessageID] = q
		}
		out[i] = VersionView{Version: v.Version, UpdateType: v.UpdateType, Source: v.Source, Size: v.Size,
			MessageID: v.MessageID, Message: q, CreatedAt: v.CreatedAt}
	}
	return out, nil
}

// unstored reports whether artifactID exists only as the running research's working copy
// (this process's run, or another process's: see items).
func (s *ArtifactService) unstored(ctx context.Context, conversationID, artifactID string) bool {
	items, err := s.items(ctx, conversationID)
	if err != nil {
		return false
	}
	for _, it := range items {
		if it.ID == artifactID {
			return true
		}
	}
	return false
}

// Version returns one stored version with its content.
func (s *ArtifactService) Version(conversationID, artifactID string, version int) (VersionContent, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	v, err := s.core.db.GetVersion(ctx, conversationID, artifactID, version)
	if err != nil {
		return VersionContent{}, err
	}
	return VersionContent{VersionView: VersionView{Version: v.Version, UpdateType: v.UpdateType, Source: v.Source,
		Size: v.Size, MessageID: v.MessageID, CreatedAt: v.CreatedAt}, Content: v.Content}, nil
}

// Save stores the user's edit of an artifact as a new version. baseVersion is the version
// the editor started from; if the artifact moved on meanwhile, or the running research
// holds unsaved changes to it, Save fails with a conflict and changes nothing.
func (s *ArtifactService) Save(conversationID, artifactID string, baseVersion int, content string) (ArtifactView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	snap, err := s.manager(conversationID).Edit(ctx, artifactID, baseVersion, content, store.UpdateUserEdit)
	if err != nil {
		return ArtifactView{}, err
	}
	return s.Get(conversationID, snap.ID)
}

// Restore makes an old version the content of a new version, with Save's conflict rules.
func (s *ArtifactService) Restore(conversationID, artifactID string, version, baseVersion int) (ArtifactView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	snap, err := s.manager(conversationID).Restore(ctx, artifactID, version, baseVersion)
	if err != nil {
		return ArtifactView{}, err
	}
	return s.Get(conversationID, snap.ID)
}

func summaryOf(it artifact.Item) ArtifactSummary {
	preview := it.Content
	if utf8.RuneCountInString(preview) > artifact.InventoryPreviewLength {
		preview = string([]rune(preview)[:artifact.InventoryPreviewLength])
	}
	return ArtifactSummary{ID: it.ID, Title: it.Title, ContentType: it.ContentType, Version: it.Version,
		Source: it.Source, Size: len(it.Content), Preview: preview, UpdatedAt: it.UpdatedAt, Unsaved: it.Unsaved}
}

// DraftView is an artifact's unsaved state that a run left behind when the app stopped
// (killed, crashed, power loss) before the run could save it: the last checkpoint, taken
// after its last completed tool round. BaseVersion is the stored version the run started
// from (0 = the run created the artifact); CurrentVersion the stored version now (0 =
// none); Size in bytes.
type DraftView struct {
	ArtifactID     string    `json:"artifact_id"`
	MessageID      string    `json:"message_id"`
	Title          string    `json:"title"`
	ContentType    string    `json:"content_type"`
	Content        string    `json:"content"`
	Size           int       `json:"size"`
	BaseVersion    int       `json:"base_version"`
	CurrentVersion int       `json:"current_version"`
	Question       string    `json:"question"`
	SavedAt        time.Time `json:"saved_at"`
}

// Drafts lists the recovered drafts of a conversation, newest first, so the window can
// offer to keep or discard each. Empty when nothing was lost.
func (s *ArtifactService) Drafts(conversationID string) ([]DraftView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	ds, err := s.core.db.RecoverableDrafts(ctx, conversationID)
	if err != nil {
		return nil, err
	}
	out := make([]DraftView, 0, len(ds))
	for _, d := range ds {
		v := DraftView{ArtifactID: d.ArtifactID, MessageID: d.MessageID, Title: d.Title, ContentType: d.ContentType,
			Content: d.Content, Size: len(d.Content), BaseVersion: d.BaseVersion, SavedAt: d.UpdatedAt}
		if a, err := s.core.db.GetArtifact(ctx, conversationID, d.ArtifactID); err == nil {
			v.CurrentVersion = a.CurrentVersion
		}
		if m, err := s.core.db.GetMessage(ctx, d.MessageID); err == nil {
			v.Question = m.Content
		}
		out = append(out, v)
	}
	return out, nil
}

// KeepDraft saves a recovered draft as a new version of its artifact (update_type
// "recover"), or creates the artifact when the interrupted run had created it, and
// removes the draft. Errors: no such draft (artifact.ErrNotFound); a run is changing the
// artifact right now (conflict).
func (s *ArtifactService) KeepDraft(conversationID, artifactID, messageID string) (ArtifactView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	ds, err := s.core.db.RecoverableDrafts(ctx, conversationID)
	if err != nil {
		return ArtifactView{}, err
	}
	for _, d := range ds {
		if d.ArtifactID == artifactID && d.MessageID == messageID {
			if _, err := s.manager(conversationID).Recover(ctx, d); err != nil {
				return ArtifactView{}, err
			}
			return s.Get(conversationID, artifactID)
		}
	}
	return ArtifactView{}, fmt.Errorf("%w: no recovered draft of %q from that run", artifact.ErrNotFound, artifactID)
}

// DiscardDraft deletes a recovered draft; the stored artifact is left as it is.
func (s *ArtifactService) DiscardDraft(conversationID, artifactID, messageID string) error {
	if messageID == "" {
		return fmt.Errorf("%w: discard draft of %q: which run's draft (message id) is missing", artifact.ErrNotFound, artifactID)
	}
	ctx, cancel := s.core.ctx()
	defer cancel()
	return s.core.db.DeleteDraft(ctx, conversationID, artifactID, messageID)
}

// ListDeclared returns the conversation's declared artifacts (links and workspace files
// registered by record_artifact, hooks and local clients), oldest first, with the status
// of workspace files refreshed by the declared service's rules (declared.Service.List).
// The panel's "Links & files" resyncs to it when a conversation opens and after a
// reconnect; events keep it live in between. Never nil. Errors: store.ErrNotFound
// (wrapped) for an unknown conversation; store errors.
func (s *ArtifactService) ListDeclared(conversationID string) ([]events.DeclaredArtifact, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	list, err := s.core.Declared().List(ctx, conversationID)
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []events.DeclaredArtifact{}
	}
	return list, nil
}

// RemoveDeclared removes a declared artifact from the conversation at the user's request
// (the user may remove any, client-retained ones included); the link or file it points to
// is untouched. An artifact_changed event (action "removed", reason "explicit") reaches
// the window through the Core's sinks; removing one already gone changes nothing and is
// not an error. Errors: store.ErrNotFound (wrapped) for an unknown conversation; store
// errors.
func (s *ArtifactService) RemoveDeclared(conversationID, artifactID string) error {
	ctx, cancel := s.core.ctx()
	defer cancel()
	_, err := s.core.Declared().Remove(ctx, conversationID, artifactID, "")
	return err
}

// OpenDeclared opens a declared workspace file with the system's default application
// (xdg-open, open, or rundll32 url.dll,FileProtocolHandler; run without a shell), after
// the declared service has checked it again, now, by its own rules: the path, followed
// through every symbolic link, must stay inside the conversation's workspace and the file
// must exist. Only document and media types of an allow-list, as regular files without an
// execute bit, are opened (opensAsDocument, docs/ARCHITECTURE.md "Security"); any other
// file is shown in its folder instead and ErrRevealedInstead says so. Links are opened by
// the page (the runtime's BrowserOpenURL), never here. Browser mode refuses this method
// (desktopOnly): a page must not make the computer open files. Errors:
// ErrDeclaredNotFound; ErrNotAFile for a link or managed artifact (ErrRevealedInstead, a
// kind of it, for a file revealed instead of opened); ErrFileUnavailable with the reason
// (missing, or a link that leaves the workspace); ErrOpenFailed; store errors.
func (s *ArtifactService) OpenDeclared(conversationID, artifactID string) error {
	return declaredFiles{core: s.core, launch: systemOpen}.open(conversationID, artifactID, false)
}

// RevealDeclared shows a declared workspace file in its folder in the system's file
// manager (on macOS selected in Finder, open -R), with OpenDeclared's checks, refusals and
// errors; the file itself is never opened.
func (s *ArtifactService) RevealDeclared(conversationID, artifactID string) error {
	return declaredFiles{core: s.core, launch: systemOpen}.open(conversationID, artifactID, true)
}

// DeleteArtifact deletes a document of the conversation for good, at the user's request:
// any artifact, agent-written or uploaded, the task plan included (the page asks for
// confirmation first). Its versions and crash drafts go with it; the original of an upload
// is removed from the data dir's blobs/ unless another artifact, here or in another
// conversation, holds the same bytes. An artifact_changed event (action "removed", reason
// "explicit", the artifact's last state) reaches the window through the Core's sinks.
// Errors: store.ErrNotFound (wrapped) for an unknown conversation; artifact.ErrNotFound;
// artifact.ErrConflict ("conflict: ...") while the running research holds unsaved changes
// to it; store errors.
func (s *ArtifactService) DeleteArtifact(conversationID, artifactID string) error {
	ctx, cancel := s.core.ctx()
	defer cancel()
	if _, err := s.core.db.GetConversation(ctx, conversationID); err != nil {
		return err
	}
	d, err := s.manager(conversationID).Delete(ctx, artifactID)
	if err != nil {
		return err
	}
	if d.Blob != "" {
		s.core.removeUnusedBlobs(ctx, []string{d.Blob})
	}
	s.core.emitArtifactRemoved(conversationID, d.ArtifactSnapshot)
	_ = s.core.db.TouchConversation(ctx, conversationID)
	return nil
}

// Export renders one version of an artifact (0 = the current content, including a running
// research's unsaved changes) as markdown, html or docx, with the references its [n]
// citations make to the conversation's sources. In the window it asks where to
// save and writes the file; in browser mode it returns the bytes.
func (s *ArtifactService) Export(conversationID, artifactID string, version int, format string) (ExportResult, error) {
	return s.export(conversationID, artifactID, version, format, nil)
}

// ExportWithDiagrams is Export with the Mermaid diagrams the page drew: diagrams maps the
// source of a ```mermaid block of the artifact (as its Markdown parser gives it; CRLF, and
// spaces, tabs and newlines at both ends, do not matter, see export.DiagramKey) to the SVG
// Mermaid drew for it. The html export shows each such block as that diagram, cleaned by
// an allow-list (no script, event handler, foreignObject, image or remote address), and
// any other block as its source; markdown and docx ignore diagrams and keep the source.
// An SVG larger than export.MaxDiagramBytes is ignored. More than export.MaxDiagrams
// diagrams is ErrInvalidRequest. See docs/ARCHITECTURE.md, "Export".
func (s *ArtifactService) ExportWithDiagrams(conversationID, artifactID string, version int, format string, diagrams map[string]string) (ExportResult, error) {
	if len(diagrams) > export.MaxDiagrams {
		return ExportResult{}, fmt.Errorf("%w: %d diagrams sent, at most %d are drawn in one export", ErrInvalidRequest, len(diagrams), export.MaxDiagrams)
	}
	return s.export(conversationID, artifactID, version, format, diagrams)
}

// export is Export and ExportWithDiagrams.
func (s *ArtifactService) export(conversationID, artifactID string, version int, format string, diagrams map[string]string) (ExportResult, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	snap, err := s.manager(conversationID).Read(ctx, artifactID, version)
	if err != nil {
		return ExportResult{}, err
	}
	list, err := s.core.db.Sources(ctx, conversationID) // the [n] of the export resolve against these
	if err != nil {
		return ExportResult{}, err
	}
	doc := export.Doc{Title: snap.Title, ContentType: snap.ContentType, Content: snap.Content, Version: snap.Version, Sources: list, Diagrams: diagrams}
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

// RevealExport shows a file that Export saved in this session in its folder (the
// SavedPath of its result) in the system's file manager: the exported notice's "Show in
// folder". Only paths Export wrote are accepted, so a page cannot make the computer open
// an arbitrary folder; browser mode refuses the method (desktopOnly). Errors:
// ErrNotExported; ErrFileUnavailable when the file is gone; ErrOpenFailed.
func (s *ArtifactService) RevealExport(path string) error {
	return s.core.revealExport(path, systemOpen)
}

// Upload stores files sent from the page as artifacts at once (upload bypass).
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
// Files over the size limit are refused by their size before they are read, and no read
// goes past the limit (see readLimited); folders, devices, named pipes and sockets are
// refused. Each refused path gets a result with its error.
func (s *ArtifactService) UploadPaths(conversationID string, paths []string) ([]UploadResult, error) {
	ups := make([]artifact.Upload, 0, len(paths))
	var failed []UploadResult
	for _, p := range paths {
		data, err := readLimited(p, s.core.MaxUploadBytes())
		if err != nil {
			failed = append(failed, failedUpload(UploadResult{Name: filepath.Base(p)}, err, 0, s.core.MaxUploadBytes()))
			continue
		}
		ups = append(ups, artifact.Upload{Name: filepath.Base(p), Data: data})
	}
	return s.upload(conversationID, ups, failed)
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
		title := "Files: " + artifact.UploadTitle(ups[0].Name) // no path, NUL or bidi override from the name
		// Marked with this process until a file is stored, so that a start after this process
		// is killed mid-upload removes the conversation if it stayed empty (sweepUploads).
		if err := s.core.db.CreateConversation(ctx, store.Conversation{ID: conversationID, Title: text.Clip(title, 60),
			TitleSource: store.TitleFromFiles, Metadata: store.PendingUploadMetadata(s.core.instance)}); err != nil {
			return nil, err
		}
	} else if _, err := s.core.db.GetConversation(ctx, conversationID); err != nil {
		return nil, err
	}
	m := s.manager(conversationID)
	blobs := filepath.Join(s.core.dataDir, config.BlobsDir)
	m.SetBlobLock(&s.core.blobMu) // see removeUnusedBlobs; held only while an original is written and stored
	for _, up := range ups {
		r, err := m.CreateFromUpload(ctx, blobs, up, s.core.MaxUploadBytes())
		res := UploadResult{Name: up.Name, ConversationID: conversationID, Size: len(up.Data)}
		if err != nil {
			res = failedUpload(res, err, int64(len(up.Data)), s.core.MaxUploadBytes())
		} else {
			res.ArtifactID, res.Title, res.ContentType, res.Readable, res.Note = r.ArtifactID, r.Title, r.ContentType, r.Readable, r.Note
			res.NoteParts = noteParts(r.NoteParts)
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
	if created {
		if err := s.core.db.ClearPendingUpload(ctx, conversationID); err != nil {
			s.core.log.Warn("app: could not clear the upload mark of a new conversation", "conversation", conversationID, "err", err)
		}
	}
	_ = s.core.db.TouchConversation(ctx, conversationID)
	s.core.files.Refresh(conversationID) // the uploads become searchable (search_files) in the background
	return results, nil
}

// Image returns the picture upload artifactID of conversationID holds, with its original
// bytes, for the window to show (a question's pictures, an image artifact's preview).
// Errors: artifact.ErrNotFound when the conversation has no such artifact;
// ErrInvalidRequest when it is not an uploaded picture; ErrFileUnavailable when its
// original is gone from the data dir's blobs/.
func (s *ArtifactService) Image(conversationID, artifactID string) (ImageView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	ref, err := artifact.ImageRef(ctx, s.core.db, conversationID, artifactID)
	if errors.Is(err, artifact.ErrNotImageUpload) {
		if _, gerr := s.core.db.GetArtifact(ctx, conversationID, artifactID); errors.Is(gerr, store.ErrNotFound) {
			return ImageView{}, fmt.Errorf("app: picture %q: %w", artifactID, artifact.ErrNotFound)
		}
		return ImageView{}, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if err != nil {
		return ImageView{}, err
	}
	data, err := os.ReadFile(filepath.Join(s.core.dataDir, config.BlobsDir, ref.SHA256))
	if err != nil {
		return ImageView{}, fmt.Errorf("%w: the original of %q: %w", ErrFileUnavailable, ref.Name, err)
	}
	return ImageView{Name: ref.Name, MIME: ref.MIME, Width: ref.Width, Height: ref.Height, Data: data}, nil
}

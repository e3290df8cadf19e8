package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
	"artifactflow/backend/tokens"
)

// callTimeout bounds one bound-method call's database work.
const callTimeout = 30 * time.Second

// Bindings returns the services bound to the window and to browser mode, in a fixed order.
func (c *Core) Bindings() []any {
	return []any{&ChatService{c}, &ConversationService{c}, &ArtifactService{c}, &SettingsService{c}}
}

func (c *Core) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callTimeout)
}

// ChatService starts and stops research runs.
type ChatService struct{ core *Core }

// Send starts a research run for req and returns at once with its ids; progress arrives
// as RunEventName events. req.ParentID or req.EditOf place the message in the message tree
// (see SendRequest). Errors: empty content, unknown conversation, a run already going
// in that conversation (engine.ErrBusy), no model configured (ErrNoModel); both ParentID
// and EditOf set (ErrInvalidRequest); a ParentID or EditOf outside the conversation
// (ErrMessageNotFound).
func (s *ChatService) Send(req SendRequest) (SendResult, error) {
	ereq, err := s.core.placeMessage(req)
	if err != nil {
		return SendResult{}, err
	}
	// The run outlives this call: it stops on Stop or when the app closes, not when the
	// bound call returns.
	run, err := s.core.eng.Start(context.Background(), ereq)
	if err != nil {
		return SendResult{}, err
	}
	return SendResult{ConversationID: run.ConversationID, MessageID: run.MessageID}, nil
}

// Stop cancels the run going in conversationID; the run flushes its artifacts and ends
// with a cancelled event. Stopping a conversation with no run is not an error.
func (s *ChatService) Stop(conversationID string) error {
	s.core.eng.Stop(conversationID)
	return nil
}

// Running returns the ids of conversations with a run in progress.
func (s *ChatService) Running() []string { return s.core.eng.Running() }

// ConversationService lists, opens, renames and deletes conversations.
type ConversationService struct{ core *Core }

// List returns every conversation, most recently updated first.
func (s *ConversationService) List() ([]ConversationSummary, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	convs, err := s.core.db.ListConversations(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	out := make([]ConversationSummary, len(convs))
	for i, cv := range convs {
		out[i] = s.summary(cv)
	}
	return out, nil
}

func (s *ConversationService) summary(cv store.Conversation) ConversationSummary {
	return ConversationSummary{ID: cv.ID, Title: cv.Title, CreatedAt: cv.CreatedAt, UpdatedAt: cv.UpdatedAt,
		Running: s.core.eng.Active(cv.ID) != nil, LastStatus: cv.LastStatus}
}

// Get returns a conversation and the messages on its active branch, root first, each with
// its branch position (MessageView.SiblingIDs, SiblingIndex; seed 003).
func (s *ConversationService) Get(id string) (ConversationDetail, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	cv, err := s.core.db.GetConversation(ctx, id)
	if err != nil {
		return ConversationDetail{}, err
	}
	var path []store.Message
	if cv.ActiveBranch != "" {
		if path, err = s.core.db.MessagePath(ctx, id, cv.ActiveBranch); err != nil {
			return ConversationDetail{}, err
		}
	}
	d := ConversationDetail{Conversation: s.summary(cv), Messages: make([]MessageView, len(path))}
	for i, m := range path {
		d.Messages[i] = MessageView{ID: m.ID, ParentID: m.ParentID, Content: m.Content, Response: m.GraphResponse,
			Status: m.Status, Error: m.Error, CreatedAt: m.CreatedAt}
	}
	if err := s.core.addBranches(ctx, id, d.Messages); err != nil {
		return ConversationDetail{}, err
	}
	return d, nil
}

// Events returns the stored events of one message's run in seq order: the activity flow
// of a past answer.
func (s *ConversationService) Events(conversationID, messageID string) ([]events.Event, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	return s.core.db.ListEvents(ctx, store.EventQuery{ConversationID: conversationID, MessageID: messageID})
}

// Rename sets a conversation's title (1-200 characters after trimming).
func (s *ConversationService) Rename(id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" || utf8.RuneCountInString(title) > 200 {
		return errors.New("title must be 1-200 characters")
	}
	ctx, cancel := s.core.ctx()
	defer cancel()
	return s.core.db.RenameConversation(ctx, id, title)
}

// Delete removes a conversation and everything in it (messages, events, artifacts and
// their versions, drafts, its search index rows) and the originals of its uploads under
// the data dir's blobs/ that no other conversation uses. A conversation with a run going
// is stopped first.
func (s *ConversationService) Delete(id string) error {
	if run := s.core.eng.Active(id); run != nil {
		s.core.eng.Stop(id)
		<-run.Done()
	}
	ctx, cancel := s.core.ctx()
	defer cancel()
	blobs, err := s.core.db.ConversationBlobs(ctx, id)
	if err != nil {
		return err
	}
	s.core.files.Forget(id) // its indexing pass ends before its rows go
	if err := s.core.db.DeleteConversation(ctx, id); err != nil {
		return err
	}
	s.core.removeUnusedBlobs(ctx, blobs)
	return nil
}

// ArtifactService reads artifacts. During a run it reads the run's write-back cache, so
// the user sees edits before they are flushed (seed 000).
type ArtifactService struct{ core *Core }

func (s *ArtifactService) manager(conversationID string) *artifact.Manager {
	if run := s.core.eng.Active(conversationID); run != nil {
		return run.Artifacts()
	}
	return artifact.NewManager(s.core.db, conversationID, "")
}

// List returns the artifacts of a conversation, oldest first, with 200-rune previews.
func (s *ArtifactService) List(conversationID string) ([]ArtifactSummary, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	items, err := s.manager(conversationID).List(ctx)
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
	items, err := s.manager(conversationID).List(ctx)
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

// Versions lists the stored versions of an artifact, oldest first (seed 000: numbers may
// be sparse; edits inside one run are folded into one version).
func (s *ArtifactService) Versions(conversationID, artifactID string) ([]VersionView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	infos, err := s.core.db.ListVersions(ctx, conversationID, artifactID)
	if err != nil {
		return nil, err
	}
	questions := map[string]string{}
	out := make([]VersionView, len(infos))
	for i, v := range infos {
		q, seen := questions[v.MessageID]
		if !seen && v.MessageID != "" {
			if m, err := s.core.db.GetMessage(ctx, v.MessageID); err == nil {
				q = clip(m.Content, 80)
			}
			questions[v.MessageID] = q
		}
		out[i] = VersionView{Version: v.Version, UpdateType: v.UpdateType, Source: v.Source, Size: v.Size,
			MessageID: v.MessageID, Message: q, CreatedAt: v.CreatedAt}
	}
	return out, nil
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

// SettingsService reads and saves the settings.
type SettingsService struct{ core *Core }

// Get returns the effective settings; the API key itself is never returned.
func (s *SettingsService) Get() (SettingsView, error) {
	return s.core.settingsView(), nil
}

// Save validates in and writes config.json (mode 0600). An empty APIKey keeps the stored
// key unless ClearAPIKey is set. ContextWindow and CompactAtPercent are stored for in.Model
// alone (issue 4: a threshold per model; with no model, for every model without its own);
// other models keep theirs. in.Search, in.Lead and in.SubAgents replace the stored ones
// (search keys: see SearchInput); left out (nil), they are kept. What the dialog does not
// edit (hooks, other models' context) is kept as stored. Errors wrap config.ErrInvalid and
// name the field ("lead.temperature: 3 is outside 0–2"). A field that a command-line flag or
// OPENAI_API_KEY sets this session (SettingsView.SetBy) keeps its stored value whatever in
// says (issue 10, item 6); every other saved value is used from the next run on.
func (s *SettingsService) Save(in SettingsInput) (SettingsView, error) {
	c := s.core
	c.mu.Lock()
	next := c.settings // hooks are edited in config.json; the dialog keeps them
	next.BaseURL, next.Model, next.ToolCallMode = strings.TrimSpace(in.BaseURL), strings.TrimSpace(in.Model), in.ToolCallMode
	next.SearxngURL, next.AllowPrivateNetwork = strings.TrimSpace(in.SearxngURL), in.AllowPrivateNetwork
	next.MaxUploadMB, next.ToolPermissions, next.PermissionTimeoutSeconds = in.MaxUploadMB, in.ToolPermissions, in.PermissionTimeoutSeconds
	if in.Search != nil {
		next.Search = applySearch(next.Search, *in.Search)
	}
	if in.Lead != nil {
		next.Lead = in.Lead.config()
	}
	if in.SubAgents != nil {
		next.SubAgents = in.SubAgents.config()
	}
	if next.Model != "" {
		next = next.WithModelContext(next.Model, config.ModelContext{ContextWindow: in.ContextWindow, CompactAtPercent: in.CompactAtPercent})
	} else { // no model chosen yet: the values apply to every model without its own
		next.ContextWindow, next.CompactAtPercent = in.ContextWindow, in.CompactAtPercent
	}
	if in.ToolPermissions == nil {
		next.ToolPermissions = c.settings.ToolPermissions // a form without the field keeps them
	}
	if key := strings.TrimSpace(in.APIKey); key != "" {
		next.APIKey = key
	} else if in.ClearAPIKey {
		next.APIKey = ""
	}
	next.LoadRemoteImages = in.LoadRemoteImages
	next = keepOverridden(next, c.settings, c.overrideSources()) // issue 10, item 6: flag values are never saved
	c.mu.Unlock()
	if err := config.Save(c.dataDir, next); err != nil {
		return SettingsView{}, err
	}
	c.mu.Lock()
	c.settings = next
	c.mu.Unlock()
	return c.settingsView(), nil
}

// ModelContext returns the context settings that apply to model, which need not be the
// chosen one: the settings dialog shows them while the user types another model's name.
func (s *SettingsService) ModelContext(model string) (ModelContextView, error) {
	return modelContextView(s.core.Settings(), model), nil
}

func modelContextView(s config.Settings, model string) ModelContextView {
	model = strings.TrimSpace(model)
	window, percent := s.ContextFor(model)
	v := ModelContextView{Model: model, ContextWindow: window, EffectiveContextWindow: window, CompactAtPercent: percent}
	if window == 0 {
		v.EffectiveContextWindow = tokens.ContextWindow(model)
	}
	return v
}

func (c *Core) settingsView() SettingsView {
	s := c.Settings()
	mc := modelContextView(s, s.Model)
	v := SettingsView{BaseURL: s.BaseURL, APIKeySet: s.APIKey != "", Model: s.Model, ToolCallMode: s.ToolCallMode,
		SearxngURL: s.SearxngURL, AllowPrivateNetwork: s.AllowPrivateNetwork, MaxUploadMB: s.MaxUploadMB,
		ContextWindow: mc.ContextWindow, EffectiveContextWindow: mc.EffectiveContextWindow, CompactAtPercent: mc.CompactAtPercent,
		ToolPermissions: s.ToolPermissions, PermissionTimeoutSeconds: s.PermissionTimeoutSeconds, DataDir: c.dataDir,
		Lead: agentSettingsOf(s.Lead), SubAgents: agentSettingsOf(s.SubAgents), SetBy: c.overrideSources(),
		LoadRemoteImages: s.LoadRemoteImages}
	if v.LoadRemoteImages == "" {
		v.LoadRemoteImages = config.LoadImagesAsk
	}
	if v.ToolPermissions == nil {
		v.ToolPermissions = map[string]string{}
	}
	c.searchView(s, &v)
	return v
}

package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"artifactflow/backend/events"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
)

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
		Running: s.core.eng.Active(cv.ID) != nil || s.core.runningElsewhere(cv.ID), LastStatus: cv.LastStatus}
}

// Get returns a conversation and the messages on its active branch, root first, each with
// its branch position (MessageView.SiblingIDs, SiblingIndex).
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
	if len(d.Messages) > 0 {
		fb, err := s.core.db.ConversationFeedback(ctx, id)
		if err != nil {
			return ConversationDetail{}, err
		}
		for i := range d.Messages {
			if f, ok := fb[d.Messages[i].ID]; ok {
				d.Messages[i].Feedback = &FeedbackView{Rating: f.Rating, Note: f.Note, At: f.At}
			}
		}
	}
	return d, nil
}

// SetFeedback records the user's rating of one finished run: rating "up" or "down" with
// an optional note (plain text, trimmed, at most events.MaxFeedbackNote characters), or
// rating "" and no note to clear it. It is stored as a feedback event of the run's message
// (store.AppendFeedback), so it outlives compaction and branch switches and travels in the
// conversation's file; every sink also gets the event, so other windows on the conversation
// update. It returns the rating as now stored. The conversation's updated_at does not
// change. Errors: a bad rating or note, or a run still going (store.ErrInvalid); an unknown
// conversation or message (store.ErrNotFound).
func (s *ConversationService) SetFeedback(conversationID, messageID, rating, note string) (FeedbackView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	ev, err := s.core.db.AppendFeedback(ctx, conversationID, messageID, events.DataFeedback{Rating: rating, Note: note})
	if err != nil {
		return FeedbackView{}, err
	}
	s.core.emit(ev)
	var d events.DataFeedback
	_ = json.Unmarshal(ev.Data, &d) // written by AppendFeedback just now
	if d.Rating == "" {
		return FeedbackView{}, nil
	}
	return FeedbackView{Rating: d.Rating, Note: d.Note, At: ev.CreatedAt}, nil
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
// is stopped first, here or in another process on the same data dir (asked through the
// database, see ChatService.Stop; the rows are not removed under a run still writing
// them). Errors: engine.ErrBusy when another process's run has not stopped within
// stopElsewhereWait; store errors.
func (s *ConversationService) Delete(id string) error {
	if run := s.core.eng.Active(id); run != nil {
		s.core.eng.Stop(id)
		<-run.Done()
	}
	ctx, cancel := s.core.ctx()
	defer cancel()
	if err := s.core.stopElsewhere(ctx, id); err != nil {
		return err
	}
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

// Sentinel errors of the branch, search and history calls. Their text is the code the
// page's ApiError reads from a "code: message" error.
var (
	// ErrInvalidRequest: fields of a request contradict each other (SendRequest with both
	// parent_id and edit_of).
	ErrInvalidRequest = errors.New("invalid_request")
	// ErrMessageNotFound: a message id (parent_id, edit_of, Regenerate, SwitchBranch) names
	// no message of the conversation. It also wraps store.ErrNotFound when the store said so.
	ErrMessageNotFound = errors.New("message_not_found")
)

// searchResults is how many conversations Search returns at most.
const searchResults = 100

// SwitchBranch shows another branch: the conversation's active_branch becomes the newest
// leaf below messageID (following the most recent child at each step, store.LatestLeaf),
// so choosing a sibling in the navigator shows that branch to its end. It returns the
// conversation as Get does. The conversation's updated_at does not change. A run going in
// the conversation keeps running on its own branch. Errors: unknown conversation
// (store.ErrNotFound); ErrMessageNotFound.
func (s *ConversationService) SwitchBranch(conversationID, messageID string) (ConversationDetail, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	if _, err := s.core.db.GetConversation(ctx, conversationID); err != nil {
		return ConversationDetail{}, err
	}
	leaf, err := s.core.db.LatestLeaf(ctx, conversationID, messageID)
	if errors.Is(err, store.ErrNotFound) {
		return ConversationDetail{}, fmt.Errorf("%w: %w", ErrMessageNotFound, err)
	}
	if err != nil {
		return ConversationDetail{}, err
	}
	if err := s.core.db.SetActiveBranch(ctx, conversationID, leaf.ID); err != nil {
		return ConversationDetail{}, err
	}
	return s.Get(conversationID)
}

// Search finds conversations whose title or message text (questions and answers, on every
// branch) contains every term of query, best match first, at most 100, each with a Snippet
// (store.SearchConversations). Matching is by substring, ignoring case and diacritics, and
// works for Chinese and Japanese without spaces; quoted text is one term. Any text is safe
// to pass: an empty or punctuation-only query returns the most recently updated
// conversations with empty snippets, never an error.
func (s *ConversationService) Search(query string) ([]ConversationSummary, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	hits, err := s.core.db.SearchConversations(ctx, query, searchResults)
	if err != nil {
		return nil, err
	}
	out := make([]ConversationSummary, len(hits))
	for i, h := range hits {
		out[i] = s.summary(h.Conversation)
		out[i].Snippet = h.Snippet
	}
	return out, nil
}

// History returns one page of the conversation's history for the user: the stored events
// of the messages on the active branch, in seq order, paged by the cursors of req (see
// HistoryRequest). Every original message and tool result stays visible after compaction,
// with its compaction_start / compaction_summary markers; there is no cap on the length of
// a conversation. Events is never null. Errors: unknown conversation (store.ErrNotFound);
// negative cursors or limit, or before_seq <= after_seq when both are set
// (store.ErrInvalid).
func (s *ConversationService) History(conversationID string, req HistoryRequest) (HistoryPage, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	p, err := s.core.db.History(ctx, store.HistoryQuery{ConversationID: conversationID, AfterSeq: req.AfterSeq,
		BeforeSeq: req.BeforeSeq, Limit: req.Limit, Latest: req.Latest})
	if err != nil {
		return HistoryPage{}, err
	}
	if p.Events == nil {
		p.Events = []events.Event{}
	}
	return HistoryPage{Events: p.Events, HasBefore: p.HasBefore, HasAfter: p.HasAfter, FirstSeq: p.FirstSeq, LastSeq: p.LastSeq}, nil
}

// Sources returns the conversation's numbered source list: every search result, fetched
// page and local-file hit its agents saw, in number order, so the page can resolve the [n]
// citations of answers and reports. A conversation without sources, or an unknown one,
// gives an empty list.
func (s *ConversationService) Sources(conversationID string) ([]sources.Source, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	return s.core.db.Sources(ctx, conversationID)
}

// WorkspaceStatus returns the conversation's workspace folder and what its index holds.
// It starts no indexing. Errors: store.ErrNotFound (wrapped) for an unknown conversation.
func (s *ConversationService) WorkspaceStatus(conversationID string) (WorkspaceStatus, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	return s.core.workspaceStatus(ctx, conversationID)
}

// Reindex starts an indexing pass of the conversation's workspace folder and uploads in
// the background, reading again the files that failed or were skipped before (a pass
// already running is followed by this one), and returns the status at once; progress
// arrives as index_progress events. Errors: store.ErrNotFound (wrapped) for an unknown
// conversation.
func (s *ConversationService) Reindex(conversationID string) (WorkspaceStatus, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	if _, err := s.core.db.GetConversation(ctx, conversationID); err != nil {
		return WorkspaceStatus{}, err
	}
	s.core.files.Start(conversationID, true)
	return s.core.workspaceStatus(ctx, conversationID)
}

// ChooseWorkspace asks for a folder with the native dialog and makes it the
// conversation's workspace folder: the index of the old folder is dropped and the new one
// is indexed in the background (index_progress events). conversationID "" creates a
// conversation named after the folder once one is chosen. A cancelled dialog changes
// nothing and returns the current status ("" conversation: an empty status).
//
// Desktop only: browser mode refuses it (desktopOnly) and where there is no folder dialog
// it fails with ErrNoFolderDialog. Errors: store.ErrNotFound (wrapped) for an unknown
// conversation; a chosen path that is not a folder.
func (s *ConversationService) ChooseWorkspace(conversationID string) (WorkspaceStatus, error) {
	s.core.mu.Lock()
	fc, ok := s.core.dialogs.(FolderChooser)
	s.core.mu.Unlock()
	if !ok {
		return WorkspaceStatus{}, fmt.Errorf("%w: choosing a folder needs the desktop window", ErrNoFolderDialog)
	}
	ctx, cancel := s.core.ctx()
	defer cancel()
	start := ""
	if conversationID != "" {
		st, err := s.core.workspaceStatus(ctx, conversationID)
		if err != nil {
			return WorkspaceStatus{}, err
		}
		if st.Exists {
			start = st.Folder
		}
	}
	// The dialog waits for the user, so it runs outside the call's timeout.
	dir, err := fc.ChooseFolder("Choose the folder for this research", start)
	if err != nil {
		return WorkspaceStatus{}, fmt.Errorf("folder dialog: %w", err)
	}
	ctx2, cancel2 := s.core.ctx()
	defer cancel2()
	if dir == "" {
		if conversationID == "" {
			return WorkspaceStatus{}, nil
		}
		return s.core.workspaceStatus(ctx2, conversationID)
	}
	return s.core.setWorkspace(ctx2, conversationID, dir)
}

// ResetWorkspace makes the conversation's workspace the default folder again
// (<data-dir>/workspaces/<conversation-id>): the chosen folder's index is dropped and the
// default folder is indexed. Errors: store.ErrNotFound (wrapped) for an unknown
// conversation.
func (s *ConversationService) ResetWorkspace(conversationID string) (WorkspaceStatus, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	return s.core.setWorkspace(ctx, conversationID, "")
}

// WorkspaceFailures lists the files of the conversation's workspace (and uploads) that the
// index left out, by path, with the reason (at most 500). Errors: store.ErrNotFound
// (wrapped) for an unknown conversation.
func (s *ConversationService) WorkspaceFailures(conversationID string) ([]IndexFailure, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	if _, err := s.core.db.GetConversation(ctx, conversationID); err != nil {
		return nil, err
	}
	files, err := s.core.files.Unindexed(ctx, conversationID, maxFailuresShown)
	if err != nil {
		return nil, err
	}
	out := make([]IndexFailure, len(files))
	for i, f := range files {
		out[i] = IndexFailure{Path: f.Path, Status: f.Status, Reason: f.Reason, Size: f.Size}
	}
	return out, nil
}

package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

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

// Regenerate runs messageID's question again as a new answer beside the old one (seed 003):
// a new message with the same content and the same parent (a new root when messageID is
// the first question), which becomes the active branch. The old answer is kept; both are
// reachable through SwitchBranch. conversationID "" is taken from the message.
// Returns at once like Send. Errors: ErrMessageNotFound, and Send's errors
// (engine.ErrBusy while a run is going in the conversation, ErrNoModel ...).
func (s *ChatService) Regenerate(conversationID, messageID string) (SendResult, error) {
	m, err := s.core.messageOf(conversationID, messageID)
	if err != nil {
		return SendResult{}, err
	}
	return s.Send(SendRequest{ConversationID: m.ConversationID, Content: m.Content, EditOf: m.ID})
}

// SwitchBranch shows another branch (seed 003, active_branch follows the user's choice):
// the conversation's active_branch becomes the newest leaf below messageID (following the
// most recent child at each step, store.LatestLeaf), so choosing a sibling in the
// navigator shows that branch to its end. It returns the conversation as Get does. The
// conversation's updated_at does not change. A run going in the conversation keeps running
// on its own branch. Errors: unknown conversation (store.ErrNotFound); ErrMessageNotFound.
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
// (issue 4, item 9; store.SearchConversations). Matching is by substring, ignoring case and
// diacritics, and works for Chinese and Japanese without spaces; quoted text is one term.
// Any text is safe to pass: an empty or punctuation-only query returns the most recently
// updated conversations with empty snippets, never an error.
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

// History returns one page of the conversation's history for the user (seed 004): the
// stored events of the messages on the active branch, in seq order, paged by the cursors
// of req (see HistoryRequest). Every original message and tool result stays visible after
// compaction, with its compaction_start / compaction_summary markers; there is no cap on
// the length of a conversation. Events is never null. Errors: unknown conversation
// (store.ErrNotFound); negative cursors or limit, or before_seq <= after_seq when both are
// set (store.ErrInvalid).
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

// messageOf returns message id, checking that it belongs to conversationID when that is
// set. Errors: ErrMessageNotFound.
func (c *Core) messageOf(conversationID, id string) (store.Message, error) {
	if id == "" {
		return store.Message{}, fmt.Errorf("%w: no message id given", ErrMessageNotFound)
	}
	ctx, cancel := c.ctx()
	defer cancel()
	m, err := c.db.GetMessage(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Message{}, fmt.Errorf("%w: %w", ErrMessageNotFound, err)
	}
	if err != nil {
		return store.Message{}, err
	}
	if conversationID != "" && m.ConversationID != conversationID {
		return store.Message{}, fmt.Errorf("%w: message %q is not in conversation %q", ErrMessageNotFound, id, conversationID)
	}
	return m, nil
}

// placeMessage turns a SendRequest into an engine request, resolving ParentID and EditOf
// to the parent of the new message (see SendRequest).
func (c *Core) placeMessage(req SendRequest) (engine.Request, error) {
	out := engine.Request{ConversationID: req.ConversationID, Content: req.Content}
	switch {
	case req.ParentID != "" && req.EditOf != "":
		return engine.Request{}, fmt.Errorf("%w: give parent_id or edit_of, not both", ErrInvalidRequest)
	case req.ParentID != "":
		m, err := c.messageOf(req.ConversationID, req.ParentID)
		if err != nil {
			return engine.Request{}, err
		}
		out.ConversationID, out.ParentID = m.ConversationID, m.ID
	case req.EditOf != "":
		m, err := c.messageOf(req.ConversationID, req.EditOf)
		if err != nil {
			return engine.Request{}, err
		}
		out.ConversationID, out.ParentID, out.Root = m.ConversationID, m.ParentID, m.ParentID == ""
	}
	return out, nil
}

// addBranches fills SiblingIDs and SiblingIndex of the messages of a path from the
// conversation's message tree (one query for the whole tree).
func (c *Core) addBranches(ctx context.Context, conversationID string, msgs []MessageView) error {
	if len(msgs) == 0 {
		return nil
	}
	tree, err := c.db.MessageTree(ctx, conversationID)
	if err != nil {
		return err
	}
	children := map[string][]string{}
	for _, n := range tree {
		children[n.ParentID] = append(children[n.ParentID], n.ID)
	}
	for i := range msgs {
		sib := children[msgs[i].ParentID]
		msgs[i].SiblingIDs, msgs[i].SiblingIndex = []string{msgs[i].ID}, 0
		for j, id := range sib {
			if id == msgs[i].ID {
				msgs[i].SiblingIDs, msgs[i].SiblingIndex = sib, j
				break
			}
		}
	}
	return nil
}

// blobName is the form of an upload's blob file name (SHA-256 hex, artifact.CreateFromUpload).
var blobName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// removeUnusedBlobs deletes, from the data dir's blobs/, those of blobs that no artifact
// records any more (blobs are content addressed and may be shared between conversations).
// Names that are not SHA-256 hex are never touched. Failures are logged, not returned: the
// conversation is already gone and a leftover blob only costs disk space.
//
// An upload of the same bytes into another conversation that runs between the in-use check
// and the removal would lose its original (its text is already in the database); the
// window is a few milliseconds of a user deleting one conversation while uploading the
// same file to another.
func (c *Core) removeUnusedBlobs(ctx context.Context, blobs []string) {
	c.blobMu.Lock() // an upload of the same file cannot slip between the check and the removal
	defer c.blobMu.Unlock()
	inUse, err := c.db.BlobsInUse(ctx, blobs)
	if err != nil {
		c.log.Warn("could not check which upload originals are still used; keeping them", "err", err)
		return
	}
	dir := filepath.Join(c.dataDir, config.BlobsDir)
	for _, b := range blobs {
		if inUse[b] || !blobName.MatchString(b) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, b)); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.log.Warn("could not remove the original of a deleted upload", "blob", b, "err", err)
		}
	}
}

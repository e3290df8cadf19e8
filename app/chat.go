package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
)

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
// with a cancelled event. A run another process on the same data dir holds (`artifactflow
// ask`, browser mode) is asked to stop through the database (store.RequestStop); that
// process stops it when it next looks, within its own FollowInterval. Stopping a
// conversation with no run is not an error. Errors: the request could not be written.
func (s *ChatService) Stop(conversationID string) error {
	if s.core.eng.Stop(conversationID) {
		return nil
	}
	ctx, cancel := s.core.ctx()
	defer cancel()
	if _, err := s.core.db.RequestStop(ctx, conversationID, s.core.instance); err != nil {
		return fmt.Errorf("app: ask another process to stop the run: %w", err)
	}
	return nil
}

// Running returns the ids of conversations with a run in progress: in this process, or in
// another one on the same data dir when this Core follows them (Options.FollowOtherRuns).
func (s *ChatService) Running() []string {
	ids := s.core.eng.Running()
	for _, id := range s.core.runningElsewhereIDs() {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Regenerate runs messageID's question again as a new answer beside the old one: a new
// message with the same content, pictures and parent (a new root when messageID is the first
// question), which becomes the active branch. The old answer is kept; both are reachable
// through SwitchBranch. conversationID "" is taken from the message. Returns at once like
// Send. Errors: ErrMessageNotFound, and Send's errors (engine.ErrBusy while a run is going
// in the conversation, ErrNoModel ...).
func (s *ChatService) Regenerate(conversationID, messageID string) (SendResult, error) {
	m, err := s.core.messageOf(conversationID, messageID)
	if err != nil {
		return SendResult{}, err
	}
	var images []string
	for _, im := range events.ImagesOf(m.Metadata) {
		images = append(images, im.ArtifactID)
	}
	return s.Send(SendRequest{ConversationID: m.ConversationID, Content: m.Content, EditOf: m.ID, Images: images})
}

// QueueResult tells what became of a message sent while a run was going: Queued with the
// queued message's id when the running lead will take it at its next round; otherwise
// (the run had just answered) a new run was started and Run holds its ids.
type QueueResult struct {
	Queued   bool       `json:"queued"`
	QueuedID string     `json:"queued_id,omitempty"`
	Run      SendResult `json:"run"`
}

// Queue sends a message to the research going in conversationID: the lead gets it at
// its next round. When no run is going, or the lead has already given its final
// answer, the message starts a new run instead, so it is never lost.
func (s *ChatService) Queue(conversationID, content string) (QueueResult, error) {
	id, err := s.core.eng.Inject(conversationID, content)
	if err == nil {
		return QueueResult{Queued: true, QueuedID: id, Run: SendResult{ConversationID: conversationID}}, nil
	}
	if !errors.Is(err, engine.ErrNotRunning) {
		return QueueResult{}, err
	}
	if r := s.core.eng.Active(conversationID); r != nil {
		r.SkipSuggestions() // this message makes them stale; do not wait up to their timeout
		<-r.Done()          // it has answered and is saving: start the next run right after
	}
	sent, err := s.Send(SendRequest{ConversationID: conversationID, Content: content})
	if err != nil {
		return QueueResult{}, err
	}
	return QueueResult{Run: sent}, nil
}

// Respond answers a permission request of the running research: decision is "approve",
// "deny" or "always_allow"; always_allow also saves the tool as auto in the settings
// so later runs do not ask again (for an MCP tool, its server's permission becomes auto:
// every tool of that server runs without asking).
func (s *ChatService) Respond(conversationID, requestID, decision string) error {
	tool, err := s.core.eng.Respond(conversationID, requestID, decision)
	if err != nil {
		return err
	}
	if decision != events.DecisionAlwaysAllow {
		return nil
	}
	if isMCP, err := s.core.allowMCPServer(tool); isMCP { // an MCP tool: its server is allowed
		if err != nil {
			return fmt.Errorf("app: the call was allowed, but saving \"always allow\" for its MCP server failed: %w", err)
		}
		return nil
	}
	err = s.core.updateSettings(func(cur config.Settings) (config.Settings, error) {
		perms := maps.Clone(cur.ToolPermissions) // the file as it is now: only this tool's entry changes
		if perms == nil {
			perms = map[string]string{}
		}
		perms[tool] = engine.PolicyAuto
		cur.ToolPermissions = perms
		return cur, nil
	})
	if err != nil {
		return fmt.Errorf("app: the call was allowed, but saving \"always allow %s\" failed: %w", tool, err)
	}
	return nil
}

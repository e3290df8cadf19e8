package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"artifactflow/backend/events"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/tools"
)

// Sentinel errors of Inject and Respond.
var (
	// ErrNotRunning: no run is going in the conversation, or it has already given its final
	// answer; send the message as a new run instead.
	ErrNotRunning = errors.New("no run in progress to take the message")
	// ErrNoSuchRequest: the permission request is unknown or already decided.
	ErrNoSuchRequest = errors.New("no such permission request")
	// ErrBadDecision: a decision other than approve, deny or always_allow.
	ErrBadDecision = errors.New("decision must be approve, deny or always_allow")
)

// Inject queues a user message for the run going in conversationID: it is recorded at once
// as queued_message and given to the lead at its next round (as user_input). It returns the
// queued message's id. Errors: ErrEmptyMessage; ErrNotRunning when there is no run or the
// lead has already answered.
func (e *Engine) Inject(conversationID, content string) (string, error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return "", ErrEmptyMessage
	}
	r := e.Active(conversationID)
	if r == nil {
		return "", ErrNotRunning
	}
	r.qmu.Lock()
	defer r.qmu.Unlock()
	if r.queueClosed {
		return "", ErrNotRunning
	}
	q := events.DataQueuedMessage{ID: uuid.NewString(), Content: content}
	r.queue = append(r.queue, q)
	r.em.emit(context.Background(), events.QueuedMessage, e.lead.Name, q)
	return q.ID, nil
}

// takeQueue removes and returns the queued messages. When final is set and the queue is
// empty, the queue is closed so that later Injects fail with ErrNotRunning instead of
// being lost after the lead's last answer.
func (r *Run) takeQueue(final bool) []events.DataQueuedMessage {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	q := r.queue
	r.queue = nil
	if final && len(q) == 0 {
		r.queueClosed = true
	}
	return q
}

func (r *Run) closeQueue() {
	r.qmu.Lock()
	r.queueClosed = true
	r.qmu.Unlock()
}

// Respond gives the user's decision on a permission request of the run going in
// conversationID: events.DecisionApprove, DecisionDeny or DecisionAlwaysAllow (which also
// approves the tool for the rest of the run; the caller persists it as a setting).
// It returns the name of the tool the request was for. Errors: ErrBadDecision,
// ErrNotRunning, ErrNoSuchRequest.
func (e *Engine) Respond(conversationID, requestID, decision string) (string, error) {
	switch decision {
	case events.DecisionApprove, events.DecisionDeny, events.DecisionAlwaysAllow:
	default:
		return "", fmt.Errorf("%w: %q", ErrBadDecision, decision)
	}
	r := e.Active(conversationID)
	if r == nil {
		return "", ErrNotRunning
	}
	r.qmu.Lock()
	p, ok := r.pending[requestID]
	delete(r.pending, requestID)
	r.qmu.Unlock()
	if !ok {
		return "", fmt.Errorf("%w: %s", ErrNoSuchRequest, requestID)
	}
	p.ch <- decision
	return p.tool, nil
}

// pendingPermission is a permission request waiting for the user.
type pendingPermission struct {
	ch   chan string
	tool string
}

// permit asks the user to approve call when its tool's policy is confirm:
// permission_request, then a wait for Respond, the timeout (deny) or cancellation, then
// permission_result. It returns a failed Result to give the model when the call may not
// run, nil when it may, and an error only when the run is cancelled. Requests of calls
// running at once queue: one is shown at a time, in the order they asked, each with its
// full timeout from when it is shown; an "always allow" given to one lets the calls of the
// same tool through for the rest of the run without asking, or of its whole group when the
// tool has one (tools.PermissionGroup: every tool of one MCP server).
func (rs *runState) permit(ctx context.Context, agentName string, call toolcall.Call) (*tools.Result, error) {
	scope := call.Name // what "always allow" covers: the tool, or its group (an MCP server's tools)
	if t, err := rs.reg.Get(call.Name); err == nil {
		if g, ok := t.(tools.PermissionGroup); ok && g.PermissionGroup() != "" {
			scope = g.PermissionGroup()
		}
	}
	if rs.deps.Permissions[call.Name] != PolicyConfirm || rs.isAllowed(scope) {
		return nil, nil
	}
	select {
	case rs.permSlot <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-rs.permSlot }()
	if rs.isAllowed(scope) { // allowed while this call waited for its turn
		return nil, nil
	}
	timeout := rs.deps.PermissionTimeout
	if timeout <= 0 {
		timeout = DefaultPermissionTimeout
	}
	id := uuid.NewString()
	ch := make(chan string, 1)
	r := rs.r
	r.qmu.Lock()
	if r.pending == nil {
		r.pending = map[string]pendingPermission{}
	}
	r.pending[id] = pendingPermission{ch: ch, tool: call.Name}
	r.qmu.Unlock()
	defer func() {
		r.qmu.Lock()
		delete(r.pending, id)
		r.qmu.Unlock()
	}()
	rs.em.emit(ctx, events.PermissionRequest, agentName, events.DataPermissionRequest{RequestID: id, CallID: call.ID,
		Tool: call.Name, Params: events.MustData(call.Params), TimeoutMS: timeout.Milliseconds()})
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var decision string
	select {
	case decision = <-ch:
	case <-timer.C:
		decision = events.DecisionTimeout
	case <-ctx.Done():
		rs.em.emit(ctx, events.PermissionResult, agentName, events.DataPermissionResult{RequestID: id, Tool: call.Name,
			Decision: events.DecisionCancelled})
		return nil, context.Cause(ctx)
	}
	rs.em.emit(ctx, events.PermissionResult, agentName, events.DataPermissionResult{RequestID: id, Tool: call.Name, Decision: decision})
	switch decision {
	case events.DecisionApprove:
		return nil, nil
	case events.DecisionAlwaysAllow:
		rs.mu.Lock()
		rs.allowed[scope] = true
		rs.mu.Unlock()
		return nil, nil
	case events.DecisionTimeout:
		res := tools.Fail("the user did not answer the request to allow this %s call within %s, so it was not run; do not call %s again in this run: continue with what you have, and tell the user in your answer what you could not check", call.Name, timeout.Round(time.Second), call.Name)
		return &res, nil
	default:
		res := tools.Fail("the user denied this %s call; do not call %s again in this run: continue with what you have, and tell the user in your answer what you could not check", call.Name, call.Name)
		return &res, nil
	}
}

// isAllowed reports whether the user allowed tool for the rest of the run.
func (rs *runState) isAllowed(tool string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.allowed[tool]
}

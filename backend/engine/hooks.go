package engine

import (
	"context"
	"encoding/json"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/hooks"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/tools"
)

// Bounds of the hooks that run after a run has ended: the Stop hooks run one after
// another, each within its own timeout, and all of them within StopHooksTimeout, on a
// context of their own (the run's context may already be cancelled), which Stop and Close
// cancel.
const (
	// StopHooksTimeout bounds all the Stop hooks of one run together.
	StopHooksTimeout = 2 * time.Minute
	// declareTimeout bounds storing what the Stop hooks declared.
	declareTimeout = 10 * time.Second
)

// newHooks returns the Runner of deps.Hooks, nil when there are none. Entries that fail
// validation (a hand-edited config.json) are skipped with a warning.
func (e *Engine) newHooks(deps Deps) *hooks.Runner {
	if len(deps.Hooks) == 0 {
		return nil
	}
	r, err := hooks.New(deps.Hooks, hooks.Options{Workspace: deps.Workspace, Logger: e.cfg.Logger})
	if err != nil {
		e.cfg.Logger.Warn("some hooks in config.json are invalid and are skipped", "err", err)
	}
	return r
}

// postToolHooks runs the PostToolUse hooks matching the call's tool after the call has
// completed, successfully or not, on the run's context (stopping the run kills them), and
// records what they did: a hook_result event per hook, then the artifacts they declared,
// concatenated and stored in one batch without strict (invalid ones are dropped by the
// store), each change as an artifact_changed event.
func (rs *runState) postToolHooks(ctx context.Context, agentName string, call toolcall.Call, params json.RawMessage, res tools.Result) {
	r := rs.r.hooks
	if r.Matching(config.HookPostToolUse, call.Name) == 0 || ctx.Err() != nil {
		return
	}
	if len(params) == 0 || params[0] != '{' {
		params = json.RawMessage("{}") // tool_input is always an object
	}
	in := hooks.Input{HookEventName: config.HookPostToolUse, ConversationID: rs.r.ConversationID, MessageID: rs.r.MessageID,
		AgentName: agentName, ToolName: call.Name, ToolCallID: call.ID, ToolInput: params,
		ToolResult: &hooks.ToolResult{Success: res.Success, Result: res.Data, Error: res.Error}}
	outs := r.Run(ctx, in)
	rs.e.recordHooks(ctx, rs.em, agentName, rs.deps.Declared, rs.r.ConversationID, in, outs)
}

// runStopHooks runs the Stop hooks after the run's terminal event: on a context derived
// from the engine's (not the run's, which may be cancelled), bounded by StopHooksTimeout,
// and cancelled by Stop on the conversation and by Close. Their hook_result and
// artifact_changed events follow the terminal event.
func (e *Engine) runStopHooks(r *Run, deps Deps, em *emitter) {
	r.hmu.Lock() // finishing is already set: execute sets it with the terminal event
	if r.hooks.Matching(config.HookStop, "") == 0 {
		r.hmu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(e.base, StopHooksTimeout)
	r.cancelStop = cancel
	r.hmu.Unlock()
	defer cancel()

	res := r.result
	in := hooks.Input{HookEventName: config.HookStop, ConversationID: r.ConversationID, MessageID: r.MessageID,
		Status: string(res.Status), Answer: res.Response}
	if res.Err != nil {
		in.Error = res.Err.Error()
	}
	outs := r.hooks.Run(ctx, in)
	// The events and the store write go on after a cancel: the hooks have exited, and
	// what they did is recorded.
	e.recordHooks(context.WithoutCancel(ctx), em, "", deps.Declared, r.ConversationID, in, outs)
}

// recordHooks stores the artifacts the hooks declared (source hook, not strict), then
// emits one hook_result per outcome and an artifact_changed per change. A hook_result's
// Dropped counts, besides what the hook runner could not read, the hook's artifacts the
// declared store did not take: invalid ones, and those over the hooks' share of a full
// conversation (hooks over their reservation lose their own artifacts, never the agent's
// or the clients' within theirs; declared.Service.UpsertReport). Without a declared store
// the artifacts are dropped with a warning.
func (e *Engine) recordHooks(ctx context.Context, em *emitter, agentName string, store *declared.Service, conversationID string,
	in hooks.Input, outs []hooks.Outcome) {
	var all []declared.Input
	var owner []int // owner[i]: the outcome that declared all[i]
	for i, o := range outs {
		all = append(all, o.Artifacts...)
		for range o.Artifacts {
			owner = append(owner, i)
		}
	}
	var changes []declared.Change
	notStored := make([]int, len(outs))
	switch {
	case len(all) == 0:
	case store == nil:
		e.cfg.Logger.Warn("hook artifacts dropped: no declared-artifact store", "conversation", conversationID, "count", len(all))
	default:
		sctx, cancel := context.WithTimeout(ctx, declareTimeout)
		rep, err := store.UpsertReport(sctx, conversationID, all, false)
		cancel()
		if err != nil {
			e.cfg.Logger.Warn("storing hook artifacts failed", "conversation", conversationID, "event", in.HookEventName, "err", err)
			break
		}
		changes = rep.Changes
		for _, d := range rep.Dropped {
			notStored[owner[d.Index]]++
		}
		for i, n := range notStored {
			if n > 0 {
				e.cfg.Logger.Warn("hook artifacts not stored", "conversation", conversationID, "hook", outs[i].Hook,
					"event", in.HookEventName, "count", n)
			}
		}
	}
	for i, o := range outs {
		d := events.DataHookResult{Hook: o.Hook, Event: o.Event, OK: o.OK, Artifacts: len(o.Artifacts), Dropped: o.Dropped + notStored[i],
			ToolName: in.ToolName, ToolCallID: in.ToolCallID, DurationMS: o.Duration.Milliseconds()}
		if o.Err != nil {
			d.Error = o.Err.Error()
		}
		em.emit(ctx, events.HookResult, agentName, d)
	}
	emitDeclared(ctx, em, agentName, changes)
}

// emitDeclared emits one artifact_changed per declared-artifact change, so the
// run's history shows it.
func emitDeclared(ctx context.Context, em *emitter, agentName string, changes []declared.Change) {
	for _, ch := range changes {
		em.emit(ctx, events.ArtifactChanged, agentName, events.DataArtifactChanged{Action: ch.Action, ArtifactID: ch.ArtifactID,
			Reason: ch.Reason, Declared: ch.Artifact})
	}
}

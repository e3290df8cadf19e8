package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"artifactflow/backend/agent"
	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/exfil"
	"artifactflow/backend/llm"
	"artifactflow/backend/sources"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/tools"
)

// errTruncatedCall is given to the model when its tool call was cut off by the output
// token limit (finish_reason "length").
var errTruncatedCall = errors.New("your message was cut off at the output token limit before the tool call was complete, so it was not executed; send a shorter call (for long content, create the artifact with the first part and add the rest with update_artifact)")

// ErrEmptyAnswer: the lead's final answer was empty (no text, or only white space): the
// run fails rather than completing with nothing to show. It is a kind of
// llm.ErrEmptyAnswer, so it maps to the same error code (model_unavailable: trying again
// may help); the error says whether the model was cut off.
var ErrEmptyAnswer = fmt.Errorf("engine: the model's final answer is empty: %w", llm.ErrEmptyAnswer)

// cutNote is the note appended to a final answer that finishReason says was not finished
// ("length": the output token limit; "content_filter": the provider's filter), or "".
func cutNote(finishReason string) string {
	switch finishReason {
	case "length":
		return "[This answer is incomplete: the model stopped at its output token limit.]"
	case "content_filter":
		return "[This answer is incomplete: the provider's content filter stopped the model.]"
	}
	return ""
}

// flushTimeout bounds the end-of-run flush, which runs even when the run was cancelled.
const flushTimeout = 30 * time.Second

// runState is the mutable state of one run. The calls of one reply run on goroutines of
// their own (execCalls): mu guards usage, steps, allowed, memory, stuck and web.
type runState struct {
	mu       sync.Mutex
	permSlot chan struct{} // one permission request shown at a time (permit)
	// questionImages are the pictures of the question, sent with it to the lead's model
	// (none when it does not see pictures).
	questionImages []llm.Image
	e              *Engine
	deps           Deps
	r              *Run
	em             *emitter
	reg            *tools.Registry
	usage          events.Usage
	steps          int
	parentID       string
	// lead and sub are the models the lead and the sub-agents call, each with its token
	// counter (agentmodel.go); sub is lead unless Deps.SubAgents is set. named holds the
	// models user-defined agents name, by model name (Deps.AgentModels).
	lead, sub *agentModel
	named     map[string]*agentModel
	// agents are the run's agents by name: the engine's and the user-defined ones
	// (Deps.UserAgents; useragents.go).
	agents  map[string]agent.Config
	allowed map[string]bool // tools the user allowed for the rest of the run
	// memory is each sub-agent's history within this run, loaded from earlier runs' events
	// at its first call.
	memory map[string][]llm.Message
	// stuck holds the agents whose last compaction in this run left them over the
	// threshold (compactIfNeeded waits for more history before trying again).
	stuck map[string]bool
	web   webTally // the run's web_search and web_fetch calls (sources.go)
	files string   // the lead's <local_files> text; "" when the conversation has none (files.go)
	// leadCut is the finish reason that cut the lead's final answer ("length" or
	// "content_filter"), "" when it was finished.
	leadCut string
}

// runTools is the registry of every tool a run offers its agents (each agent gets its
// subset: runState.agentTools): the artifact tools on the run's cache, record_artifact when
// deps.Declared is set (without a store it is not offered), call_subagent naming the
// sub-agents, the web tools, the local-file tools when there are files, and
// deps.ExtraTools. With zero arguments it gives the same names and parameters, for reading recorded
// calls back (context.go).
func runTools(artifacts *artifact.Manager, subagents []string, deps Deps) *tools.Registry {
	var record tools.Tool
	if deps.Declared != nil {
		record = tools.RecordArtifact{D: deps.Declared}
	}
	return toolRegistry(artifacts, subagents, deps, record)
}

// toolRegistry is runTools with record_artifact given (nil: not offered).
func toolRegistry(artifacts *artifact.Manager, subagents []string, deps Deps, record tools.Tool) *tools.Registry {
	all := tools.ArtifactTools(artifacts)
	if record != nil {
		all = append(all, record)
	}
	all = append(all, tools.CallSubagent{Agents: subagents})
	// One guard per run, shared by every agent of it: what any of them read from local
	// files, no web_fetch of the run may carry away (exfil; docs/ARCHITECTURE.md,
	// "Security"). It is nil, and costs nothing, when the run has no local files.
	var guard *exfil.Guard
	if deps.Files != nil {
		guard = exfil.New(0)
	}
	all = append(all, tools.WebSearch{S: deps.Searcher, Sources: deps.Sources}, tools.WebFetch{F: deps.Fetcher, Sources: deps.Sources, Guard: guard})
	if deps.Files != nil { // only when the conversation has local files (prepareFiles)
		all = append(all, tools.SearchFiles{Index: deps.Files, Sources: deps.Sources, Guard: guard},
			tools.ReadFile{Index: deps.Files, Sources: deps.Sources, Guard: guard})
	}
	for _, t := range deps.ExtraTools { // a name taken already is left out (prepareExtraTools warns)
		if !slices.ContainsFunc(all, func(o tools.Tool) bool { return o.Name() == t.Name() }) {
			all = append(all, t)
		}
	}
	return tools.NewRegistry(all...)
}

// execute performs the run and always ends with a flush, the message's final state and
// exactly one terminal event (the flush comes before the terminal event).
func (e *Engine) execute(ctx context.Context, r *Run, deps Deps, em *emitter, parentID string, q question) Result {
	started := e.cfg.Now()
	subNames := make([]string, 0, len(e.cfg.Agents)-1+len(deps.UserAgents))
	for _, a := range e.cfg.Agents[1:] {
		subNames = append(subNames, a.Name)
	}
	for _, a := range deps.UserAgents {
		subNames = append(subNames, a.Name)
	}
	if deps.Sources == nil {
		deps.Sources = &runRecorder{st: e.cfg.Store, em: em}
	}
	var filesNote string
	deps.Files, filesNote = e.prepareFiles(ctx, r.ConversationID, deps.Files)
	e.prepareExtraTools(ctx, r.ConversationID, &deps)
	rs := &runState{e: e, deps: deps, r: r, em: em, reg: runTools(r.artifacts, subNames, deps), parentID: parentID, files: filesNote,
		allowed: map[string]bool{}, memory: map[string][]llm.Message{}, stuck: map[string]bool{}, permSlot: make(chan struct{}, 1)}
	rs.setAgents()
	rs.setModels(deps)
	rs.setNamed()
	rs.questionImages = q.images

	var pics func([]events.ImageRef) []llm.Image
	held := &historyPictures{e: e}
	if deps.Vision {
		pics = held.hold
	}
	history, err := e.agentHistory(ctx, r.ConversationID, parentID, e.lead.Name, e.lead.Tools, deps.Mode, pics)
	held.resolve(history)
	var answer string
	if err == nil {
		answer, _, err = rs.runAgent(ctx, e.lead, history, q.text)
	}

	flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	rs.amendReports(flushCtx)
	failed := r.artifacts.Flush(flushCtx)
	failedIDs := make([]string, 0, len(failed))
	for id, ferr := range failed {
		failedIDs = append(failedIDs, id)
		e.cfg.Logger.Error("artifact flush failed", "conversation", r.ConversationID, "artifact", id, "err", ferr)
	}
	slices.Sort(failedIDs)

	res := Result{ConversationID: r.ConversationID, MessageID: r.MessageID, Status: events.Complete,
		Response: answer, FlushFailed: failedIDs, Usage: rs.usage, Steps: rs.steps}
	switch {
	case err != nil && ctx.Err() != nil:
		res.Status, res.Err = events.Cancelled, context.Cause(ctx)
	case err != nil:
		res.Status, res.Err = events.Error, err
	case em.err() != nil:
		res.Status, res.Err = events.Error, em.err()
	case len(failed) > 0:
		res.Status = events.Error
		res.Err = fmt.Errorf("engine: could not save artifacts %s: %w", strings.Join(failedIDs, ", "), failed[failedIDs[0]])
	}
	errText := ""
	if res.Err != nil {
		errText = res.Err.Error()
	}
	saveCtx := context.WithoutCancel(ctx)
	res.Web, res.Cited = rs.web.result(), sources.Cited(answer)
	if res.Status == events.Complete {
		res.Cut = rs.leadCut
		answer, res.Cited = rs.finishAnswer(saveCtx, answer) // a stopped or failed run keeps its text as it was
		res.Response = answer
	}
	if ferr := e.cfg.Store.FinishMessage(saveCtx, r.MessageID, answer, string(res.Status), errText); ferr != nil {
		e.cfg.Logger.Error("save run result failed", "message", r.MessageID, "err", ferr)
		if res.Status == events.Complete {
			res.Status, res.Err = events.Error, fmt.Errorf("engine: save answer: %w", ferr)
			errText = res.Err.Error()
		}
	}
	if terr := e.cfg.Store.TouchConversation(saveCtx, r.ConversationID); terr != nil {
		e.cfg.Logger.Warn("touch conversation failed", "conversation", r.ConversationID, "err", terr)
	}
	res.Duration = e.cfg.Now().Sub(started)
	data := events.DataTerminal{Response: answer, FlushFailed: failedIDs, Usage: rs.usage,
		DurationMS: res.Duration.Milliseconds(), Steps: rs.steps, Web: res.Web, Cited: res.Cited, Cut: res.Cut}
	switch res.Status {
	case events.Error:
		data.Error = errText
		if e.cfg.ErrorCode != nil {
			data.Code = e.cfg.ErrorCode(res.Err)
		}
	case events.Cancelled:
		data.Reason = errText
	}
	// From the terminal event on, a new message in the conversation waits for this run's
	// end (its Stop hooks) instead of failing with ErrBusy: whoever saw the terminal event
	// may send the next message at once.
	r.hmu.Lock()
	r.finishing = true
	r.hmu.Unlock()
	em.emit(saveCtx, res.Status, "", data)
	return res
}

// runAgent activates one agent until it answers without a tool call: the lead with the
// conversation history and the user's message, a sub-agent with the lead's instruction. It
// returns the agent's final text and its messages including that answer (its memory for a
// later call). The lead takes queued user messages at the start of each round and, when it
// would answer with some still queued, goes on to answer them too. Before each call the
// context is compacted when it passes the threshold. Errors: model failures after retries,
// cancellation, and event persistence failures.
func (rs *runState) runAgent(ctx context.Context, cfg agent.Config, history []llm.Message, input string) (string, []llm.Message, error) {
	e := rs.e
	lead := cfg.Name == e.lead.Name
	first := llm.Message{Role: llm.RoleUser, Content: input}
	if lead {
		first.Images = rs.questionImages // the question's pictures, when the model sees them
	}
	msgs := append(slices.Clip(history), first)
	agentTools := rs.agentTools(cfg)
	am := rs.model(cfg.Name)
	for round := 0; ; round++ {
		if err := rs.em.err(); err != nil {
			return "", nil, err
		}
		if err := ctx.Err(); err != nil {
			return "", nil, context.Cause(ctx)
		}
		if lead {
			msgs = rs.takeInput(ctx, msgs, false)
		}
		final := round >= cfg.MaxToolRounds
		system, err := rs.systemPrompt(ctx, cfg, agentTools, final)
		if err != nil {
			return "", nil, err
		}
		var defs []llm.ToolDef
		if am.Mode == toolcall.ModeNative && !final {
			defs = toolcall.NativeDefs(agentTools)
		}
		defsJSON := ""
		if len(defs) > 0 {
			defsJSON = string(events.MustData(defs))
		}
		if msgs, err = rs.compactIfNeeded(ctx, cfg.Name, system, msgs, defsJSON); err != nil {
			return "", nil, err
		}
		req := llm.Request{Model: am.Name, Messages: append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, msgs...), Tools: defs,
			Sampling: am.Sampling}
		start := events.DataAgentStart{Round: round}
		if !lead && round == 0 {
			start.Instruction = input
		}
		rs.em.emit(ctx, events.AgentStart, cfg.Name, start)
		raw := 0
		if am.counter != nil {
			if raw, err = am.raw(ctx, req.Messages, defsJSON); err != nil {
				return "", nil, err // stopped while counting
			}
		}
		resp, err := rs.call(ctx, cfg.Name, req)
		if err != nil {
			return "", nil, err
		}
		if am.counter != nil {
			am.counter.Observe(raw, resp.Usage.PromptTokens)
		}
		var calls []toolcall.Call
		if am.Mode == toolcall.ModeXML {
			calls = toolcall.ParseXML(resp.Content, agentTools)
		} else {
			calls = toolcall.ParseNative(resp.ToolCalls, agentTools)
		}
		if resp.FinishReason == "length" && len(calls) > 0 {
			// A call cut off by the output token limit may parse after repair but hold
			// truncated content; never execute it. Only the last call of the reply can be
			// cut off: the ones before it were followed by more of the reply.
			calls[len(calls)-1].Err = errTruncatedCall
		}
		if final || len(calls) == 0 {
			text := resp.Content
			if am.Mode == toolcall.ModeXML {
				text = toolcall.StripXMLCalls(text, agentTools...)
			}
			text = strings.TrimSpace(text)
			if text == "" && final {
				text = fmt.Sprintf("(%s used all %d tool rounds without a final answer)", cfg.Name, cfg.MaxToolRounds)
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Content})
			if lead && !final {
				if more := rs.takeInput(ctx, msgs, true); len(more) > len(msgs) {
					// The user wrote while the lead was answering: answer that too.
					rs.em.emit(ctx, events.AgentComplete, cfg.Name, events.DataAgentComplete{Content: text, Routing: "queued_message"})
					msgs = more
					continue
				}
			}
			if text, err = finalText(cfg.Name, lead, text, resp.FinishReason); err != nil {
				return "", nil, err
			}
			if lead {
				rs.leadCut = ""
				if cutNote(resp.FinishReason) != "" {
					rs.leadCut = resp.FinishReason
				}
			}
			rs.em.emit(ctx, events.AgentComplete, cfg.Name, events.DataAgentComplete{Content: text})
			return text, msgs, nil
		}
		done := events.DataAgentComplete{Content: resp.Content, Routing: "tool_call"}
		if call := calls[0]; call.Name == "call_subagent" && call.Err == nil {
			done.Routing = "subagent" // the first call's routing; every call runs (execCalls)
			done.Target, _ = call.Params["agent_name"].(string)
		}
		rs.em.emit(ctx, events.AgentComplete, cfg.Name, done)

		results, err := rs.execCalls(ctx, cfg, agentTools, calls)
		if err != nil {
			return "", nil, err
		}
		msgs = append(msgs, toolMessages(am.Mode, resp, calls, results)...)
		rs.checkpoint(ctx)
	}
}

// finalText is an agent's final answer as the run gives it on (text is already trimmed):
// an answer the model did not finish (finish reason "length" or "content_filter") ends
// with a note saying so, which the user sees in the lead's answer and the lead sees in a
// sub-agent's call_subagent result. An empty answer is an error for the lead
// (ErrEmptyAnswer) and a note to the lead from a sub-agent.
func finalText(agentName string, lead bool, text, finishReason string) (string, error) {
	note := cutNote(finishReason)
	if text == "" {
		if lead {
			if finishReason != "" {
				return "", fmt.Errorf("%s (finish_reason %s): %w", agentName, finishReason, ErrEmptyAnswer)
			}
			return "", fmt.Errorf("%s: %w", agentName, ErrEmptyAnswer)
		}
		text = fmt.Sprintf("(%s gave an empty answer.)", agentName)
	}
	if note != "" {
		text += "\n\n" + note
	}
	return text, nil
}

// takeInput appends the user's queued messages to msgs as one user message and records them
// as user_input. With final set and nothing queued, the queue closes: a message sent from
// then on starts a new run.
func (rs *runState) takeInput(ctx context.Context, msgs []llm.Message, final bool) []llm.Message {
	q := rs.r.takeQueue(final)
	if len(q) == 0 {
		return msgs
	}
	ids := make([]string, len(q))
	texts := make([]string, len(q))
	for i, m := range q {
		ids[i], texts[i] = m.ID, m.Content
	}
	content := strings.Join(texts, "\n\n")
	rs.em.emit(ctx, events.UserInput, rs.e.lead.Name, events.DataUserInput{IDs: ids, Content: content})
	return append(slices.Clip(msgs), llm.Message{Role: llm.RoleUser, Content: content})
}

// checkpoint makes the completed tool round durable: the event journal is written and the
// artifact cache saved as drafts, so a crash loses at most the round in flight. Failures
// are logged, not fatal: the run goes on and its final flush and terminal event report what
// could not be saved.
func (rs *runState) checkpoint(ctx context.Context) {
	rs.em.sync(ctx)
	if err := rs.r.artifacts.Checkpoint(context.WithoutCancel(ctx)); err != nil {
		rs.e.cfg.Logger.Warn("artifact checkpoint failed", "conversation", rs.r.ConversationID, "err", err)
	}
}

// systemPrompt builds cfg's system prompt for this round: the lead sees the full task plan
// and the inventory.
func (rs *runState) systemPrompt(ctx context.Context, cfg agent.Config, agentTools []tools.Tool, final bool) (string, error) {
	e := rs.e
	pc := agent.PromptContext{Now: e.cfg.Now()}
	if cfg.Name == e.lead.Name {
		var err error
		if pc.TaskPlan, err = rs.r.artifacts.TaskPlan(ctx); err != nil {
			return "", fmt.Errorf("engine: read task plan: %w", err)
		}
		if pc.Inventory, err = rs.r.artifacts.Inventory(ctx); err != nil {
			return "", fmt.Errorf("engine: build inventory: %w", err)
		}
		pc.SubAgents = rs.subAgents()
		pc.LocalFiles = rs.files
		pc.UILanguage = config.LanguageName(rs.deps.Language)
	}
	switch {
	case final:
		pc.ToolInstructions = fmt.Sprintf("<tool_limit>You have used all %d tool rounds. Do not call any tool: give your final answer now with what you have.</tool_limit>", cfg.MaxToolRounds)
	case rs.model(cfg.Name).Mode == toolcall.ModeXML:
		pc.ToolInstructions = toolcall.XMLInstructions(agentTools)
	default:
		pc.ToolInstructions = toolcall.NativeInstructions()
	}
	return cfg.SystemPrompt(pc), nil
}

// call makes one streamed LLM call to agentName's model, forwarding deltas as llm_chunk
// events and recording llm_complete with the call's usage.
func (rs *runState) call(ctx context.Context, agentName string, req llm.Request) (llm.Response, error) {
	start := rs.e.cfg.Now()
	resp, err := rs.model(agentName).Model.Stream(ctx, req, func(d llm.Delta) {
		rs.em.emit(ctx, events.LLMChunk, agentName, events.DataLLMChunk{Content: d.Content, Reasoning: d.Reasoning, Reset: d.Reset})
	})
	if err != nil {
		return llm.Response{}, fmt.Errorf("%s: %w", agentName, err)
	}
	rs.addUsage(resp.Usage)
	calls := make([]events.ToolCall, 0, len(resp.ToolCalls))
	for _, c := range resp.ToolCalls {
		calls = append(calls, events.ToolCall{ID: c.ID, Name: c.Name, Params: rawJSON(c.Arguments)})
	}
	rs.em.emit(ctx, events.LLMComplete, agentName, events.DataLLMComplete{Content: resp.Content, Reasoning: resp.Reasoning,
		ToolCalls: calls, Usage: resp.Usage, Model: resp.Model, DurationMS: rs.e.cfg.Now().Sub(start).Milliseconds(),
		ReasoningContent: resp.ReasoningContent != "" && resp.ReasoningContent == resp.Reasoning})
	return resp, nil
}

// pendingCall is a call of a reply taken up by execCalls: its tool_start is emitted.
type pendingCall struct {
	call       toolcall.Call
	paramsJSON json.RawMessage
	start      time.Time
}

// startCall records that the call (its id already set) is taken up: tool_start.
func (rs *runState) startCall(ctx context.Context, cfg agent.Config, call toolcall.Call) pendingCall {
	pc := pendingCall{call: call, start: rs.e.cfg.Now()}
	if call.Params != nil {
		pc.paramsJSON = events.MustData(call.Params)
	} else {
		pc.paramsJSON = rawJSON(call.Raw)
	}
	rs.em.emit(ctx, events.ToolStart, cfg.Name, events.DataToolStart{CallID: call.ID, Tool: call.Name, Params: pc.paramsJSON})
	return pc
}

// runCall runs one call startCall took up for the agent cfg (tool is the agent's tool of
// that name, nil when it has none) and records tool_complete (and artifact_changed after
// a successful artifact operation: one for a document, one per change record_artifact
// made), then runs the PostToolUse hooks matching the tool. call_subagent is routed: a new
// instance of the sub-agent runs under the call's id (its events carry it as "instance")
// and its final text is the result; the outcome holds the instance's memory for
// mergeMemory. A failed call is a failed Result for the model, never a run error; the
// error return is only for cancellation and the sub-agent's fatal errors (model failure),
// after a failed tool_complete.
func (rs *runState) runCall(ctx context.Context, cfg agent.Config, tool tools.Tool, pc pendingCall) (callOutcome, error) {
	call := pc.call
	failed := func(err error) (callOutcome, error) {
		why := err.Error()
		if ctx.Err() != nil { // stopped, or ended by another call's failure: say which
			why = context.Cause(ctx).Error()
		}
		rs.em.emit(ctx, events.ToolComplete, cfg.Name, events.DataToolComplete{CallID: call.ID, Tool: call.Name,
			Success: false, Error: why, DurationMS: rs.e.cfg.Now().Sub(pc.start).Milliseconds()})
		return callOutcome{}, err
	}
	if ctx.Err() != nil { // stopped while waiting for an earlier write of the reply
		return failed(context.Cause(ctx))
	}
	var o callOutcome
	var res tools.Result
	executed := false // the tool ran (not refused, unknown or unreadable)
	switch {
	case call.Err != nil && call.Name == "":
		res = tools.Fail("could not read your tool call: %v", call.Err)
	case call.Err != nil:
		res = tools.Fail("could not read your call to %s: %v", call.Name, call.Err)
	case tool == nil:
		res = tools.Fail("unknown tool %q; the tools you can call are: %s", call.Name, toolNames(rs.agentTools(cfg)))
	default:
		denied, err := rs.permit(ctx, cfg.Name, call)
		if err != nil {
			return failed(err)
		}
		if denied != nil {
			res = *denied
		} else {
			executed = true
			res = tool.Execute(tools.WithCall(ctx, tools.CallInfo{ConversationID: rs.r.ConversationID, MessageID: rs.r.MessageID,
				CallID: call.ID, ToolName: call.Name, Agent: cfg.Name}), call.Params)
		}
	}
	if call.Name == "call_subagent" && res.Success {
		target, _ := res.Metadata[tools.MetaTarget].(string)
		instr, _ := res.Metadata[tools.MetaInstruction].(string)
		rs.em.emit(ctx, events.SubagentInstruction, cfg.Name, events.DataSubagentInstruction{Target: target, Instruction: instr, CallID: call.ID})
		hist, err := rs.subHistory(ctx, target)
		var text string
		if err == nil {
			var mem []llm.Message
			text, mem, err = rs.runAgent(withInstance(ctx, call.ID), rs.agents[target], hist, instr)
			o.target, o.base, o.mem, o.ran = target, hist, mem, err == nil
		}
		if err != nil {
			return failed(err)
		}
		res = tools.OK(text)
	}
	rs.em.emit(ctx, events.ToolComplete, cfg.Name, events.DataToolComplete{CallID: call.ID, Tool: call.Name,
		Success: res.Success, Result: res.Data, Error: res.Error, DurationMS: rs.e.cfg.Now().Sub(pc.start).Milliseconds()})
	if executed {
		rs.mu.Lock()
		rs.web.add(call.Name, res)
		rs.mu.Unlock()
	}
	if snap, ok := res.Metadata[tools.MetaArtifact].(events.ArtifactSnapshot); ok {
		rs.em.emit(ctx, events.ArtifactChanged, cfg.Name, events.DataArtifactChanged{Artifact: snap})
	}
	if changes, ok := res.Metadata[tools.MetaDeclared].([]declared.Change); ok {
		emitDeclared(ctx, rs.em, cfg.Name, changes)
	}
	if tool != nil {
		rs.postToolHooks(ctx, cfg.Name, call, pc.paramsJSON, res)
	}
	o.res = res
	return o, nil
}

// addUsage adds one model call's usage to the run's.
func (rs *runState) addUsage(u events.Usage) {
	rs.mu.Lock()
	rs.usage = rs.usage.Add(u)
	rs.mu.Unlock()
}

// subHistory returns a sub-agent's memory: what it did earlier in this run, or at its
// first call the history of earlier runs rebuilt from their events.
func (rs *runState) subHistory(ctx context.Context, name string) ([]llm.Message, error) {
	rs.mu.Lock()
	mem, ok := rs.memory[name]
	rs.mu.Unlock()
	if ok {
		return mem, nil
	}
	return rs.e.agentHistory(ctx, rs.r.ConversationID, rs.parentID, name, rs.agents[name].Tools, rs.model(name).Mode, nil)
}

// toolMessages returns the messages that record one round for the agent's next call, in
// the agent's tool-call mode: the assistant's message and the results of its calls, in
// call order (results[i] answers calls[i]; every call of a reply runs, execCalls).
// Native: one tool message per call id. XML: one user message holding a <tool_result>
// per call.
func toolMessages(mode toolcall.Mode, resp llm.Response, calls []toolcall.Call, results []tools.Result) []llm.Message {
	if mode == toolcall.ModeXML {
		return []llm.Message{
			{Role: llm.RoleAssistant, Content: resp.Content},
			{Role: llm.RoleUser, Content: xmlResults(callNames(calls), results)},
		}
	}
	assistant := llm.Message{Role: llm.RoleAssistant, Content: resp.Content, ReasoningContent: resp.ReasoningContent}
	for _, c := range calls {
		assistant.ToolCalls = append(assistant.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: argumentsOf(c)})
	}
	out := []llm.Message{assistant}
	for i, c := range calls {
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: resultText(results[i])})
	}
	return out
}

// xmlResults renders the results of a reply's calls in xml mode, one <tool_result> per
// call in call order: names[i] is the i-th call's tool, results[i] its result.
func xmlResults(names []string, results []tools.Result) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(toolcall.FormatXMLResult(n, results[i]))
	}
	return b.String()
}

// callNames returns the tool names of calls, in order.
func callNames(calls []toolcall.Call) []string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return names
}

func resultText(r tools.Result) string {
	if r.Success {
		return r.Data
	}
	return "Error: " + r.Error
}

// argumentsOf returns the arguments to echo back in the assistant message: the model's own
// text when it is valid JSON, else a JSON object that still shows it, because some servers
// reject a conversation whose history holds invalid tool-call JSON.
func argumentsOf(c toolcall.Call) string {
	switch {
	case c.Err == nil && c.Params != nil:
		return string(events.MustData(c.Params))
	case json.Valid([]byte(c.Raw)):
		return c.Raw
	default:
		return string(events.MustData(map[string]string{"invalid_arguments": c.Raw}))
	}
}

func findTool(ts []tools.Tool, name string) tools.Tool {
	for _, t := range ts {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

func toolNames(ts []tools.Tool) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return strings.Join(names, ", ")
}

// rawJSON returns s as JSON if it is valid JSON, else s as a JSON string, so malformed
// model arguments can still be recorded in events.
func rawJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return events.MustData(s)
}

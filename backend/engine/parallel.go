package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"

	"artifactflow/backend/agent"
	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/tools"
)

// Limits of Deps.MaxParallelToolCalls: how many calls of one reply may run at once.
const (
	// DefaultMaxParallelToolCalls is the limit when none is set.
	DefaultMaxParallelToolCalls = 4
	// MaxParallelToolCallsLimit is the highest limit honoured; a higher setting is clipped.
	MaxParallelToolCallsLimit = 16
)

// parallelLimit returns the run's limit on concurrent calls of one reply: n within
// 1..MaxParallelToolCallsLimit, DefaultMaxParallelToolCalls for n <= 0.
func parallelLimit(n int) int {
	switch {
	case n <= 0:
		return DefaultMaxParallelToolCalls
	case n > MaxParallelToolCallsLimit:
		return MaxParallelToolCallsLimit
	}
	return n
}

// instanceKey carries, on the context of a sub-agent instance, the id of the instance: the
// id of the lead's call_subagent call that started it.
type instanceKey struct{}

// withInstance returns ctx for the sub-agent instance id; every event emitted under it
// carries "instance": id in its data (emitter.emit).
func withInstance(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, instanceKey{}, id)
}

// instanceFrom returns the sub-agent instance of ctx, "" outside one.
func instanceFrom(ctx context.Context) string {
	id, _ := ctx.Value(instanceKey{}).(string)
	return id
}

// instancePrefix starts the data of every event of a sub-agent instance (tagData puts the
// key first, so readers can find it without decoding the whole object).
const instancePrefix = `{"` + events.InstanceKey + `":`

// tagData returns the JSON object raw with "instance": id as its first key. raw that is
// not an object is returned unchanged.
func tagData(raw json.RawMessage, id string) json.RawMessage {
	if len(raw) < 2 || raw[0] != '{' {
		return raw
	}
	q, _ := json.Marshal(id)
	rest := bytes.TrimSpace(raw[1:])
	out := make([]byte, 0, len(instancePrefix)+len(q)+len(raw)+1)
	out = append(out, instancePrefix...)
	out = append(out, q...)
	if string(rest) != "}" {
		out = append(out, ',')
	}
	return append(out, rest...)
}

// instanceOf returns the instance tagData put in an event's data, "" when there is none.
func instanceOf(data json.RawMessage) string {
	if !bytes.HasPrefix(data, []byte(instancePrefix)) {
		return ""
	}
	var id string
	dec := json.NewDecoder(bytes.NewReader(data[len(instancePrefix):]))
	if dec.Decode(&id) != nil {
		return ""
	}
	return id
}

// callOutcome is what one call of a reply produced.
type callOutcome struct {
	res tools.Result
	// target, base and mem are set for a call_subagent that ran its sub-agent: the
	// sub-agent's name, the memory the instance started from and its memory at the end.
	target    string
	base, mem []llm.Message
	ran       bool // the sub-agent instance ended normally (mem is valid)
}

// execCalls runs every call of one reply of the agent cfg and returns their results in
// call order (docs/ARCHITECTURE.md, "Several tool calls in one reply"). Calls are taken
// up in call order, each when one of the run's slots (Deps.MaxParallelToolCalls) is free,
// and announced with tool_start then. Calls of tools that declare themselves read-only
// (tools.ReadOnly: web, local files, sub-agents) run concurrently; every other call waits
// for the previous such call of the reply to finish, so artifact writes land in call
// order. Calls to the same sub-agent run as separate instances, each from the agent's
// memory as it was before the reply; their rounds are added to the memory in call order
// once all calls have ended. When more than one call ran, each finished call's events
// (and, for a write, the artifact drafts) are saved as it finishes, so a crash keeps every
// finished result. The error is the first fatal error of a call (cancellation, a sub-agent's
// model failure); it stops the calls still running, and execCalls returns only after every
// call it started has ended.
func (rs *runState) execCalls(ctx context.Context, cfg agent.Config, agentTools []tools.Tool, calls []toolcall.Call) ([]tools.Result, error) {
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = "call_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
		}
	}
	out := make([]callOutcome, len(calls))
	bctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		stop(err)
	}
	slots := make(chan struct{}, parallelLimit(rs.deps.MaxParallelToolCalls))
	persist := len(calls) > 1 // a lone call is saved by the round's checkpoint right after
	var prevWrite chan struct{}
dispatch:
	for i := range calls {
		select {
		case slots <- struct{}{}:
		case <-bctx.Done():
			break dispatch
		}
		call := calls[i]
		tool := findTool(agentTools, call.Name)
		readOnly := tool != nil && call.Err == nil && tools.IsReadOnly(tool)
		after := prevWrite
		done := make(chan struct{})
		if !readOnly {
			prevWrite = done
		}
		pc := rs.startCall(bctx, cfg, call)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			defer close(done)
			if after != nil {
				select {
				case <-after:
				case <-bctx.Done():
				}
			}
			o, err := rs.runCall(bctx, cfg, tool, pc)
			if err != nil {
				fail(err)
				return
			}
			out[i] = o
			switch {
			case !persist:
			case readOnly:
				rs.em.sync(bctx)
			default:
				rs.checkpoint(bctx)
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = context.Cause(ctx)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	rs.mergeMemory(out)
	results := make([]tools.Result, len(out))
	for i, o := range out {
		results[i] = o.res
	}
	rs.mu.Lock()
	rs.steps += len(calls)
	rs.mu.Unlock()
	return results, nil
}

// mergeMemory adds the rounds of the sub-agent instances of one reply to their agents'
// memory, in call order: an instance's rounds are what it added to the memory it started
// from. An instance whose context was compacted no longer extends that memory; its
// compacted history, which summarizes it, replaces the memory built so far.
func (rs *runState) mergeMemory(out []callOutcome) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	merged := map[string][]llm.Message{}
	for _, o := range out {
		if !o.ran {
			continue
		}
		cur, ok := merged[o.target]
		if !ok {
			cur = slices.Clip(o.base)
		}
		if extends(o.mem, o.base) {
			cur = append(cur, o.mem[len(o.base):]...)
		} else {
			cur = slices.Clone(o.mem)
		}
		merged[o.target] = slices.Clip(cur)
	}
	for name, mem := range merged {
		rs.memory[name] = mem
	}
}

// extends reports whether mem starts with base (the instance was not compacted).
func extends(mem, base []llm.Message) bool {
	if len(mem) < len(base) {
		return false
	}
	for i := range base {
		if mem[i].Role != base[i].Role || mem[i].Content != base[i].Content || mem[i].ToolCallID != base[i].ToolCallID {
			return false
		}
	}
	return true
}

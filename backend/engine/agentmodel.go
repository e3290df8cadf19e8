package engine

import (
	"context"
	"hash/maphash"
	"sync"

	"artifactflow/backend/llm"
	"artifactflow/backend/tokens"
	"artifactflow/backend/toolcall"
)

// AgentModel is the model one kind of agent calls (each kind of agent has its own model):
// the client, the model name sent with each request ("" = the client's default), the
// tool-call format, the context window in tokens (0 = by model name,
// tokens.ContextWindow), the share of it past which the agent's context is compacted (0 =
// DefaultCompactAt), and the sampling sent with each of its requests (unset fields are
// not sent).
type AgentModel struct {
	Model         llm.Model
	Name          string
	Mode          toolcall.Mode
	ContextWindow int
	CompactAt     float64
	Sampling      llm.Sampling
}

// agentModel is an agent's model within one run, with the token counter for its model
// name (nil when the BPE tables failed to load: no compaction for that agent).
type agentModel struct {
	AgentModel
	counter *tokens.Counter

	// memo holds the raw token count of each message already counted in this run, keyed
	// by a hash of what tokens.Counter.RawContext counts (content, tool-call names and
	// arguments), so a round counts only what is new since the last one. Sub-agents that
	// share this agentModel may count at once: mu guards memo.
	mu   sync.Mutex
	memo map[uint64]int
}

// memoSeed keys agentModel.memo.
var memoSeed = maphash.MakeSeed()

// memoCap bounds agentModel.memo; past it the memo starts over.
const memoCap = 1 << 14

// raw returns what am.counter.RawContext(ctx, msgs, extra) returns, in tokens, counting
// each message only the first time this run sees it. Once ctx is done it returns 0 and
// an error wrapping ctx.Err().
func (am *agentModel) raw(ctx context.Context, msgs []llm.Message, extra string) (int, error) {
	n, err := am.counter.RawContext(ctx, nil, extra) // 3 for the reply's priming + extra
	if err != nil {
		return 0, err
	}
	for i := range msgs {
		m := &msgs[i]
		var h maphash.Hash
		h.SetSeed(memoSeed)
		h.WriteString(m.Content)
		for _, tc := range m.ToolCalls {
			h.WriteByte(0)
			h.WriteString(tc.Name)
			h.WriteByte(0)
			h.WriteString(tc.Arguments)
		}
		key := h.Sum64()
		am.mu.Lock()
		k, ok := am.memo[key]
		am.mu.Unlock()
		if !ok {
			one, err := am.counter.RawContext(ctx, msgs[i:i+1], "")
			if err != nil {
				return 0, err
			}
			k = one - 3 // RawContext of one message adds the 3 priming tokens once
			am.mu.Lock()
			if am.memo == nil || len(am.memo) >= memoCap {
				am.memo = make(map[uint64]int)
			}
			am.memo[key] = k
			am.mu.Unlock()
		}
		n += k
	}
	return n, nil
}

// estimate returns what am.counter.EstimateContext(ctx, msgs, extra) returns, in tokens
// (raw corrected by the ratio the endpoint's reports have taught), through raw's memo.
func (am *agentModel) estimate(ctx context.Context, msgs []llm.Message, extra string) (int, error) {
	r, err := am.raw(ctx, msgs, extra)
	if err != nil {
		return 0, err
	}
	return int(float64(r)*am.counter.Ratio() + 0.5), nil
}

// setModels resolves the run's two models from deps: the lead's from Deps' own fields,
// the sub-agents' from Deps.SubAgents, whose nil Model means the lead's client (and, with
// no Name, the lead's model name) and whose empty Mode means the lead's mode. Without
// Deps.SubAgents the sub-agents call the lead's model.
func (rs *runState) setModels(deps Deps) {
	lead := AgentModel{Model: deps.Model, Name: deps.ModelName, Mode: deps.Mode, ContextWindow: deps.ContextWindow,
		CompactAt: deps.CompactAt, Sampling: deps.LeadSampling}
	rs.lead = &agentModel{AgentModel: lead, counter: rs.countFor(lead.Name)}
	rs.sub = rs.lead
	if deps.SubAgents == nil {
		return
	}
	sub := *deps.SubAgents
	if sub.Model == nil {
		sub.Model = lead.Model
		if sub.Name == "" {
			sub.Name = lead.Name
		}
	}
	if sub.Mode == "" {
		sub.Mode = lead.Mode
	}
	rs.sub = &agentModel{AgentModel: sub, counter: rs.countFor(sub.Name)}
}

// setNamed resolves the models the run's user-defined agents name (agent.Config.Model)
// into rs.named, once per model name: Deps.AgentModels' entry for the name, else the
// sub-agents' client sending that name; an entry's nil Model means the sub-agents'
// client, its empty Mode the sub-agents' mode. Call it after setModels and setAgents.
func (rs *runState) setNamed() {
	rs.named = map[string]*agentModel{}
	for _, a := range rs.deps.UserAgents {
		if a.Model == "" || rs.named[a.Model] != nil {
			continue
		}
		m, ok := rs.deps.AgentModels[a.Model]
		if !ok {
			m = AgentModel{Name: a.Model, CompactAt: rs.sub.CompactAt, Sampling: rs.sub.Sampling}
		}
		if m.Model == nil {
			m.Model = rs.sub.Model
		}
		if m.Name == "" {
			m.Name = a.Model
		}
		if m.Mode == "" {
			m.Mode = rs.sub.Mode
		}
		rs.named[a.Model] = &agentModel{AgentModel: m, counter: rs.countFor(m.Name)}
	}
}

// countFor returns the engine's token counter for a model name, or nil (logged) when the
// tokenizer tables cannot load.
func (rs *runState) countFor(model string) *tokens.Counter {
	c, err := rs.e.counter(model)
	if err != nil {
		rs.e.cfg.Logger.Warn("token counting unavailable; compaction is off for this model in this run", "model", model, "err", err)
		return nil
	}
	return c
}

// model returns the model agentName calls: the lead's for the lead, the one a
// user-defined agent names (setNamed) for it, the sub-agents' for any other agent.
func (rs *runState) model(agentName string) *agentModel {
	if agentName == rs.e.lead.Name {
		return rs.lead
	}
	if a, ok := rs.agents[agentName]; ok && a.Model != "" {
		if m := rs.named[a.Model]; m != nil {
			return m
		}
	}
	return rs.sub
}

package engine

import (
	"artifactflow/backend/llm"
	"artifactflow/backend/tokens"
	"artifactflow/backend/toolcall"
)

// AgentModel is the model one kind of agent calls (issue 9, item 7: "a model per agent"):
// the client, the model name sent with each request ("" = the client's default), the
// tool-call format, the context window in tokens (0 = by model name, tokens.ContextWindow),
// the share of it past which the agent's context is compacted (0 = DefaultCompactAt), and
// the sampling sent with each of its requests (unset fields are not sent).
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

// model returns the model agentName calls: the lead's for the lead, the sub-agents' for
// any other agent.
func (rs *runState) model(agentName string) *agentModel {
	if agentName == rs.e.lead.Name {
		return rs.lead
	}
	return rs.sub
}

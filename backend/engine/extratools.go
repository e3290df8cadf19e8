package engine

import (
	"context"
	"maps"
	"slices"

	"artifactflow/backend/agent"
	"artifactflow/backend/sources"
	"artifactflow/backend/tools"
)

// ToolSource supplies tools from outside the app to each run: the tools of the user's MCP
// servers (docs/ARCHITECTURE.md, "MCP tools"). Tools is called once at the start of each
// run, after the local files are prepared; it may start servers (bounded by their own
// timeouts and by ctx, the run's context) and must never fail the run: a server it cannot
// use is left out and said so in ToolSet.Warnings.
type ToolSource interface {
	Tools(ctx context.Context, req ToolRequest) ToolSet
}

// ToolRequest is what a ToolSource is told about the run: its conversation, the names of
// its agents (a source need not start what none of them is offered), the tool names those
// agents list in their own tools (an agent may name an extra tool itself) and the run's
// source list, so a tool's links become numbered sources the answer can cite.
type ToolRequest struct {
	ConversationID string
	Agents         []string
	Wanted         []string
	Sources        sources.Recorder
}

// ToolSet is what a ToolSource gives one run. Tools are added to the run's tools
// (Deps.ExtraTools); Agents maps a tool's name to the agents it is offered to
// (Deps.ExtraToolAgents); Permissions maps a tool's name to PolicyConfirm or PolicyAuto,
// laid over Deps.Permissions for the run; Warnings are logged (a server skipped, and
// why).
type ToolSet struct {
	Tools       []tools.Tool
	Agents      map[string][]string
	Permissions map[string]string
	Warnings    []string
}

// prepareExtraTools readies the run's extra tools: deps.ExtraTools whose name a built-in
// tool or an earlier extra tool has are left out (with their ExtraToolAgents entry, so no
// agent is offered the built-in tool through it), with a warning; then deps.ToolSource's
// tools for this run are added the same way to ExtraTools, ExtraToolAgents and (a copy of)
// Permissions, and its warnings logged. The maps are copied, never changed in place.
func (e *Engine) prepareExtraTools(ctx context.Context, conversationID string, deps *Deps) {
	if len(deps.ExtraTools) == 0 && deps.ToolSource == nil {
		return
	}
	taken := map[string]bool{}
	for _, n := range toolRegistry(nil, nil, Deps{Files: parseOnlyFiles{}}, tools.RecordArtifact{}).Names() {
		taken[n] = true
	}
	offered := map[string][]string{}
	var extra []tools.Tool
	add := func(t tools.Tool, agents []string) bool {
		name := t.Name()
		if taken[name] {
			e.cfg.Logger.Warn("an extra tool has the name of another tool and is left out", "tool", name)
			return false
		}
		taken[name] = true
		extra = append(extra, t)
		if len(agents) > 0 {
			offered[name] = slices.Clone(agents)
		}
		return true
	}
	for _, t := range deps.ExtraTools {
		add(t, deps.ExtraToolAgents[t.Name()])
	}
	perms := maps.Clone(deps.Permissions)
	if deps.ToolSource != nil {
		agents := make([]string, 0, len(e.cfg.Agents))
		var wanted []string
		for _, a := range e.cfg.Agents {
			agents = append(agents, a.Name)
			wanted = append(wanted, a.Tools...)
		}
		set := deps.ToolSource.Tools(ctx, ToolRequest{ConversationID: conversationID, Agents: agents, Wanted: wanted, Sources: deps.Sources})
		for _, w := range set.Warnings {
			e.cfg.Logger.Warn("a tool source is skipped for this run", "conversation", conversationID, "why", w)
		}
		for _, t := range set.Tools {
			if add(t, set.Agents[t.Name()]) {
				if p, ok := set.Permissions[t.Name()]; ok {
					if perms == nil {
						perms = map[string]string{}
					}
					perms[t.Name()] = p
				}
			}
		}
	}
	deps.ExtraTools, deps.ExtraToolAgents, deps.Permissions = extra, offered, perms
}

// agentTools returns the tools the agent cfg is offered in this run: its own (cfg.Tools,
// in that order, among them any extra tool it names) and then the extra tools offered to
// it (Deps.ExtraToolAgents), by name.
func (rs *runState) agentTools(cfg agent.Config) []tools.Tool {
	names := slices.Clone(cfg.Tools)
	for _, n := range slices.Sorted(maps.Keys(rs.deps.ExtraToolAgents)) {
		if slices.Contains(rs.deps.ExtraToolAgents[n], cfg.Name) && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return rs.reg.Subset(names)
}

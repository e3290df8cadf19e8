package engine

import (
	"fmt"
	"slices"
	"strings"

	"artifactflow/backend/agent"
	"artifactflow/backend/tools"
)

// mcpToolPrefix starts the name of a tool an MCP server offers (mcp__<server>__<tool>).
const mcpToolPrefix = "mcp__"

// BuiltinTools returns the names of every built-in tool a run may offer, sorted: the
// artifact tools, record_artifact, call_subagent, the web tools and the local-file tools
// (a run offers the last ones only when the conversation has local files, and
// record_artifact only with a declared-artifact store). Agent files are checked against
// it (package useragents).
func BuiltinTools() []string {
	return toolRegistry(nil, nil, Deps{Files: parseOnlyFiles{}}, tools.RecordArtifact{}).Names()
}

// Agents returns the engine's built-in agents (Config.Agents), the lead first.
func (e *Engine) Agents() []agent.Config { return slices.Clone(e.cfg.Agents) }

// userAgents returns the run's user-defined agents from deps.UserAgents and the warnings
// its metadata event carries: deps.Warnings, then one per agent skipped because a built-in
// agent or an earlier entry has its name, and one per MCP tool an agent names that the
// run does not offer (the agent runs without it): neither an extra tool nor one the
// ToolSource may offer (ToolOfferer).
func (e *Engine) userAgents(deps Deps) ([]agent.Config, []string) {
	warnings := slices.Clone(deps.Warnings)
	if len(deps.UserAgents) == 0 {
		return nil, warnings
	}
	offered := map[string]bool{}
	for _, n := range runTools(nil, nil, deps).Names() {
		offered[n] = true
	}
	out := make([]agent.Config, 0, len(deps.UserAgents))
	for _, a := range deps.UserAgents {
		if _, builtin := e.agents[a.Name]; builtin || a.Name == "" || slices.ContainsFunc(out, func(o agent.Config) bool { return o.Name == a.Name }) {
			warnings = append(warnings, fmt.Sprintf("agent %q is skipped: a built-in or another agent has that name", a.Name))
			continue
		}
		var missing []string
		for _, t := range a.Tools {
			if strings.HasPrefix(t, mcpToolPrefix) && !offered[t] && !mayOffer(deps.ToolSource, t) {
				missing = append(missing, t)
			}
		}
		if len(missing) > 0 {
			warnings = append(warnings, fmt.Sprintf("agent %q runs without %s: no MCP server offers it now", a.Name, strings.Join(missing, ", ")))
		}
		out = append(out, a)
	}
	return out, warnings
}

// mayOffer reports whether src, when it implements ToolOfferer, may offer the tool name
// in this run (its servers start only later, in execute).
func mayOffer(src ToolSource, name string) bool {
	o, ok := src.(ToolOfferer)
	return ok && o.MayOffer(name)
}

// setAgents fills rs.agents: the engine's agents and the run's user-defined ones, by name.
func (rs *runState) setAgents() {
	rs.agents = make(map[string]agent.Config, len(rs.e.cfg.Agents)+len(rs.deps.UserAgents))
	for _, a := range rs.e.cfg.Agents {
		rs.agents[a.Name] = a
	}
	for _, a := range rs.deps.UserAgents {
		rs.agents[a.Name] = a
	}
}

// subAgents returns the sub-agents the lead may call in this run: the built-in ones, then
// the user's, in order.
func (rs *runState) subAgents() []agent.Config {
	return append(slices.Clip(rs.e.cfg.Agents[1:]), rs.deps.UserAgents...)
}

package tools

import (
	"context"
	"slices"
	"strings"
)

// MetaTarget and MetaInstruction are the Result.Metadata keys of a validated call_subagent:
// the engine routes to Metadata[MetaTarget] with Metadata[MetaInstruction] (routing to a
// sub-agent).
const (
	MetaTarget      = "target"
	MetaInstruction = "instruction"
)

// CallSubagent is the call_subagent tool. Execute only validates: the engine performs the
// routing and returns the sub-agent's final text to the lead as the tool result.
type CallSubagent struct {
	// Agents are the names of the sub-agents the lead may call.
	Agents []string
}

// Name returns "call_subagent".
func (CallSubagent) Name() string { return "call_subagent" }

// Description tells the model what the tool does.
func (c CallSubagent) Description() string {
	return "Delegate a task to a sub-agent (" + strings.Join(c.Agents, ", ") + "). Its final answer comes back as this tool's result."
}

// Params returns agent_name and instruction.
func (c CallSubagent) Params() []Param {
	return []Param{
		{Name: "agent_name", Type: "string", Required: true, Description: "One of: " + strings.Join(c.Agents, ", ")},
		{Name: "instruction", Type: "string", Required: true, Description: "A precise, self-contained task for the sub-agent"},
	}
}

// Execute validates agent_name and instruction; on success Metadata holds MetaTarget and
// MetaInstruction.
func (c CallSubagent) Execute(_ context.Context, p map[string]any) Result {
	name, err := String(p, "agent_name", true)
	if err != nil {
		return Fail("%v", err)
	}
	name = strings.TrimSpace(name)
	if !slices.Contains(c.Agents, name) {
		return Fail("unknown agent_name %q; choose one of: %s", name, strings.Join(c.Agents, ", "))
	}
	instr, err := String(p, "instruction", true)
	if err != nil {
		return Fail("%v", err)
	}
	return Result{Success: true, Metadata: map[string]any{MetaTarget: name, MetaInstruction: instr}}
}

// ReadOnly reports true: a CallSubagent call touches none of the run's artifacts (tools.ReadOnly).
func (CallSubagent) ReadOnly() bool { return true }

// Package tools defines the Tool interface, the registry of tools by name, and the tools
// themselves (artifact tools, record_artifact, call_subagent, web_search, web_fetch). Tool
// names and parameter names are a contract (docs/ARCHITECTURE.md, "Contracts other code
// relies on").
package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// Param describes one parameter of a tool. Type is a JSON Schema type name
// ("string", "integer", "boolean").
type Param struct {
	Name        string
	Type        string
	Description string
	Required    bool
}

// Result is what a tool returns to the model. Data is the text given to the model on
// success; Error is the message given on failure and should tell the model what to do
// next. Metadata carries structured extras for events (never sent to the model).
type Result struct {
	Success  bool
	Data     string
	Error    string
	Metadata map[string]any
}

// OK returns a successful Result holding data.
func OK(data string) Result { return Result{Success: true, Data: data} }

// Fail returns a failed Result with a formatted error message for the model.
func Fail(format string, args ...any) Result {
	return Result{Success: false, Error: fmt.Sprintf(format, args...)}
}

// Tool is one callable tool. Execute receives parameters already decoded from the model's
// call (strings, float64 numbers, bools) and must not panic on missing or mistyped values:
// it returns a failed Result instead. Execute honours ctx cancellation for anything that
// blocks.
type Tool interface {
	Name() string
	Description() string
	Params() []Param
	Execute(ctx context.Context, params map[string]any) Result
}

// ReadOnly is implemented by tools whose calls neither change nor read the run's
// artifacts (documents and declared artifacts): they only read the web, the user's local
// files, or delegate to a sub-agent that does. ReadOnly returning true lets the engine run
// such calls concurrently with the other calls of the same reply (up to the run's limit);
// every other call — a tool without the method, or returning false, such as the artifact
// tools (read_artifact included: it reads what a write of the same reply may change) and
// record_artifact — runs one at a time, in call order (docs/ARCHITECTURE.md, "Several
// tool calls in one reply").
type ReadOnly interface {
	ReadOnly() bool
}

// IsReadOnly reports whether t declares itself read-only (ReadOnly); undeclared tools are
// writes.
func IsReadOnly(t Tool) bool {
	ro, ok := t.(ReadOnly)
	return ok && ro.ReadOnly()
}

// Schema is implemented by tools whose parameters are a JSON Schema of their own (an MCP
// server's tools): InputSchema returns it (an object schema), and the native tool-call
// format sends it as the function's parameters as it is. Params still lists the schema's
// top-level properties, for the XML format's instructions and argument types.
type Schema interface {
	InputSchema() map[string]any
}

// PermissionGroup is implemented by tools whose "Always allow" covers a group of tools:
// PermissionGroup names the group (every tool of one MCP server has the same), and an
// allowed group lets each of its tools run without asking for the rest of the run.
type PermissionGroup interface {
	PermissionGroup() string
}

// CallInfo is the context of one tool call, set by the engine on the ctx given to
// Tool.Execute (WithCall): the run's conversation and message, the call's id as the model
// sent it (native mode) or as the engine made it (xml mode), the tool's name and the
// calling agent. Tools that record who did something (record_artifact: source "tool",
// toolCallId, toolName) read it with CallFrom instead of trusting parameters.
type CallInfo struct {
	ConversationID string
	MessageID      string
	CallID         string
	ToolName       string
	Agent          string
}

type callKey struct{}

// WithCall returns ctx carrying info for the tool it is given to.
func WithCall(ctx context.Context, info CallInfo) context.Context {
	return context.WithValue(ctx, callKey{}, info)
}

// CallFrom returns the CallInfo WithCall put on ctx, and whether there was one.
func CallFrom(ctx context.Context) (CallInfo, bool) {
	info, ok := ctx.Value(callKey{}).(CallInfo)
	return info, ok
}

// ErrUnknownTool is returned by Registry.Get for a name that is not registered.
var ErrUnknownTool = errors.New("unknown tool")

// Registry maps tool names to tools. It is built once and then only read, so it is safe
// for concurrent use after construction.
type Registry struct {
	byName map[string]Tool
}

// NewRegistry returns a registry holding ts. A duplicate name is a programming error and
// panics.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{byName: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		if _, dup := r.byName[t.Name()]; dup {
			panic("tools: duplicate tool " + t.Name())
		}
		r.byName[t.Name()] = t
	}
	return r
}

// Get returns the tool named name, or an error wrapping ErrUnknownTool.
func (r *Registry) Get(name string) (Tool, error) {
	t, ok := r.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	return t, nil
}

// Subset returns the tools named in names, in that order, skipping unknown names.
func (r *Registry) Subset(names []string) []Tool {
	out := make([]Tool, 0, len(names))
	for _, n := range names {
		if t, ok := r.byName[n]; ok {
			out = append(out, t)
		}
	}
	return out
}

// Names returns all registered names, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.byName))
	for n := range r.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

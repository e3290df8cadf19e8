package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"artifactflow/backend/llm"
	"artifactflow/backend/tools"
)

// NativeDefs describes ts for the `tools` field of a native-mode request, in the order
// given. A tool with a schema of its own (tools.Schema, an MCP server's tool) has it as
// its Parameters; every other tool's Parameters is a JSON Schema object
//
//	{"type": "object", "properties": {P: {"type": T, "description": D}, …}, "required": [P, …]}
//
// built from tools.Param; a Param with an empty Type is declared "string", an empty
// description is left out, and "required" is always present ([] when nothing is
// required, since some endpoints reject null).
func NativeDefs(ts []tools.Tool) []llm.ToolDef {
	defs := make([]llm.ToolDef, 0, len(ts))
	for _, t := range ts {
		if s, ok := t.(tools.Schema); ok {
			defs = append(defs, llm.ToolDef{Name: t.Name(), Description: t.Description(), Parameters: s.InputSchema()})
			continue
		}
		props := make(map[string]any)
		required := []string{}
		for _, p := range t.Params() {
			prop := map[string]any{"type": paramType(p)}
			if p.Description != "" {
				prop["description"] = p.Description
			}
			props[p.Name] = prop
			if p.Required {
				required = append(required, p.Name)
			}
		}
		defs = append(defs, llm.ToolDef{
			Name:        t.Name(),
			Description: t.Description(),
			Parameters: map[string]any{
				"type":       "object",
				"properties": props,
				"required":   required,
			},
		})
	}
	return defs
}

// NativeInstructions returns the short tool-use rule appended to the system prompt in
// native mode, where the endpoint already carries the tool definitions: independent calls
// go in one message (every call of a reply runs, the independent ones at once), a call
// that needs another's result in a later one.
func NativeInstructions() string {
	return "When you need several tool calls that do not depend on each other, make them all in one message: they run at the same time and their results come back together, in the order of your calls. " +
		"Make a call that needs another call's result in a later message. When you need no tool, answer directly without calling one."
}

// ParseNative decodes the native tool calls the llm package assembled, in order, one Call
// per input. ts (the tools offered in the request) only shapes error guidance.
//
// Arguments are decoded as one JSON object, after these repairs: empty or "null"
// arguments mean {}; a Markdown code fence around the object is dropped; an object
// encoded twice (a JSON string whose content is the object) is decoded once more; text
// after a complete object is ignored. Anything else — invalid JSON, or JSON that is not
// an object — sets Call.Err (wrapping ErrMalformedCall) with the parse error, its byte
// offset and an example object built from the tool's parameters. A call without a name
// also gets an Err. A call with an empty ID gets "call_<n>", n its 1-based position.
func ParseNative(calls []llm.ToolCall, ts []tools.Tool) []Call {
	out := make([]Call, 0, len(calls))
	for i, tc := range calls {
		c := Call{ID: tc.ID, Name: strings.TrimSpace(tc.Name), Raw: tc.Arguments}
		if c.ID == "" {
			c.ID = "call_" + strconv.Itoa(i+1)
		}
		tool := findTool(ts, c.Name)
		switch params, err := decodeArgs(tc.Arguments, 0); {
		case c.Name == "":
			c.Err = fmt.Errorf("%w: the tool call has no function name; call one of: %s",
				ErrMalformedCall, toolNames(ts))
		case err != nil:
			c.Err = fmt.Errorf("%w: arguments for %s %v; send one JSON object like %s",
				ErrMalformedCall, c.Name, err, exampleJSON(tool))
		default:
			c.Params = params
		}
		out = append(out, c)
	}
	return out
}

// decodeArgs decodes native arguments text into an object, applying the repairs listed
// on ParseNative. depth counts string unwrapping so a string is unwrapped only once.
// Its errors complete the phrase "arguments for <tool> …".
func decodeArgs(s string, depth int) (map[string]any, error) {
	s = stripFence(strings.TrimSpace(s))
	if s == "" || s == "null" {
		return map[string]any{}, nil
	}
	var v any
	err := json.Unmarshal([]byte(s), &v)
	if err != nil {
		// A complete value followed by garbage ("{...}}" or "{...}<|end|>"): keep the value.
		if json.NewDecoder(strings.NewReader(s)).Decode(&v) != nil {
			return nil, errors.New("are not valid JSON: " + jsonError(err))
		}
	}
	switch x := v.(type) {
	case map[string]any:
		return x, nil
	case string:
		if depth == 0 {
			if m, err := decodeArgs(x, depth+1); err == nil {
				return m, nil
			}
		}
	}
	return nil, fmt.Errorf("must be a JSON object, not %s", jsonKind(v))
}

// jsonError describes a JSON decoding error for the model, with the byte offset of a
// syntax error.
func jsonError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at byte offset %d", err, se.Offset)
	}
	return err.Error()
}

// stripFence returns s without a surrounding Markdown code fence ("```json\n…\n```"),
// or s unchanged when it does not start with one.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return s
	}
	body := strings.TrimSpace(s[nl+1:])
	return strings.TrimSpace(strings.TrimSuffix(body, "```"))
}

// jsonKind names the JSON type of a decoded value for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return "an object"
}

// exampleJSON returns a one-line example arguments object for t: its required
// parameters (all of them when none is required) with placeholder values, in declared
// order. A nil t gives a generic example.
func exampleJSON(t tools.Tool) string {
	if t == nil {
		return `{"parameter": "value"}`
	}
	ps := exampleParams(t)
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		key, _ := json.Marshal(p.Name) // a string always marshals
		b.Write(key)
		b.WriteString(": ")
		switch paramType(p) {
		case "integer", "number":
			b.WriteString("1")
		case "boolean":
			b.WriteString("true")
		default:
			b.WriteString(`"..."`)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// exampleParams returns the parameters an example call for t shows: the required ones,
// or all when none is required.
func exampleParams(t tools.Tool) []tools.Param {
	var req []tools.Param
	for _, p := range t.Params() {
		if p.Required {
			req = append(req, p)
		}
	}
	if len(req) == 0 {
		return t.Params()
	}
	return req
}

// paramType returns p's JSON Schema type, "string" when p declares none.
func paramType(p tools.Param) string {
	if p.Type == "" {
		return "string"
	}
	return p.Type
}

// findTool returns the tool in ts named name, or nil.
func findTool(ts []tools.Tool, name string) tools.Tool {
	for _, t := range ts {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

// toolNames lists the names of ts for error messages.
func toolNames(ts []tools.Tool) string {
	if len(ts) == 0 {
		return "(no tools are available)"
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return strings.Join(names, ", ")
}

// Package toolcall turns a model's tool calls into decoded Calls and back, in the two
// formats a model can use:
//
//   - native: OpenAI `tools` definitions and streamed `tool_calls`, which the llm package
//     assembles into []llm.ToolCall with raw JSON argument text (ParseNative, NativeDefs);
//   - xml: the model writes
//     <tool_call><name>N</name><params><P><![CDATA[v]]></P></params></tool_call>
//     in its answer text (ParseXML, StripXMLCalls, XMLInstructions), and results go back
//     as <tool_result name="N" success="true|false">…</tool_result> (FormatXMLResult).
//
// Both parsers repair the common, unambiguous mistakes models make and report the rest
// in Call.Err with a message written for the model, so the engine can send it back as a
// failed tool result. The parsers return every call they find, in order; the engine runs
// them all.
package toolcall

import (
	"errors"
	"fmt"
	"strings"
)

// Mode selects how tools are offered to a model and how its calls are read
// (config key `tool_call_mode`, flag --tool-call-mode).
type Mode string

// The valid modes.
const (
	// ModeNative uses the endpoint's OpenAI-style `tools` and `tool_calls`.
	ModeNative Mode = "native"
	// ModeXML describes the tools in the system prompt and parses <tool_call> blocks
	// out of the answer text; for endpoints or models without function calling.
	ModeXML Mode = "xml"
)

// ErrUnknownMode is returned (wrapped) by ParseMode for a value that names no Mode.
var ErrUnknownMode = errors.New("unknown tool call mode")

// ParseMode parses a configured mode name. Surrounding spaces and letter case are
// ignored; "" means ModeNative (the default). Any other value returns an error wrapping
// ErrUnknownMode that lists the valid values.
func ParseMode(s string) (Mode, error) {
	switch Mode(strings.ToLower(strings.TrimSpace(s))) {
	case "", ModeNative:
		return ModeNative, nil
	case ModeXML:
		return ModeXML, nil
	}
	return "", fmt.Errorf("%w %q: valid values are %q and %q", ErrUnknownMode, s, ModeNative, ModeXML)
}

// ErrMalformedCall is wrapped by every Call.Err: the call could not be decoded. The
// text after the prefix tells the model how to write the call correctly.
var ErrMalformedCall = errors.New("malformed tool call")

// Call is one decoded tool call.
//
// ID is the native tool_call id (generated as "call_<n>" when the endpoint sent none,
// n = the call's 1-based position); it is empty in xml mode. Name is the tool name as
// written by the model, trimmed; it may name no existing tool, which is left to the
// engine to report. Params holds decoded values: strings, float64, bool, and for native
// calls also nil, []any and map[string]any as in encoding/json; never nil when Err is nil.
// Raw is what the model wrote: the arguments text (native) or the whole call block (xml).
// Err is non-nil, wrapping ErrMalformedCall, when the call could not be decoded; its
// message is meant to be shown to the model as the failed tool result.
type Call struct {
	ID     string
	Name   string
	Params map[string]any
	Raw    string
	Err    error
}

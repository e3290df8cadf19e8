// Package llm talks to any OpenAI-compatible chat completions endpoint through go-openai:
// streaming, reasoning text kept apart from the answer, native tool-call deltas assembled,
// token usage per call, and retries with exponential backoff.
package llm

import (
	"context"
	"encoding/base64"

	"artifactflow/backend/events"
)

// Role values for Message.Role.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message sent to the model. ToolCalls is set on assistant messages in
// native mode; ToolCallID is set on tool messages answering one of them.
//
// ReasoningContent is the reasoning an assistant message's reply carried in
// "reasoning_content" (Response.ReasoningContent). It is sent back, as
// "reasoning_content", only on an assistant message with ToolCalls: DeepSeek's thinking
// mode refuses (400) a later request whose tool-call turns lack it, and ignores it on
// other turns. Reasoning that came in another field ("reasoning", "reasoning_details",
// <think>) is never sent back, nor on other messages.
//
// Images are pictures sent with a user message to a model that can see them: the request
// then carries the message as content parts (OpenAI's chat format: a "text" part with
// Content, then one "image_url" part per image, whose URL is a base64 data URL). Only user
// messages carry images; the caller decides whether the model has vision.
type Message struct {
	Role             string     `json:"role"`
	Content          string     `json:"content"`
	Images           []Image    `json:"images,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
}

// Image is one picture of a user message: MIME is its media type ("image/png",
// "image/jpeg", "image/gif" or "image/webp") and Data its encoded bytes, already within the
// size a request may carry (the engine downscales or refuses larger ones).
type Image struct {
	MIME string `json:"mime"`
	Data []byte `json:"data"`
}

// DataURL returns the image as a "data:<mime>;base64,<data>" URL, the form an image_url
// part carries.
func (im Image) DataURL() string {
	return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// ToolCall is one native tool call: Arguments is the raw JSON text the model produced
// (possibly malformed; callers validate it).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolDef describes a tool to the model in native mode. Parameters is a JSON Schema object.
type ToolDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// Request is one chat completion request. Model empty means the client's default model.
// Tools empty sends no tools (xml mode). Sampling's unset fields are left out of the
// request, so the endpoint's own defaults apply (a parameter is sent only when set).
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolDef
	Sampling Sampling
}

// Sampling holds the optional sampling parameters of a request (each agent has its own). A
// nil pointer or a zero MaxTokens is unset and not sent; a set value is sent as is, 0
// included (a temperature of 0 is a real choice).
//   - Temperature: 0–2 (sent as "temperature").
//   - TopP: nucleus sampling, 0–1 (sent as "top_p").
//   - MaxTokens: the most tokens the answer may have, > 0 (sent as "max_tokens", or as
//     "max_completion_tokens" for the OpenAI reasoning models that refuse max_tokens).
//
// The ranges are checked by config.Settings.Validate, not here: the endpoint judges.
type Sampling struct {
	Temperature *float32
	TopP        *float32
	MaxTokens   int
}

// IsZero reports whether no sampling parameter is set.
func (s Sampling) IsZero() bool { return s.Temperature == nil && s.TopP == nil && s.MaxTokens == 0 }

// Delta is one streamed piece of a call: answer content, or reasoning (from the delta's
// reasoning_content, reasoning or reasoning_details, or a leading <think>...</think> block
// of the content), or a reset. Client.Stream sets exactly one of the three in each Delta it
// delivers.
type Delta struct {
	Content   string
	Reasoning string
	// Reset tells the consumer to discard all Content and Reasoning received so far for
	// this call: the stream broke after deltas were delivered and the call is being
	// retried from the start. It is sent just before the retry, never after the last try.
	Reset bool
}

// Response is the assembled result of one streamed call. Usage is what the endpoint
// reported in its usage chunk (zero if it sent none). Reasoning is all the reasoning text,
// whichever field or tag carried it; ReasoningContent is the part of it that came in
// "reasoning_content", which Message.ReasoningContent sends back with tool calls.
type Response struct {
	Content          string
	Reasoning        string
	ReasoningContent string
	ToolCalls        []ToolCall
	Usage            events.Usage
	FinishReason     string
	Model            string
}

// Model is what the engine needs from a chat model: one streamed completion. onDelta is
// called in order for each content or reasoning delta, from the calling goroutine.
// Implementations retry transient failures themselves and honour ctx cancellation.
type Model interface {
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error)
}

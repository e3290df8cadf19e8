// Package events defines the one typed event that records a run (docs/ARCHITECTURE.md,
// "Contracts other code relies on").
//
// Every event carries the conversation and message it belongs to, a per-conversation
// monotonically increasing seq, the agent that produced it, a creation time and a JSON data
// object whose shape depends on the type (see the Data* structs). All types except
// llm_chunk are persisted to the message_events table; all are sent to the UI.
package events

import (
	"encoding/json"
	"time"
)

// Type names an event kind. The string values are a contract with the store, the CLI's
// --json output and the frontend; never rename them.
type Type string

// The event types (docs/ARCHITECTURE.md, "Contracts other code relies on"), hook_result (a
// hook ran) and source_added (a source entered the conversation's list or changed; data is
// the sources.Source as stored). Terminal types are Complete, Cancelled and Error; Stop
// hooks add hook_result and artifact_changed events after the terminal event; so does the
// suggestions event (DataSuggestions), after a complete run.
const (
	Metadata            Type = "metadata"
	AgentStart          Type = "agent_start"
	LLMChunk            Type = "llm_chunk"
	LLMComplete         Type = "llm_complete"
	AgentComplete       Type = "agent_complete"
	ToolStart           Type = "tool_start"
	ToolComplete        Type = "tool_complete"
	SubagentInstruction Type = "subagent_instruction"
	PermissionRequest   Type = "permission_request"
	PermissionResult    Type = "permission_result"
	UserInput           Type = "user_input"
	QueuedMessage       Type = "queued_message"
	CompactionStart     Type = "compaction_start"
	CompactionSummary   Type = "compaction_summary"
	ArtifactChanged     Type = "artifact_changed"
	HookResult          Type = "hook_result"
	SourceAdded         Type = "source_added"
	Suggestions         Type = "suggestions"
	Complete            Type = "complete"
	Cancelled           Type = "cancelled"
	Error               Type = "error"
)

// IndexProgress reports an indexing pass of a conversation's local files: data is
// localfiles.Progress, the message id is empty and seq 0. It comes from outside any run and
// is never stored.
const IndexProgress Type = "index_progress"

// Feedback is the user's rating of one finished run: data is DataFeedback, the message id
// is the rated run's. It comes from outside any run (store.AppendFeedback writes it with the
// conversation's next seq) and is stored like every other event, so it outlives compaction
// and stays with its run whichever branch is shown. The latest feedback event of a message
// is its rating; one with an empty Rating clears it.
const Feedback Type = "feedback"

// Ratings of DataFeedback.
const (
	RatingUp   = "up"
	RatingDown = "down"
)

// DataFeedback is the data of feedback: Rating is RatingUp, RatingDown or "" (the rating
// is cleared), Note the user's optional remark (plain text, at most MaxFeedbackNote runes,
// always "" when Rating is "").
type DataFeedback struct {
	Rating string `json:"rating"`
	Note   string `json:"note,omitempty"`
}

// MaxFeedbackNote is the longest note of a feedback event, in runes.
const MaxFeedbackNote = 2000

// Terminal reports whether t ends a run (complete, cancelled or error).
func (t Type) Terminal() bool { return t == Complete || t == Cancelled || t == Error }

// Persisted reports whether events of type t are written to message_events (everything but
// llm_chunk and index_progress, which no run emits).
func (t Type) Persisted() bool { return t != LLMChunk && t != IndexProgress }

// Event is one record of a run. Seq is assigned by the engine's emitter, starts at 1 and
// increases by one per event within a conversation (llm_chunk events share the seq of the
// last persisted event and are never stored). Data is a JSON object.
type Event struct {
	Type           Type            `json:"type"`
	ConversationID string          `json:"conversation_id"`
	MessageID      string          `json:"message_id"`
	Seq            int64           `json:"seq"`
	AgentName      string          `json:"agent_name,omitempty"`
	CreatedAt      time.Time       `json:"created_at"`
	Data           json.RawMessage `json:"data"`
}

// Usage is token usage as reported by the endpoint for one LLM call or summed over a run.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Add returns the element-wise sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.PromptTokens + o.PromptTokens, u.CompletionTokens + o.CompletionTokens, u.TotalTokens + o.TotalTokens}
}

// DataMetadata is the data of a metadata event, the first event of every run. Warnings,
// when present, are problems the user should see that do not stop the run, one sentence
// each: an agent file of <data-dir>/agents/ that is skipped ("reviewer.md:3: tools:
// unknown tool \"foo\" (the agent is skipped)"), or an MCP tool an agent names that no
// server offers.
//
// Images are the pictures the user attached to the question (uploads of the conversation),
// in the order given; a warning says when one of them was not shown to the model.
type DataMetadata struct {
	ParentID string     `json:"parent_id,omitempty"`
	Content  string     `json:"content"`
	Model    string     `json:"model"`
	Mode     string     `json:"tool_call_mode"`
	Warnings []string   `json:"warnings,omitempty"`
	Images   []ImageRef `json:"images,omitempty"`
	// WarningCodes let a UI say some of Warnings in its own language (none: every
	// warning is shown as its sentence).
	WarningCodes []WarningCode `json:"warning_codes,omitempty"`
}

// WarningCode names the sentence of DataMetadata.Warnings[Index] so a UI can translate
// it: Code is one of the WarningPicture* codes, Params its values by name (all text).
type WarningCode struct {
	Index  int               `json:"index"`
	Code   string            `json:"code"`
	Params map[string]string `json:"params,omitempty"`
}

// Warning codes. WarningPictureNotShown: the lead's model does not see pictures, so the
// question's were kept but not sent (params model, names: the quoted names joined by
// ", "). WarningPictureNotSent: one picture could not be read or fitted into a request
// (params name, reason: the cause in English).
const (
	WarningPictureNotShown = "picture_not_shown"
	WarningPictureNotSent  = "picture_not_sent"
)

// ImageRef is one picture attached to a question: the upload artifact that holds it
// (ArtifactID, in the question's conversation), its file name, media type ("image/png",
// "image/jpeg", "image/gif", "image/webp"), SHA-256 of the original (hex, also the name of
// the original under the data dir's blobs/), size in bytes and in pixels. The same list
// is kept in the question's messages.metadata under "images" (MessageMetadata).
type ImageRef struct {
	ArtifactID string `json:"artifact_id"`
	Name       string `json:"name"`
	MIME       string `json:"mime"`
	SHA256     string `json:"sha256"`
	Size       int    `json:"size"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
}

// MessageMetadata is the messages.metadata JSON of a question: Images are the pictures
// attached to it (none: the metadata stays NULL).
type MessageMetadata struct {
	Images []ImageRef `json:"images,omitempty"`
}

// ImagesOf returns the pictures recorded in a question's messages.metadata; nil when
// there are none or the metadata is not such JSON.
func ImagesOf(metadata []byte) []ImageRef {
	if len(metadata) == 0 {
		return nil
	}
	var m MessageMetadata
	if json.Unmarshal(metadata, &m) != nil {
		return nil
	}
	return m.Images
}

// DataAgentStart is the data of agent_start; Instruction is set for sub-agents.
type DataAgentStart struct {
	Instruction string `json:"instruction,omitempty"`
	Round       int    `json:"round"`
}

// DataLLMChunk is the data of llm_chunk: one streamed delta of answer text or reasoning
// text. Reset means the endpoint's stream broke and the call is being retried: discard the
// text streamed so far for this call.
type DataLLMChunk struct {
	Content   string `json:"content,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	Reset     bool   `json:"reset,omitempty"`
}

// DataLLMComplete is the data of llm_complete: the whole text of one LLM call.
// DurationMS is wall time of the call in milliseconds including retries.
type DataLLMComplete struct {
	Content    string     `json:"content"`
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	Usage      Usage      `json:"usage"`
	Model      string     `json:"model"`
	DurationMS int64      `json:"duration_ms"`
	// ReasoningContent is set when all of Reasoning came in "reasoning_content" (DeepSeek,
	// Qwen, llama.cpp): Reasoning then goes back to the endpoint with these ToolCalls when
	// the history is rebuilt (llm.Message.ReasoningContent; docs/ARCHITECTURE.md, "Model
	// streams").
	ReasoningContent bool `json:"reasoning_content,omitempty"`
}

// ToolCall is a parsed tool call as recorded in events. Params is a JSON object.
type ToolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Params json.RawMessage `json:"params"`
}

// DataAgentComplete is the data of agent_complete. Content is the agent's text for the
// round; Routing is "tool_call", "subagent" or "" (the agent finished).
type DataAgentComplete struct {
	Content string `json:"content"`
	Routing string `json:"routing,omitempty"`
	Target  string `json:"target,omitempty"`
}

// DataToolStart is the data of tool_start.
type DataToolStart struct {
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Params json.RawMessage `json:"params"`
}

// DataToolComplete is the data of tool_complete. Result is the text returned to the model.
type DataToolComplete struct {
	CallID     string `json:"call_id"`
	Tool       string `json:"tool"`
	Success    bool   `json:"success"`
	Result     string `json:"result,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// DataSubagentInstruction is the data of subagent_instruction, emitted by the lead when it
// routes work to a sub-agent (call_subagent). CallID is the id of the lead's call_subagent
// call, which is also the id of the sub-agent instance it starts: every event of that
// instance carries it in its data as "instance" (InstanceKey), so the instances of one
// reply, which run at once, can be told apart.
type DataSubagentInstruction struct {
	Target      string `json:"target"`
	Instruction string `json:"instruction"`
	CallID      string `json:"call_id,omitempty"`
}

// InstanceKey is the key, first in the data object of every event a sub-agent instance
// emits (its rounds, tool calls, sources, permission requests, compactions), whose string
// value names the instance: the call id of the lead's call_subagent that started it.
// Events of the lead, and events recorded before instances existed, have no such key.
const InstanceKey = "instance"

// ArtifactSnapshot is the full state of one artifact as seen by the run. Version is the
// in-memory version number.
type ArtifactSnapshot struct {
	ID          string `json:"id"`
	ContentType string `json:"content_type"`
	Title       string `json:"title"`
	Content     string `json:"content"`
	Version     int    `json:"version"`
	Source      string `json:"source"`
	UpdateType  string `json:"update_type"`
}

// DataArtifactChanged is the data of artifact_changed, emitted after every successful
// artifact operation so the UI shows artifacts growing live. It covers both kinds of
// artifact of the panel:
//   - a document (agent-written or uploaded, versioned): Artifact holds it;
//     Declared is nil. Action is "" (or "created"/"updated") while a run writes it, and
//     "removed" with Reason "explicit" when the user deletes it (Artifact then holds the
//     last state);
//   - a declared artifact (a link or file recorded by record_artifact, a hook or
//     a local client): Declared holds the whole artifact (for "removed", the last state
//     before removal), ArtifactID its id, Action created | updated | removed and, for
//     removed, Reason "eviction" or "explicit"; Artifact is empty.
type DataArtifactChanged struct {
	Artifact   ArtifactSnapshot  `json:"artifact"`
	Action     string            `json:"action,omitempty"`
	ArtifactID string            `json:"artifactId,omitempty"`
	Reason     string            `json:"reason,omitempty"`
	Declared   *DeclaredArtifact `json:"declared,omitempty"`
}

// DeclaredArtifact is a declared artifact as every client sees it: a link or file the user
// can open, registered by record_artifact, a hook or a local client. Field names are the
// JSON names every client uses (the local API's too). Title and Description are plain text;
// Metadata holds only strings, finite numbers, booleans and null, at most 4 KB as JSON.
// Exactly one of WorkspacePath (relative to the conversation's workspace folder), ManagedID
// and URL locates it (a published artifact may carry ManagedID beside its URL). The client
// id of the registering client is never exposed; ClientRetained says whether some client
// asked to keep it. Times are RFC 3339 UTC with milliseconds.
type DeclaredArtifact struct {
	ID             string         `json:"id"`
	Kind           string         `json:"kind"`    // html, image, video, audio, pdf, notebook, file, link, other
	Storage        string         `json:"storage"` // workspace, managed, external_url, published
	Title          string         `json:"title"`
	Description    string         `json:"description,omitempty"`
	Status         string         `json:"status"` // available, missing
	Source         string         `json:"source"` // tool, hook, client
	WorkspacePath  string         `json:"workspacePath,omitempty"`
	ManagedID      string         `json:"managedId,omitempty"`
	URL            string         `json:"url,omitempty"`
	MimeType       string         `json:"mimeType,omitempty"`
	SizeBytes      *int64         `json:"sizeBytes,omitempty"`
	ToolCallID     string         `json:"toolCallId,omitempty"`
	ToolName       string         `json:"toolName,omitempty"`
	HookName       string         `json:"hookName,omitempty"`
	ClientRetained bool           `json:"clientRetained"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	CreatedAt      string         `json:"createdAt"`
	UpdatedAt      string         `json:"updatedAt"`
	// MissingReason says why Status is missing ("the file was deleted", "it is a link
	// that leaves the workspace"); "" when available.
	MissingReason string `json:"missingReason,omitempty"`
}

// DataHookResult is the data of hook_result: one hook command ran on Event ("PostToolUse"
// after a tool call, with ToolName and ToolCallID; "Stop" after the run's terminal event).
// OK is false when it could not start, exited non-zero, ran past its timeout (it was
// killed), was cancelled, or printed something other than a JSON object or more than 1 MB;
// Error says which, with the end of its stderr. Artifacts counts the artifacts its stdout
// declared (hookSpecificOutput.artifacts, before the declared store's validation; each one
// stored emits its own artifact_changed), Dropped those that were not stored: they could
// not be read, were over the per-hook limit, failed the declared store's validation, or did
// not fit (hooks over their share of a full conversation). A hook never fails the run: this
// event is informational.
type DataHookResult struct {
	Hook       string `json:"hook"`
	Event      string `json:"event"`
	OK         bool   `json:"ok"`
	Error      string `json:"error,omitempty"`
	Artifacts  int    `json:"artifacts"`
	Dropped    int    `json:"dropped,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// DataSuggestions is the data of a suggestions event, which may follow a complete run's
// terminal event in the window and browser mode: Questions are two or three follow-up
// questions the user may ask next (plain text, each at most 200 runes, in the
// conversation's language; left out when the model gave none), and Title is the
// conversation's new title when the model's replaced the one made from the question (left
// out otherwise). An event has at least one of the two. A later run of the conversation
// makes its questions stale: the window shows only those of the latest run on the branch.
type DataSuggestions struct {
	Questions []string `json:"questions,omitempty"`
	Title     string   `json:"title,omitempty"`
}

// DataTerminal is the data of the terminal events complete, cancelled and error; an error
// event's Code classifies its Error. FlushFailed lists artifact ids whose flush failed
// (partial failure is reported, never rolled back). Web tallies the run's web_search and
// web_fetch calls (nil when it made none) and Cited lists the source numbers the answer
// cites, in order of first use; a complete run's Response ends with the footer listing
// them.
type DataTerminal struct {
	Response string `json:"response,omitempty"`
	Error    string `json:"error,omitempty"`
	// Code is the stable code of Error (an app.AppError code such as model_unreachable,
	// model_auth or model_rate_limited), or "" when the engine was given no classifier or
	// the run did not fail.
	Code        string    `json:"code,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	FlushFailed []string  `json:"flush_failed,omitempty"`
	Usage       Usage     `json:"usage"`
	DurationMS  int64     `json:"duration_ms"`
	Steps       int       `json:"steps"`
	Web         *WebTally `json:"web,omitempty"`
	Cited       []int     `json:"cited,omitempty"`
	// Cut is set on a complete run whose final answer the model did not finish: "length"
	// (it reached its output token limit) or "content_filter" (the provider's filter
	// stopped it). Response then ends with a note saying so.
	Cut string `json:"cut,omitempty"`
}

// WebTally counts one run's web tool calls over all its agents: Searches web_search calls
// and SearchesFailed those that failed, Fetches web_fetch calls and FetchesFailed those
// that failed. Errors holds at most three distinct error messages, each naming the search
// provider or the URL.
type WebTally struct {
	Searches       int      `json:"searches"`
	SearchesFailed int      `json:"searches_failed"`
	Fetches        int      `json:"fetches"`
	FetchesFailed  int      `json:"fetches_failed"`
	Errors         []string `json:"errors,omitempty"`
}

// DataCompactionStart is the data of compaction_start: the agent's context (TokensBefore,
// estimated) passed Threshold tokens of a Window-token context.
type DataCompactionStart struct {
	TokensBefore int `json:"tokens_before"`
	Threshold    int `json:"threshold"`
	Window       int `json:"window"`
	Messages     int `json:"messages"`
}

// DataCompactionSummary is the data of compaction_summary. When Success, Summary (7
// sections) replaces everything this agent saw before the event: it is the new boundary of
// the agent's history. KeptMessages follow it verbatim, in their original order: the
// instruction the agent was working on (its task message, or the user's question and
// queued input for the lead) and its latest tool rounds (each assistant message with its
// tool calls and all their results), within a share of the context window (see
// docs/ARCHITECTURE.md, "Compaction"). Kept is the text of the kept user messages, joined
// by blank lines, for display; events written before KeptMessages existed hold only Kept,
// which is then the one user message kept. A failed summary (Success false, Error set) is
// ignored as a boundary. Events are never deleted, so the user's history stays whole.
type DataCompactionSummary struct {
	Success      bool          `json:"success"`
	Summary      string        `json:"summary,omitempty"`
	Kept         string        `json:"kept,omitempty"`
	KeptMessages []KeptMessage `json:"kept_messages,omitempty"`
	Error        string        `json:"error,omitempty"`
	TokensBefore int           `json:"tokens_before"`
	TokensAfter  int           `json:"tokens_after,omitempty"`
	Usage        Usage         `json:"usage"`
	DurationMS   int64         `json:"duration_ms"`
}

// KeptMessage is one message a compaction kept verbatim, as it was sent to the model: Role
// is "user", "assistant" or "tool"; an assistant message may carry native ToolCalls, and a
// "tool" message answers the call ToolCallID.
type KeptMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []KeptToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// KeptToolCall is a native tool call of a KeptMessage: Arguments is the JSON text sent.
type KeptToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// DataQueuedMessage is the data of queued_message: the user sent Content while the run was
// going; the lead gets it at its next round.
type DataQueuedMessage struct {
	ID      string `json:"id"`
	Content string `json:"content"`
}

// DataUserInput is the data of user_input: queued messages (by id) handed to the lead at
// the start of a round, in order. It places them in the lead's history.
type DataUserInput struct {
	IDs     []string `json:"ids"`
	Content string   `json:"content"`
}

// Permission decisions.
const (
	DecisionApprove     = "approve"
	DecisionDeny        = "deny"
	DecisionAlwaysAllow = "always_allow"
	DecisionTimeout     = "timeout"
	DecisionCancelled   = "cancelled"
)

// DataPermissionRequest is the data of permission_request: the tool call waits for the
// user's decision for at most TimeoutMS milliseconds; no answer counts as deny.
type DataPermissionRequest struct {
	RequestID string          `json:"request_id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Params    json.RawMessage `json:"params,omitempty"`
	TimeoutMS int64           `json:"timeout_ms"`
}

// DataPermissionResult is the data of permission_result; Decision is one of the
// Decision* constants.
type DataPermissionResult struct {
	RequestID string `json:"request_id"`
	Tool      string `json:"tool"`
	Decision  string `json:"decision"`
}

// MustData marshals v for Event.Data. It panics only on values json cannot encode, which
// for the Data* structs above cannot happen.
func MustData(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("events: marshal data: " + err.Error())
	}
	return b
}

package app

import (
	"time"

	"artifactflow/backend/events"
)

// RunEventName is the Wails runtime event (and browser-mode SSE event) on which every run
// event is delivered to the UI; the payload is one events.Event as JSON.
const RunEventName = "run:event"

// ConversationSummary is one row of the conversation list. Snippet is set by
// ConversationService.Search: plain text (no markup, up to about 120 characters, "…" where
// cut) around the first match in the best-matching title or message; "" elsewhere.
type ConversationSummary struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at" ts_type:"string"`
	UpdatedAt time.Time `json:"updated_at" ts_type:"string"`
	Running   bool      `json:"running"`
	Snippet   string    `json:"snippet"`
	// LastStatus is the status of the conversation's latest run (the active branch's last
	// message): running, complete, cancelled, error, interrupted, or "" with no message.
	// The sidebar badges error/interrupted as failed and cancelled as stopped.
	LastStatus string `json:"last_status"`
}

// MessageView is one user message and the answer it produced. Status is running,
// complete, cancelled, error or interrupted; Error is set for error.
//
// SiblingIDs are the ids of the branches at this point of the message tree: the messages
// with the same parent ("" parent: the conversation's roots), oldest first, this one
// included; SiblingIndex is this message's 0-based position in it. A navigator shows
// ‹ SiblingIndex+1 / len(SiblingIDs) › and calls ConversationService.SwitchBranch with a
// neighbour's id.
type MessageView struct {
	ID           string    `json:"id"`
	ParentID     string    `json:"parent_id"`
	Content      string    `json:"content"`
	Response     string    `json:"response"`
	Status       string    `json:"status"`
	Error        string    `json:"error"`
	CreatedAt    time.Time `json:"created_at" ts_type:"string"`
	SiblingIDs   []string  `json:"sibling_ids"`
	SiblingIndex int       `json:"sibling_index"`
	// Feedback is the user's current rating of this message's run, nil when it has none.
	Feedback *FeedbackView `json:"feedback,omitempty"`
}

// FeedbackView is the user's rating of one run (ConversationService.SetFeedback): Rating
// is "up" or "down" ("" once cleared), Note the optional remark (plain text), At the time
// of the rating (zero once cleared).
type FeedbackView struct {
	Rating string    `json:"rating"`
	Note   string    `json:"note"`
	At     time.Time `json:"at" ts_type:"string"`
}

// ConversationDetail is a conversation with the messages on its active branch, root first.
type ConversationDetail struct {
	Conversation ConversationSummary `json:"conversation"`
	Messages     []MessageView       `json:"messages"`
}

// SendRequest asks a research question. ConversationID empty starts a new conversation.
//
// Where the new message goes in the message tree (at most one of the two):
//   - ParentID: the message to answer after; "" continues after the conversation's active
//     branch (the usual send).
//   - EditOf: the id of an earlier question this one replaces (edit and resend): the new
//     message becomes its sibling, with the same parent, a root when EditOf is the first
//     question. The old branch is kept and stays reachable through SwitchBranch.
//
// ParentID and EditOf must name messages of ConversationID (when ConversationID is "", it
// is taken from the message). The new message becomes the active branch.
type SendRequest struct {
	ConversationID string `json:"conversation_id"`
	Content        string `json:"content"`
	ParentID       string `json:"parent_id,omitempty"`
	EditOf         string `json:"edit_of,omitempty"`
}

// SendResult names the conversation and message of a run that has started; its progress
// arrives as RunEventName events.
type SendResult struct {
	ConversationID string `json:"conversation_id"`
	MessageID      string `json:"message_id"`
}

// ArtifactSummary is one artifact in the panel's list. During a run it reflects the run's
// in-memory cache, so a read during the run sees its unflushed edits. Preview is the first
// 200 runes.
type ArtifactSummary struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	ContentType string    `json:"content_type"`
	Version     int       `json:"version"`
	Source      string    `json:"source"`
	Size        int       `json:"size"`
	Preview     string    `json:"preview"`
	UpdatedAt   time.Time `json:"updated_at" ts_type:"string"`
	Unsaved     bool      `json:"unsaved"`
}

// ArtifactView is one artifact with its full content.
type ArtifactView struct {
	ArtifactSummary
	Content string `json:"content"`
}

// SettingsView is the settings as shown in the settings dialog. The API key itself is
// never sent to the UI; APIKeySet tells whether one is stored.
type SettingsView struct {
	// Revision names the version of config.json this view shows, for SettingsInput.Revision:
	// an opaque string, meaningful only to the process that made it.
	Revision            string `json:"revision"`
	BaseURL             string `json:"base_url"`
	APIKeySet           bool   `json:"api_key_set"`
	Model               string `json:"model"`
	ToolCallMode        string `json:"tool_call_mode"`
	SearxngURL          string `json:"searxng_url"`
	AllowPrivateNetwork bool   `json:"allow_private_network"`
	// MaxUploadMB is the size limit of one uploaded file, in MiB; MaxUploadMBLimit the
	// largest limit Save accepts (config.MaxUploadMBLimit), which the dialog's hint and
	// check use, so they cannot disagree with Save.
	MaxUploadMB      int `json:"max_upload_mb"`
	MaxUploadMBLimit int `json:"max_upload_mb_limit"`
	// ContextWindow is the chosen model's context window in tokens (0 = by model name) and
	// EffectiveContextWindow the one in use; CompactAtPercent its compaction threshold.
	ContextWindow          int `json:"context_window"`
	EffectiveContextWindow int `json:"effective_context_window"`
	CompactAtPercent       int `json:"compact_at_percent"`
	// ToolPermissions maps tool names to "auto" or "confirm"; PermissionTimeoutSeconds
	// bounds the wait for an approval.
	ToolPermissions          map[string]string `json:"tool_permissions"`
	PermissionTimeoutSeconds int               `json:"permission_timeout_seconds"`
	DataDir                  string            `json:"data_dir"`
	// Search is the web search choice: the provider in effect, which providers have a
	// stored key (never the keys) and Wikipedia's language. SearchProviders lists every
	// provider for the dialog. SearchReady is false, with SearchProblem saying why in words
	// ("… needs an API key: get one at … and enter it in Settings → Search"), when the
	// provider in effect lacks its key or URL: every web_search would fail.
	Search          SearchView           `json:"search"`
	SearchProviders []SearchProviderView `json:"search_providers"`
	SearchReady     bool                 `json:"search_ready"`
	SearchProblem   string               `json:"search_problem"`
	// Lead and SubAgents are the lead's and the sub-agents' own model settings as stored
	// (empty fields inherit the model above; see AgentModelSettings).
	Lead      AgentModelSettings `json:"lead"`
	SubAgents AgentModelSettings `json:"sub_agents"`
	// SetBy names, by field ("model", "base_url", "api_key", "tool_call_mode",
	// "searxng_url", "allow_private_network", "proxy", "search.provider", "search.keys.<id>",
	// "lead.model", "sub_agents.model"), the command-line flag ("--model") or
	// SourceEnvAPIKey that sets the field for this session. The field shows that value, the
	// dialog shows it read-only, and Save keeps the stored value. Fields not listed come
	// from config.json. Never nil.
	SetBy map[string]string `json:"set_by"`
	// LoadRemoteImages is "ask" (remote images in markdown load after a click on "Load
	// images") or "always" (config.Settings.LoadRemoteImages).
	LoadRemoteImages string `json:"load_remote_images"`
	// Language is the UI language chosen in Settings: "" (follow the system), "en" or
	// "zh-CN" (config.Settings.Language). SettingsService.SetLanguage changes it; Save
	// keeps it.
	Language string `json:"language"`
	// ModelIdleTimeoutSeconds is the longest silence of the model endpoint, in seconds,
	// once an answer streams (config default 300); MaxAnswerMB caps one answer's content,
	// reasoning and tool-call text, in MiB (default 4). Both apply from the next run.
	ModelIdleTimeoutSeconds int `json:"model_idle_timeout_seconds"`
	MaxAnswerMB             int `json:"max_answer_mb"`
	// MaxParallelToolCalls is how many tool calls of one model reply run at once (1–16,
	// config default 4; artifact writes always run one at a time in call order). It
	// applies from the next run.
	MaxParallelToolCalls int `json:"max_parallel_tool_calls"`
	// Proxy is the proxy setting (config.Settings.Proxy) with any password in it shown as
	// "xxxxx": "" (the system's), "direct", or a proxy URL. ProxySource says what it
	// means now: "direct", "environment" (proxy variables), "system" (the macOS or Windows
	// setting), "setting" (the URL above) or "invalid"; ProxyInEffect is the proxy used for
	// https URLs then (password shown as "xxxxx"), "" when requests go direct.
	Proxy         string `json:"proxy"`
	ProxySource   string `json:"proxy_source"`
	ProxyInEffect string `json:"proxy_in_effect"`
}

// ModelContextView is the context settings of one model: ContextWindow as set in tokens
// (0 = by model name), EffectiveContextWindow the one in use, CompactAtPercent the
// compaction threshold in percent of it (a threshold per model).
type ModelContextView struct {
	Model                  string `json:"model"`
	ContextWindow          int    `json:"context_window"`
	EffectiveContextWindow int    `json:"effective_context_window"`
	CompactAtPercent       int    `json:"compact_at_percent"`
}

// SettingsInput is what the settings dialog saves. APIKey empty keeps the stored key;
// ClearAPIKey removes it.
type SettingsInput struct {
	// Revision is the SettingsView.Revision the dialog was opened on: Save writes only the
	// fields whose values differ from that view's ("" or unknown: from config.json's now).
	Revision            string `json:"revision,omitempty"`
	BaseURL             string `json:"base_url"`
	APIKey              string `json:"api_key"`
	ClearAPIKey         bool   `json:"clear_api_key"`
	Model               string `json:"model"`
	ToolCallMode        string `json:"tool_call_mode"`
	SearxngURL          string `json:"searxng_url"`
	AllowPrivateNetwork bool   `json:"allow_private_network"`
	// MaxUploadMB is the size limit of one uploaded file, in MiB (1 to
	// SettingsView.MaxUploadMBLimit, 256; 0 = the default, 20).
	MaxUploadMB int `json:"max_upload_mb"`
	// ContextWindow in tokens (0 = by model name, else 2048–10,000,000) and CompactAtPercent
	// 50–95 (0 = 80), both for Model alone; ToolPermissions tool → "auto" | "confirm"; PermissionTimeoutSeconds
	// 1–3600 (0 = 120).
	ContextWindow            int               `json:"context_window"`
	CompactAtPercent         int               `json:"compact_at_percent"`
	ToolPermissions          map[string]string `json:"tool_permissions"`
	PermissionTimeoutSeconds int               `json:"permission_timeout_seconds"`
	// Search, Lead and SubAgents replace the stored search choice and agent models; nil
	// (left out) keeps them as stored. See SearchInput and AgentModelSettings.
	Search    *SearchInput        `json:"search,omitempty"`
	Lead      *AgentModelSettings `json:"lead,omitempty"`
	SubAgents *AgentModelSettings `json:"sub_agents,omitempty"`
	// LoadRemoteImages is "ask" or "" (load remote images after a click) or "always".
	LoadRemoteImages string `json:"load_remote_images"`
	// ModelIdleTimeoutSeconds (5–3600; 0 = the default, 300) and MaxAnswerMB (1–64; 0 =
	// the default, 4): see SettingsView. Left out (nil), the stored values are kept.
	ModelIdleTimeoutSeconds *int `json:"model_idle_timeout_seconds,omitempty"`
	MaxAnswerMB             *int `json:"max_answer_mb,omitempty"`
	// MaxParallelToolCalls (1–16; 0 = the default, 4): see SettingsView. Left out (nil),
	// the stored value is kept.
	MaxParallelToolCalls *int `json:"max_parallel_tool_calls,omitempty"`
	// Proxy is the proxy setting: "" (the system's), "direct" or "none", or an http://,
	// https://, socks5:// or socks5h:// URL (netproxy.Validate). Left out (nil), or as
	// SettingsView.Proxy showed it (a password as "xxxxx"), the stored value is kept.
	Proxy *string `json:"proxy,omitempty"`
}

// VersionView is one stored version of an artifact in the version list. Message is the
// start of the question whose run produced it ("" for the user's own edits and uploads).
type VersionView struct {
	Version    int       `json:"version"`
	UpdateType string    `json:"update_type"`
	Source     string    `json:"source"`
	Size       int       `json:"size"`
	MessageID  string    `json:"message_id"`
	Message    string    `json:"message"`
	CreatedAt  time.Time `json:"created_at" ts_type:"string"`
}

// VersionContent is one stored version with its content.
type VersionContent struct {
	VersionView
	Content string `json:"content"`
}

// ExportResult is an exported artifact version. In the window the file is written where
// the user chose and SavedPath names it (empty when the user cancelled the dialog); in
// browser mode Data holds the file (base64 in JSON) for the page to download.
type ExportResult struct {
	Filename  string `json:"filename"`
	MIME      string `json:"mime"`
	Data      []byte `json:"data,omitempty"`
	SavedPath string `json:"saved_path,omitempty"`
}

// UploadFile is one file sent from the page (browser mode, or a paste): its name and bytes
// (base64 in JSON).
type UploadFile struct {
	Name string `json:"name"`
	Data []byte `json:"data"`
}

// UploadResult reports one uploaded file: the artifact it became, or why it failed.
type UploadResult struct {
	Name           string `json:"name"`
	ConversationID string `json:"conversation_id"`
	ArtifactID     string `json:"artifact_id,omitempty"`
	Title          string `json:"title,omitempty"`
	ContentType    string `json:"content_type,omitempty"`
	Size           int    `json:"size"`
	Readable       bool   `json:"readable"`
	Note           string `json:"note,omitempty"`
	Error          string `json:"error,omitempty"`
	// NoteParts are Note's parts by kind (artifact.NotePart: "renamed", "unreadable",
	// "decoded", "existing", with their values), for the page to word in the UI's
	// language; Note is the same in English.
	NoteParts []UploadNotePart `json:"note_parts,omitempty"`
	// ErrorCode is Error's AppError code ("file_too_large", "not_a_file", …; "" when
	// Error is empty) and ErrorArgs its values for the page's words: for file_too_large
	// "size" (bytes), "limit_mb" and "at_least" ("1" when the size is a lower bound).
	ErrorCode string            `json:"error_code,omitempty"`
	ErrorArgs map[string]string `json:"error_args,omitempty"`
}

// UploadNotePart is one part of UploadResult.Note: its code and values
// (artifact.NotePart).
type UploadNotePart struct {
	Code string            `json:"code"`
	Args map[string]string `json:"args,omitempty"`
}

// HistoryRequest selects one page of a conversation's history: the stored events of the
// messages on its active branch, root first. Cursors are event seqs, exclusive, 0 = none:
//   - AfterSeq > 0: the first Limit events after it (paging forward; AfterSeq = 0 with
//     BeforeSeq = 0 and Latest false is the first page of the conversation).
//   - BeforeSeq > 0 (and AfterSeq 0): the last Limit events before it (paging backward).
//   - neither, Latest true: the newest page, what opening a conversation shows.
//   - both: the events between them, from AfterSeq on.
//
// Limit is the page size: 0 means 200, the maximum is 1000 (larger values are lowered).
// Every field may be left out.
type HistoryRequest struct {
	BeforeSeq int64 `json:"before_seq,omitempty"`
	AfterSeq  int64 `json:"after_seq,omitempty"`
	Limit     int   `json:"limit,omitempty"`
	Latest    bool  `json:"latest,omitempty"`
}

// HistoryPage is one page of history: events in ascending seq, every stored type (user
// messages through metadata, tool calls and results, compaction_start and
// compaction_summary markers, terminal events ...; llm_chunk is never stored). FirstSeq and
// LastSeq are the seqs of the first and last event (0 for an empty page): ask for
// before_seq = first_seq to load older events and after_seq = last_seq for newer ones.
// HasBefore and HasAfter tell whether there are any.
type HistoryPage struct {
	Events    []events.Event `json:"events"`
	HasBefore bool           `json:"has_before"`
	HasAfter  bool           `json:"has_after"`
	FirstSeq  int64          `json:"first_seq"`
	LastSeq   int64          `json:"last_seq"`
}

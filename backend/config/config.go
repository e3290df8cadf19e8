// Package config resolves the data directory and reads and writes the settings file
// (docs/ARCHITECTURE.md, "Contracts other code relies on"): data dir = --data-dir, else
// $ARTIFACTFLOW_HOME, else os.UserConfigDir()/ArtifactFlow; it holds artifactflow.db and
// config.json (mode 0600).
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"artifactflow/backend/netproxy"
)

// File names inside the data directory.
const (
	DBFile     = "artifactflow.db"
	ConfigFile = "config.json"
	BlobsDir   = "blobs"
)

// ErrInvalid is wrapped by every validation error from Settings.Validate.
var ErrInvalid = errors.New("invalid settings")

// Settings are the user's choices. Zero values mean "not set"; WithDefaults fills them.
type Settings struct {
	BaseURL             string `json:"base_url,omitempty"`
	APIKey              string `json:"api_key,omitempty"`
	Model               string `json:"model,omitempty"`
	ToolCallMode        string `json:"tool_call_mode,omitempty"`
	SearxngURL          string `json:"searxng_url,omitempty"`
	AllowPrivateNetwork bool   `json:"allow_private_network,omitempty"`
	// MaxUploadMB caps one uploaded file, in MiB; 0 means DefaultMaxUploadMB.
	MaxUploadMB int `json:"max_upload_mb,omitempty"`
	// ContextWindow is the context window in tokens for models without an entry in Models;
	// 0 means a default by model name. Older config files kept the one model's window here;
	// Load moves it into Models.
	ContextWindow int `json:"context_window,omitempty"`
	// CompactAtPercent is the share of the context window, in percent (50-95), past which
	// an agent's context is compacted, for models without an entry in Models; 0 means 80.
	CompactAtPercent int `json:"compact_at_percent,omitempty"`
	// Models holds the context window and compaction threshold chosen for each model, keyed
	// by the model name as the endpoint knows it (a threshold per model).
	Models map[string]ModelContext `json:"models,omitempty"`
	// ToolPermissions maps a tool name to "auto" or "confirm"; tools not listed are auto.
	ToolPermissions map[string]string `json:"tool_permissions,omitempty"`
	// PermissionTimeoutSeconds bounds the wait for a confirm tool's approval; 0 means 120.
	PermissionTimeoutSeconds int `json:"permission_timeout_seconds,omitempty"`
	// Hooks are the commands run on hook events (see Hooks and Hook): after each tool call
	// (PostToolUse) and after each run (Stop). They run as the user, without a shell. Load
	// refuses a config.json with a hook whose program is neither an absolute path nor a
	// program found on PATH (HookProgram); otherwise a hand-edited config.json is not
	// validated on load, so the engine skips entries that would fail Validate.
	Hooks Hooks `json:"hooks,omitempty"`
	// Search chooses the web search provider, its keys and Wikipedia's language (see
	// SearchSettings and SearchProvider).
	Search SearchSettings `json:"search,omitzero"`
	// Lead and SubAgents choose the lead agent's and the sub-agents' (search and crawl)
	// model, tool-call mode, context window and sampling; empty fields inherit the
	// top-level Model and ToolCallMode (see AgentModel and Agent).
	Lead      AgentModel `json:"lead,omitzero"`
	SubAgents AgentModel `json:"sub_agents,omitzero"`
	// LoadRemoteImages says whether remote (http(s)) images in markdown are fetched:
	// LoadImagesAsk ("" or "ask", the default) shows them only after the user clicks "Load
	// images" on the message or artifact, LoadImagesAlways fetches them at once (a remote
	// image tells its server what was read).
	LoadRemoteImages string `json:"load_remote_images,omitempty"`
	// Language is the UI language chosen in Settings: "" follows the system locale,
	// LanguageEnglish or LanguageChinese. The window keeps its own copy for a fast first
	// paint; this one tells the agents which language the user reads when a question's own
	// language is unclear (LanguageName).
	Language string `json:"language,omitempty"`
	// ModelIdleTimeoutSeconds bounds each silence of the model endpoint once an answer has
	// started streaming, in seconds: no byte for that long fails the call's try with a
	// timeout (llm.Config.IdleTimeout). 0 means DefaultModelIdleTimeoutSeconds; else
	// MinModelIdleTimeoutSeconds–MaxModelIdleTimeoutSeconds. It applies from the next run.
	ModelIdleTimeoutSeconds int `json:"model_idle_timeout_seconds,omitempty"`
	// MaxAnswerMB caps one model answer's content, reasoning and tool-call text together,
	// in MiB (llm.Config.MaxAnswerBytes); past it the call fails as too large. 0 means
	// DefaultMaxAnswerMB; else 1–MaxAnswerMBLimit. It applies from the next run.
	MaxAnswerMB int `json:"max_answer_mb,omitempty"`
	// Proxy is the proxy of every outgoing request (page fetches, web searches, model
	// calls): "" follows the system (proxy environment variables, else the macOS or
	// Windows setting), "direct" (or "none") uses none, else an http://, https://,
	// socks5:// or socks5h:// URL (netproxy.Validate). Loopback targets never use it.
	Proxy string `json:"proxy,omitempty"`
	// MaxParallelToolCalls is how many tool calls of one model reply may run at once
	// (web searches, page fetches, sub-agents; artifact writes always run one at a time in
	// call order): 1 runs every call one after another. 0 means
	// DefaultMaxParallelToolCalls; else 1–MaxParallelToolCallsLimit. It applies from the
	// next run.
	MaxParallelToolCalls int `json:"max_parallel_tool_calls,omitempty"`
	// MCPServers are the Model Context Protocol servers whose tools the agents are offered,
	// by name (see MCPServer; config.json "mcp_servers", in the shape of the
	// "mcpServers" block of Claude Desktop and Cursor). Their env and header values are
	// secrets, kept out of logs and views.
	MCPServers MCPServers `json:"mcp_servers,omitempty"`
}

// Bounds and defaults of the model call limits (Settings.ModelIdleTimeoutSeconds and
// Settings.MaxAnswerMB). The defaults are llm's (DefaultIdleTimeout, DefaultMaxAnswerBytes).
const (
	// DefaultModelIdleTimeoutSeconds is 5 minutes: Ollama holds back a native tool call
	// until the model has written all of it, which on a CPU can take minutes.
	DefaultModelIdleTimeoutSeconds = 300
	MinModelIdleTimeoutSeconds     = 5
	MaxModelIdleTimeoutSeconds     = 3600
	// DefaultMaxAnswerMB (4 MiB) is far beyond any model's output limit (128k tokens are
	// about 512 KiB of text).
	DefaultMaxAnswerMB = 4
	MaxAnswerMBLimit   = 64
	// DefaultMaxParallelToolCalls and MaxParallelToolCallsLimit bound
	// Settings.MaxParallelToolCalls (engine.DefaultMaxParallelToolCalls and
	// engine.MaxParallelToolCallsLimit).
	DefaultMaxParallelToolCalls = 4
	MaxParallelToolCallsLimit   = 16
)

// Values of Settings.Language besides "" (follow the system locale).
const (
	LanguageEnglish = "en"
	LanguageChinese = "zh-CN"
)

// UILanguage returns the language the user reads for a Settings.Language value: the value
// itself when it is LanguageEnglish or LanguageChinese, else (following the system) the
// system locale's from getenv's LC_ALL, LC_MESSAGES or LANG, the first one set: "zh…" gives
// LanguageChinese, "en…" LanguageEnglish, anything else (C, POSIX, other languages, none,
// as on Windows) "".
func UILanguage(lang string, getenv func(string) string) string {
	if lang == LanguageEnglish || lang == LanguageChinese {
		return lang
	}
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := strings.ToLower(getenv(name))
		if v == "" {
			continue
		}
		switch {
		case strings.HasPrefix(v, "zh"):
			return LanguageChinese
		case strings.HasPrefix(v, "en"):
			return LanguageEnglish
		default:
			return ""
		}
	}
	return ""
}

// LanguageName returns how the prompts name a Settings.Language value:
// "English (en)", "简体中文 (zh-CN)", or "" for "" and unknown values.
func LanguageName(lang string) string {
	switch lang {
	case LanguageEnglish:
		return "English (en)"
	case LanguageChinese:
		return "简体中文 (zh-CN)"
	default:
		return ""
	}
}

// Values of Settings.LoadRemoteImages.
const (
	LoadImagesAsk    = "ask"
	LoadImagesAlways = "always"
)

// ModelContext is the user's choice for one model: its context window in tokens (0 = by
// model name, else 2048–10,000,000), the compaction threshold in percent of it (0 = the
// Settings-wide value, else 50–95), and Vision, whether the model is sent the images of a
// question (nil = by model name, VisionByName).
type ModelContext struct {
	ContextWindow    int   `json:"context_window,omitempty"`
	CompactAtPercent int   `json:"compact_at_percent,omitempty"`
	Vision           *bool `json:"vision,omitempty"`
}

// visionNames are the model name patterns VisionByName knows as seeing images: a pattern
// matches a name's last path part ("openai/gpt-4o" → "gpt-4o"), lowercased, that starts
// with it (or, for those in visionAnywhere, contains it).
var visionNames = []string{"gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-4-vision", "gpt-5", "chatgpt-4o", "o1", "o3", "o4",
	"qwen-vl", "qwen2-vl", "qwen2.5-vl", "qwen3-vl", "qvq", "llava", "bakllava", "llama3.2-vision", "llama-3.2-11b-vision",
	"llama-3.2-90b-vision", "llama4", "llama-4", "gemma3", "gemma-3", "minicpm-v", "claude-3", "claude-sonnet-4", "claude-opus-4",
	"claude-haiku-4", "claude-4", "gemini", "glm-4v", "glm-4.1v", "glm-4.5v", "pixtral", "deepseek-vl", "internvl", "moondream",
	"grok-2-vision", "grok-4", "mistral-small-3", "mistral-medium-3"}

// visionNot are names that start like a vision family but take no images: OpenAI's
// o1-mini, o1-preview and o3-mini (o1, o3 and o4-mini do).
var visionNot = []string{"o1-mini", "o1-preview", "o3-mini"}

// visionAnywhere are the patterns matched anywhere in the name ("Qwen/Qwen2.5-VL-7B",
// "my-llava-finetune").
var visionAnywhere = []string{"-vl", "vision", "llava"}

// VisionByName reports whether model is known, by its name, to take images: the OpenAI
// GPT-4o, GPT-4.1, GPT-5 and o-series models (not o1-mini, o1-preview, o3-mini), Qwen-VL and QVQ, LLaVA, Llama 3.2 Vision and
// Llama 4, Gemma 3, MiniCPM-V, Claude 3 and 4, Gemini, GLM-4V, Pixtral, DeepSeek-VL,
// InternVL and the names containing "-vl" or "vision". An empty or other name gives false;
// the user may turn it on in Settings (ModelContext.Vision).
func VisionByName(model string) bool {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		return false
	}
	for _, p := range visionNot {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	for _, p := range visionNames {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, p := range visionAnywhere {
		if strings.Contains(name, p) {
			return true
		}
	}
	return false
}

// VisionFor reports whether model is sent the images of a question: the user's choice
// for it in Models when set, else VisionByName.
func (s Settings) VisionFor(model string) bool {
	if v := s.Models[strings.TrimSpace(model)].Vision; v != nil {
		return *v
	}
	return VisionByName(model)
}

// WithModelVision returns s with model's vision choice set (a copy of Models is made):
// on equal to VisionByName's answer removes the choice, so the model follows its name.
func (s Settings) WithModelVision(model string, on bool) Settings {
	model = strings.TrimSpace(model)
	mc := s.Models[model]
	mc.Vision = nil
	if on != VisionByName(model) {
		mc.Vision = &on
	}
	return s.WithModelContext(model, mc)
}

// ContextFor returns the context window in tokens (0 = take it from the model name) and the
// compaction threshold in percent that apply to model: its own entry in Models first, then
// the Settings-wide fields, then DefaultCompactAtPercent for the threshold.
func (s Settings) ContextFor(model string) (window, percent int) {
	m := s.Models[strings.TrimSpace(model)]
	window, percent = m.ContextWindow, m.CompactAtPercent
	if window == 0 {
		window = s.ContextWindow
	}
	if percent == 0 {
		percent = s.CompactAtPercent
	}
	if percent == 0 {
		percent = DefaultCompactAtPercent
	}
	return window, percent
}

// WithModelContext returns s with model's context set to mc (a copy of Models is made, so
// s itself is untouched). A zero mc removes the model's entry, so it follows the defaults.
func (s Settings) WithModelContext(model string, mc ModelContext) Settings {
	model = strings.TrimSpace(model)
	next := make(map[string]ModelContext, len(s.Models)+1)
	for k, v := range s.Models {
		next[k] = v
	}
	if mc.ContextWindow == 0 && mc.CompactAtPercent == 0 && mc.Vision == nil {
		delete(next, model)
	} else {
		next[model] = mc
	}
	if len(next) == 0 {
		next = nil
	}
	s.Models = next
	return s
}

// Defaults used when a setting is empty.
const (
	DefaultBaseURL      = "https://api.openai.com/v1"
	DefaultToolCallMode = "native"
	// DefaultMaxUploadMB is the upload size limit when none is set, in MiB.
	DefaultMaxUploadMB = 20
	// DefaultCompactAtPercent is the compaction threshold, in percent of the context window.
	DefaultCompactAtPercent = 80
	// DefaultPermissionTimeoutSeconds is how long a confirm tool waits for the user.
	DefaultPermissionTimeoutSeconds = 120
	// MaxUploadMBLimit is the largest upload limit a user may set, in MiB. An upload is
	// held in memory a few times over while it is read, converted and stored, and SQLite
	// stores an artifact's text as one value of at most 1,000,000,000 bytes; 256 MiB keeps
	// both far off (a 1,000 MB text under a 1,024 MB limit failed with "string or blob
	// too big" after peaking at 3.2 GB).
	MaxUploadMBLimit = 256
)

// WithDefaults returns s with empty BaseURL and ToolCallMode filled in, Search.Provider
// set to the provider in effect (SearchProvider), and MaxUploadMB set to
// DefaultMaxUploadMB when it is 0 or negative and lowered to MaxUploadMBLimit when above
// it. ModelIdleTimeoutSeconds, MaxAnswerMB and MaxParallelToolCalls get their defaults
// when 0 or negative and are clamped to their bounds. Model has no default: the user must choose one for their endpoint. Lead and
// SubAgents are left as set: their empty fields inherit (Agent).
func (s Settings) WithDefaults() Settings {
	s.Search.Provider = s.SearchProvider()
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	if s.ToolCallMode == "" {
		s.ToolCallMode = DefaultToolCallMode
	}
	switch {
	case s.MaxUploadMB <= 0:
		s.MaxUploadMB = DefaultMaxUploadMB
	case s.MaxUploadMB > MaxUploadMBLimit: // a hand-edited config.json is not validated on load
		s.MaxUploadMB = MaxUploadMBLimit
	}
	if s.CompactAtPercent == 0 {
		s.CompactAtPercent = DefaultCompactAtPercent
	}
	if s.PermissionTimeoutSeconds == 0 {
		s.PermissionTimeoutSeconds = DefaultPermissionTimeoutSeconds
	}
	// A hand-edited config.json is not validated on load: out-of-range limits are clamped.
	if s.ModelIdleTimeoutSeconds <= 0 {
		s.ModelIdleTimeoutSeconds = DefaultModelIdleTimeoutSeconds
	}
	s.ModelIdleTimeoutSeconds = min(max(s.ModelIdleTimeoutSeconds, MinModelIdleTimeoutSeconds), MaxModelIdleTimeoutSeconds)
	if s.MaxAnswerMB <= 0 {
		s.MaxAnswerMB = DefaultMaxAnswerMB
	}
	if s.MaxParallelToolCalls <= 0 {
		s.MaxParallelToolCalls = DefaultMaxParallelToolCalls
	}
	s.MaxParallelToolCalls = min(s.MaxParallelToolCalls, MaxParallelToolCallsLimit)
	s.MaxAnswerMB = min(s.MaxAnswerMB, MaxAnswerMBLimit)
	return s
}

// Validate checks the settings' shapes (not reachability, nor whether the chosen search
// provider has its key: see SearchProvider). Errors wrap ErrInvalid and name the field,
// e.g. "invalid settings: base_url: must be an http(s) URL",
// "invalid settings: hooks.PostToolUse[0].command: must name a program",
// "invalid settings: lead.temperature: 3 is outside 0–2" or
// "invalid settings: search.provider: "x" is not one of duckduckgo, …". Problems are
// joined with "; ".
func (s Settings) Validate() error {
	var problems []string
	if s.BaseURL != "" && !isHTTPURL(s.BaseURL) {
		problems = append(problems, "base_url: must be an absolute http(s) URL such as http://localhost:11434/v1")
	}
	if s.SearxngURL != "" && !isHTTPURL(s.SearxngURL) {
		problems = append(problems, "searxng_url: must be an absolute http(s) URL such as http://localhost:8888")
	}
	switch s.ToolCallMode {
	case "", "native", "xml":
	default:
		problems = append(problems, fmt.Sprintf("tool_call_mode: %q is not native or xml", s.ToolCallMode))
	}
	problems = append(problems, validContext("", ModelContext{ContextWindow: s.ContextWindow, CompactAtPercent: s.CompactAtPercent})...)
	models := make([]string, 0, len(s.Models))
	for name := range s.Models {
		models = append(models, name)
	}
	sort.Strings(models)
	for _, name := range models {
		if strings.TrimSpace(name) == "" {
			problems = append(problems, "models: a model name is empty")
			continue
		}
		problems = append(problems, validContext("models: "+name+": ", s.Models[name])...)
	}
	for tool, p := range s.ToolPermissions {
		if p != "auto" && p != "confirm" {
			problems = append(problems, fmt.Sprintf("tool_permissions: %s: %q is not auto or confirm", tool, p))
		}
	}
	switch s.LoadRemoteImages {
	case "", LoadImagesAsk, LoadImagesAlways:
	default:
		problems = append(problems, fmt.Sprintf("load_remote_images: %q is not ask or always", s.LoadRemoteImages))
	}
	switch s.Language {
	case "", LanguageEnglish, LanguageChinese:
	default:
		problems = append(problems, fmt.Sprintf("language: %q is not en or zh-CN (or empty for the system's)", s.Language))
	}
	if s.PermissionTimeoutSeconds < 0 || s.PermissionTimeoutSeconds > 3600 {
		problems = append(problems, fmt.Sprintf("permission_timeout_seconds: %d is outside 1–3600", s.PermissionTimeoutSeconds))
	}
	problems = append(problems, validHooks(s.Hooks)...)
	problems = append(problems, validSearch(s.Search)...)
	problems = append(problems, validAgent("lead.", s.Lead)...)
	problems = append(problems, validAgent("sub_agents.", s.SubAgents)...)
	problems = append(problems, validMCPServers(s.MCPServers)...)
	if v := s.ModelIdleTimeoutSeconds; v != 0 && (v < MinModelIdleTimeoutSeconds || v > MaxModelIdleTimeoutSeconds) {
		problems = append(problems, fmt.Sprintf("model_idle_timeout_seconds: %d is outside %d–%d",
			v, MinModelIdleTimeoutSeconds, MaxModelIdleTimeoutSeconds))
	}
	if s.MaxParallelToolCalls < 0 || s.MaxParallelToolCalls > MaxParallelToolCallsLimit {
		problems = append(problems, fmt.Sprintf("max_parallel_tool_calls: %d is outside 1–%d", s.MaxParallelToolCalls, MaxParallelToolCallsLimit))
	}
	if s.MaxAnswerMB < 0 || s.MaxAnswerMB > MaxAnswerMBLimit {
		problems = append(problems, fmt.Sprintf("max_answer_mb: %d is outside 1–%d", s.MaxAnswerMB, MaxAnswerMBLimit))
	}
	if err := netproxy.Validate(s.Proxy); err != nil {
		problems = append(problems, "proxy: "+err.Error())
	}
	if s.MaxUploadMB < 0 || s.MaxUploadMB > MaxUploadMBLimit {
		problems = append(problems, fmt.Sprintf("max_upload_mb: %d is outside 1–%d", s.MaxUploadMB, MaxUploadMBLimit))
	}
	if len(problems) > 0 {
		return &InvalidError{Problems: problems}
	}
	return nil
}

// Merge returns s with every non-empty field of o laid over it (flags over config.json).
// AllowPrivateNetwork is only ever switched on by o; a non-empty o.Hooks replaces s.Hooks
// whole; o.Search, o.Lead and o.SubAgents are laid over field by field (search keys one
// by one). An o.SearxngURL without an o.Search.Provider also chooses SearXNG: a SearXNG
// URL given on the command line is there to be searched.
func (s Settings) Merge(o Settings) Settings {
	s.Search = mergeSearch(s.Search, o.Search)
	if o.SearxngURL != "" && o.Search.Provider == "" {
		s.Search.Provider = ProviderSearXNG
	}
	s.Lead = mergeAgent(s.Lead, o.Lead)
	s.SubAgents = mergeAgent(s.SubAgents, o.SubAgents)
	if o.BaseURL != "" {
		s.BaseURL = o.BaseURL
	}
	if o.APIKey != "" {
		s.APIKey = o.APIKey
	}
	if o.Model != "" {
		s.Model = o.Model
	}
	if o.ToolCallMode != "" {
		s.ToolCallMode = o.ToolCallMode
	}
	if o.SearxngURL != "" {
		s.SearxngURL = o.SearxngURL
	}
	if o.AllowPrivateNetwork {
		s.AllowPrivateNetwork = true
	}
	if o.Proxy != "" {
		s.Proxy = o.Proxy
	}
	if o.MaxUploadMB != 0 {
		s.MaxUploadMB = o.MaxUploadMB
	}
	if o.ContextWindow != 0 {
		s.ContextWindow = o.ContextWindow
	}
	if o.CompactAtPercent != 0 {
		s.CompactAtPercent = o.CompactAtPercent
	}
	if o.PermissionTimeoutSeconds != 0 {
		s.PermissionTimeoutSeconds = o.PermissionTimeoutSeconds
	}
	if len(o.Hooks) > 0 {
		s.Hooks = o.Hooks
	}
	for model, mc := range o.Models {
		s = s.WithModelContext(model, mc)
	}
	for tool, p := range o.ToolPermissions {
		if s.ToolPermissions == nil {
			s.ToolPermissions = map[string]string{}
		}
		s.ToolPermissions[tool] = p
	}
	return s
}

// validContext checks a context window and threshold; prefix names where they came from.
func validContext(prefix string, mc ModelContext) []string {
	var problems []string
	if mc.ContextWindow != 0 && (mc.ContextWindow < 2048 || mc.ContextWindow > 10_000_000) {
		problems = append(problems, fmt.Sprintf("%scontext_window: %d tokens is outside 2048–10000000", prefix, mc.ContextWindow))
	}
	if mc.CompactAtPercent != 0 && (mc.CompactAtPercent < 50 || mc.CompactAtPercent > 95) {
		problems = append(problems, fmt.Sprintf("%scompact_at_percent: %d is outside 50–95", prefix, mc.CompactAtPercent))
	}
	return problems
}

func isHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// DataDir resolves the data directory: flagValue if non-empty, else $ARTIFACTFLOW_HOME,
// else os.UserConfigDir()/ArtifactFlow. It does not create the directory.
func DataDir(flagValue string) (string, error) {
	if flagValue != "" {
		return filepath.Abs(flagValue)
	}
	if env := os.Getenv("ARTIFACTFLOW_HOME"); env != "" {
		return filepath.Abs(env)
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("config: find user config dir (set --data-dir or ARTIFACTFLOW_HOME): %w", err)
	}
	return filepath.Join(base, "ArtifactFlow"), nil
}

// migrateModelContext moves the Settings-wide context window and threshold that the
// settings dialog wrote before per-model settings into the entry of the model chosen then.
func (s Settings) migrateModelContext() Settings {
	model := strings.TrimSpace(s.Model)
	if model == "" || (s.ContextWindow == 0 && s.CompactAtPercent == 0) {
		return s
	}
	if _, ok := s.Models[model]; ok {
		return s
	}
	s = s.WithModelContext(model, ModelContext{ContextWindow: s.ContextWindow, CompactAtPercent: s.CompactAtPercent})
	s.ContextWindow, s.CompactAtPercent = 0, 0
	return s
}

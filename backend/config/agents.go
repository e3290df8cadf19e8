package config

import (
	"fmt"
	"net/url"
	"strings"
)

// Sampling bounds Validate holds the agents' settings to.
const (
	MaxTemperature = 2
	MaxTopP        = 1
	// MaxMaxTokens bounds AgentModel.MaxTokens; no model writes more in one answer.
	MaxMaxTokens = 10_000_000
)

// AgentModel is the model choice of one kind of agent (issue 9, item 7: "Settings choose
// the lead's model and the sub-agents' model, each with its own tool-call mode, context
// window and sampling"): Settings.Lead for the lead agent, Settings.SubAgents for the
// search and crawl agents. Every field is optional; an empty one inherits:
//   - Model "": the top-level Settings.Model (the one model set).
//   - ToolCallMode "": the top-level Settings.ToolCallMode ("native" | "xml").
//   - ContextWindow 0: the model's own entry in Settings.Models, then the Settings-wide
//     value, then a default by model name (Settings.ContextFor); else 2048–10,000,000
//     tokens. The compaction threshold always comes from ContextFor(model).
//   - Temperature nil: not sent (the endpoint's default); else 0–2.
//   - TopP nil: not sent; else 0–1.
//   - MaxTokens 0: not sent; else 1–10,000,000 tokens per answer.
//   - BaseURL "": the top-level Settings.BaseURL (the one endpoint); else an absolute
//     http(s) URL, so the lead can run on a hosted API and the sub-agents on a local server.
//   - APIKey "": the top-level Settings.APIKey, but only when the agent's endpoint has the
//     top-level endpoint's scheme, host and port (SameOrigin): a key never goes to a
//     server it was not given for, so an agent on a local server without a key of its own
//     sends none. Like every key, it is kept in config.json only and never shown back.
type AgentModel struct {
	Model         string   `json:"model,omitempty"`
	BaseURL       string   `json:"base_url,omitempty"`
	APIKey        string   `json:"api_key,omitempty"`
	ToolCallMode  string   `json:"tool_call_mode,omitempty"`
	ContextWindow int      `json:"context_window,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"top_p,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
}

// IsZero reports whether a sets nothing (the agent uses the top-level model as is).
func (a AgentModel) IsZero() bool {
	return strings.TrimSpace(a.Model) == "" && a.BaseURL == "" && a.APIKey == "" && a.ToolCallMode == "" && a.ContextWindow == 0 &&
		a.Temperature == nil && a.TopP == nil && a.MaxTokens == 0
}

// AgentChoice is what one kind of agent runs with once inheritance is resolved
// (Settings.Agent): the endpoint's base URL and the key sent to it ("" = none), the model
// name, its tool-call mode ("" only when the Settings have none either; WithDefaults
// fills it), the context window in tokens (0 = by model name), the compaction threshold
// in percent of it, and the sampling to send (nil / 0 = unset).
type AgentChoice struct {
	BaseURL          string
	APIKey           string
	Model            string
	ToolCallMode     string
	ContextWindow    int
	CompactAtPercent int
	Temperature      *float64
	TopP             *float64
	MaxTokens        int
}

// Agent resolves a (Settings.Lead or Settings.SubAgents) against the top-level settings;
// see AgentModel for what each empty field inherits.
func (s Settings) Agent(a AgentModel) AgentChoice {
	c := AgentChoice{Model: strings.TrimSpace(a.Model), ToolCallMode: a.ToolCallMode,
		Temperature: a.Temperature, TopP: a.TopP, MaxTokens: a.MaxTokens}
	if c.Model == "" {
		c.Model = strings.TrimSpace(s.Model)
	}
	if c.ToolCallMode == "" {
		c.ToolCallMode = s.ToolCallMode
	}
	c.BaseURL, c.APIKey = s.AgentEndpoint(a)
	c.ContextWindow, c.CompactAtPercent = s.ContextFor(c.Model)
	if a.ContextWindow != 0 {
		c.ContextWindow = a.ContextWindow
	}
	return c
}

// AgentEndpoint returns the base URL and key agent a calls (see AgentModel): its own base
// URL, else the top-level one; its own key, else the top-level key when the endpoint has
// the top-level endpoint's origin (SameOrigin), else "" (no key is sent).
func (s Settings) AgentEndpoint(a AgentModel) (baseURL, apiKey string) {
	baseURL = strings.TrimSpace(a.BaseURL)
	if baseURL == "" {
		baseURL = s.BaseURL
	}
	if apiKey = strings.TrimSpace(a.APIKey); apiKey != "" {
		return baseURL, apiKey
	}
	if baseURL == s.BaseURL || SameOrigin(baseURL, s.BaseURL) {
		return baseURL, s.APIKey
	}
	return baseURL, ""
}

// SameOrigin reports whether the http(s) URLs a and b have the same scheme, host and
// port: case, a trailing slash or dot and a default port written out make no difference.
// Anything else (a relative URL, another scheme, no host) is never the same origin.
func SameOrigin(a, b string) bool {
	oa, okA := originOf(a)
	ob, okB := originOf(b)
	return okA && okB && oa == ob
}

// origin is the scheme, host and port of an http(s) URL: lower case, the host without a
// trailing dot, the port made explicit (80 for http, 443 for https).
type origin struct{ scheme, host, port string }

// originOf returns raw's origin; ok is false unless raw is an absolute http(s) URL with a
// host.
func originOf(raw string) (o origin, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return origin{}, false
	}
	o = origin{scheme: strings.ToLower(u.Scheme), host: strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), port: u.Port()}
	if o.host == "" || (o.scheme != "http" && o.scheme != "https") {
		return origin{}, false
	}
	if o.port == "" {
		o.port = map[string]string{"http": "80", "https": "443"}[o.scheme]
	}
	return o, true
}

// validAgent checks one AgentModel; prefix names it ("lead." or "sub_agents."), so an
// error reads "lead.temperature: 3 is outside 0–2".
func validAgent(prefix string, a AgentModel) []string {
	var problems []string
	if a.BaseURL != "" && !isHTTPURL(a.BaseURL) {
		problems = append(problems, prefix+"base_url: must be an absolute http(s) URL such as http://localhost:11434/v1")
	}
	if k := a.APIKey; k != strings.TrimSpace(k) || strings.ContainsAny(k, "\r\n\t") {
		problems = append(problems, prefix+"api_key: has leading or trailing spaces or a line break")
	}
	switch a.ToolCallMode {
	case "", "native", "xml":
	default:
		problems = append(problems, fmt.Sprintf("%stool_call_mode: %q is not native or xml", prefix, a.ToolCallMode))
	}
	problems = append(problems, validContext(prefix, ModelContext{ContextWindow: a.ContextWindow})...)
	if a.Temperature != nil && !(*a.Temperature >= 0 && *a.Temperature <= MaxTemperature) {
		problems = append(problems, fmt.Sprintf("%stemperature: %g is outside 0–%d", prefix, *a.Temperature, MaxTemperature))
	}
	if a.TopP != nil && !(*a.TopP >= 0 && *a.TopP <= MaxTopP) {
		problems = append(problems, fmt.Sprintf("%stop_p: %g is outside 0–%d", prefix, *a.TopP, MaxTopP))
	}
	if a.MaxTokens < 0 || a.MaxTokens > MaxMaxTokens {
		problems = append(problems, fmt.Sprintf("%smax_tokens: %d is outside 1–%d", prefix, a.MaxTokens, MaxMaxTokens))
	}
	if m := a.Model; m != strings.TrimSpace(m) || strings.ContainsAny(m, "\r\n\t") {
		problems = append(problems, fmt.Sprintf("%smodel: %q has leading or trailing spaces or a line break", prefix, m))
	}
	return problems
}

// mergeAgent lays o's set fields over a (flags over config.json).
func mergeAgent(a, o AgentModel) AgentModel {
	if o.Model != "" {
		a.Model = o.Model
	}
	if o.BaseURL != "" {
		a.BaseURL = o.BaseURL
	}
	if o.APIKey != "" {
		a.APIKey = o.APIKey
	}
	if o.ToolCallMode != "" {
		a.ToolCallMode = o.ToolCallMode
	}
	if o.ContextWindow != 0 {
		a.ContextWindow = o.ContextWindow
	}
	if o.Temperature != nil {
		a.Temperature = o.Temperature
	}
	if o.TopP != nil {
		a.TopP = o.TopP
	}
	if o.MaxTokens != 0 {
		a.MaxTokens = o.MaxTokens
	}
	return a
}

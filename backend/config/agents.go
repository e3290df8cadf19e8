package config

import (
	"fmt"
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
type AgentModel struct {
	Model         string   `json:"model,omitempty"`
	ToolCallMode  string   `json:"tool_call_mode,omitempty"`
	ContextWindow int      `json:"context_window,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"top_p,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
}

// IsZero reports whether a sets nothing (the agent uses the top-level model as is).
func (a AgentModel) IsZero() bool {
	return strings.TrimSpace(a.Model) == "" && a.ToolCallMode == "" && a.ContextWindow == 0 &&
		a.Temperature == nil && a.TopP == nil && a.MaxTokens == 0
}

// AgentChoice is what one kind of agent runs with once inheritance is resolved
// (Settings.Agent): the model name, its tool-call mode ("" only when the Settings have
// none either; WithDefaults fills it), the context window in tokens (0 = by model name),
// the compaction threshold in percent of it, and the sampling to send (nil / 0 = unset).
type AgentChoice struct {
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
	c.ContextWindow, c.CompactAtPercent = s.ContextFor(c.Model)
	if a.ContextWindow != 0 {
		c.ContextWindow = a.ContextWindow
	}
	return c
}

// validAgent checks one AgentModel; prefix names it ("lead." or "sub_agents."), so an
// error reads "lead.temperature: 3 is outside 0–2".
func validAgent(prefix string, a AgentModel) []string {
	var problems []string
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

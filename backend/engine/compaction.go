package engine

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/tokens"
)

// DefaultCompactAt is the share of the context window past which an agent's context is
// compacted: 80%.
const DefaultCompactAt = 0.8

// keptShare is the share of an agent's context window that a compaction keeps verbatim
// after the summary, so the agent still has the work in hand: the instruction it is
// working on (always kept, counted first) and its newest whole tool rounds (an assistant
// message with its tool calls and all their results), newest first while they fit. A round
// that does not fit in what is left (a fetched page larger than the share, say) is left to
// the summary alone, and so is every round before it: what is kept is always the latest
// stretch of work, never a page cut in the middle. Kept rounds are then dropped oldest
// first while the compacted context would still pass the compaction threshold.
const keptShare = 0.25

// compactionTranscriptRunes caps one message in the transcript the summarizer reads, so a
// huge fetched page cannot overflow the compaction call itself; head and tail are kept.
const compactionTranscriptRunes = 6000

// compactionPrompt asks for the 7-section summary.
const compactionPrompt = `You compact the working history of a research agent so it can continue its task with a fresh context. Everything you leave out is forgotten, except the artifacts (the task plan and documents), which the agent still sees in full or can read again.

Write a summary with exactly these 7 sections, as Markdown headings:

## 1. Primary request and intent
What the user asked for, quoting the user's own words for every request and every correction they made.
## 2. Artifacts and documents
Each artifact id, what it holds and its state; sources and documents read, with their URLs.
## 3. Tool interactions
Searches run, pages fetched and sub-agent calls made, with the key facts each returned (figures, names, dates, URLs).
## 4. Errors and fixes
What failed and how it was handled, so it is not repeated.
## 5. Pending tasks
What is still to do.
## 6. Current work
What was being done right before this summary.
## 7. Next step
The single next step, in line with the user's latest request.

Be specific and keep every fact, figure and URL the remaining work needs. Write in the language the user wrote in.`

// minCompactableShare: after a compaction that left an agent over the threshold, it is
// compacted again only once its history holds 1/minCompactableShare of the threshold.
const minCompactableShare = 4

// counter returns the token counter for model, creating it once per model.
func (e *Engine) counter(model string) (*tokens.Counter, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.counters[model]; ok {
		return c, nil
	}
	c, err := tokens.NewCounter(model)
	if err != nil {
		return nil, err
	}
	e.counters[model] = c
	return c, nil
}

// window returns the context window of an agent's model in tokens and the threshold past
// which its context is compacted.
func (am *agentModel) window() (window, threshold int) {
	window = am.ContextWindow
	if window <= 0 {
		window = tokens.ContextWindow(am.Name)
	}
	at := am.CompactAt
	if at <= 0 || at > 1 {
		at = DefaultCompactAt
	}
	return window, int(float64(window) * at)
}

// compactIfNeeded compacts msgs when the request (system prompt, msgs and tool
// definitions, counted offline and corrected by reported usage) passes the threshold.
// It returns the messages to use: the 7-section summary of msgs, then the messages kept
// verbatim (keptShare: the instruction in hand and the latest tool rounds). A failed
// compaction is recorded and the run goes on with msgs; only cancellation is an error. The
// agent's own model does the counting and the summary (with its temperature and top_p, but
// no max_tokens: a summary cut off at the answer limit would lose history). The summarizer
// reads all of msgs, the kept messages too, so a kept round dropped to get under the
// threshold is still in the summary.
func (rs *runState) compactIfNeeded(ctx context.Context, agentName, system string, msgs []llm.Message, toolDefs string) ([]llm.Message, error) {
	am := rs.model(agentName)
	if am.counter == nil || len(msgs) < 2 {
		return msgs, nil
	}
	window, threshold := am.window()
	sys := []llm.Message{{Role: llm.RoleSystem, Content: system}}
	before, err := am.estimate(ctx, append(sys, msgs...), toolDefs)
	if err != nil {
		return nil, err // stopped while counting
	}
	if before <= threshold {
		return msgs, nil
	}
	// Only the history can be summarized. Once a compaction in this run left the agent over
	// the threshold (the system prompt, with the whole task plan, is most of it), compacting
	// again before the history has grown would repeat every round for nothing.
	rs.mu.Lock()
	stuck := rs.stuck[agentName]
	rs.mu.Unlock()
	if stuck {
		prompt, err := am.estimate(ctx, sys, toolDefs)
		if err != nil {
			return nil, err
		}
		if before-prompt < threshold/minCompactableShare {
			return msgs, nil
		}
	}
	rs.em.emit(ctx, events.CompactionStart, agentName, events.DataCompactionStart{TokensBefore: before, Threshold: threshold,
		Window: window, Messages: len(msgs)})
	start := rs.e.cfg.Now()
	plan, err := planKeep(ctx, am, msgs, int(float64(window)*keptShare))
	if err != nil {
		return nil, err // stopped while counting
	}
	req := llm.Request{Model: am.Name, Sampling: llm.Sampling{Temperature: am.Sampling.Temperature, TopP: am.Sampling.TopP}, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: compactionPrompt},
		{Role: llm.RoleUser, Content: "Here is the history to summarize:\n\n" + transcript(msgs) + "\n\nWrite the 7-section summary now."},
	}}
	resp, err := am.Model.Stream(ctx, req, func(llm.Delta) {})
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	rs.addUsage(resp.Usage)
	summary := strings.TrimSpace(resp.Content)
	data := events.DataCompactionSummary{TokensBefore: before, Usage: resp.Usage,
		DurationMS: rs.e.cfg.Now().Sub(start).Milliseconds()}
	switch {
	case err != nil:
		data.Error = err.Error()
	case summary == "":
		data.Error = "the model returned an empty summary"
	}
	if data.Error != "" {
		rs.e.cfg.Logger.Warn("compaction failed; continuing with the full context", "agent", agentName, "err", data.Error)
		rs.em.emit(ctx, events.CompactionSummary, agentName, data)
		return msgs, nil
	}
	var out []llm.Message
	for {
		out = append([]llm.Message{{Role: llm.RoleUser, Content: summaryPrefix + summary}}, plan.messages(msgs)...)
		if data.TokensAfter, err = am.estimate(ctx, append(sys, out...), toolDefs); err != nil {
			return nil, err
		}
		if data.TokensAfter <= threshold || !plan.dropOldestRound() {
			break
		}
	}
	data.Success, data.Summary = true, summary
	data.Kept, data.KeptMessages = keptRecord(out[1:])
	stuck = data.TokensAfter > threshold
	rs.mu.Lock()
	rs.stuck[agentName] = stuck
	rs.mu.Unlock()
	if stuck {
		rs.e.cfg.Logger.Warn("compaction left the context over the threshold; the system prompt (task plan) is most of it",
			"agent", agentName, "tokens_after", data.TokensAfter, "threshold", threshold)
	}
	rs.em.emit(ctx, events.CompactionSummary, agentName, data)
	return out, nil
}

// transcript renders messages for the summarizer, each capped at compactionTranscriptRunes.
func transcript(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleTool:
			b.WriteString("[tool result]\n")
		default:
			fmt.Fprintf(&b, "[%s]\n", m.Role)
		}
		b.WriteString(clipMiddle(m.Content, compactionTranscriptRunes))
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "\n[tool call] %s %s", c.Name, clipMiddle(c.Arguments, compactionTranscriptRunes/4))
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// clipMiddle keeps the first and last parts of s when it has more than n runes.
func clipMiddle(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	half := n / 2
	return string(r[:half]) + fmt.Sprintf("\n[… %d characters left out …]\n", len(r)-2*half) + string(r[len(r)-half:])
}

// keepPlan is what a compaction keeps of an agent's messages after the summary: the
// messages of the chosen units, in their original order.
type keepPlan struct {
	units []msgUnit
	keep  []bool // per unit
}

// unitKind classifies a stretch of an agent's messages for compaction.
type unitKind int

const (
	unitOther       unitKind = iota // an earlier summary, a stray or unanswered message
	unitAnswer                      // an assistant reply without tool calls: a task's end
	unitInstruction                 // a user message: the question, queued input or a task
	unitRound                       // an assistant message with its tool calls and all their results
)

// msgUnit is msgs[from:to], kept or summarized whole.
type msgUnit struct {
	from, to int
	kind     unitKind
}

// splitUnits cuts msgs into units. A native round is an assistant message with tool calls
// and the tool messages right after it, when they answer every call (a tool result never
// goes without its call, nor a call without its result); an xml round is an assistant
// message and the tool-result messages (user messages of <tool_result> blocks) right after
// it. A user message other than a summary or tool results is an instruction.
func splitUnits(msgs []llm.Message) []msgUnit {
	var out []msgUnit
	for i := 0; i < len(msgs); {
		m := msgs[i]
		u := msgUnit{from: i, to: i + 1, kind: unitOther}
		switch {
		case m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0:
			j := i + 1
			for j < len(msgs) && msgs[j].Role == llm.RoleTool {
				j++
			}
			u.to = j
			if answersAll(m.ToolCalls, msgs[i+1:j]) {
				u.kind = unitRound
			}
		case m.Role == llm.RoleAssistant && i+1 < len(msgs) && isXMLResults(msgs[i+1]):
			j := i + 1
			for j < len(msgs) && isXMLResults(msgs[j]) {
				j++
			}
			u.to, u.kind = j, unitRound
		case m.Role == llm.RoleAssistant:
			u.kind = unitAnswer
		case m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, summaryPrefix) && !isXMLResults(m):
			u.kind = unitInstruction
		}
		out = append(out, u)
		i = u.to
	}
	return out
}

// answersAll reports whether results hold exactly one tool message for each of calls.
func answersAll(calls []llm.ToolCall, results []llm.Message) bool {
	if len(results) != len(calls) {
		return false
	}
	open := make(map[string]bool, len(calls))
	for _, c := range calls {
		open[c.ID] = true
	}
	for _, r := range results {
		if !open[r.ToolCallID] {
			return false
		}
		delete(open, r.ToolCallID)
	}
	return true
}

// isXMLResults reports whether m carries xml-mode tool results.
func isXMLResults(m llm.Message) bool {
	return m.Role == llm.RoleUser && strings.HasPrefix(m.Content, "<tool_result ")
}

// planKeep chooses what a compaction of msgs keeps verbatim within budget tokens: the
// instructions given since the agent's last answer (its task in hand), then whole tool
// rounds from the newest back, while they fit in what the instructions left of budget; the
// first round that does not fit, or an answer, ends the choice. Errors: cancellation while
// counting.
func planKeep(ctx context.Context, am *agentModel, msgs []llm.Message, budget int) (*keepPlan, error) {
	p := &keepPlan{units: splitUnits(msgs)}
	p.keep = make([]bool, len(p.units))
	start := 0 // the first unit after the last answer
	for i, u := range p.units {
		if u.kind == unitAnswer {
			start = i + 1
		}
	}
	for i := start; i < len(p.units); i++ {
		if u := p.units[i]; u.kind == unitInstruction {
			n, err := am.estimate(ctx, msgs[u.from:u.to], "")
			if err != nil {
				return nil, err
			}
			p.keep[i] = true
			budget -= n
		}
	}
	for i := len(p.units) - 1; i >= start; i-- {
		u := p.units[i]
		if u.kind == unitInstruction {
			continue
		}
		if u.kind != unitRound {
			break
		}
		n, err := am.estimate(ctx, msgs[u.from:u.to], "")
		if err != nil {
			return nil, err
		}
		if n > budget {
			break
		}
		p.keep[i] = true
		budget -= n
	}
	return p, nil
}

// messages returns the kept messages of msgs, in order.
func (p *keepPlan) messages(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for i, u := range p.units {
		if p.keep[i] {
			out = append(out, msgs[u.from:u.to]...)
		}
	}
	return out
}

// dropOldestRound stops keeping the oldest kept round; false when none is kept.
func (p *keepPlan) dropOldestRound() bool {
	for i, u := range p.units {
		if p.keep[i] && u.kind == unitRound {
			p.keep[i] = false
			return true
		}
	}
	return false
}

// keptRecord renders the kept messages for the compaction_summary event: the text of the
// kept user messages (for display) and every kept message as sent.
func keptRecord(kept []llm.Message) (string, []events.KeptMessage) {
	var users []string
	out := make([]events.KeptMessage, 0, len(kept))
	for _, m := range kept {
		if m.Role == llm.RoleUser && !isXMLResults(m) {
			users = append(users, m.Content)
		}
		k := events.KeptMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			k.ToolCalls = append(k.ToolCalls, events.KeptToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		out = append(out, k)
	}
	return strings.Join(users, "\n\n"), out
}

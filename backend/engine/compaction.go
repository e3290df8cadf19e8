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
// compacted (issue 4: 80%).
const DefaultCompactAt = 0.8

// compactionTranscriptRunes caps one message in the transcript the summarizer reads, so a
// huge fetched page cannot overflow the compaction call itself; head and tail are kept.
const compactionTranscriptRunes = 6000

// compactionPrompt asks for the 7-section summary (seed 000: "Compaction 的 7-section 摘要").
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
// definitions, counted offline and corrected by reported usage) passes the threshold
// (issue 4). It returns the messages to use. A failed compaction is recorded and the run
// goes on with msgs; only cancellation is an error. The agent's own model does the
// counting and the summary (with its temperature and top_p, but no max_tokens: a summary
// cut off at the answer limit would lose history).
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
	summarize, kept := msgs, ""
	if last := msgs[len(msgs)-1]; last.Role == llm.RoleUser {
		// The newest user input (the question or a queued message) stays verbatim.
		summarize, kept = msgs[:len(msgs)-1], last.Content
	}
	req := llm.Request{Model: am.Name, Sampling: llm.Sampling{Temperature: am.Sampling.Temperature, TopP: am.Sampling.TopP}, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: compactionPrompt},
		{Role: llm.RoleUser, Content: "Here is the history to summarize:\n\n" + transcript(summarize) + "\n\nWrite the 7-section summary now."},
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
	out := []llm.Message{{Role: llm.RoleUser, Content: summaryPrefix + summary}}
	if kept != "" {
		out = append(out, llm.Message{Role: llm.RoleUser, Content: kept})
	}
	data.Success, data.Summary, data.Kept = true, summary, kept
	if data.TokensAfter, err = am.estimate(ctx, append(sys, out...), toolDefs); err != nil {
		return nil, err
	}
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

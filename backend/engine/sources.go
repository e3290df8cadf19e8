package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"artifactflow/backend/artifact"
	"artifactflow/backend/events"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
	"artifactflow/backend/tools"
)

// This file holds what a run does with sources: it numbers them through the store and
// announces each with source_added, tallies the web tools' calls and failures, ends a
// complete answer with a footer (failures, cited sources), and keeps a managed Sources
// section at the end of each Markdown report the run changed.

// runRecorder is a run's sources.Recorder: it adds a source to the conversation's list
// and, when that added or changed something, emits source_added (data: the Source as
// stored) as the calling agent.
type runRecorder struct {
	st *store.DB
	em *emitter
}

// Record implements sources.Recorder.
func (r *runRecorder) Record(ctx context.Context, conversationID string, s sources.Source) (sources.Source, error) {
	out, changed, err := r.st.AddSourceChanged(ctx, conversationID, s)
	if err != nil {
		return sources.Source{}, err
	}
	if changed {
		agentName := ""
		if info, ok := tools.CallFrom(ctx); ok {
			agentName = info.Agent
		}
		r.em.emit(ctx, events.SourceAdded, agentName, out)
	}
	return out, nil
}

// maxTallyErrors is how many distinct error messages a WebTally keeps, and
// maxErrorRunes how long each may be.
const (
	maxTallyErrors = 3
	maxErrorRunes  = 200
)

// webTally counts a run's web_search and web_fetch calls over all its agents.
type webTally struct {
	events.WebTally
	firstSearch, firstFetch string // the first failure of each, for the footer
	// refusedFetch: firstFetch is a fetch refused for carrying local file text, which the
	// footer names rather than any other failure (the user must learn of it).
	refusedFetch bool
}

// add counts one executed call of tool name with result res; other tools are ignored, and
// so are calls that never ran (an unknown tool for the agent, an unreadable call, a call
// the user denied): those are the model's or the user's doing, not the web's.
// A failure's message is the tool's MetaFailure (naming the provider or the URL), else
// its error text. The footer quotes the first failure of each tool, except that a fetch
// refused for carrying text of the user's files (tools.MetaRefused) is quoted before any
// other fetch failure.
func (t *webTally) add(name string, res tools.Result) {
	var calls, failed *int
	var first *string
	switch name {
	case "web_search":
		calls, failed, first = &t.Searches, &t.SearchesFailed, &t.firstSearch
	case "web_fetch":
		calls, failed, first = &t.Fetches, &t.FetchesFailed, &t.firstFetch
	default:
		return
	}
	*calls++
	if res.Success {
		return
	}
	*failed++
	why, _ := res.Metadata[tools.MetaFailure].(string)
	if why == "" {
		why = res.Error
	}
	why = clipRunes(strings.Join(strings.Fields(why), " "), maxErrorRunes)
	if refused, _ := res.Metadata[tools.MetaRefused].(bool); refused && name == "web_fetch" && !t.refusedFetch {
		t.refusedFetch, *first = true, why
	}
	if *first == "" {
		*first = why
	}
	if why != "" && len(t.Errors) < maxTallyErrors && !slices.Contains(t.Errors, why) {
		t.Errors = append(t.Errors, why)
	}
}

// result returns the tally for the terminal event: nil when the run made no web call.
func (t *webTally) result() *events.WebTally {
	if t.Searches == 0 && t.Fetches == 0 {
		return nil
	}
	w := t.WebTally
	w.Errors = slices.Clone(w.Errors)
	return &w
}

// failureLine is the footer's line on failed web calls, "" when none failed (contract:
// "> 2 of 5 searches failed: <first error>. 1 of 3 fetches failed: <error>.").
func (t *webTally) failureLine() string {
	var parts []string
	if t.SearchesFailed > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s failed: %s.", t.SearchesFailed, t.Searches,
			plural(t.Searches, "search", "searches"), footerText(t.firstSearch)))
	}
	if t.FetchesFailed > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s failed: %s.", t.FetchesFailed, t.Fetches,
			plural(t.Fetches, "fetch", "fetches"), footerText(t.firstFetch)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "> " + strings.Join(parts, " ")
}

// plural returns one for n == 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// footerText prepares an error message for the footer: without a final period, and with
// the characters that could start Markdown links, code or HTML escaped.
func footerText(s string) string {
	s = strings.TrimRight(s, ". ")
	if s == "" {
		return "no reason given"
	}
	return strings.NewReplacer(`\`, `\\`, "`", "\\`", "<", `\<`, ">", `\>`, "[", `\[`, "]", `\]`, "*", `\*`).Replace(s)
}

// clipRunes cuts s to at most n runes, marking a cut with "…". The cut is in the middle:
// the first third is kept, and the end, because an error message ends with its cause
// ("…: connection refused"), which must survive the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 1) / 3
	return strings.TrimRight(string(r[:head]), " ") + "…" + strings.TrimLeft(string(r[len(r)-(n-1-head):]), " ")
}

// citedLines returns the list lines ("- " + sources.Line) of the cited numbers found in
// list, in citation order; numbers not in the list have no line.
func citedLines(cited []int, list []sources.Source) []string {
	byN := make(map[int]sources.Source, len(list))
	for _, s := range list {
		byN[s.N] = s
	}
	var lines []string
	for _, n := range cited {
		if s, ok := byN[n]; ok {
			lines = append(lines, "- "+sources.Line(s))
		}
	}
	return lines
}

// answerFooter returns the footer appended to a complete run's answer (contract C): a
// blank line, "---", then the failure line when web calls failed, and "**Sources**" with
// one line per cited source in citation order. "" when nothing failed and no cited number
// is in the list.
func answerFooter(t *webTally, cited []int, list []sources.Source) string {
	failure := t.failureLine()
	lines := citedLines(cited, list)
	if failure == "" && len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n---\n")
	if failure != "" {
		b.WriteString(failure)
		b.WriteString("\n")
	}
	if len(lines) > 0 {
		if failure != "" {
			b.WriteString("\n")
		}
		b.WriteString("**Sources**\n")
		b.WriteString(strings.Join(lines, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// sourcesSection renders the managed section of a report whose body is body for lines
// (see sources.SectionMarker), under the heading in the report's language
// (sources.SectionHeadingFor: "## 来源" for a Chinese report).
func sourcesSection(body string, lines []string) string {
	return sources.SectionMarker + "\n" + sources.SectionHeadingFor(body) + "\n\n" + strings.Join(lines, "\n") + "\n"
}

// withSourcesSection returns content with its managed Sources section listing the
// sources its body cites (resolved against list), replacing the section it had; text
// written after that section is body (sources.SplitSection), kept above the new section,
// and its citations count. Without a resolved citation the section is removed. The second
// result is false when nothing changes.
func withSourcesSection(content string, list []sources.Source) (string, bool) {
	body, old := sources.SplitSection(content)
	body = strings.TrimRight(body, " \t\r\n")
	lines := citedLines(sources.Cited(body), list)
	if len(lines) == 0 {
		if old == "" {
			return content, false
		}
		return body + "\n", true
	}
	out := body + "\n\n" + sourcesSection(body, lines)
	return out, out != content
}

// isMarkdownType reports whether an artifact's content type names Markdown ("" is the
// default, markdown).
func isMarkdownType(contentType string) bool {
	t := strings.ToLower(strings.TrimSpace(contentType))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch strings.TrimPrefix(strings.TrimPrefix(t, "text/"), "x-") {
	case "", "markdown", "md", "gfm":
		return true
	}
	return false
}

// amendReports keeps the managed Sources section of every Markdown deliverable the run
// changed (not the task plan), before the flush, so it lands in the run's version of the
// report, and emits artifact_changed for each report it changed. A failure to read the
// source list is logged and leaves the reports as they are.
func (rs *runState) amendReports(ctx context.Context) {
	list, err := rs.e.cfg.Store.Sources(ctx, rs.r.ConversationID)
	if err != nil {
		rs.e.cfg.Logger.Warn("reading the source list failed; reports keep their Sources sections as they are",
			"conversation", rs.r.ConversationID, "err", err)
		return
	}
	changed := rs.r.artifacts.Amend(func(s events.ArtifactSnapshot) (string, bool) {
		if s.ID == artifact.TaskPlanID || !isMarkdownType(s.ContentType) {
			return "", false
		}
		return withSourcesSection(s.Content, list)
	})
	for _, snap := range changed {
		rs.em.emit(ctx, events.ArtifactChanged, rs.e.lead.Name, events.DataArtifactChanged{Artifact: snap})
	}
}

// finishAnswer returns a complete run's answer with its footer (contract C) and the
// numbers it cites. A failure to read the source list is logged and gives a footer
// without the Sources list.
func (rs *runState) finishAnswer(ctx context.Context, answer string) (string, []int) {
	cited := sources.Cited(answer)
	var list []sources.Source
	if len(cited) > 0 {
		var err error
		if list, err = rs.e.cfg.Store.Sources(ctx, rs.r.ConversationID); err != nil {
			rs.e.cfg.Logger.Warn("reading the source list failed; the answer's footer lists no sources",
				"conversation", rs.r.ConversationID, "err", err)
		}
	}
	footer := answerFooter(&rs.web, cited, list)
	if strings.TrimSpace(answer) == "" {
		footer = strings.TrimLeft(footer, "\n")
	}
	return answer + footer, cited
}

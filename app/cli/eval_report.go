package cli

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"artifactflow/app/internal/text"
)

// This file renders the results of `artifactflow eval`: their totals and the Markdown
// table.

// evalTotals sums the rows: Complete, Errors and Cancelled count statuses; the other
// counts are sums over the rows; FetchedShare is the sum of CitedFetched over the sum of
// citations (nil when nothing is cited); Mean* are means over the rows run; MeanScore is
// the mean of the Graded well-formed grades (nil when none).
type evalTotals struct {
	Run              int      `json:"run"`
	Complete         int      `json:"complete"`
	Errors           int      `json:"errors"`
	Cancelled        int      `json:"cancelled"`
	Seconds          float64  `json:"seconds"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Rounds           int      `json:"rounds"`
	Searches         int      `json:"searches"`
	SearchesFailed   int      `json:"searches_failed"`
	Fetches          int      `json:"fetches"`
	FetchesFailed    int      `json:"fetches_failed"`
	Sources          int      `json:"sources"`
	Citations        int      `json:"citations"`
	CitedFetched     int      `json:"cited_fetched"`
	FetchedShare     *float64 `json:"fetched_share"`
	MeanSeconds      float64  `json:"mean_seconds"`
	MeanReportChars  float64  `json:"mean_report_chars"`
	Graded           int      `json:"graded"`
	MeanScore        *float64 `json:"mean_score"`
}

// totals computes the report's totals from its rows.
func totals(rows []evalRow) evalTotals {
	var t evalTotals
	var reportChars int
	var scores float64
	for _, r := range rows {
		t.Run++
		switch r.Status {
		case evalComplete:
			t.Complete++
		case evalCancelled:
			t.Cancelled++
		default:
			t.Errors++
		}
		t.Seconds += r.Seconds
		t.PromptTokens += r.PromptTokens
		t.CompletionTokens += r.CompletionTokens
		t.Rounds += r.Rounds
		t.Searches += r.Searches
		t.SearchesFailed += r.SearchesFailed
		t.Fetches += r.Fetches
		t.FetchesFailed += r.FetchesFailed
		t.Sources += r.Sources
		t.Citations += len(r.Cited)
		t.CitedFetched += r.CitedFetched
		reportChars += r.ReportChars
		if r.Judge != nil && r.Judge.Score != nil {
			t.Graded++
			scores += *r.Judge.Score
		}
	}
	t.FetchedShare = share(t.CitedFetched, t.Citations)
	if t.Run > 0 {
		t.MeanSeconds = t.Seconds / float64(t.Run)
		t.MeanReportChars = float64(reportChars) / float64(t.Run)
	}
	if t.Graded > 0 {
		m := scores / float64(t.Graded)
		t.MeanScore = &m
	}
	return t
}

// markdownTable renders rep's rows as a Markdown table with a total and a mean row, the
// judge's columns when rep.Judge, a line per run that did not complete, and the feedback
// counts (feedbackTable) when rep.Feedback is set.
func markdownTable(rep *evalReport) string {
	t := totals(rep.Results)
	head := []string{"id", "status", "time (s)", "tokens (prompt/completion)", "rounds", "searches (failed)",
		"fetches (failed)", "sources", "citations", "cited → fetched", "report (chars)"}
	if rep.Judge {
		head = append(head, "judge", "judge's reason")
	}
	var b strings.Builder
	row := func(cells ...string) {
		for i := range cells {
			cells[i] = mdCell(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	row(head...)
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = "---"
		if i >= 2 && i <= 11 { // numbers and the judge's score
			sep[i] = "--:"
		}
	}
	b.WriteString("| " + strings.Join(sep, " | ") + " |\n")
	for _, r := range rep.Results {
		cells := []string{r.ID, r.Status, fmt.Sprintf("%.1f", r.Seconds),
			fmt.Sprintf("%d/%d", r.PromptTokens, r.CompletionTokens), strconv.Itoa(r.Rounds),
			withFailed(r.Searches, r.SearchesFailed), withFailed(r.Fetches, r.FetchesFailed),
			strconv.Itoa(r.Sources), strconv.Itoa(len(r.Cited)), percent(r.FetchedShare), strconv.Itoa(r.ReportChars)}
		if rep.Judge {
			cells = append(cells, judgeCells(r.Judge)...)
		}
		row(cells...)
	}
	status := fmt.Sprintf("%d/%d complete", t.Complete, t.Run)
	total := []string{"**total**", status, fmt.Sprintf("%.1f", t.Seconds),
		fmt.Sprintf("%d/%d", t.PromptTokens, t.CompletionTokens), strconv.Itoa(t.Rounds),
		withFailed(t.Searches, t.SearchesFailed), withFailed(t.Fetches, t.FetchesFailed),
		strconv.Itoa(t.Sources), strconv.Itoa(t.Citations), percent(t.FetchedShare), ""}
	mean := []string{"**mean**", "", fmt.Sprintf("%.1f", t.MeanSeconds),
		meanPair(t.PromptTokens, t.CompletionTokens, t.Run), mean1(t.Rounds, t.Run),
		mean1(t.Searches, t.Run), mean1(t.Fetches, t.Run), mean1(t.Sources, t.Run), mean1(t.Citations, t.Run),
		"", fmt.Sprintf("%.0f", t.MeanReportChars)}
	if rep.Judge {
		total = append(total, fmt.Sprintf("%d graded", t.Graded), "")
		meanScore := "—"
		if t.MeanScore != nil {
			meanScore = fmt.Sprintf("%.1f/10", *t.MeanScore)
		}
		mean = append(mean, meanScore, "")
	}
	row(total...)
	row(mean...)
	var notes []string
	for _, r := range rep.Results {
		if r.Error != "" {
			notes = append(notes, fmt.Sprintf("- %s: %s: %s", mdCell(r.ID), r.Status, mdCell(text.Clip(r.Error, 300))))
		}
	}
	if rep.Interrupted {
		notes = append(notes, fmt.Sprintf("- interrupted: %d of %d questions ran", len(rep.Results), rep.Questions))
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
	}
	if rep.Feedback != nil {
		b.WriteString("\n" + feedbackTable(*rep.Feedback))
	}
	return b.String()
}

// judgeCells are the judge's two cells of a row: the score and the reason, or why there
// is no score.
func judgeCells(g *evalGrade) []string {
	switch {
	case g == nil:
		return []string{"—", ""}
	case g.Score == nil && strings.HasPrefix(g.Error, "malformed grade"):
		return []string{"malformed", text.Clip(g.Error+": "+g.Raw, 160)}
	case g.Score == nil:
		return []string{"failed", text.Clip(g.Error, 160)}
	}
	return []string{strconv.FormatFloat(*g.Score, 'f', -1, 64) + "/10", g.Reason}
}

// withFailed formats a count with its failed part: "3" or "3 (1)".
func withFailed(n, failed int) string {
	if failed == 0 {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%d (%d)", n, failed)
}

// percent formats a share as "50%", nil as "—".
func percent(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", *v*100)
}

// mean1 formats sum/n with one decimal ("—" when n is 0).
func mean1(sum, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", float64(sum)/float64(n))
}

// meanPair formats the mean prompt and completion tokens.
func meanPair(a, b, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f/%.0f", float64(a)/float64(n), float64(b)/float64(n))
}

// mdCell makes s safe in one Markdown table cell: one line, pipes escaped.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// redactURL returns raw without what may be a credential: the user name and password are
// dropped, every query value becomes "redacted" (a parameter without "=" as a whole), the
// fragment goes; "" stays "".
func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.User, u.Fragment, u.RawFragment, u.ForceQuery = nil, "", "", false
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if name, _, ok := strings.Cut(p, "="); ok && name != "" {
				parts[i] = name + "=redacted"
			} else {
				parts[i] = "redacted"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

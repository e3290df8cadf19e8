package cli

import (
	"context"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"artifactflow/backend/events"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
)

// This file measures one run of `artifactflow eval` from what the run stored: its events,
// the conversation's sources and artifacts.

// evalRow is the measure of one question's run. Seconds is the run's duration; tokens are
// the terminal event's usage (every model call of the run); Rounds is its tool rounds
// (the terminal event's steps). Searches and fetches count web_search and web_fetch calls
// (the terminal event's web tally, else the tool_complete events); WebErrors are the
// tally's first distinct errors. Sources is the
// conversation's source list. Cited lists the numbers cited as [n] in the answer and the
// deliverables, in first-use order; CitedFetched of them name a source that was read
// (Fetched), CitedUnknown name no source at all. FetchedShare is CitedFetched/len(Cited),
// nil when nothing is cited. ReportChars is the length in characters of the longest
// deliverable (every artifact but task_plan and uploads), ReportID its id.
type evalRow struct {
	ID               string     `json:"id"`
	Tags             []string   `json:"tags,omitempty"`
	Status           string     `json:"status"`
	Error            string     `json:"error,omitempty"`
	ConversationID   string     `json:"conversation_id,omitempty"`
	MessageID        string     `json:"message_id,omitempty"`
	Seconds          float64    `json:"seconds"`
	PromptTokens     int        `json:"prompt_tokens"`
	CompletionTokens int        `json:"completion_tokens"`
	Rounds           int        `json:"rounds"`
	Searches         int        `json:"searches"`
	SearchesFailed   int        `json:"searches_failed"`
	Fetches          int        `json:"fetches"`
	FetchesFailed    int        `json:"fetches_failed"`
	WebErrors        []string   `json:"web_errors,omitempty"`
	Sources          int        `json:"sources"`
	Cited            []int      `json:"cited"`
	CitedFetched     int        `json:"cited_fetched"`
	CitedUnknown     int        `json:"cited_unknown"`
	FetchedShare     *float64   `json:"fetched_share"`
	ReportID         string     `json:"report_id,omitempty"`
	ReportChars      int        `json:"report_chars"`
	Answer           string     `json:"answer,omitempty"`
	Judge            *evalGrade `json:"judge,omitempty"`

	report string // the longest deliverable's text, for the judge
}

// measure fills row's web, source, citation and report measures from what the store
// holds for row.ConversationID and row.MessageID: the run's events, the conversation's
// sources and artifacts.
func measure(ctx context.Context, db *store.DB, row *evalRow) error {
	evs, err := db.ListEvents(ctx, store.EventQuery{ConversationID: row.ConversationID, MessageID: row.MessageID})
	if err != nil {
		return err
	}
	var tally *events.WebTally
	var counted events.WebTally
	for _, ev := range evs {
		switch ev.Type {
		case events.ToolComplete:
			var d events.DataToolComplete
			if json.Unmarshal(ev.Data, &d) != nil {
				continue
			}
			switch d.Tool {
			case "web_search":
				counted.Searches++
				if !d.Success {
					counted.SearchesFailed++
				}
			case "web_fetch":
				counted.Fetches++
				if !d.Success {
					counted.FetchesFailed++
				}
			}
		case events.Complete, events.Cancelled, events.Error:
			var d events.DataTerminal
			if json.Unmarshal(ev.Data, &d) == nil && d.Web != nil {
				tally = d.Web
			}
			if row.Answer == "" {
				row.Answer = d.Response
			}
		}
	}
	if tally == nil {
		tally = &counted
	}
	row.Searches, row.SearchesFailed = tally.Searches, tally.SearchesFailed
	row.Fetches, row.FetchesFailed = tally.Fetches, tally.FetchesFailed
	row.WebErrors = tally.Errors

	srcs, err := db.Sources(ctx, row.ConversationID)
	if err != nil {
		return err
	}
	row.Sources = len(srcs)
	arts, err := db.ListArtifacts(ctx, row.ConversationID)
	if err != nil {
		return err
	}
	texts := []string{row.Answer}
	for _, a := range arts {
		if a.ID == "task_plan" || a.Source == "user_upload" {
			continue
		}
		texts = append(texts, a.Content)
		if n := utf8.RuneCountInString(a.Content); n > row.ReportChars {
			row.ReportID, row.ReportChars, row.report = a.ID, n, a.Content
		}
	}
	row.Cited = citedIn(texts...)
	row.CitedFetched, row.CitedUnknown = 0, 0
	byN := make(map[int]sources.Source, len(srcs))
	for _, s := range srcs {
		byN[s.N] = s
	}
	for _, n := range row.Cited {
		s, ok := byN[n]
		switch {
		case !ok:
			row.CitedUnknown++
		case s.Fetched:
			row.CitedFetched++
		}
	}
	row.FetchedShare = share(row.CitedFetched, len(row.Cited))
	return nil
}

// citedIn returns the numbers cited in texts (sources.Cited), each once, in first-use
// order across texts; never nil.
func citedIn(texts ...string) []int {
	out := []int{}
	for _, t := range texts {
		for _, n := range sources.Cited(t) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// share returns part/whole, nil when whole is 0.
func share(part, whole int) *float64 {
	if whole == 0 {
		return nil
	}
	v := float64(part) / float64(whole)
	return &v
}

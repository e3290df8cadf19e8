package cli

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"artifactflow/backend/store"
)

// This file counts the user's feedback for `artifactflow eval`: the thumbs up and down
// (and notes) given in the app to the runs of every conversation of the data directory,
// by model and run kind.

// feedbackGroup is the current ratings of one model's runs of one kind (store.RatedRun):
// Up and Down count thumbs, Notes the ratings that carry a note. Model "" is a run whose
// metadata names no model.
type feedbackGroup struct {
	Model string `json:"model"`
	Kind  string `json:"kind"`
	Up    int    `json:"up"`
	Down  int    `json:"down"`
	Notes int    `json:"notes"`
}

// feedbackCounts is every group, sorted by model and then by kind (first, follow_up, edit,
// regenerate), and their sums. Groups is never nil.
type feedbackCounts struct {
	Groups []feedbackGroup `json:"groups"`
	Up     int             `json:"up"`
	Down   int             `json:"down"`
	Notes  int             `json:"notes"`
}

// runKinds orders the kinds of store.RatedRun in the table.
var runKinds = []string{store.RunFirst, store.RunFollowUp, store.RunEdit, store.RunRegenerate}

// countFeedback counts the current ratings of every run of db (store.RatedRuns).
func countFeedback(ctx context.Context, db *store.DB) (feedbackCounts, error) {
	runs, err := db.RatedRuns(ctx)
	if err != nil {
		return feedbackCounts{}, fmt.Errorf("count feedback: %w", err)
	}
	return tallyFeedback(runs), nil
}

// tallyFeedback groups runs by model and kind (see feedbackCounts).
func tallyFeedback(runs []store.RatedRun) feedbackCounts {
	fc := feedbackCounts{Groups: []feedbackGroup{}}
	at := map[[2]string]int{}
	for _, r := range runs {
		key := [2]string{r.Model, r.Kind}
		i, ok := at[key]
		if !ok {
			i = len(fc.Groups)
			at[key] = i
			fc.Groups = append(fc.Groups, feedbackGroup{Model: r.Model, Kind: r.Kind})
		}
		g := &fc.Groups[i]
		switch r.Rating {
		case "up":
			g.Up++
			fc.Up++
		case "down":
			g.Down++
			fc.Down++
		}
		if r.Note != "" {
			g.Notes++
			fc.Notes++
		}
	}
	slices.SortFunc(fc.Groups, func(a, b feedbackGroup) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(slices.Index(runKinds, a.Kind), slices.Index(runKinds, b.Kind)))
	})
	return fc
}

// feedbackTable renders fc as a Markdown section: a table with a row per model and kind
// and a total row, or one line saying no run is rated yet.
func feedbackTable(fc feedbackCounts) string {
	var b strings.Builder
	if len(fc.Groups) == 0 {
		b.WriteString("Feedback on the data directory's runs: none yet (rate answers with thumbs up or down in the app).\n")
		return b.String()
	}
	b.WriteString("Feedback on the data directory's runs (current ratings):\n\n")
	b.WriteString("| model | run kind | up | down | notes |\n| --- | --- | --: | --: | --: |\n")
	for _, g := range fc.Groups {
		model := g.Model
		if model == "" {
			model = "(unknown)"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d |\n", mdCell(model), mdCell(strings.ReplaceAll(g.Kind, "_", "-")), g.Up, g.Down, g.Notes)
	}
	fmt.Fprintf(&b, "| **total** |  | %s | %s | %s |\n", strconv.Itoa(fc.Up), strconv.Itoa(fc.Down), strconv.Itoa(fc.Notes))
	return b.String()
}

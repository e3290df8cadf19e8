package store

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/events"
)

// feedbackRun adds message id to conversation conv (a child of parent, "" for a root) with
// a metadata event naming model, and finishes it as complete unless running.
func feedbackRun(t *testing.T, db *DB, conv, id, parent, question, model string, running bool) {
	t.Helper()
	ctx := context.Background()
	if err := db.AddMessage(ctx, Message{ID: id, ConversationID: conv, ParentID: parent, ThreadID: conv, Content: question,
		CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	seq, err := db.MaxSeq(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(events.DataMetadata{Content: question, Model: model, Mode: "native"})
	if err := db.AppendEvents(ctx, events.Event{Type: events.Metadata, ConversationID: conv, MessageID: id, Seq: seq + 1, Data: data}); err != nil {
		t.Fatal(err)
	}
	if !running {
		if err := db.FinishMessage(ctx, id, "answer to "+question, "complete", ""); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAppendFeedback: a rating and its note are stored as a feedback event with the
// conversation's next seq; the latest event of a message is its rating (changed, then
// cleared); the rating survives closing and reopening the database; bad input and runs that
// cannot be rated are refused with the right sentinel and write nothing.
func TestAppendFeedback(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "artifactflow.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	createConv(t, db, "c1")
	feedbackRun(t, db, "c1", "m1", "", "Q1", "model-a", false)
	feedbackRun(t, db, "c1", "m2", "m1", "Q2", "model-a", true)

	rate := func(rating, note string) events.Event {
		t.Helper()
		before, _ := db.MaxSeq(ctx, "c1")
		ev, err := db.AppendFeedback(ctx, "c1", "m1", events.DataFeedback{Rating: rating, Note: note})
		if err != nil {
			t.Fatalf("AppendFeedback(%q, %q): %v", rating, note, err)
		}
		if ev.Seq != before+1 || ev.Type != events.Feedback || ev.MessageID != "m1" {
			t.Fatalf("event = %+v, want seq %d", ev, before+1)
		}
		return ev
	}
	current := func(db *DB) string {
		t.Helper()
		fb, err := db.ConversationFeedback(ctx, "c1")
		if err != nil {
			t.Fatal(err)
		}
		f, ok := fb["m1"]
		if len(fb) > 1 || (ok && f.At.IsZero()) {
			t.Fatalf("feedback = %+v", fb)
		}
		if !ok {
			return "none"
		}
		return f.Rating + ":" + f.Note
	}

	rate("up", "  Clear and well sourced.\n")
	if got := current(db); got != "up:Clear and well sourced." {
		t.Errorf("after up = %q", got)
	}
	rate("down", "")
	if got := current(db); got != "down:" {
		t.Errorf("after down = %q", got)
	}
	rate("", "")
	if got := current(db); got != "none" {
		t.Errorf("after clearing = %q", got)
	}
	rate("down", "Missed the 2024 figures.")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := current(db); got != "down:Missed the 2024 figures." {
		t.Errorf("after reopening = %q", got)
	}
	evs, err := db.ListEvents(ctx, EventQuery{ConversationID: "c1", MessageID: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Type == events.Feedback {
			n++
		}
	}
	if n != 4 {
		t.Errorf("feedback events stored = %d, want all 4 (the log is append-only)", n)
	}

	for _, tc := range []struct {
		name, conv, msg, rating, note string
		want                          error
	}{
		{"unknown rating", "c1", "m1", "meh", "", ErrInvalid},
		{"note without rating", "c1", "m1", "", "why", ErrInvalid},
		{"note too long", "c1", "m1", "up", strings.Repeat("字", events.MaxFeedbackNote+1), ErrInvalid},
		{"control characters", "c1", "m1", "up", "bad \x1b[31m", ErrInvalid},
		{"invalid UTF-8", "c1", "m1", "up", "\xff", ErrInvalid},
		{"run still going", "c1", "m2", "up", "", ErrInvalid},
		{"unknown message", "c1", "nope", "up", "", ErrNotFound},
		{"message of another conversation", "c2", "m1", "up", "", ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := db.MaxSeq(ctx, "c1")
			_, err := db.AppendFeedback(ctx, tc.conv, tc.msg, events.DataFeedback{Rating: tc.rating, Note: tc.note})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if after, _ := db.MaxSeq(ctx, "c1"); after != before {
				t.Errorf("a refused rating wrote an event (seq %d → %d)", before, after)
			}
		})
	}
	if _, err := db.AppendFeedback(ctx, "c1", "m1", events.DataFeedback{Rating: "up", Note: strings.Repeat("字", events.MaxFeedbackNote)}); err != nil {
		t.Errorf("a note of exactly %d characters: %v", events.MaxFeedbackNote, err)
	}
}

// TestFeedbackFollowsItsBranch: feedback is part of its run's events, so the history of the
// branch holding the rated run shows it and the history of a sibling branch does not; a
// writer that numbered its events from the seq before the rating gets ErrSeqTaken (and the
// engine renumbers), never overwriting it.
func TestFeedbackFollowsItsBranch(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	createConv(t, db, "c1")
	feedbackRun(t, db, "c1", "a", "", "Question", "m", false)
	feedbackRun(t, db, "c1", "b", "", "Question, edited", "m", false)
	top, _ := db.MaxSeq(ctx, "c1")
	ev, err := db.AppendFeedback(ctx, "c1", "a", events.DataFeedback{Rating: "up", Note: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	has := func(leaf string) bool {
		p, err := db.History(ctx, HistoryQuery{ConversationID: "c1", ToMessageID: leaf, Limit: MaxHistoryLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Events {
			if e.Type == events.Feedback && e.Seq == ev.Seq {
				return true
			}
		}
		return false
	}
	if !has("a") || has("b") {
		t.Errorf("feedback in branch a's history: %v, in branch b's: %v; want true, false", has("a"), has("b"))
	}
	err = db.AppendEvents(ctx, events.Event{Type: events.AgentStart, ConversationID: "c1", MessageID: "b", Seq: top + 1, Data: json.RawMessage(`{}`)})
	if !errors.Is(err, ErrSeqTaken) {
		t.Errorf("an event numbered over the rating: %v, want ErrSeqTaken", err)
	}
}

// TestRatedRuns: every rated run of the data directory with its current rating, the model
// its metadata names and its kind (first question, follow-up, edit, regenerate); cleared
// ratings and unrated runs are left out.
func TestRatedRuns(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	createConv(t, db, "c1")
	createConv(t, db, "c2")
	feedbackRun(t, db, "c1", "first", "", "Q", "model-a", false)
	feedbackRun(t, db, "c1", "follow", "first", "More?", "model-a", false)
	feedbackRun(t, db, "c1", "again", "first", "More?", "model-b", false)
	feedbackRun(t, db, "c1", "edited", "", "Q, better", "model-b", false)
	feedbackRun(t, db, "c1", "unrated", "edited", "Next", "model-b", false)
	feedbackRun(t, db, "c2", "cleared", "", "Other", "model-a", false)
	for _, r := range []struct{ conv, msg, rating, note string }{
		{"c1", "first", "down", "first note"},
		{"c1", "first", "up", "changed my mind"},
		{"c1", "follow", "down", ""},
		{"c1", "again", "up", ""},
		{"c1", "edited", "down", "wrong year"},
		{"c2", "cleared", "up", "x"},
		{"c2", "cleared", "", ""},
	} {
		if _, err := db.AppendFeedback(ctx, r.conv, r.msg, events.DataFeedback{Rating: r.rating, Note: r.note}); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := db.RatedRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, strings.Join([]string{r.MessageID, r.Model, r.Kind, r.Rating, r.Note}, "|"))
	}
	want := []string{
		"first|model-a|first|up|changed my mind",
		"follow|model-a|follow_up|down|",
		"again|model-b|regenerate|up|",
		"edited|model-b|edit|down|wrong year",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rated runs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

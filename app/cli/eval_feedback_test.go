package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// rateRuns stores, in the world's data directory, two conversations with runs of two
// models (a first question, a follow-up, a regenerated one, an edit) rated up or down,
// some with a note, one rated and then cleared, one never rated.
func rateRuns(t *testing.T, dataDir string) {
	t.Helper()
	ctx := context.Background()
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(dataDir, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type run struct{ conv, id, parent, question, model string }
	for _, r := range []run{
		{"c1", "a1", "", "Q1", "qwen3"},
		{"c1", "a2", "a1", "Q2", "qwen3"},
		{"c1", "a3", "a1", "Q2", "deepseek-chat"},
		{"c1", "a4", "", "Q1 edited", "deepseek-chat"},
		{"c2", "b1", "", "Other", "qwen3"},
		{"c2", "b2", "b1", "Unrated", "qwen3"},
	} {
		if r.parent == "" {
			_ = db.CreateConversation(ctx, store.Conversation{ID: r.conv})
		}
		if err := db.AddMessage(ctx, store.Message{ID: r.id, ConversationID: r.conv, ParentID: r.parent, ThreadID: r.conv,
			Content: r.question, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		seq, _ := db.MaxSeq(ctx, r.conv)
		data, _ := json.Marshal(events.DataMetadata{Content: r.question, Model: r.model})
		if err := db.AppendEvents(ctx, events.Event{Type: events.Metadata, ConversationID: r.conv, MessageID: r.id, Seq: seq + 1, Data: data}); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishMessage(ctx, r.id, "answer", "complete", ""); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct{ conv, id, rating, note string }{
		{"c1", "a1", "down", ""},
		{"c1", "a1", "up", "Good sources"},
		{"c1", "a2", "down", "Wrong year"},
		{"c1", "a3", "up", ""},
		{"c1", "a4", "down", "Too long"},
		{"c2", "b1", "up", ""},
		{"c2", "b1", "", ""},
	} {
		if _, err := db.AppendFeedback(ctx, f.conv, f.id, events.DataFeedback{Rating: f.rating, Note: f.note}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEvalCountsFeedback: `eval --feedback` counts the current thumbs up and down (and the
// ratings with a note) of every conversation of the data directory by model and run kind,
// as a table and, with --json, as JSON; a cleared rating and an unrated run count nowhere;
// a full eval puts the same counts in its table and its JSON file. --json without
// --feedback, and --feedback with a question file, are usage errors.
func TestEvalCountsFeedback(t *testing.T) {
	w := newEvalWorld(t, &evalScript{})
	rateRuns(t, w.DataDir)

	code, stdout, stderr := runEvalIn(context.Background(), w, "--feedback")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	table := []string{
		"| model | run kind | up | down | notes |",
		"| --- | --- | --: | --: | --: |",
		"| deepseek-chat | edit | 0 | 1 | 1 |",
		"| deepseek-chat | regenerate | 1 | 0 | 0 |",
		"| qwen3 | first | 1 | 0 | 1 |",
		"| qwen3 | follow-up | 0 | 1 | 1 |",
		"| **total** |  | 2 | 2 | 3 |",
	}
	if !strings.Contains(stdout, strings.Join(table, "\n")+"\n") {
		t.Errorf("eval --feedback printed:\n%s\nwant the table:\n%s", stdout, strings.Join(table, "\n"))
	}

	code, stdout, stderr = runEvalIn(context.Background(), w, "--feedback", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var fc feedbackCounts
	if err := json.Unmarshal([]byte(stdout), &fc); err != nil {
		t.Fatalf("--json output %q: %v", stdout, err)
	}
	want := `{"groups":[{"model":"deepseek-chat","kind":"edit","up":0,"down":1,"notes":1},` +
		`{"model":"deepseek-chat","kind":"regenerate","up":1,"down":0,"notes":0},` +
		`{"model":"qwen3","kind":"first","up":1,"down":0,"notes":1},` +
		`{"model":"qwen3","kind":"follow_up","up":0,"down":1,"notes":1}],"up":2,"down":2,"notes":3}`
	if got, _ := json.Marshal(fc); string(got) != want {
		t.Errorf("--json = %s\nwant     %s", got, want)
	}

	file := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(file, []byte(`{"id": "one", "question": "One question?"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr = runEvalIn(context.Background(), w, "--out", out, file)
	if code != ExitOK {
		t.Fatalf("eval: exit %d, stderr %s", code, stderr)
	}
	rep, md := readEvalOutput(t, out)
	if rep.Feedback == nil || rep.Feedback.Up != 2 || rep.Feedback.Down != 2 || rep.Feedback.Notes != 3 || len(rep.Feedback.Groups) != 4 {
		t.Errorf("the eval's JSON feedback = %+v", rep.Feedback)
	}
	for name, text := range map[string]string{"stdout": stdout, "the .md file": md} {
		if !strings.Contains(text, table[2]) || !strings.Contains(text, table[6]) {
			t.Errorf("%s lacks the feedback table:\n%s", name, text)
		}
	}

	for _, args := range [][]string{{"--json", file}, {"--feedback", file}} {
		if code, _, stderr := runEvalIn(context.Background(), w, args...); code != ExitUsage {
			t.Errorf("eval %v: exit %d (%s), want %d", args, code, stderr, ExitUsage)
		}
	}
}

// TestEvalFeedbackNone: with no rated run, eval --feedback says so in one line and the
// JSON has empty groups (never null).
func TestEvalFeedbackNone(t *testing.T) {
	w := newEvalWorld(t, &evalScript{})
	code, stdout, _ := runEvalIn(context.Background(), w, "--feedback")
	if code != ExitOK || !strings.Contains(stdout, "none yet") || strings.Contains(stdout, "| ") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	code, stdout, _ = runEvalIn(context.Background(), w, "--feedback", "--json")
	if code != ExitOK || strings.TrimSpace(stdout) != `{"groups":[],"up":0,"down":0,"notes":0}` {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}

package engine

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
)

// TestFeedbackSurvivesCompaction: a run is rated (with a note), then the next run of the
// conversation compacts its context. The rating is still the run's afterwards, it is in the
// history the user pages through, and the note never reaches the model: feedback is for
// the user and for `artifactflow eval`, not part of any agent's context.
func TestFeedbackSurvivesCompaction(t *testing.T) {
	const note = "Cite the 2019 survey next time"
	bigNotes := strings.Repeat("Lunar laser ranging measures the distance to the Moon. ", 300)
	var leadCalls atomic.Int64
	e, db, _, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isCompaction(req) {
			return llmtest.Reply{Content: summaryText}
		}
		switch leadCalls.Add(1) {
		case 1:
			return call("create_artifact", `{"id":"notes","content_type":"markdown","title":"Notes","content":`+jsonString(bigNotes)+`}`)
		case 3, 4:
			return call("read_artifact", `{"id":"notes"}`)
		default:
			return llmtest.Reply{Content: "answer"}
		}
	}, func(d *Deps) { d.ContextWindow = 3000 })
	ctx := context.Background()
	first, err := e.Ask(ctx, Request{Content: "Summarize the notes"})
	if err != nil || first.Err != nil {
		t.Fatalf("first run: %+v %v", first, err)
	}
	fb, err := db.AppendFeedback(ctx, first.ConversationID, first.MessageID, events.DataFeedback{Rating: events.RatingDown, Note: note})
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.Ask(ctx, Request{ConversationID: first.ConversationID, Content: "Read them again"})
	if err != nil || second.Err != nil {
		t.Fatalf("second run: %+v %v", second, err)
	}

	compactedAfter := false
	rated := false
	for _, ev := range userHistory(t, db, first.ConversationID) {
		switch {
		case ev.Type == events.CompactionSummary && ev.Seq > fb.Seq:
			compactedAfter = true
		case ev.Type == events.Feedback && ev.Seq == fb.Seq && ev.MessageID == first.MessageID:
			rated = true
		}
	}
	if !compactedAfter {
		t.Fatal("the second run did not compact: the test shows nothing")
	}
	if !rated {
		t.Error("the feedback event is not in the history after compaction")
	}
	got, err := db.ConversationFeedback(ctx, first.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if f := got[first.MessageID]; f.Rating != events.RatingDown || f.Note != note || len(got) != 1 {
		t.Errorf("feedback after compaction = %+v, want the first run's down with its note", got)
	}
	for _, req := range srv.Requests() {
		b, _ := json.Marshal(req.Messages)
		if strings.Contains(string(b), note) {
			t.Fatal("the feedback note reached the model")
		}
	}
}

package engine

import (
	"context"
	"reflect"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// TestPathEventsOneQuery: a path's events are read in one query (store.PathEvents); they
// must be exactly what one query per message gives, in seq order, without the events of
// sibling branches whose seqs interleave with the path's, and the lead's history built from
// them must hold no off-path message.
func TestPathEventsOneQuery(t *testing.T) {
	ctx := context.Background()
	e, db, _, _ := newEngine(t, func(openai.ChatCompletionRequest, int) llmtest.Reply { return llmtest.Reply{Content: "x"} })
	const messages = 70
	last := seedChain(t, db, messages, 2, 5)
	path, err := db.MessagePath(ctx, "c", last)
	if err != nil || len(path) != messages {
		t.Fatalf("path: %d messages, %v", len(path), err)
	}
	var want []events.Event
	ids := make([]string, len(path))
	for i, m := range path {
		ids[i] = m.ID
		evs, err := db.ListEvents(ctx, store.EventQuery{ConversationID: "c", MessageID: m.ID})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, evs...)
	}
	got, err := db.PathEvents(ctx, "c", ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PathEvents gave %d events, one query per message %d", len(got), len(want))
	}
	all, _ := db.ListEvents(ctx, store.EventQuery{ConversationID: "c"})
	if len(all) <= len(got) {
		t.Fatalf("the fixture has no off-path events (%d of %d on the path)", len(got), len(all))
	}
	hist, err := e.history(ctx, "c", last, "lead_agent", toolcall.ModeNative)
	if err != nil || len(hist) != messages*6 {
		t.Fatalf("history: %d messages, want %d, %v", len(hist), messages*6, err)
	}
	for i, m := range hist {
		if strings.Contains(m.Content, " b0") {
			t.Fatalf("history message %d comes from a sibling branch: %q", i, m.Content)
		}
	}
	if hist[0].Content != "question m0000" || hist[len(hist)-1].Content != "answer "+last {
		t.Fatalf("history runs from %q to %q", hist[0].Content, hist[len(hist)-1].Content)
	}
}

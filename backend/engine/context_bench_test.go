package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// BenchmarkHistory10k rebuilds the lead's context from a conversation of 50 runs with 200
// events each (10,000 events, as after a long session), the work done at the start of
// every run.
func BenchmarkHistory10k(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "h.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "long"}); err != nil {
		b.Fatal(err)
	}
	seq, parent := int64(0), ""
	for m := range 50 {
		id := fmt.Sprintf("m%02d", m)
		if err := db.AddMessage(ctx, store.Message{ID: id, ConversationID: "c", ParentID: parent, Content: "question " + id, Status: "complete"}); err != nil {
			b.Fatal(err)
		}
		parent = id
		evs := []events.Event{{Type: events.Metadata, Data: events.MustData(events.DataMetadata{Content: "question " + id})}}
		for r := range 66 {
			cid := fmt.Sprintf("%s-%d", id, r)
			evs = append(evs,
				events.Event{Type: events.LLMComplete, AgentName: "lead_agent", Data: events.MustData(events.DataLLMComplete{
					Content: "thinking", ToolCalls: []events.ToolCall{{ID: cid, Name: "read_artifact", Params: []byte(`{"id":"task_plan"}`)}}})},
				events.Event{Type: events.ToolStart, AgentName: "lead_agent", Data: events.MustData(events.DataToolStart{CallID: cid, Tool: "read_artifact"})},
				events.Event{Type: events.ToolComplete, AgentName: "lead_agent", Data: events.MustData(events.DataToolComplete{
					CallID: cid, Tool: "read_artifact", Success: true, Result: "some result text of a few hundred bytes, like a search listing or a page extract"})})
		}
		evs = append(evs, events.Event{Type: events.Complete, Data: events.MustData(events.DataTerminal{Response: "answer"})})
		for i := range evs {
			seq++
			evs[i].ConversationID, evs[i].MessageID, evs[i].Seq = "c", id, seq
		}
		if err := db.AppendEvents(ctx, evs...); err != nil {
			b.Fatal(err)
		}
	}
	e, err := New(Config{Store: db, Deps: func() (Deps, error) { return Deps{}, nil }})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		msgs, err := e.history(ctx, "c", parent, "lead_agent", toolcall.ModeNative)
		if err != nil || len(msgs) < 50*133 {
			b.Fatalf("history: %d messages, %v", len(msgs), err)
		}
	}
}

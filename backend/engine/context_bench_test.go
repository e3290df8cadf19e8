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

// seedChain stores a conversation "c" of messages runs in one chain, each with rounds
// lead tool rounds: metadata, agent_start, per round llm_complete + tool_start +
// tool_complete, the answer's llm_complete and complete (4 + 3*rounds events). With
// branchEvery > 0, every branchEvery-th message gets an earlier sibling "bNNNN" (as after a
// regenerate) whose events come just before the chain message's, off the path. It returns
// the last message's id.
func seedChain(tb testing.TB, db *store.DB, messages, rounds, branchEvery int) string {
	tb.Helper()
	ctx := context.Background()
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "long"}); err != nil {
		tb.Fatal(err)
	}
	seq, parent := int64(0), ""
	add := func(id string) {
		if err := db.AddMessage(ctx, store.Message{ID: id, ConversationID: "c", ParentID: parent, Content: "question " + id, Status: "complete"}); err != nil {
			tb.Fatal(err)
		}
		evs := []events.Event{
			{Type: events.Metadata, Data: events.MustData(events.DataMetadata{Content: "question " + id})},
			{Type: events.AgentStart, AgentName: "lead_agent", Data: events.MustData(events.DataAgentStart{})},
		}
		for r := range rounds {
			cid := fmt.Sprintf("%s-%d", id, r)
			evs = append(evs,
				events.Event{Type: events.LLMComplete, AgentName: "lead_agent", Data: events.MustData(events.DataLLMComplete{
					Content: "thinking", ToolCalls: []events.ToolCall{{ID: cid, Name: "read_artifact", Params: []byte(`{"id":"task_plan"}`)}}})},
				events.Event{Type: events.ToolStart, AgentName: "lead_agent", Data: events.MustData(events.DataToolStart{CallID: cid, Tool: "read_artifact"})},
				events.Event{Type: events.ToolComplete, AgentName: "lead_agent", Data: events.MustData(events.DataToolComplete{
					CallID: cid, Tool: "read_artifact", Success: true, Result: "some result text of a few hundred bytes, like a search listing or a page extract"})})
		}
		evs = append(evs,
			events.Event{Type: events.LLMComplete, AgentName: "lead_agent", Data: events.MustData(events.DataLLMComplete{Content: "answer " + id})},
			events.Event{Type: events.Complete, Data: events.MustData(events.DataTerminal{Response: "answer " + id})})
		for i := range evs {
			seq++
			evs[i].ConversationID, evs[i].MessageID, evs[i].Seq = "c", id, seq
		}
		if err := db.AppendEvents(ctx, evs...); err != nil {
			tb.Fatal(err)
		}
	}
	for m := range messages {
		if branchEvery > 0 && m%branchEvery == branchEvery-1 {
			add(fmt.Sprintf("b%04d", m))
		}
		id := fmt.Sprintf("m%04d", m)
		add(id)
		parent = id
	}
	return parent
}

// benchHistory measures rebuilding the lead's history (the conversation part of its
// context, read at the start of every run) for a chain of messages runs with rounds tool
// rounds each; each run gives 1 user + 2*rounds + 1 answer messages.
func benchHistory(b *testing.B, messages, rounds int) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "h.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	last := seedChain(b, db, messages, rounds, 0)
	e, err := New(Config{Store: db, Deps: func() (Deps, error) { return Deps{}, nil }})
	if err != nil {
		b.Fatal(err)
	}
	want := messages * (2 + 2*rounds)
	b.ReportAllocs()
	for b.Loop() {
		msgs, err := e.history(ctx, "c", last, "lead_agent", toolcall.ModeNative)
		if err != nil || len(msgs) != want {
			b.Fatalf("history: %d messages, want %d, %v", len(msgs), want, err)
		}
	}
}

// BenchmarkHistory10k rebuilds the lead's context from a conversation of 50 runs with 202
// events each (10,100 events, as after a long session of long runs).
func BenchmarkHistory10k(b *testing.B) { benchHistory(b, 50, 66) }

// BenchmarkContextPath1000 rebuilds the lead's context from a path of 1,000 messages in
// one chain with 10 events each (two tool rounds per run): many short runs, where a cost
// per message (a query each) would dominate.
func BenchmarkContextPath1000(b *testing.B) { benchHistory(b, 1000, 2) }

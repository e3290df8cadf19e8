package store

import (
	"context"
	"testing"

	"artifactflow/backend/events"
)

// benchEvent is a typical persisted event: an llm_complete with a few hundred bytes of data.
func benchEvent(seq int64) events.Event {
	return events.Event{Type: events.LLMComplete, ConversationID: "c", MessageID: "m", Seq: seq, AgentName: "lead_agent",
		Data: events.MustData(events.DataLLMComplete{Content: "The answer draws on three sources; see the task plan for the " +
			"remaining steps and the report artifact for details. ", Model: "gpt-4o-mini", Usage: events.Usage{PromptTokens: 1200, CompletionTokens: 80, TotalTokens: 1280}})}
}

func BenchmarkAppendEvents(b *testing.B) {
	for _, tc := range []struct {
		name  string
		batch int
	}{{"single", 1}, {"batch20", 20}} {
		batch := tc.batch
		b.Run(tc.name, func(b *testing.B) {
			db := openTestDB(b)
			createConv(b, db, "c")
			ctx := context.Background()
			evs := make([]events.Event, batch)
			seq := int64(0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range evs {
					seq++
					evs[j] = benchEvent(seq)
				}
				if err := db.AppendEvents(ctx, evs...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func BenchmarkListEvents(b *testing.B) {
	db := openTestDB(b)
	createConv(b, db, "c")
	ctx := context.Background()
	const total = 10000
	batch := make([]events.Event, 0, 500)
	for seq := int64(1); seq <= total; seq++ {
		batch = append(batch, benchEvent(seq))
		if len(batch) == cap(batch) {
			if err := db.AppendEvents(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for _, tc := range []struct {
		name string
		q    EventQuery
		want int
	}{
		{"first100", EventQuery{ConversationID: "c", Limit: 100}, 100},
		{"last100", EventQuery{ConversationID: "c", BeforeSeq: total + 1, Limit: 100}, 100},
		{"all10000", EventQuery{ConversationID: "c"}, total},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				evs, err := db.ListEvents(ctx, tc.q)
				if err != nil {
					b.Fatal(err)
				}
				if len(evs) != tc.want {
					b.Fatalf("got %d events, want %d", len(evs), tc.want)
				}
			}
		})
	}
}

package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// journalBound is the most an event may be late in the journal (events are
// journaled batched, at most 200 ms late).
const journalBound = 200 * time.Millisecond

// TestJournalBound: events emitted with no tool round or terminal event to sync them are
// readable by another connection to the database within journalBound, at any phase of the
// journal's timer. This is a correctness bound, not a speed measurement.
func TestJournalBound(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "af.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(ctx, store.Message{ID: "m", ConversationID: "c", Content: "q", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	reader, err := store.Open(ctx, path) // a second connection, as after a crash or from another process
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	em, err := newEmitter(ctx, db, nil, "c", "m", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer em.close()

	var worst time.Duration
	for i := range 6 {
		time.Sleep(time.Duration(i) * 23 * time.Millisecond) // vary the phase against the timer
		ev := em.emit(ctx, events.AgentStart, "lead_agent", events.DataAgentStart{Round: i})
		emitted := time.Now()
		for {
			evs, err := reader.ListEvents(ctx, store.EventQuery{ConversationID: "c", AfterSeq: ev.Seq - 1})
			if err != nil {
				t.Fatal(err)
			}
			late := time.Since(emitted)
			if len(evs) > 0 && evs[0].Seq == ev.Seq {
				worst = max(worst, late)
				break
			}
			if late > journalBound {
				t.Fatalf("event %d not readable after %v (bound %v)", ev.Seq, late, journalBound)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	t.Logf("latest journal write: %v (JournalInterval %v)", worst, JournalInterval)
	if err := em.err(); err != nil {
		t.Fatal(err)
	}
}

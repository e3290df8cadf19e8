package store

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/events"
)

// openPair opens two *DB on one new database file: what two processes on one data dir are
// from SQLite's view (the window and `artifactflow ask --conversation X`).
func openPair(t *testing.T) (a, b *DB) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "af.db")
	var err error
	if a, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if b, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return a, b
}

// TestStartRunClaimsConversationAcrossProcesses: instance A starting a run in conversation
// c while c holds message "old" (added through the other *DB, B) is refused with ErrRunLive
// exactly when "old" is running and owned by another instance whose heartbeat is fresh; a
// run whose owner stopped (no owner, unknown owner, stale beat) is marked interrupted and
// does not block.
func TestStartRunClaimsConversationAcrossProcesses(t *testing.T) {
	const staleAfter = time.Minute
	tests := []struct {
		name      string
		oldOwner  string
		oldStatus string
		beat      string // "fresh", "stale" or "" (the owner never beat, or was removed)
		oldConv   string // the old message's conversation; "" = c
		wantLive  bool
		wantOld   string // the old message's status afterwards
	}{
		{"live run of another process", "B", StatusRunning, "fresh", "", true, StatusRunning},
		{"owner's heartbeat is stale (crashed)", "B", StatusRunning, "stale", "", false, StatusInterrupted},
		{"owner unknown (removed or swept)", "B", StatusRunning, "", "", false, StatusInterrupted},
		{"no owner", "", StatusRunning, "", "", false, StatusInterrupted},
		{"own earlier run is the engine's business", "A", StatusRunning, "fresh", "", false, StatusRunning},
		{"finished run of a live process", "B", StatusComplete, "fresh", "", false, StatusComplete},
		{"live run in another conversation", "B", StatusRunning, "fresh", "other", false, StatusRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a, b := openPair(t)
			for _, id := range []string{"c", "other"} {
				if err := b.CreateConversation(ctx, Conversation{ID: id, Title: id}); err != nil {
					t.Fatal(err)
				}
			}
			if tt.beat != "" {
				if err := b.Heartbeat(ctx, tt.oldOwner, 4242); err != nil {
					t.Fatal(err)
				}
			}
			if tt.beat == "stale" {
				if _, err := b.sql.ExecContext(ctx, `UPDATE instances SET heartbeat_at = ? WHERE id = ?`,
					formatTime(now().Add(-2*staleAfter)), tt.oldOwner); err != nil {
					t.Fatal(err)
				}
			}
			conv := tt.oldConv
			if conv == "" {
				conv = "c"
			}
			if err := b.AddMessage(ctx, Message{ID: "old", ConversationID: conv, Content: "q1", Status: tt.oldStatus, Owner: tt.oldOwner}); err != nil {
				t.Fatal(err)
			}
			if err := a.Heartbeat(ctx, "A", 1); err != nil {
				t.Fatal(err)
			}
			err := a.StartRun(ctx, Message{ID: "new", ConversationID: "c", Content: "q2", Owner: "A"}, staleAfter)
			if got := errors.Is(err, ErrRunLive); got != tt.wantLive {
				t.Fatalf("StartRun: %v, want ErrRunLive %v", err, tt.wantLive)
			}
			if !tt.wantLive && err != nil {
				t.Fatalf("StartRun: %v", err)
			}
			var rl *RunLiveError
			if tt.wantLive && (!errors.As(err, &rl) || rl.Run.MessageID != "old" || rl.Run.Owner != "B") {
				t.Fatalf("StartRun error %v does not name the live run", err)
			}
			_, nerr := b.GetMessage(ctx, "new")
			if added := nerr == nil; added == tt.wantLive {
				t.Fatalf("new message added %v (%v) with ErrRunLive %v", added, nerr, tt.wantLive)
			}
			old, err := b.GetMessage(ctx, "old")
			if err != nil {
				t.Fatal(err)
			}
			if old.Status != tt.wantOld {
				t.Fatalf("old message status %q, want %q", old.Status, tt.wantOld)
			}
		})
	}
}

// TestStartRunRace: two instances, both alive, starting a run in one conversation at the
// same moment through two *DB: exactly one gets it, the other ErrRunLive.
func TestStartRunRace(t *testing.T) {
	ctx := context.Background()
	a, b := openPair(t)
	if err := a.CreateConversation(ctx, Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	dbs := map[string]*DB{"A": a, "B": b}
	for id, db := range dbs {
		if err := db.Heartbeat(ctx, id, 1); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 10 {
		var wg sync.WaitGroup
		errs := map[string]error{}
		var mu sync.Mutex
		start := make(chan struct{})
		for id, db := range dbs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				err := db.StartRun(ctx, Message{ID: id + string(rune('0'+round)), ConversationID: "c", Content: "q", Owner: id}, time.Hour)
				mu.Lock()
				errs[id] = err
				mu.Unlock()
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for id, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ErrRunLive):
				t.Fatalf("round %d, %s: %v", round, id, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d instances got the conversation (%v), want 1", round, won, errs)
		}
		if _, err := a.sql.ExecContext(ctx, `UPDATE messages SET status = ? WHERE status = ?`, StatusComplete, StatusRunning); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAppendEventsSeqTaken: a batch whose seq is already stored for the same message (a
// batch that landed, retried) is ErrDuplicate; for another message (a second writer that
// numbered from the same MaxSeq) it is ErrSeqTaken, not ErrDuplicate. Either way nothing
// of the batch is written.
func TestAppendEventsSeqTaken(t *testing.T) {
	ctx := context.Background()
	a, b := openPair(t)
	if err := a.CreateConversation(ctx, Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"m1", "m2"} {
		if err := a.AddMessage(ctx, Message{ID: m, ConversationID: "c", Content: "q", Status: StatusComplete}); err != nil {
			t.Fatal(err)
		}
	}
	ev := func(msg string, seq int64) events.Event {
		return events.Event{Type: events.AgentStart, ConversationID: "c", MessageID: msg, Seq: seq, Data: []byte(`{}`)}
	}
	if err := a.AppendEvents(ctx, ev("m1", 1), ev("m1", 2)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		batch             []events.Event
		wantDup, wantSeqT bool
	}{
		{"same message's batch again", []events.Event{ev("m1", 1), ev("m1", 2)}, true, false},
		{"another message's seq", []events.Event{ev("m2", 2), ev("m2", 3)}, false, true},
		{"another message's seq later in the batch", []events.Event{ev("m2", 3), ev("m2", 1)}, false, true},
		{"duplicate inside one message's batch", []events.Event{ev("m2", 5), ev("m2", 5)}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := b.AppendEvents(ctx, tt.batch...)
			if errors.Is(err, ErrDuplicate) != tt.wantDup || errors.Is(err, ErrSeqTaken) != tt.wantSeqT {
				t.Fatalf("AppendEvents: %v, want ErrDuplicate %v, ErrSeqTaken %v", err, tt.wantDup, tt.wantSeqT)
			}
			got, err := b.ListEvents(ctx, EventQuery{ConversationID: "c"})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("%d events stored, want the first 2", len(got))
			}
		})
	}
}

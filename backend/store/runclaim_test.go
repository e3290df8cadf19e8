package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
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
// exactly when "old" is held by another instance that is alive: running, or finished but
// not yet released (its Stop hooks still write events), with a fresh heartbeat, or with
// late beats while the owner's lock says it lives. A run whose owner stopped (no owner,
// unknown owner, stale beat, a free lock) is marked interrupted and does not block.
func TestStartRunClaimsConversationAcrossProcesses(t *testing.T) {
	const staleAfter = time.Minute
	tests := []struct {
		name      string
		oldOwner  string
		oldStatus string
		beat      string // "fresh", "stale" or "" (the owner never beat, or was removed)
		oldConv   string // the old message's conversation; "" = c
		released  bool   // B called ReleaseRun on the old message (its run and Stop hooks ended)
		probe     string // what the owner's lock file says: "alive", "dead" or "" (unknown)
		wantLive  bool
		wantOld   string // the old message's status afterwards
	}{
		{"live run of another process", "B", StatusRunning, "fresh", "", false, "", true, StatusRunning},
		{"owner's heartbeat is stale (crashed)", "B", StatusRunning, "stale", "", false, "", false, StatusInterrupted},
		{"owner unknown (removed or swept)", "B", StatusRunning, "", "", false, "", false, StatusInterrupted},
		{"no owner", "", StatusRunning, "", "", false, "", false, StatusInterrupted},
		{"own earlier run is the engine's business", "A", StatusRunning, "fresh", "", false, "", false, StatusRunning},
		{"finished and released run of a live process", "B", StatusComplete, "fresh", "", true, "", false, StatusComplete},
		{"finished run whose Stop hooks still run (lock held)", "B", StatusComplete, "fresh", "", false, "alive", true, StatusComplete},
		{"finished run an older version never released (no lock file, fresh beat)", "B", StatusComplete, "fresh", "", false, "", false, StatusComplete},
		{"finished, never released, owner stopped", "B", StatusComplete, "stale", "", false, "", false, StatusComplete},
		{"live run in another conversation", "B", StatusRunning, "fresh", "other", false, "", false, StatusRunning},
		{"late beats (a long write held the database), lock held", "B", StatusRunning, "stale", "", false, "alive", true, StatusRunning},
		{"fresh beat but the lock is free (process gone)", "B", StatusRunning, "fresh", "", false, "dead", false, StatusInterrupted},
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
			if tt.released {
				if err := b.ReleaseRun(ctx, "old", tt.oldOwner); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Heartbeat(ctx, "A", 1); err != nil {
				t.Fatal(err)
			}
			live := Liveness{StaleAfter: staleAfter}
			if tt.probe != "" {
				live.Probe = func(owner string) (bool, bool) {
					return owner == tt.oldOwner && tt.probe == "alive", owner == tt.oldOwner
				}
			}
			err := a.StartRun(ctx, Message{ID: "new", ConversationID: "c", Content: "q2", Owner: "A"}, live)
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
				err := db.StartRun(ctx, Message{ID: id + string(rune('0'+round)), ConversationID: "c", Content: "q", Owner: id}, Liveness{StaleAfter: time.Hour})
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

// TestInterruptOrphanedRunsAsksTheProbe: the sweep leaves a running message whose owner's
// beats are late alone while the probe says the owner lives (a long write elsewhere held
// the database), keeps that instance, and interrupts the run of an owner the probe knows is
// dead even with a fresh beat.
func TestInterruptOrphanedRunsAsksTheProbe(t *testing.T) {
	ctx := context.Background()
	a, b := openPair(t)
	if err := b.CreateConversation(ctx, Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"late", "gone"} {
		if err := b.Heartbeat(ctx, id, 1); err != nil {
			t.Fatal(err)
		}
		if err := b.AddMessage(ctx, Message{ID: "m-" + id, ConversationID: "c", Content: "q", Status: StatusRunning, Owner: id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.sql.ExecContext(ctx, `UPDATE instances SET heartbeat_at = ? WHERE id = 'late'`, formatTime(now().Add(-time.Hour))); err != nil {
		t.Fatal(err)
	}
	probe := func(owner string) (bool, bool) { return owner == "late", owner == "late" || owner == "gone" }
	ids, err := a.InterruptOrphanedRuns(ctx, "A", now().Add(-time.Minute), probe)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != "m-gone" {
		t.Fatalf("interrupted %v, want [m-gone]", ids)
	}
	var n int
	if err := a.sql.QueryRowContext(ctx, `SELECT count(*) FROM instances WHERE id = 'late'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("instance 'late' rows %d (%v), want it kept", n, err)
	}
	if m, err := a.GetMessage(ctx, "m-late"); err != nil || m.Status != StatusRunning {
		t.Fatalf("m-late = %+v, %v; want still running", m, err)
	}
}

// TestStartRunReleasesOwnLeftoverClaims: a finished message of this instance still held
// (its ReleaseRun failed) is released by the instance's next StartRun in the conversation,
// so the conversation does not stay claimed against other processes; its running messages
// are left to the engine.
func TestStartRunReleasesOwnLeftoverClaims(t *testing.T) {
	ctx := context.Background()
	a, _ := openPair(t)
	if err := a.CreateConversation(ctx, Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	if err := a.AddMessage(ctx, Message{ID: "done", ConversationID: "c", Content: "q1", Status: StatusComplete, Owner: "A"}); err != nil {
		t.Fatal(err)
	}
	if err := a.StartRun(ctx, Message{ID: "new", ConversationID: "c", Content: "q2", Owner: "A"}, Liveness{StaleAfter: time.Minute}); err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	rows, err := a.sql.QueryContext(ctx, `SELECT id, COALESCE(owner, '') FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, owner string
		if err := rows.Scan(&id, &owner); err != nil {
			t.Fatal(err)
		}
		owners[id] = owner
	}
	if owners["done"] != "" || owners["new"] != "A" {
		t.Fatalf("owners after StartRun = %v, want done released and new held by A", owners)
	}
}

// TestFollowAndStopAnotherInstancesRun: process A (the window) lists the messages another
// process (B, `artifactflow ask`) holds and asks B to stop the running one; B finds the
// request, once per conversation, and it ends with the run. A cannot ask itself (its own
// runs stop in-process), nor stop a finished or unclaimed message.
func TestFollowAndStopAnotherInstancesRun(t *testing.T) {
	ctx := context.Background()
	a, b := openPair(t)
	for _, c := range []string{"c1", "c2", "c3"} {
		if err := a.CreateConversation(ctx, Conversation{ID: c, Title: c}); err != nil {
			t.Fatal(err)
		}
	}
	msgs := []Message{
		{ID: "b-running", ConversationID: "c1", Content: "q", Status: StatusRunning, Owner: "B"},
		{ID: "b-hooks", ConversationID: "c2", Content: "q", Status: StatusComplete, Owner: "B"}, // Stop hooks still writing
		{ID: "a-running", ConversationID: "c3", Content: "q", Status: StatusRunning, Owner: "A"},
		{ID: "free", ConversationID: "c2", Content: "q", Status: StatusComplete},
	}
	for _, m := range msgs {
		if err := b.AddMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	held, err := a.HeldRuns(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	want := []HeldRun{{"b-running", "c1", "B", StatusRunning}, {"b-hooks", "c2", "B", StatusComplete}}
	if len(held) != len(want) || held[0] != want[0] || held[1] != want[1] {
		t.Fatalf("held runs seen by A = %+v, want %+v", held, want)
	}

	requests := []struct {
		conversation string
		want         int
	}{
		{"c1", 1}, // B's running message
		{"c1", 0}, // asked already
		{"c2", 0}, // finished, or not claimed
		{"c3", 0}, // A's own run: stopped in-process, not through the database
		{"nowhere", 0},
	}
	for _, r := range requests {
		if n, err := a.RequestStop(ctx, r.conversation, "A"); err != nil || n != r.want {
			t.Errorf("RequestStop(%s) = %d, %v; want %d", r.conversation, n, err, r.want)
		}
	}
	if _, err := a.RequestStop(ctx, "", "A"); !errors.Is(err, ErrInvalid) {
		t.Errorf("RequestStop without a conversation: %v, want ErrInvalid", err)
	}
	for _, tt := range []struct {
		owner string
		want  []StopRequest
	}{{"B", []StopRequest{{"c1", "b-running"}}}, {"A", nil}} {
		got, err := b.StopRequests(ctx, tt.owner)
		if err != nil || len(got) != len(tt.want) || (len(got) == 1 && got[0] != tt.want[0]) {
			t.Errorf("StopRequests(%s) = %v, %v; want %v", tt.owner, got, err, tt.want)
		}
	}
	// B stops the run: the request ends with it.
	if err := b.FinishMessage(ctx, "b-running", "", StatusCancelled, ""); err != nil {
		t.Fatal(err)
	}
	if got, err := b.StopRequests(ctx, "B"); err != nil || len(got) != 0 {
		t.Errorf("StopRequests after the run ended = %v, %v; want none", got, err)
	}
}

// TestOtherEventsAndRunningDrafts: a follower (A) gets, from a watermark on, exactly the
// events of runs other instances started, each once, even of a run that started, ended
// and was released between two looks (its owner is cleared, started_by stays); its own
// runs' events never. It sees the checkpointed working copies of another instance's
// running message, and no longer once that run has ended.
func TestOtherEventsAndRunningDrafts(t *testing.T) {
	ctx := context.Background()
	a, b := openPair(t)
	if err := a.CreateConversation(ctx, Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	from, err := a.LastEventID(ctx)
	if err != nil || from != 0 {
		t.Fatalf("LastEventID of an empty database = %d, %v", from, err)
	}
	run := func(db *DB, id, owner string, seq int64) {
		t.Helper()
		if err := db.StartRun(ctx, Message{ID: id, ConversationID: "c", Content: "q", Owner: owner}, Liveness{StaleAfter: time.Minute}); err != nil {
			t.Fatal(err)
		}
		ev := events.Event{Type: events.Complete, ConversationID: "c", MessageID: id, Seq: seq, CreatedAt: time.Now(), Data: []byte(`{}`)}
		if err := db.AppendEvents(ctx, ev); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishMessage(ctx, id, "", StatusComplete, ""); err != nil {
			t.Fatal(err)
		}
		if err := db.ReleaseRun(ctx, id, owner); err != nil {
			t.Fatal(err)
		}
	}
	run(b, "b1", "B", 1) // B's quick run, already released
	run(a, "a1", "A", 2) // A's own
	run(b, "b2", "B", 3)
	last, err := a.LastEventID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		self        string
		after, upTo int64
		want        []string // message ids
	}{
		{"A", from, last, []string{"b1", "b2"}},
		{"B", from, last, []string{"a1"}},
		{"A", from, from + 1, []string{"b1"}},
		{"A", last, last, nil},
	}
	for _, tt := range tests {
		evs, err := a.OtherEvents(ctx, tt.self, tt.after, tt.upTo)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range evs {
			got = append(got, ev.MessageID)
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("OtherEvents(%s, %d, %d) = %v, want %v", tt.self, tt.after, tt.upTo, got, tt.want)
		}
	}

	if err := b.StartRun(ctx, Message{ID: "b3", ConversationID: "c", Content: "q", Owner: "B"}, Liveness{StaleAfter: time.Minute}); err != nil {
		t.Fatal(err)
	}
	draft := Draft{ConversationID: "c", ArtifactID: "report", MessageID: "b3", ContentType: "text/markdown", Title: "Report",
		Content: "# so far", Source: "agent", Version: 1, UpdateType: UpdateCreate}
	if err := b.SaveDrafts(ctx, draft); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		self string
		want int
	}{{"A", 1}, {"B", 0}} {
		ds, err := a.RunningDrafts(ctx, "c", tt.self)
		if err != nil || len(ds) != tt.want || (tt.want == 1 && (ds[0].Content != "# so far" || ds[0].MessageID != "b3")) {
			t.Errorf("RunningDrafts seen by %s = %+v, %v; want %d", tt.self, ds, err, tt.want)
		}
	}
	if err := b.FinishMessage(ctx, "b3", "", StatusComplete, ""); err != nil {
		t.Fatal(err)
	}
	if ds, err := a.RunningDrafts(ctx, "c", "A"); err != nil || len(ds) != 0 {
		t.Errorf("RunningDrafts after the run ended = %+v, %v; want none", ds, err)
	}
}

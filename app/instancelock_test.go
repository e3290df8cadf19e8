package app

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

// TestOwnerProbe: the probe says alive for this process and for an owner whose lock file
// is held, dead for one whose file is there but free (every time: it removes nothing),
// and unknown for an owner without a file or with an id that is not a plain name.
func TestOwnerProbe(t *testing.T) {
	dir := t.TempDir()
	held, err := holdInstanceLock(dir, "held-1")
	if err != nil {
		t.Fatal(err)
	}
	defer held.release(slog.New(slog.DiscardHandler))
	dead, err := holdInstanceLock(dir, "dead-1")
	if err != nil {
		t.Fatal(err)
	}
	dead.f.Close() // the process died: the OS dropped its lock, the file stays
	probe := ownerProbe(dir, "self-1")
	tests := []struct {
		owner        string
		alive, known bool
	}{
		{"self-1", true, true},
		{"held-1", true, true},
		{"dead-1", false, true},
		{"never-1", false, false},
		{"../held-1", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		alive, known := probe(tt.owner)
		if alive != tt.alive || known != tt.known {
			t.Errorf("probe(%q) = %v, %v; want %v, %v", tt.owner, alive, known, tt.alive, tt.known)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, InstancesDir, "dead-1.lock")); err != nil {
		t.Errorf("the probe removed the dead owner's lock file (%v): later questions would fall back to its heartbeat", err)
	}
	if alive, known := probe("dead-1"); alive || !known {
		t.Errorf("probe(dead-1) asked again = %v, %v; want dead, known", alive, known)
	}
	if _, err := os.Stat(held.path); err != nil {
		t.Errorf("the live owner's lock file: %v", err)
	}
}

// TestLateHeartbeatsKeepTheRunLive: two Cores on one data dir. While the window's run is
// going, its heartbeat is made an hour old, as when another process held the database for
// a long write and the beats could not land. The other Core's Send into that conversation
// is still refused as busy and its sweep leaves the run running: the window's lock file
// says it is alive. Judged by the heartbeat alone, the run was marked interrupted and a
// second run started beside it. After Close the lock file is gone.
func TestLateHeartbeatsKeepTheRunLive(t *testing.T) {
	w, release := slowQuestionWorld(t)
	window, ask := newCore(t, w), newCore(t, w)
	res, err := (&ChatService{window}).Send(SendRequest{Content: "slow question"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	late := func() {
		t.Helper()
		if _, err := window.db.SQL().ExecContext(ctx, `UPDATE instances SET heartbeat_at = ? WHERE id = ?`,
			time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000000000Z07:00"), window.instance); err != nil {
			t.Fatal(err)
		}
	}
	late()
	if err := ask.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	late()
	_, err = (&ChatService{ask}).Send(SendRequest{ConversationID: res.ConversationID, Content: "second question"})
	if !errors.Is(err, engine.ErrBusy) {
		t.Fatalf("Send while the other process's run goes on with late beats: %v, want busy", err)
	}
	if m, err := ask.db.GetMessage(ctx, res.MessageID); err != nil || m.Status != store.StatusRunning {
		t.Fatalf("the window's run after the other's sweep and Send: %+v, %v; want running", m, err)
	}
	release()
	waitIdle(window, res.ConversationID)
	lockPath := window.lock.path
	if err := window.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after Close: %v", err)
	}
}

// TestNewCoreRemovesDeadInstanceLocks: lock files crashed processes left in
// <data-dir>/instances are removed by a Core's sweep once the instances table has
// forgotten them; a dead process whose heartbeat is still fresh keeps its file (its runs
// must read as dead until they are interrupted), as do live processes' files and files
// that are not instance locks.
func TestNewCoreRemovesDeadInstanceLocks(t *testing.T) {
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler { return llmtest.Script() })
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(w.DataDir, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Heartbeat(ctx, "crashed-fresh", 1); err != nil { // died a moment ago
		t.Fatal(err)
	}
	db.Close()
	live, err := holdInstanceLock(w.DataDir, "live-1")
	if err != nil {
		t.Fatal(err)
	}
	defer live.release(slog.New(slog.DiscardHandler))
	for _, id := range []string{"crashed-1", "crashed-2", "crashed-fresh"} {
		l, err := holdInstanceLock(w.DataDir, id)
		if err != nil {
			t.Fatal(err)
		}
		l.f.Close() // the process died: lock dropped, file left
	}
	other := filepath.Join(w.DataDir, InstancesDir, "notes.txt")
	if err := os.WriteFile(other, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	core := newCore(t, w)
	entries, err := os.ReadDir(filepath.Join(w.DataDir, InstancesDir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{core.instance + ".lock", "crashed-fresh.lock", "live-1.lock", "notes.txt"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("instances folder holds %v, want %v", names, want)
	}
}

// TestSweepInterruptsEveryRunOfADeadOwner: a process crashed with runs in two
// conversations, its heartbeat still fresh and its lock file left. One sweep through the
// real probe interrupts both runs: the first answer "dead" does not remove the file and
// turn the second question into a heartbeat check that says "alive".
func TestSweepInterruptsEveryRunOfADeadOwner(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Heartbeat(ctx, "x", 1); err != nil {
		t.Fatal(err)
	}
	l, err := holdInstanceLock(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	l.f.Close() // crashed
	for _, c := range []string{"c1", "c2"} {
		if err := db.CreateConversation(ctx, store.Conversation{ID: c, Title: c}); err != nil {
			t.Fatal(err)
		}
		if err := db.AddMessage(ctx, store.Message{ID: "m-" + c, ConversationID: c, Content: "q", Status: store.StatusRunning, Owner: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := db.InterruptOrphanedRuns(ctx, "me", time.Now().Add(-time.Minute), ownerProbe(dir, "me"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []string{"m-c1", "m-c2"}) {
		t.Fatalf("interrupted %v, want both runs of the dead process", ids)
	}
}

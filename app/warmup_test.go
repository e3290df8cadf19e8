package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/events"
)

// TestWarmup: on a fresh install (empty cache folder), the warm-up loads the tokenizer
// tables and reads a PDF in a converter child, which leaves the compiled PDF reader in the
// cache folder; no step starts while run events keep arriving (each starts only after the
// idle time has passed since the last one), and Close stops the warm-up.
func TestWarmup(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	const idle = 100 * time.Millisecond
	core.StartWarmup(idle)
	// Run events for a while: no step may start until idle has passed after the event
	// before it (a pause of the test itself longer than idle may let one start in between,
	// which is right: the check below holds either way).
	var emitted []time.Time
	for end := time.Now().Add(4 * idle); time.Now().Before(end); time.Sleep(idle / 10) {
		emitted = append(emitted, time.Now()) // before the event, so never later than it
		core.emit(events.Event{Type: events.LLMChunk, ConversationID: "c", MessageID: "m"})
	}
	select {
	case <-core.WarmupDone():
	case <-time.After(3 * time.Minute):
		t.Fatalf("warm-up not done after 3 minutes; done so far: %+v", core.Warmed())
	}
	steps := core.Warmed()
	if len(steps) != 2 {
		t.Fatalf("steps = %+v, want the tokenizer and the PDF reader", steps)
	}
	for _, s := range steps {
		if s.Err != nil {
			t.Errorf("%s: %v", s.Name, s.Err)
		}
		var before time.Time // the last run event before the step started
		for _, at := range emitted {
			if at.Before(s.Started) {
				before = at
			}
		}
		if s.Started.Before(before.Add(idle)) {
			t.Errorf("%s started %v after a run event, before the idle time %v", s.Name, s.Started.Sub(before), idle)
		}
	}
	ents, err := os.ReadDir(filepath.Join(cache, "artifactflow", "pdfium"))
	if err != nil || len(ents) == 0 {
		t.Errorf("no compiled PDF reader in the cache folder after the warm-up (%v)", err)
	}
	if err := core.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestWarmupStopsOnClose: closing the app while the warm-up waits ends its goroutine at once
// (Close returns) and leaves nothing done.
func TestWarmupStopsOnClose(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	core.StartWarmup(time.Hour)
	if err := core.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-core.warm.done:
	default:
		t.Fatal("the warm-up goroutine still runs after Close")
	}
	if got := core.Warmed(); len(got) != 0 {
		t.Errorf("steps done = %+v, want none", got)
	}
}

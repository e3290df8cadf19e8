package engine

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmfake"
	"artifactflow/backend/store"
)

// TestStopHooksHoldTheConversationAcrossProcesses: two engines on one database file (two
// processes on one data dir). While the first run's Stop hook still runs (its message is
// already complete, its hook_result not yet written), the other engine's Start in that
// conversation is refused with ErrBusy, as one engine waits for its own run's hooks;
// once the run and its hooks have ended the conversation is free and no event of the first
// run lands after the second run's. Without the claim lasting to the end of the hooks
// (store.ReleaseRun after them), the second run started at once and the first run's
// hook_result was journaled after the second run's events.
func TestStopHooksHoldTheConversationAcrossProcesses(t *testing.T) {
	t.Parallel() // waits on a hook process
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "af.db")
	slow := hookScript(t, dir, "slow-stop", "sleep 0.5")
	// Both engines are live (their lock files, as the app's probe would say).
	withHooks := func(hooks config.Hooks) func(*Config, *Deps) {
		return func(c *Config, d *Deps) {
			c.OwnerProbe = func(owner string) (bool, bool) { return owner == "a" || owner == "b", true }
			d.Hooks = hooks
		}
	}
	a, db := openEngine(t, path, "a", nil, withHooks(config.Hooks{config.HookStop: {{Command: []string{slow}}}}))
	b, _ := openEngine(t, path, "b", nil, withHooks(nil))
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	r1, err := a.Start(ctx, Request{ConversationID: "c", Content: "first"})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		m, err := db.GetMessage(ctx, r1.MessageID)
		if err == nil && m.Status == store.StatusComplete {
			break // stored as complete; its Stop hook runs for about 0.5 s more
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first run did not complete within 10 s (%+v, %v)", m, err)
		}
	}
	if _, err := b.Start(ctx, Request{ConversationID: "c", Content: "second"}); !errors.Is(err, ErrBusy) {
		t.Fatalf("Start in another process while the first run's Stop hook runs = %v, want ErrBusy", err)
	}
	if _, err := r1.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	r2, err := b.Start(ctx, Request{ConversationID: "c", Content: "second"})
	if err != nil {
		t.Fatalf("Start once the first run and its hooks ended: %v", err)
	}
	if res, _ := r2.Wait(ctx); res.Status != events.Complete {
		t.Fatalf("second run: %+v", res)
	}
	evs, err := db.ListEvents(ctx, store.EventQuery{ConversationID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	var seen2, hook bool
	for _, ev := range evs {
		switch {
		case ev.MessageID == r2.MessageID:
			seen2 = true
		case seen2:
			t.Errorf("event %d (%s) of the first run is journaled after the second run's", ev.Seq, ev.Type)
		case ev.Type == events.HookResult:
			hook = true
		}
	}
	if !hook || !seen2 {
		t.Fatalf("hook_result of the first run %v, events of the second %v", hook, seen2)
	}
}

// TestFailedReleaseIsRetried: when releasing a finished run's claim fails (a locked or
// full disk), the message stays held and is kept; RetryReleases, which the app calls on
// every heartbeat, releases it, so the conversation does not stay claimed against other
// processes while this one lives.
func TestFailedReleaseIsRetried(t *testing.T) {
	e, db, _, _ := newFakeEngine(t, func(llm.Request, int) llmfake.Reply { return llmfake.Reply{Content: "answer"} })
	e.cfg.InstanceID = "me"
	fail := errors.New("disk I/O error")
	failing := true
	e.releaseRun = func(ctx context.Context, id, owner string) error {
		if failing {
			return fail
		}
		return db.ReleaseRun(ctx, id, owner)
	}
	ctx := context.Background()
	r, err := e.Start(ctx, Request{Content: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	owner := func() string {
		t.Helper()
		var o string
		if err := db.SQL().QueryRowContext(ctx, `SELECT COALESCE(owner, '') FROM messages WHERE id = ?`, r.MessageID).Scan(&o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	if got := owner(); got != "me" {
		t.Fatalf("owner after a failed release = %q, want still held by me", got)
	}
	if err := e.RetryReleases(ctx); !errors.Is(err, fail) {
		t.Fatalf("RetryReleases while it still fails = %v, want %v", err, fail)
	}
	failing = false
	if err := e.RetryReleases(ctx); err != nil {
		t.Fatal(err)
	}
	if got := owner(); got != "" {
		t.Fatalf("owner after RetryReleases = %q, want released", got)
	}
	if err := e.RetryReleases(ctx); err != nil {
		t.Fatalf("nothing left to retry, got %v", err)
	}
}

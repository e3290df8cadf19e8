package app

import (
	"context"
	"slices"
	"testing"
	"time"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// TestFollowAndStopARunOfAnotherProcess: the window (a Core following other processes'
// runs) shows a run `artifactflow ask` (a second Core on the same data dir) holds: its
// events reach the window's sinks as it writes them, and the window lists the conversation
// as running; the window's Stop asks the ask process to stop it, which it does as its own
// Stop would (the message ends cancelled), and the window relays the cancelled event and
// no longer lists the conversation as running.
func TestFollowAndStopARunOfAnotherProcess(t *testing.T) {
	w, _ := slowQuestionWorld(t)
	const every = 50 * time.Millisecond
	window, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides(),
		FollowOtherRuns: true, FollowInterval: every})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = window.Close(context.Background()) })
	ask, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides(), FollowInterval: every})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ask.Close(context.Background()) })
	seen := make(chan events.Event, 4096)
	defer window.AddSink(SinkFunc(func(ev events.Event) {
		select {
		case seen <- ev:
		default:
		}
	}))()

	res, err := (&ChatService{ask}).Send(SendRequest{Content: "slow question"})
	if err != nil {
		t.Fatal(err)
	}
	relayed := func(what string, ok func(events.Event) bool) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case ev := <-seen:
				if ev.MessageID == res.MessageID && ok(ev) {
					return
				}
			case <-deadline:
				t.Fatalf("the window never relayed %s of the ask process's run", what)
			}
		}
	}
	relayed("an event", func(events.Event) bool { return true })
	running := func(want bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(every) {
			ids := (&ChatService{window}).Running()
			list, err := (&ConversationService{window}).List()
			if err != nil {
				t.Fatal(err)
			}
			listed := false
			for _, c := range list {
				listed = listed || c.ID == res.ConversationID && c.Running
			}
			if slices.Contains(ids, res.ConversationID) == want && listed == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the window lists the ask process's conversation as running: %v (Running %v), want %v", listed, ids, want)
			}
		}
	}
	running(true)

	if err := (&ChatService{window}).Stop(res.ConversationID); err != nil {
		t.Fatal(err)
	}
	run := ask.eng.Active(res.ConversationID)
	if run != nil {
		select {
		case <-run.Done():
		case <-time.After(20 * time.Second):
			t.Fatal("the ask process did not stop its run at the window's request")
		}
	}
	if m, err := ask.db.GetMessage(context.Background(), res.MessageID); err != nil || m.Status != store.StatusCancelled {
		t.Fatalf("the stopped message: %+v, %v; want cancelled", m.Status, err)
	}
	relayed("the cancelled event", func(ev events.Event) bool { return ev.Type == events.Cancelled })
	running(false)
}

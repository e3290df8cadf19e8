package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
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

// TestFollowQuickRunsArtifactsAndDelete: a run of another process that starts and ends
// between two looks is still relayed, once; the artifact a running research in another
// process has created (checkpointed, not stored) can be listed, opened and has an empty
// history in this one; deleting that conversation here stops the other process's run
// first, so its rows are not removed under it.
func TestFollowQuickRunsArtifactsAndDelete(t *testing.T) {
	hold := make(chan struct{})
	var once sync.Once
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.LastUser(req) != "draft question" {
				return llmtest.Reply{Content: "quick answer"}
			}
			if len(apptest.ToolResults(req)) == 0 {
				return w.ToolCall("create_artifact", map[string]any{"id": "draft", "content_type": "markdown",
					"title": "Draft", "content": "# Draft\n\nwritten in the other process"})
			}
			<-hold
			return llmtest.Reply{Content: "done"}
		}
	})
	t.Cleanup(func() { once.Do(func() { close(hold) }) }) // before the model server closes
	// The window looks only when the test says (followOthers), so "between two looks" is
	// certain; the ask process looks for stop requests often.
	window, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides(),
		FollowOtherRuns: true, FollowInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = window.Close(context.Background()) })
	ask, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides(), FollowInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ask.Close(context.Background()) })
	var mu sync.Mutex
	var got []events.Event
	defer window.AddSink(SinkFunc(func(ev events.Event) {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	}))()
	after := window.followFrom

	quick, err := (&ChatService{ask}).Send(SendRequest{Content: "quick question"})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(ask, quick.ConversationID)
	for range 2 { // the second look relays nothing again
		window.followOthers(context.Background(), &after)
	}
	mu.Lock()
	var types []string
	for _, ev := range got {
		if ev.MessageID == quick.MessageID {
			types = append(types, string(ev.Type))
		}
	}
	mu.Unlock()
	if len(types) == 0 || types[len(types)-1] != string(events.Complete) || slices.Index(types, string(events.Complete)) != len(types)-1 {
		t.Fatalf("relayed events of the quick run = %v, want its events once, ending with complete", types)
	}

	res, err := (&ChatService{ask}).Send(SendRequest{Content: "draft question"})
	if err != nil {
		t.Fatal(err)
	}
	arts := &ArtifactService{window}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		list, err := arts.List(res.ConversationID)
		if err == nil && len(list) == 1 && list[0].ID == "draft" && list[0].Unsaved {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other process's unstored artifact never listed here: %+v, %v", list, err)
		}
	}
	if a, err := arts.Get(res.ConversationID, "draft"); err != nil || !strings.Contains(a.Content, "written in the other process") {
		t.Fatalf("Get of the other process's draft = %+v, %v", a, err)
	}
	if vs, err := arts.Versions(res.ConversationID, "draft"); err != nil || vs == nil || len(vs) != 0 {
		t.Fatalf("Versions of the other process's draft = %#v, %v; want an empty list", vs, err)
	}

	run := ask.eng.Active(res.ConversationID)
	if err := (&ConversationService{window}).Delete(res.ConversationID); err != nil {
		t.Fatalf("Delete while another process runs there: %v", err)
	}
	if run != nil {
		select {
		case <-run.Done():
		case <-time.After(20 * time.Second):
			t.Fatal("the other process's run was not stopped by the delete")
		}
		if r, _ := run.Wait(context.Background()); r.Status != events.Cancelled {
			t.Errorf("the other process's run ended %q (%v), want cancelled (not an error from rows removed under it)", r.Status, r.Err)
		}
	}
	if _, err := window.db.GetConversation(context.Background(), res.ConversationID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the conversation after Delete: %v, want not found", err)
	}
}

package app

import (
	"errors"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/engine"
	"artifactflow/backend/llm/llmtest"
)

// TestSendBusyInAnotherProcess: two Cores on one data dir (the window and `artifactflow
// ask --conversation X`). While one has a run going in a conversation, the other's Send
// there fails with the busy code and a message that says to wait, and starts nothing;
// once that run ends, the same Send goes ahead.
func TestSendBusyInAnotherProcess(t *testing.T) {
	w, release := slowQuestionWorld(t)
	window, ask := newCore(t, w), newCore(t, w)

	res, err := (&ChatService{window}).Send(SendRequest{Content: "slow question"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&ChatService{ask}).Send(SendRequest{ConversationID: res.ConversationID, Content: "second question"})
	if !errors.Is(err, engine.ErrBusy) || ErrorCode(err) != CodeBusy {
		t.Fatalf("Send in another process's running conversation: %v (code %q), want code %q", err, ErrorCode(err), CodeBusy)
	}
	if ask.eng.Active(res.ConversationID) != nil {
		t.Fatal("the refused run is registered")
	}
	release()
	waitIdle(window, res.ConversationID)
	again, err := (&ChatService{ask}).Send(SendRequest{ConversationID: res.ConversationID, Content: "second question"})
	if err != nil {
		t.Fatalf("Send after the other process's run ended: %v", err)
	}
	waitIdle(ask, again.ConversationID)
}

// slowQuestionWorld is a scripted world whose model answers "answer" at once, except that
// the question "slow question" waits for release (called at the latest when the test ends,
// before the model server closes).
func slowQuestionWorld(t *testing.T) (*apptest.World, func()) {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(ch) }) }
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.LastUser(req) == "slow question" {
				<-ch
			}
			return llmtest.Reply{Content: "answer"}
		}
	})
	t.Cleanup(release)
	return w, release
}

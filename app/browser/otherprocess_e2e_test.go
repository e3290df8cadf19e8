package browser

import (
	"context"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

// TestBrowserE2EOtherProcess runs frontend/e2e/other-process.mjs in headless Chromium
// against browser mode (a Core following other processes' runs, as serve and the window
// are) while a second Core on the same data dir, `artifactflow ask`'s, researches a
// question its model never answers: the page lists and shows that run as going, and its
// Stop ends it in the other process, whose message ends cancelled. Needs AF_E2E=1 and a
// built frontend, like TestBrowserE2E.
func TestBrowserE2EOtherProcess(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	const question = "What does the other process find about the Moon?"
	hold := make(chan struct{})
	var once sync.Once
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.LastUser(req) == question {
				<-hold // until the test ends: only Stop ends this run
			}
			return llmtest.Reply{Content: "answer"}
		}
	})
	t.Cleanup(func() { once.Do(func() { close(hold) }) })
	window, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir, Overrides: w.Overrides(), FollowOtherRuns: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = window.Close(context.Background()) })
	ask, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir, Overrides: w.Overrides()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ask.Close(context.Background()) })
	res, err := ask.Services().Chat.Send(app.SendRequest{Content: question})
	if err != nil {
		t.Fatal(err)
	}

	srv, hs := serveCore(t, window, dist)
	if err := runScript(t, 3*time.Minute, "other-process.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+question); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		m, err := ask.Store().GetMessage(context.Background(), res.MessageID)
		if err == nil && m.Status == store.StatusCancelled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ask process's message: %+v, %v; want cancelled", m.Status, err)
		}
	}
}

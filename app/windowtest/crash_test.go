package windowtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app"
	"artifactflow/app/cli"
	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

// TestCrashChild is the process TestKillDashNine kills when no built binary is named: it
// runs `artifactflow ask` with the arguments in AF_CRASH_ARGS (a JSON array). Skipped unless
// that is set.
func TestCrashChild(t *testing.T) {
	raw := os.Getenv("AF_CRASH_ARGS")
	if raw == "" {
		t.Skip("run by TestKillDashNine")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(cli.Main(context.Background(), cli.Env{Args: args, Stdout: os.Stdout, Stderr: os.Stderr}))
}

// TestKillDashNine kills a process (the built binary named by AF_WINDOW_BIN, or else this
// test binary as `artifactflow ask`, TestCrashChild) in the middle of a research run with
// SIGKILL, after two completed tool rounds and while the model is answering the third, then
// starts again on the same data directory: the database passes PRAGMA integrity_check, the
// run is marked interrupted, its events up to the last completed round are in the journal,
// the artifacts it had changed are offered as drafts holding the last round's content, a
// kept draft becomes a version, and the conversation works.
func TestKillDashNine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	const crashQuestion = "What is the orbital period of the Moon?"
	const report = "# Orbital period\n\nThe sidereal month is 27.3 days."
	const updated = "# Orbital period\n\nThe sidereal month is 27.32 days; the synodic month 29.53 days."
	hung := make(chan struct{}, 1)
	w := newWorld(t, func(w *world) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if lastUser(req) == "And after the crash?" {
				return llmtest.Reply{Content: "Still here: 27.32 days."}
			}
			switch len(toolResults(req)) {
			case 0:
				return w.toolCall("create_artifact", map[string]any{"id": "task_plan", "content_type": "markdown", "title": "Task plan",
					"content": "- [ ] Find the period"})
			case 1:
				return w.toolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown",
					"title": "Orbital period", "content": report})
			case 2:
				return w.toolCall("update_artifact", map[string]any{"id": "research_report", "old_str": "27.3 days.",
					"new_str": "27.32 days; the synodic month 29.53 days."})
			default:
				select {
				case hung <- struct{}{}:
				default:
				}
				return llmtest.Reply{Content: "never finished", Delay: time.Minute}
			}
		}
	})
	askArgs := append([]string{"ask"}, w.args(crashQuestion)...)
	args, _ := json.Marshal(askArgs)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	if bin := os.Getenv("AF_WINDOW_BIN"); bin != "" {
		cmd = exec.Command(bin, askArgs...)
	}
	cmd.Env = append(os.Environ(), "AF_CRASH_ARGS="+string(args))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-hung:
	case err := <-exited:
		t.Fatalf("the child ended before the third model call: %v", err)
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the child never reached the third model call")
	}
	if err := cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	<-exited

	ctx := context.Background()
	core, err := app.NewCore(ctx, app.Options{DataDir: w.dataDir, HeartbeatInterval: 50 * time.Millisecond,
		Overrides: config.Settings{BaseURL: w.model.URL(), Model: "test-model", APIKey: "sk-test"}})
	if err != nil {
		t.Fatalf("restart after kill -9: %v", err)
	}
	defer core.Close(ctx)
	if err := core.Store().IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	var convSvc *app.ConversationService
	var svc *app.ArtifactService
	for _, b := range core.Bindings() {
		switch b := b.(type) {
		case *app.ConversationService:
			convSvc = b
		case *app.ArtifactService:
			svc = b
		}
	}
	if convSvc == nil || svc == nil {
		t.Fatal("Core.Bindings has no ConversationService or ArtifactService")
	}
	convs, err := convSvc.List()
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations after restart = %+v, %v", convs, err)
	}
	conv := convs[0].ID
	var msg store.Message
	waitFor(ctx, t, 15*time.Second, "the killed run to be marked interrupted", func() bool {
		detail, err := convSvc.Get(conv)
		if err != nil || len(detail.Messages) != 1 {
			t.Fatalf("conversation after restart = %+v, %v", detail, err)
		}
		if detail.Messages[0].Status != store.StatusInterrupted {
			return false
		}
		msg, _ = core.Store().GetMessage(ctx, detail.Messages[0].ID)
		return true
	})

	evs, err := core.Store().ListEvents(ctx, store.EventQuery{ConversationID: conv, MessageID: msg.ID})
	if err != nil {
		t.Fatal(err)
	}
	completed := 0
	for _, ev := range evs {
		if ev.Type == "tool_complete" {
			completed++
		}
	}
	if completed != 3 {
		t.Errorf("journal holds %d tool_complete events, want the 3 completed rounds", completed)
	}

	if list, _ := svc.List(conv); len(list) != 0 {
		t.Errorf("the killed run never flushed, yet artifacts are stored: %+v", list)
	}
	drafts, err := svc.Drafts(conv)
	if err != nil || len(drafts) != 2 {
		t.Fatalf("drafts = %+v, %v; want task_plan and research_report", drafts, err)
	}
	var reportDraft app.DraftView
	for _, d := range drafts {
		if d.ArtifactID == "research_report" {
			reportDraft = d
		}
	}
	if reportDraft.Content != updated || reportDraft.Question != crashQuestion || reportDraft.BaseVersion != 0 {
		t.Fatalf("research_report draft = %+v, want the content after the update round", reportDraft)
	}
	kept, err := svc.KeepDraft(conv, "research_report", reportDraft.MessageID)
	if err != nil || kept.Content != updated || kept.Version != 1 {
		t.Fatalf("keep draft = %+v, %v", kept, err)
	}
	if v, err := svc.Version(conv, "research_report", 1); err != nil || v.UpdateType != "recover" || v.MessageID != msg.ID {
		t.Fatalf("recovered version = %+v, %v", v, err)
	}
	if err := svc.DiscardDraft(conv, "task_plan", reportDraft.MessageID); err != nil {
		t.Fatal(err)
	}
	if left, _ := svc.Drafts(conv); len(left) != 0 {
		t.Fatalf("drafts after keep and discard = %+v", left)
	}

	// The conversation goes on.
	res, err := core.Engine().Ask(ctx, engine.Request{ConversationID: conv, Content: "And after the crash?"})
	if err != nil || res.Err != nil || res.Response != "Still here: 27.32 days." {
		t.Fatalf("next run = %+v, %v", res, err)
	}
}

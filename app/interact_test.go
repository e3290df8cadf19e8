package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
)

// TestQueueAndPermission drives inject and permission through the services the window
// binds: a message queued during a run reaches the lead; one sent after the run starts a
// new run; "always allow" on a confirm tool is saved so the next run does not ask.
func TestQueueAndPermission(t *testing.T) {
	var fetches atomic.Int64
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			switch apptest.AgentOf(req) {
			case "crawl_agent":
				if req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleUser {
					fetches.Add(1)
					return w.ToolCall("web_fetch", map[string]any{"url": w.PageURL})
				}
				return llmtest.Reply{Content: "read it"}
			default:
				// The queued message reaches the lead either before its first request or
				// after the crawl's result, as the run's timing has it; either way, once the
				// crawl has answered, the lead answers it (one fetch for this run).
				if apptest.LastUser(req) == "Also the distance in miles" && hasToolResult(req) {
					return llmtest.Reply{Content: "238,855 miles"}
				}
				if req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleUser {
					r := w.ToolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "read " + w.PageURL})
					r.Delay = 20 * time.Millisecond
					return r
				}
				return llmtest.Reply{Content: "done"}
			}
		}
	})
	core := newCore(t, w)
	settings := &SettingsService{core}
	if _, err := settings.Save(SettingsInput{Model: "test-model", ToolPermissions: map[string]string{"web_fetch": "confirm"}}); err != nil {
		t.Fatal(err)
	}
	var requests = make(chan events.DataPermissionRequest, 4)
	remove := core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.PermissionRequest {
			var d events.DataPermissionRequest
			_ = json.Unmarshal(ev.Data, &d)
			requests <- d
		}
	}))
	defer remove()
	chat := &ChatService{core}
	sent, err := chat.Send(SendRequest{Content: apptest.Question})
	if err != nil {
		t.Fatal(err)
	}
	q, err := chat.Queue(sent.ConversationID, "Also the distance in miles")
	if err != nil || !q.Queued {
		t.Fatalf("queue during the run = %+v, %v", q, err)
	}
	var req events.DataPermissionRequest
	select {
	case req = <-requests:
	case <-time.After(10 * time.Second):
		waitIdle(core, sent.ConversationID)
		d, _ := (&ConversationService{core}).Get(sent.ConversationID)
		t.Fatalf("no permission request; the run ended as %+v", d.Messages)
	}
	if req.Tool != "web_fetch" {
		t.Fatalf("permission asked for %q", req.Tool)
	}
	if err := chat.Respond(sent.ConversationID, req.RequestID, "always_allow"); err != nil {
		t.Fatal(err)
	}
	waitIdle(core, sent.ConversationID)
	detail, _ := (&ConversationService{core}).Get(sent.ConversationID)
	if len(detail.Messages) != 1 || detail.Messages[0].Response != "238,855 miles" {
		t.Fatalf("the queued message was not answered in the run: %+v", detail.Messages)
	}
	var saved config.Settings
	b, _ := os.ReadFile(filepath.Join(w.DataDir, config.ConfigFile))
	_ = json.Unmarshal(b, &saved)
	if saved.ToolPermissions["web_fetch"] != "auto" {
		t.Fatalf("always allow was not saved: %s", b)
	}

	q, err = chat.Queue(sent.ConversationID, "Check it again")
	if err != nil || q.Queued || q.Run.MessageID == "" {
		t.Fatalf("queue after the run = %+v, %v; want a new run", q, err)
	}
	waitIdle(core, sent.ConversationID)
	select {
	case r := <-requests:
		t.Fatalf("asked again after always allow: %+v", r)
	default:
	}
	if fetches.Load() != 2 {
		t.Fatalf("%d fetches", fetches.Load())
	}
	if !strings.Contains(string(b), "web_fetch") {
		t.Fatal("config lost the tool policy")
	}
}

// TestStopDuringPermission: Stop through the bound ChatService while a tool waits for the
// user's permission ends the run within a second: the page is never fetched, the task plan
// written before is saved, and the user's history (ConversationService.History) shows the
// request, its cancelled result and the cancelled terminal event.
func TestStopDuringPermission(t *testing.T) {
	var leadCalls atomic.Int64
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.AgentOf(req) == "crawl_agent" {
				return w.ToolCall("web_fetch", map[string]any{"url": w.PageURL})
			}
			if leadCalls.Add(1) == 1 {
				return w.ToolCall("create_artifact", map[string]any{"id": "task_plan", "content_type": "markdown", "title": "Plan", "content": "- [ ] read"})
			}
			return w.ToolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "read " + w.PageURL})
		}
	})
	core := newCore(t, w)
	if _, err := (&SettingsService{core}).Save(SettingsInput{Model: "test-model", ToolPermissions: map[string]string{"web_fetch": "confirm"}}); err != nil {
		t.Fatal(err)
	}
	asked := make(chan struct{}, 1)
	remove := core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.PermissionRequest {
			asked <- struct{}{}
		}
	}))
	defer remove()
	chat := &ChatService{core}
	sent, err := chat.Send(SendRequest{Content: apptest.Question})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("no permission request")
	}
	run := core.eng.Active(sent.ConversationID)
	stopped := time.Now()
	if err := chat.Stop(sent.ConversationID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.Done():
	case <-time.After(5 * time.Second):
	}
	if took := time.Since(stopped); took > time.Second {
		t.Fatalf("the run took %v to stop", took)
	}
	if w.PageHits.Load() != 0 {
		t.Fatal("the page was fetched without permission")
	}
	page, err := (&ConversationService{core}).History(sent.ConversationID, HistoryRequest{Limit: 1000})
	if err != nil || len(page.Events) == 0 {
		t.Fatalf("history: %+v, %v", page, err)
	}
	var decisions []string
	for _, ev := range page.Events {
		if ev.Type == events.PermissionResult {
			var d events.DataPermissionResult
			_ = json.Unmarshal(ev.Data, &d)
			decisions = append(decisions, d.Decision)
		}
	}
	if strings.Join(decisions, ",") != events.DecisionCancelled {
		t.Errorf("permission results %v, want one cancelled", decisions)
	}
	if last := page.Events[len(page.Events)-1]; last.Type != events.Cancelled {
		t.Errorf("last history event %s, want cancelled", last.Type)
	}
	if a, err := core.db.GetArtifact(context.Background(), sent.ConversationID, "task_plan"); err != nil || a.CurrentVersion != 1 {
		t.Fatalf("task_plan after stop = %+v, %v", a, err)
	}
}

// hasToolResult reports whether req carries a tool result.
func hasToolResult(req openai.ChatCompletionRequest) bool {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			return true
		}
	}
	return false
}

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmfake"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

const summaryText = "## 1. Primary request and intent\nThe user asked: \"Summarize the notes\".\n## 2. Artifacts and documents\nnotes holds 15k characters.\n## 3. Tool interactions\n## 4. Errors and fixes\n## 5. Pending tasks\n## 6. Current work\n## 7. Next step\nAnswer."

func isCompaction(req openai.ChatCompletionRequest) bool {
	return llmtest.SystemContains(req, "You compact the working history")
}

func storedTypes(t *testing.T, db *store.DB, conv string) []events.Type {
	t.Helper()
	evs, err := db.ListEvents(context.Background(), store.EventQuery{ConversationID: conv})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]events.Type, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

func countType(ts []events.Type, t events.Type) int {
	n := 0
	for _, x := range ts {
		if x == t {
			n++
		}
	}
	return n
}

// TestCompaction: past the threshold the lead's context is replaced by a 7-section
// summary (the user's newest words kept verbatim), the task plan stays whole in the
// system prompt, the boundary holds for the next run, every user message stays in the
// store, and a failed summary is no boundary.
func TestCompaction(t *testing.T) {
	bigNotes := strings.Repeat("Lunar laser ranging measures the distance to the Moon. ", 300) // ~16 KB, ~3k tokens
	const plan = "# Plan\n- [x] Write notes\n- [ ] Answer"
	for _, fail := range []bool{false, true} {
		name := map[bool]string{false: "summary", true: "failed summary"}[fail]
		t.Run(name, func(t *testing.T) {
			var leadCalls atomic.Int64
			e, db, _, srv := newWireEngineWith(t, // the failed summary is an HTTP 400
				func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
					if isCompaction(req) {
						if fail {
							return llmtest.Reply{Status: 400, ErrorMessage: "context too long"}
						}
						return llmtest.Reply{Content: summaryText}
					}
					switch leadCalls.Add(1) {
					case 1:
						return call("create_artifact", `{"id":"task_plan","content_type":"markdown","title":"Plan","content":`+jsonString(plan)+`}`)
					case 2:
						return call("create_artifact", `{"id":"notes","content_type":"markdown","title":"Notes","content":`+jsonString(bigNotes)+`}`)
					default:
						return llmtest.Reply{Content: "answer"}
					}
				}, func(d *Deps) { d.ContextWindow = 3000 })
			ctx := context.Background()
			res, err := e.Ask(ctx, Request{Content: "Summarize the notes"})
			if err != nil || res.Err != nil {
				t.Fatalf("run: %+v %v", res, err)
			}
			res2, err := e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "And the second part?"})
			if err != nil || res2.Err != nil {
				t.Fatalf("second run: %+v %v", res2, err)
			}
			types := storedTypes(t, db, res.ConversationID)
			if countType(types, events.CompactionStart) == 0 || countType(types, events.CompactionSummary) == 0 {
				t.Fatalf("no compaction events in %v", types)
			}
			var lead []openai.ChatCompletionRequest
			var compactions []openai.ChatCompletionRequest
			for _, r := range srv.Requests() {
				if isCompaction(r) {
					compactions = append(compactions, r)
				} else {
					lead = append(lead, r)
				}
			}
			if !strings.Contains(compactions[0].Messages[1].Content, "Summarize the notes") {
				t.Errorf("the summarizer did not see the user's request")
			}
			third := lead[2] // first call after the big artifact
			if !strings.Contains(third.Messages[0].Content, plan) {
				t.Errorf("the task plan is not whole in the system prompt after compaction")
			}
			next := lead[3] // first call of the second run
			if fail {
				if strings.HasPrefix(third.Messages[1].Content, summaryPrefix) || !strings.Contains(next.Messages[1].Content, "Summarize the notes") {
					t.Fatalf("a failed summary became a boundary")
				}
				return
			}
			if got := third.Messages[1].Content; !strings.HasPrefix(got, summaryPrefix) || !strings.Contains(got, summaryText) {
				t.Fatalf("after compaction the context starts with %.80q", got)
			}
			for _, m := range third.Messages {
				if strings.Contains(m.Content, bigNotes[:200]) && m.Role != openai.ChatMessageRoleSystem {
					t.Fatalf("the compacted notes are still in the context")
				}
			}
			if got := next.Messages[1].Content; !strings.HasPrefix(got, summaryPrefix) {
				t.Fatalf("the next run's history does not start at the summary: %.80q", got)
			}
			if last := next.Messages[len(next.Messages)-1]; last.Content != "And the second part?" {
				t.Fatalf("the next run's question is missing: %q", last.Content)
			}
			msgs, _ := db.ListMessages(ctx, res.ConversationID)
			if len(msgs) != 2 || msgs[0].Content != "Summarize the notes" || msgs[1].Content != "And the second part?" {
				t.Fatalf("user messages after compaction = %+v", msgs)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestInject: a message sent during a run is queued, recorded, and given to the lead at
// its next round; once the run is over, Inject refuses so the caller starts a new run.
func TestInject(t *testing.T) {
	atModel, injected := make(chan struct{}), make(chan struct{})
	e, db, _, m := newFakeEngine(t, func(_ llm.Request, call int) llmfake.Reply {
		if call == 0 {
			close(atModel) // the lead's first round is at the model: Inject now queues for its next
			return llmfake.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "create_artifact",
				Arguments: `{"id":"task_plan","content_type":"markdown","title":"Plan","content":"- [ ] a"}`}}, Block: injected}
		}
		return llmfake.Reply{Content: "covered both"}
	})
	r, err := e.Start(context.Background(), Request{Content: "Research A"})
	if err != nil {
		t.Fatal(err)
	}
	<-atModel
	if _, err := e.Inject(r.ConversationID, "Also cover B"); err != nil {
		t.Fatal(err)
	}
	close(injected)
	res, _ := r.Wait(context.Background())
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	second := m.Requests()[1].Messages
	if last := second[len(second)-1]; last.Role != llm.RoleUser || last.Content != "Also cover B" {
		t.Fatalf("the lead's next round ends with %s %q", last.Role, last.Content)
	}
	types := storedTypes(t, db, r.ConversationID)
	if countType(types, events.QueuedMessage) != 1 || countType(types, events.UserInput) != 1 {
		t.Fatalf("events = %v", types)
	}
	if _, err := e.Inject(r.ConversationID, "too late"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Inject after the run = %v, want ErrNotRunning", err)
	}
}

// TestPermission: a confirm tool waits for the user: approve runs it, deny and timeout
// give the model an error and never run it, always_allow covers the rest of the run.
func TestPermission(t *testing.T) {
	t.Parallel() // waits on timers and child processes; runs beside the other slow tests
	tests := []struct {
		decision string // "" = no answer
		searched bool
		result   string
	}{
		{events.DecisionApprove, true, "Result for moon"},
		{events.DecisionDeny, false, "denied"},
		{"", false, "did not answer"},
		{events.DecisionAlwaysAllow, true, "Result for moon"},
	}
	for _, tt := range tests {
		t.Run("decision "+tt.decision, func(t *testing.T) {
			var subCalls atomic.Int64
			e, db, rec, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if isAgent(req, "search_agent") {
					if subCalls.Add(1) == 1 {
						return call("web_search", `{"query":"moon"}`)
					}
					return llmtest.Reply{Content: "search done"}
				}
				if len(req.Messages) == 2 {
					return call("call_subagent", `{"agent_name":"search_agent","instruction":"find moon"}`)
				}
				return llmtest.Reply{Content: "final"}
			}, func(d *Deps) {
				d.Permissions = map[string]string{"web_search": PolicyConfirm}
				d.PermissionTimeout = 200 * time.Millisecond
			})
			r, err := e.Start(context.Background(), Request{Content: "q"})
			if err != nil {
				t.Fatal(err)
			}
			var reqID string
			for deadline := time.Now().Add(30 * time.Second); reqID == ""; {
				if time.Now().After(deadline) {
					t.Fatalf("no permission_request within 30 s: %v", rec.types())
				}
				rec.mu.Lock()
				for _, ev := range rec.evs {
					if ev.Type == events.PermissionRequest {
						var d events.DataPermissionRequest
						_ = json.Unmarshal(ev.Data, &d)
						reqID = d.RequestID
					}
				}
				rec.mu.Unlock()
				time.Sleep(time.Millisecond)
			}
			if tt.decision != "" {
				tool, err := e.Respond(r.ConversationID, reqID, tt.decision)
				if err != nil || tool != "web_search" {
					t.Fatalf("Respond = %q, %v", tool, err)
				}
			}
			res, _ := r.Wait(context.Background())
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			var toolResult string
			for _, req := range srv.Requests() {
				if isAgent(req, "search_agent") && len(req.Messages) > 2 {
					toolResult = req.Messages[len(req.Messages)-1].Content
				}
			}
			if strings.Contains(toolResult, "Result for moon") != tt.searched || !strings.Contains(toolResult, tt.result) {
				t.Fatalf("search_agent saw %q", toolResult)
			}
			evs, _ := db.ListEvents(context.Background(), store.EventQuery{ConversationID: r.ConversationID})
			want := tt.decision
			if want == "" {
				want = events.DecisionTimeout
			}
			found := false
			for _, ev := range evs {
				if ev.Type == events.PermissionResult {
					var d events.DataPermissionResult
					_ = json.Unmarshal(ev.Data, &d)
					found = d.Decision == want
				}
			}
			if !found {
				t.Fatalf("no permission_result %q stored", want)
			}
			if _, err := e.Respond(r.ConversationID, reqID, events.DecisionApprove); err == nil {
				t.Fatal("a decided request accepted a second decision")
			}
		})
	}
}

// TestStopWithinOneSecond: Stop during a slow stream ends the run as cancelled within a
// second, with the artifacts of the completed rounds flushed.
func TestStopWithinOneSecond(t *testing.T) {
	t.Parallel() // waits on timers and child processes; runs beside the other slow tests
	var leadCalls atomic.Int64
	e, db, rec, _ := newWireEngine(t, // a reply slowed by Delay on the wire
		func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if leadCalls.Add(1) == 1 {
				return call("create_artifact", `{"id":"task_plan","content_type":"markdown","title":"Plan","content":"- [ ] a"}`)
			}
			return llmtest.Reply{Content: strings.Repeat("slow words ", 200), ChunkSize: 5, Delay: 50 * time.Millisecond}
		})
	r, err := e.Start(context.Background(), Request{Content: "q"})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); countType(rec.types(), events.LLMChunk) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no llm_chunk within 30 s: %v", rec.types())
		}
	}
	stopped := time.Now()
	if !e.Stop(r.ConversationID) {
		t.Fatal("Stop found no run")
	}
	res, _ := r.Wait(context.Background())
	if took := time.Since(stopped); took > time.Second {
		t.Fatalf("the run took %v to stop", took)
	}
	if res.Status != events.Cancelled {
		t.Fatalf("status %s", res.Status)
	}
	if a, err := db.GetArtifact(context.Background(), r.ConversationID, "task_plan"); err != nil || a.CurrentVersion != 1 {
		t.Fatalf("task_plan after stop = %+v, %v", a, err)
	}
	types := storedTypes(t, db, r.ConversationID)
	if types[len(types)-1] != events.Cancelled {
		t.Fatalf("last stored event %s", types[len(types)-1])
	}
}

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
)

// lastEvent returns the type and data of the conversation's last stored event.
func lastEvent(t *testing.T, w *apptest.World) (string, events.DataTerminal) {
	t.Helper()
	evs := loadEvents(t, w.DB())
	if len(evs) == 0 {
		t.Fatal("no events stored")
	}
	last := evs[len(evs)-1]
	var d events.DataTerminal
	if err := json.Unmarshal([]byte(last.Data), &d); err != nil {
		t.Fatal(err)
	}
	return last.Type, d
}

func TestAskModelFailures(t *testing.T) {
	t.Run("500 once then success", func(t *testing.T) {
		w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
			research := w.Research()
			return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
				if call == 0 {
					return llmtest.Reply{Status: http.StatusInternalServerError, ErrorMessage: "transient"}
				}
				return research(req, call)
			}
		})
		code, stdout, stderr := ask(context.Background(), w, "--allow-private-network", apptest.Question)
		if code != ExitOK || strings.TrimSpace(stdout) != apptest.FinalReply {
			t.Fatalf("exit %d stdout %q stderr %s", code, stdout, stderr)
		}
		// 8 lead calls + 2 search + 2 crawl = 12 answered calls, plus the failed one.
		if w.Model.Calls() != 13 {
			t.Fatalf("model calls = %d, want 13 (one retried)", w.Model.Calls())
		}
	})

	t.Run("always 500 flushes what the artifacts held and exits non-zero", func(t *testing.T) {
		w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
			research := w.Research()
			return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
				if call == 0 {
					return research(req, call) // creates task_plan
				}
				return llmtest.Reply{Status: http.StatusInternalServerError, ErrorMessage: "upstream down"}
			}
		})
		code, _, stderr := ask(context.Background(), w, "--allow-private-network", apptest.Question)
		if code != ExitError {
			t.Fatalf("exit %d, want %d", code, ExitError)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		line := lines[len(lines)-1]
		if !strings.HasPrefix(line, "artifactflow: ") || !strings.Contains(line, w.Model.URL()) || !strings.Contains(line, "500") {
			t.Fatalf("stderr must end with one line naming the endpoint and status, got %q", stderr)
		}
		if strings.Contains(stderr, "sk-test-secret") {
			t.Fatal("the API key leaked into the error")
		}
		if w.Model.Calls() != 4 {
			t.Fatalf("model calls = %d, want 1 + 3 tries", w.Model.Calls())
		}
		typ, d := lastEvent(t, w)
		if typ != "error" || !strings.Contains(d.Error, "500") {
			t.Fatalf("last event %s %+v, want error naming the status", typ, d)
		}
		db := w.DB()
		if n := count(t, db, `SELECT count(*) FROM artifact_versions WHERE artifact_id='task_plan'`); n != 1 {
			t.Fatalf("task_plan versions = %d, want 1: artifacts are flushed even when the run fails", n)
		}
		var status, errText string
		if err := db.QueryRow(`SELECT status, error FROM messages`).Scan(&status, &errText); err != nil {
			t.Fatal(err)
		}
		if status != "error" || !strings.Contains(errText, "500") {
			t.Fatalf("message status %q error %q", status, errText)
		}
	})

	t.Run("stream breaks mid-answer", func(t *testing.T) {
		w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
			research := w.Research()
			broke := false
			return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
				r := research(req, call)
				if r.Content == apptest.FinalReply && !broke {
					broke = true
					r.BreakAfter = 6 // role, reasoning and part of the answer, then the connection drops
				}
				return r
			}
		})
		code, stdout, stderr := ask(context.Background(), w, "--allow-private-network", "--json", apptest.Question)
		if code != ExitOK {
			t.Fatalf("exit %d stderr %s", code, stderr)
		}
		var resets int
		var streamed strings.Builder
		sc := bufio.NewScanner(strings.NewReader(stdout))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev events.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("--json line is not an event: %v: %s", err, sc.Text())
			}
			if ev.Type == events.LLMChunk && ev.AgentName == "lead_agent" {
				var d events.DataLLMChunk
				_ = json.Unmarshal(ev.Data, &d)
				if d.Reset {
					resets++
					streamed.Reset()
				}
				streamed.WriteString(d.Content)
			}
			if ev.Type == events.Complete {
				var d events.DataTerminal
				_ = json.Unmarshal(ev.Data, &d)
				if d.Response != apptest.FinalReply {
					t.Fatalf("complete response %q", d.Response)
				}
			}
		}
		if resets != 1 {
			t.Fatalf("reset chunks = %d, want 1 so the UI drops the broken partial text", resets)
		}
		if !strings.HasSuffix(streamed.String(), apptest.FinalReply) || strings.Count(streamed.String(), apptest.FinalReply) != 1 {
			t.Fatalf("streamed text after reset = %q", streamed.String())
		}
	})
}

// TestAskBadToolCalls checks that a tool the agent does not have and arguments that are
// not JSON are reported to the model, which recovers, instead of failing the run.
func TestAskBadToolCalls(t *testing.T) {
	tests := []struct {
		name    string
		mode    string
		bad     llmtest.Reply
		wantErr string
	}{
		{"unknown tool", "native", llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "delete_everything", Arguments: `{}`}}}, `unknown tool "delete_everything"`},
		{"sub-agent tool called by the lead", "native", llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "web_fetch", Arguments: `{"url":"http://x"}`}}}, `unknown tool "web_fetch"`},
		{"malformed arguments", "native", llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "create_artifact", Arguments: `{"id": "task_plan", "content": "unterminated`}}}, "not valid JSON"},
		{"xml call without a name", "xml", llmtest.Reply{Content: "<tool_call><params><id>x</id></params></tool_call>"}, "no <name>"},
		{"unknown sub-agent", "native", llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "call_subagent", Arguments: `{"agent_name":"math_agent","instruction":"x"}`}}}, `unknown agent_name "math_agent"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := apptest.NewWorld(t, tc.mode, func(w *apptest.World) llmtest.Handler {
				return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
					if len(apptest.ToolResults(req)) == 0 {
						return tc.bad
					}
					return llmtest.Reply{Content: "Recovered."}
				}
			})
			code, stdout, stderr := ask(context.Background(), w, apptest.Question)
			if code != ExitOK || strings.TrimSpace(stdout) != "Recovered." {
				t.Fatalf("exit %d stdout %q stderr %s", code, stdout, stderr)
			}
			evs := loadEvents(t, w.DB())
			i := indexOf(evs, 0, "tool_complete", "lead_agent", `"success":false`)
			var d events.DataToolComplete
			if i >= 0 {
				_ = json.Unmarshal([]byte(evs[i].Data), &d)
			}
			if !strings.Contains(d.Error, tc.wantErr) {
				t.Fatalf("no failed tool_complete containing %q; events: %+v", tc.wantErr, evs)
			}
			// The model saw the error as its tool result.
			reqs := w.Model.Requests()
			res := apptest.ToolResults(reqs[len(reqs)-1])
			if len(res) != 1 || !strings.Contains(res[0], tc.wantErr) {
				t.Fatalf("the model's next request carried %q, want the error", res)
			}
		})
	}
}

// TestAskBlocksPrivateFetch: without --allow-private-network, web_fetch of a loopback
// page is refused before any connection, and the run still completes.
func TestAskBlocksPrivateFetch(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	code, _, stderr := ask(context.Background(), w, apptest.Question)
	if code != ExitOK {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	if hits := w.PageHits.Load(); hits != 0 {
		t.Fatalf("the blocked page received %d requests, want none", hits)
	}
	evs := loadEvents(t, w.DB())
	i := indexOf(evs, 0, "tool_complete", "crawl_agent", `"tool":"web_fetch"`)
	if i < 0 {
		t.Fatalf("no tool_complete of crawl_agent's web_fetch among %d events: %s", len(evs), eventSummary(evs))
	}
	if !strings.Contains(evs[i].Data, `"success":false`) || !strings.Contains(evs[i].Data, "blocked") {
		t.Fatalf("web_fetch result = %v, want a failure saying the address is blocked", evs[i])
	}
}

// eventSummary lists events as "seq:type(agent)" for failure messages.
func eventSummary(evs []eventRow) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = fmt.Sprintf("%d:%s(%s)", e.Seq, e.Type, e.Agent)
	}
	return strings.Join(parts, " ")
}

// TestAskCancelled: cancelling mid-run ends with a cancelled event, flushes the
// artifacts and exits 130.
func TestAskCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		research := w.Research()
		return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
			r := research(req, call)
			if apptest.AgentOf(req) == "search_agent" {
				cancel() // the user presses Ctrl-C while the search agent is answering
				r.Delay = 50 * time.Millisecond
			}
			return r
		}
	})
	start := time.Now()
	code, _, stderr := ask(ctx, w, "--allow-private-network", apptest.Question)
	if code != ExitCancelled {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitCancelled, stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("cancelled run took %v", d)
	}
	typ, _ := lastEvent(t, w)
	if typ != "cancelled" {
		t.Fatalf("last event %s, want cancelled", typ)
	}
	db := w.DB()
	if n := count(t, db, `SELECT count(*) FROM artifacts WHERE id='task_plan'`); n != 1 {
		t.Fatal("task_plan was not flushed on cancel")
	}
	if n := count(t, db, `SELECT count(*) FROM messages WHERE status='cancelled'`); n != 1 {
		t.Fatal("message not marked cancelled")
	}
}

// TestAskUsageErrors: bad invocations fail with one clear line and a non-zero code.
func TestAskUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no question", []string{"ask", "--data-dir", dir}, ExitUsage, "no question"},
		{"unknown flag", []string{"ask", "--nope", "q"}, ExitUsage, "flag provided but not defined"},
		{"unknown command", []string{"fly"}, ExitUsage, "unknown command"},
		{"no model", []string{"ask", "--data-dir", dir, "q"}, ExitError, "no model configured"},
		{"bad base url", []string{"ask", "--data-dir", dir, "--model", "m", "--base-url", "localhost:1", "q"}, ExitError, "base_url"},
		{"bad mode", []string{"ask", "--data-dir", dir, "--model", "m", "--tool-call-mode", "json", "q"}, ExitError, "tool_call_mode"},
		{"unknown conversation", []string{"ask", "--data-dir", dir, "--model", "m", "--conversation", "nope", "q"}, ExitError, "conversation not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := Main(context.Background(), Env{Args: tc.args, Stdout: &out, Stderr: &errb})
			if code != tc.code || !strings.Contains(errb.String(), tc.want) || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Fatalf("code %d stderr %q, want code %d and one line containing %q", code, errb.String(), tc.code, tc.want)
			}
		})
	}
}

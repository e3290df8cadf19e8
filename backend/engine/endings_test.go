package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/web"
)

// lastStored returns the conversation's last stored event, decoded as a terminal event.
func lastStored(t *testing.T, db *store.DB, conv string) (events.Type, events.DataTerminal) {
	t.Helper()
	evs, err := db.ListEvents(context.Background(), store.EventQuery{ConversationID: conv})
	if err != nil || len(evs) == 0 {
		t.Fatalf("events: %d, %v", len(evs), err)
	}
	var d events.DataTerminal
	if err := json.Unmarshal(evs[len(evs)-1].Data, &d); err != nil {
		t.Fatal(err)
	}
	return evs[len(evs)-1].Type, d
}

// TestPartialFlushFailure: when one artifact cannot be saved at the end of a run and the
// others can, the others are saved (each flush is its own transaction), and the
// terminal event reports the failed one: status error, flush_failed and the error text,
// with the answer kept. The failure is a real SQLite error, from a trigger.
func TestPartialFlushFailure(t *testing.T) {
	t.Parallel() // waits on timers and child processes; runs beside the other slow tests
	var leadCalls atomic.Int64
	e, db, _, _ := newEngine(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		n := leadCalls.Add(1)
		switch n {
		case 1:
			return call("create_artifact", `{"id":"good","content_type":"markdown","title":"Good","content":"good v1"}`)
		case 2:
			return call("create_artifact", `{"id":"bad","content_type":"markdown","title":"Bad","content":"bad v1"}`)
		case 4:
			return call("rewrite_artifact", `{"id":"bad","content":"bad v2"}`)
		case 5:
			return call("rewrite_artifact", `{"id":"good","content":"good v2"}`)
		case 6:
			return call("create_artifact", `{"id":"fresh","content_type":"markdown","title":"Fresh","content":"fresh v1"}`)
		default:
			return llmtest.Reply{Content: "the answer"}
		}
	})
	ctx := context.Background()
	res, err := e.Ask(ctx, Request{Content: "first"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("first run: %+v %v", res, err)
	}
	for _, stmt := range []string{
		`CREATE TRIGGER refuse_bad_update BEFORE UPDATE ON artifacts WHEN NEW.id = 'bad' BEGIN SELECT RAISE(ABORT, 'disk refuses bad'); END`,
		`CREATE TRIGGER refuse_bad_insert BEFORE INSERT ON artifact_versions WHEN NEW.artifact_id = 'bad' BEGIN SELECT RAISE(ABORT, 'disk refuses bad'); END`,
	} {
		if _, err := db.SQL().ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	res, err = e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "second"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != events.Error || !slices.Equal(res.FlushFailed, []string{"bad"}) || res.Response != "the answer" {
		t.Fatalf("result = %+v, want error with flush_failed [bad] and the answer", res)
	}
	typ, data := lastStored(t, db, res.ConversationID)
	if typ != events.Error || !slices.Equal(data.FlushFailed, []string{"bad"}) || !strings.Contains(data.Error, "bad") ||
		!strings.Contains(data.Error, "disk refuses bad") || data.Response != "the answer" {
		t.Fatalf("terminal event %s %+v", typ, data)
	}
	for id, want := range map[string]struct {
		version int
		content string
	}{"good": {2, "good v2"}, "fresh": {1, "fresh v1"}, "bad": {1, "bad v1"}} {
		a, err := db.GetArtifact(ctx, res.ConversationID, id)
		if err != nil || a.CurrentVersion != want.version || a.Content != want.content {
			t.Errorf("%s = v%d %q, %v; want v%d %q", id, a.CurrentVersion, a.Content, err, want.version, want.content)
		}
	}
	m, err := db.GetMessage(ctx, res.MessageID)
	if err != nil || m.Status != "error" || m.GraphResponse != "the answer" {
		t.Fatalf("message = %+v, %v", m, err)
	}
}

// TestStopDuringToolAndPermission: Stop while a sub-agent's web_fetch waits on a slow page,
// or while a tool waits for the user's permission, ends the run as cancelled within one
// second, with the artifacts of the run flushed and cancelled as the last stored event.
func TestStopDuringToolAndPermission(t *testing.T) {
	tests := []struct {
		name    string
		confirm bool
		waitFor events.Type // the event after which Stop is called
	}{
		{"fetching a slow page", false, events.ToolStart},
		{"waiting for permission", true, events.PermissionRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arrived := make(chan struct{}, 1)
			page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				select { // a page that never finishes loading
				case <-r.Context().Done():
				case <-time.After(20 * time.Second):
				}
			}))
			defer page.Close()
			var leadCalls atomic.Int64
			e, db, rec, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if isAgent(req, "crawl_agent") {
					return call("web_fetch", `{"url":"`+page.URL+`/slow"}`)
				}
				if leadCalls.Add(1) == 1 {
					return call("create_artifact", `{"id":"task_plan","content_type":"markdown","title":"Plan","content":"- [ ] read the page"}`)
				}
				return call("call_subagent", `{"agent_name":"crawl_agent","instruction":"read `+page.URL+`/slow"}`)
			}, func(d *Deps) {
				d.Fetcher = web.NewFetcher(web.FetcherConfig{AllowPrivate: true, Timeout: time.Minute})
				if tt.confirm {
					d.Permissions = map[string]string{"web_fetch": PolicyConfirm}
					d.PermissionTimeout = time.Minute
				}
			})
			r, err := e.Start(context.Background(), Request{Content: "read the slow page"})
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for !slices.ContainsFunc(recorded(rec), func(ev events.Event) bool {
				return ev.Type == tt.waitFor && ev.AgentName == "crawl_agent"
			}) {
				if time.Now().After(deadline) {
					t.Fatalf("no %s from crawl_agent; events %v", tt.waitFor, rec.types())
				}
				time.Sleep(time.Millisecond)
			}
			if !tt.confirm {
				<-arrived // the fetch is under way
			}
			stopped := time.Now()
			if !e.Stop(r.ConversationID) {
				t.Fatal("Stop found no run")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := r.Wait(ctx)
			took := time.Since(stopped)
			if err != nil || took > time.Second {
				t.Fatalf("the run took %v to stop (%v)", took, err)
			}
			if res.Status != events.Cancelled {
				t.Fatalf("status %s: %v", res.Status, res.Err)
			}
			if a, err := db.GetArtifact(context.Background(), r.ConversationID, "task_plan"); err != nil || a.CurrentVersion != 1 {
				t.Fatalf("task_plan after stop = %+v, %v", a, err)
			}
			if typ, _ := lastStored(t, db, r.ConversationID); typ != events.Cancelled {
				t.Fatalf("last stored event %s", typ)
			}
			if tt.confirm && len(arrived) != 0 {
				t.Fatal("the page was fetched without permission")
			}
		})
	}
}

// recorded returns a copy of the events the recorder has seen.
func recorded(r *recorder) []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

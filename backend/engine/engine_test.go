package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmfake"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/web"
)

// fakeSearch answers every query with one result.
type fakeSearch struct{}

func (fakeSearch) Search(_ context.Context, q string, _ int) ([]web.SearchResult, error) {
	return []web.SearchResult{{Title: "Result for " + q, URL: "https://example.org/" + q}}, nil
}

type recorder struct {
	mu  sync.Mutex
	evs []events.Event
}

func (r *recorder) sink(ev events.Event) {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
}

func (r *recorder) types() []events.Type {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]events.Type, len(r.evs))
	for i, e := range r.evs {
		out[i] = e.Type
	}
	return out
}

// modelLog is what a test reads back from the model its engine calls: the requests as the
// endpoint decodes them, and their number. *llmtest.Fake and *llmtest.Server both are one.
type modelLog interface {
	Requests() []openai.ChatCompletionRequest
	Calls() int
}

// newEngine returns an engine over a fresh database whose model answers with h in memory
// (llmtest.Fake: the wire's request and reply shapes, no HTTP). Tests of what only the wire
// does (HTTP statuses, broken or slow streams) use newWireEngine.
func newEngine(t testing.TB, h llmtest.Handler) (*Engine, *store.DB, *recorder, modelLog) {
	t.Helper()
	return newEngineWith(t, h, nil)
}

// newEngineWith is newEngine with tune applied to every run's Deps.
func newEngineWith(t testing.TB, h llmtest.Handler, tune func(*Deps)) (*Engine, *store.DB, *recorder, modelLog) {
	t.Helper()
	model := llmtest.NewFake(t, "m", h)
	e, db, rec := newEngineModel(t, model, tune)
	return e, db, rec, model
}

// newWireEngine is newEngine over HTTP: an llm.Client streaming from an llmtest.Server
// answering with h, for tests of the model's wire (statuses, retries, broken streams).
func newWireEngine(t testing.TB, h llmtest.Handler) (*Engine, *store.DB, *recorder, *llmtest.Server) {
	t.Helper()
	return newWireEngineWith(t, h, nil)
}

// newWireEngineWith is newWireEngine with tune applied to every run's Deps.
func newWireEngineWith(t testing.TB, h llmtest.Handler, tune func(*Deps)) (*Engine, *store.DB, *recorder, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, h)
	model, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e, db, rec := newEngineModel(t, model, tune)
	return e, db, rec, srv
}

// newFakeEngine is newEngine over an in-memory model (llmfake) instead of HTTP: for tests
// where the wire is not what they test.
func newFakeEngine(t testing.TB, h llmfake.Handler) (*Engine, *store.DB, *recorder, *llmfake.Model) {
	t.Helper()
	m := llmfake.New(h)
	e, db, rec := newEngineModel(t, m, nil)
	return e, db, rec, m
}

// newEngineModel returns an engine over a fresh database that calls model, with tune
// applied to every run's Deps; the engine and database close when the test ends.
func newEngineModel(t testing.TB, model llm.Model, tune func(*Deps)) (*Engine, *store.DB, *recorder) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rec := &recorder{}
	e, err := New(Config{Store: db, Sink: rec.sink, Deps: func() (Deps, error) {
		d := Deps{Model: model, ModelName: "m", Mode: toolcall.ModeNative, Searcher: fakeSearch{}}
		if tune != nil {
			tune(&d)
		}
		return d, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e, db, rec
}

func call(name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c_" + name, Name: name, Arguments: args}}}
}

func isAgent(req openai.ChatCompletionRequest, name string) bool {
	return llmtest.SystemContains(req, "You are "+name)
}

// fakeFetch answers every URL with a short page.
type fakeFetch struct{}

func (fakeFetch) Fetch(_ context.Context, u string) (web.Page, error) {
	return web.Page{URL: u, Title: "Page", Content: "page text of " + u, ContentType: "text/html"}, nil
}

// TestSubagentRoundLimit: search_agent has max_tool_rounds 3 and crawl_agent 2. A model
// that keeps calling its tool is given a last call with no tools and told to answer; that
// answer returns to the lead as the call_subagent result.
func TestSubagentRoundLimit(t *testing.T) {
	tests := []struct {
		agent, tool, args string
		limit             int
	}{
		{"search_agent", "web_search", `{"query":"q%d"}`, 3},
		{"crawl_agent", "web_fetch", `{"url":"https://example.org/p%d"}`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			var subReqs []openai.ChatCompletionRequest
			var mu sync.Mutex
			e, _, rec, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if isAgent(req, tt.agent) {
					mu.Lock()
					subReqs = append(subReqs, req)
					n := len(subReqs)
					mu.Unlock()
					if n <= 10 && len(req.Tools) > 0 {
						return call(tt.tool, fmt.Sprintf(tt.args, n))
					}
					return llmtest.Reply{Content: tt.agent + " summary"}
				}
				for _, m := range req.Messages {
					if m.Role == openai.ChatMessageRoleTool {
						return llmtest.Reply{Content: "done: " + m.Content}
					}
				}
				return call("call_subagent", `{"agent_name":"`+tt.agent+`","instruction":"look at https://example.org/p"}`)
			}, func(d *Deps) { d.Fetcher = fakeFetch{} })
			res, err := e.Ask(context.Background(), Request{Content: "question"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %v %+v", err, res)
			}
			if len(subReqs) != tt.limit+1 {
				t.Fatalf("%s calls = %d, want %d tool rounds + 1 final", tt.agent, len(subReqs), tt.limit)
			}
			for i, r := range subReqs[:tt.limit] {
				if len(r.Tools) != 1 || r.Tools[0].Function.Name != tt.tool {
					t.Fatalf("call %d offered tools %+v, want only %s", i, r.Tools, tt.tool)
				}
			}
			last := subReqs[tt.limit]
			if len(last.Tools) != 0 || !strings.Contains(last.Messages[0].Content, fmt.Sprintf("used all %d tool rounds", tt.limit)) {
				t.Fatalf("the final %s call must offer no tools and say the limit is reached", tt.agent)
			}
			if res.Response != "done: "+tt.agent+" summary" {
				t.Fatalf("lead did not get the sub-agent's final text as its tool result: %q", res.Response)
			}
			var starts []string
			rec.mu.Lock()
			for _, ev := range rec.evs {
				if ev.Type == events.ToolStart {
					var d events.DataToolStart
					_ = json.Unmarshal(ev.Data, &d)
					starts = append(starts, d.Tool)
				}
			}
			rec.mu.Unlock()
			want := []string{"call_subagent"}
			for range tt.limit {
				want = append(want, tt.tool)
			}
			if strings.Join(starts, ",") != strings.Join(want, ",") {
				t.Fatalf("tool_start events = %v, want %v", starts, want)
			}
		})
	}
}

// TestOneRunPerConversation: a second message while a run is going is refused with
// ErrBusy; Stop ends the run with cancelled and the conversation accepts a new run.
func TestOneRunPerConversation(t *testing.T) {
	release, never := make(chan struct{}), make(chan struct{})
	e, db, _, _ := newFakeEngine(t, func(req llm.Request, _ int) llmfake.Reply {
		if req.Messages[len(req.Messages)-1].Content == "first" { // the first run may be stopped before its call
			return llmfake.Reply{Content: "slow answer that never finishes", Block: never}
		}
		return llmfake.Reply{Content: "second answer", Block: release}
	})
	ctx := context.Background()
	r, err := e.Start(ctx, Request{Content: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(ctx, Request{ConversationID: r.ConversationID, Content: "second"}); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Start = %v, want ErrBusy", err)
	}
	if got := e.Running(); len(got) != 1 || got[0] != r.ConversationID {
		t.Fatalf("Running = %v", got)
	}
	stopped := time.Now()
	if !e.Stop(r.ConversationID) {
		t.Fatal("Stop found no run")
	}
	res, _ := r.Wait(ctx)
	if res.Status != events.Cancelled {
		t.Fatalf("status %s, want cancelled", res.Status)
	}
	if d := time.Since(stopped); d > time.Second {
		t.Errorf("stop took %v, want under a second", d)
	}
	close(release)
	res2, err := e.Ask(ctx, Request{ConversationID: r.ConversationID, Content: "second"})
	if err != nil || res2.Status != events.Complete {
		t.Fatalf("run after stop: %v %+v", err, res2)
	}
	path, err := db.MessagePath(ctx, r.ConversationID, "")
	if err != nil || len(path) != 2 || path[1].ParentID != path[0].ID {
		t.Fatalf("path = %+v, %v: the second message must follow the first", path, err)
	}
	if _, err := e.Start(ctx, Request{Content: "  "}); !errors.Is(err, ErrEmptyMessage) {
		t.Fatalf("empty message = %v", err)
	}
	if _, err := e.Start(ctx, Request{ConversationID: "missing", Content: "x"}); !errors.Is(err, ErrConversationNotFound) {
		t.Fatalf("missing conversation = %v", err)
	}
}

// TestHistoryFollowsPath: a follow-up question sees the earlier question and answer.
func TestHistoryFollowsPath(t *testing.T) {
	e, _, _, srv := newEngine(t, func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
		return llmtest.Reply{Content: fmt.Sprintf("answer %d", call)}
	})
	ctx := context.Background()
	r1, _ := e.Ask(ctx, Request{Content: "first question"})
	if _, err := e.Ask(ctx, Request{ConversationID: r1.ConversationID, Content: "follow-up"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	msgs := reqs[1].Messages
	var got []string
	for _, m := range msgs[1:] {
		got = append(got, m.Role+":"+m.Content)
	}
	want := []string{"user:first question", "assistant:answer 0", "user:follow-up"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("history = %v, want %v", got, want)
	}
}

// TestCloseCancelsRuns: Close cancels runs and waits for their terminal events.
func TestCloseCancelsRuns(t *testing.T) {
	e, db, _, _ := newEngine(t, func(openai.ChatCompletionRequest, int) llmtest.Reply {
		return llmtest.Reply{Content: strings.Repeat("long ", 100), Delay: 100 * time.Millisecond}
	})
	r, err := e.Start(context.Background(), Request{Content: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	m, err := db.GetMessage(context.Background(), r.MessageID)
	if err != nil || m.Status != "cancelled" {
		t.Fatalf("message after Close = %+v, %v", m, err)
	}
	if _, err := e.Start(context.Background(), Request{Content: "q"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close = %v", err)
	}
	evs, _ := db.ListEvents(context.Background(), store.EventQuery{ConversationID: r.ConversationID})
	var term events.DataTerminal
	_ = json.Unmarshal(evs[len(evs)-1].Data, &term)
	if evs[len(evs)-1].Type != events.Cancelled {
		t.Fatalf("last event %s", evs[len(evs)-1].Type)
	}
}

// TestTruncatedToolCallNotExecuted: a tool call cut off by the output token limit
// (finish_reason "length") is refused with guidance instead of saving truncated content.
func TestTruncatedToolCallNotExecuted(t *testing.T) {
	e, db, _, _ := newEngine(t, func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
		if call == 0 {
			r := call0()
			r.FinishReason = "length"
			return r
		}
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleTool && strings.Contains(m.Content, "cut off") {
				return llmtest.Reply{Content: "understood"}
			}
		}
		return llmtest.Reply{Content: "no error seen"}
	})
	res, err := e.Ask(context.Background(), Request{Content: "q"})
	if err != nil || res.Response != "understood" {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if as, _ := db.ListArtifacts(context.Background(), res.ConversationID); len(as) != 0 {
		t.Fatalf("a truncated call created %d artifacts", len(as))
	}
}

func call0() llmtest.Reply {
	return call("create_artifact", `{"id":"report","content_type":"markdown","title":"R","content":"half a rep"}`)
}

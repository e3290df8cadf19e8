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

func newEngine(t testing.TB, h llmtest.Handler) (*Engine, *store.DB, *recorder, *llmtest.Server) {
	t.Helper()
	return newEngineWith(t, h, nil)
}

// newEngineWith is newEngine with tune applied to every run's Deps.
func newEngineWith(t testing.TB, h llmtest.Handler, tune func(*Deps)) (*Engine, *store.DB, *recorder, *llmtest.Server) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv := llmtest.NewServer(t, h)
	model, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
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
	return e, db, rec, srv
}

func call(name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c_" + name, Name: name, Arguments: args}}}
}

func isAgent(req openai.ChatCompletionRequest, name string) bool {
	return llmtest.SystemContains(req, "You are "+name)
}

// TestSubagentRoundLimit: search_agent has max_tool_rounds 3 (seed 001). A model that
// keeps searching is given a last call with no tools and told to answer.
func TestSubagentRoundLimit(t *testing.T) {
	var searchReqs []openai.ChatCompletionRequest
	var mu sync.Mutex
	e, _, rec, _ := newEngine(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isAgent(req, "search_agent") {
			mu.Lock()
			searchReqs = append(searchReqs, req)
			n := len(searchReqs)
			mu.Unlock()
			if n <= 10 && len(req.Tools) > 0 {
				return call("web_search", fmt.Sprintf(`{"query":"q%d"}`, n))
			}
			return llmtest.Reply{Content: "search summary"}
		}
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleTool {
				return llmtest.Reply{Content: "done: " + m.Content}
			}
		}
		return call("call_subagent", `{"agent_name":"search_agent","instruction":"look it up"}`)
	})
	res, err := e.Ask(context.Background(), Request{Content: "question"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	if len(searchReqs) != 4 {
		t.Fatalf("search_agent calls = %d, want 3 tool rounds + 1 final", len(searchReqs))
	}
	last := searchReqs[3]
	if len(last.Tools) != 0 || !strings.Contains(last.Messages[0].Content, "used all 3 tool rounds") {
		t.Fatal("the final search_agent call must offer no tools and say the limit is reached")
	}
	if res.Response != "done: search summary" {
		t.Fatalf("lead did not get the sub-agent's final text as its tool result: %q", res.Response)
	}
	var starts int
	for _, ty := range rec.types() {
		if ty == events.ToolStart {
			starts++
		}
	}
	if starts != 4 { // call_subagent + 3 web_search
		t.Fatalf("tool_start events = %d, want 4", starts)
	}
}

// TestOneRunPerConversation: a second message while a run is going is refused with
// ErrBusy; Stop ends the run with cancelled and the conversation accepts a new run.
func TestOneRunPerConversation(t *testing.T) {
	release := make(chan struct{})
	e, db, _, _ := newEngine(t, func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
		if call == 0 {
			return llmtest.Reply{Content: "slow answer that never finishes in time", Delay: 200 * time.Millisecond}
		}
		<-release
		return llmtest.Reply{Content: "second answer"}
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

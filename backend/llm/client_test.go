package llm_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

const (
	testModel = "test-model"
	testKey   = "sk-test-SECRET-4f9a"
)

// harness is a Client wired to a base URL with recorded sleeps and captured logs.
type harness struct {
	client *llm.Client
	sleeps []time.Duration
	logs   bytes.Buffer
}

func newHarness(t testing.TB, baseURL string, edit func(*llm.Config)) *harness {
	t.Helper()
	h := &harness{}
	cfg := llm.Config{
		BaseURL: baseURL,
		APIKey:  testKey,
		Model:   testModel,
		Sleep: func(ctx context.Context, d time.Duration) error {
			h.sleeps = append(h.sleeps, d)
			return ctx.Err()
		},
		Logger: slog.New(slog.NewTextHandler(&h.logs, nil)),
	}
	if edit != nil {
		edit(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.client = c
	return h
}

// consumer records deltas the way the engine uses them: Reset discards the text so far.
type consumer struct {
	content, reasoning strings.Builder
	contentDeltas      int
	reasoningDeltas    int
	resets             int
	bad                []llm.Delta // deltas with not exactly one field set
}

func (c *consumer) onDelta(d llm.Delta) {
	set := 0
	for _, b := range []bool{d.Content != "", d.Reasoning != "", d.Reset} {
		if b {
			set++
		}
	}
	if set != 1 {
		c.bad = append(c.bad, d)
	}
	switch {
	case d.Reset:
		c.resets++
		c.content.Reset()
		c.reasoning.Reset()
	case d.Content != "":
		c.contentDeltas++
		c.content.WriteString(d.Content)
	case d.Reasoning != "":
		c.reasoningDeltas++
		c.reasoning.WriteString(d.Reasoning)
	}
}

func userRequest(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
}

func TestStreamSuccess(t *testing.T) {
	usage := llmtest.Usage{PromptTokens: 12, CompletionTokens: 34, TotalTokens: 46}
	tests := []struct {
		name       string
		replies    []llmtest.Reply
		req        llm.Request
		want       llm.Response
		wantCalls  int
		wantSleeps []time.Duration
		wantResets int
		// at least this many content / reasoning deltas: proves text is streamed in pieces
		minContent, minReasoning int
	}{
		{
			name:       "plain content with usage",
			replies:    []llmtest.Reply{{Content: "Hello, world! How are you today?", Usage: &usage}},
			want:       llm.Response{Content: "Hello, world! How are you today?", Usage: usage, FinishReason: "stop", Model: testModel},
			wantCalls:  1,
			minContent: 4,
		},
		{
			name:    "reasoning_content kept apart from content",
			replies: []llmtest.Reply{{Reasoning: "The user wants the answer to everything.", Content: "It is 42.", Usage: &usage}},
			want: llm.Response{Content: "It is 42.", Reasoning: "The user wants the answer to everything.",
				ReasoningContent: "The user wants the answer to everything.", Usage: usage, FinishReason: "stop", Model: testModel},
			wantCalls: 1, minContent: 2, minReasoning: 5,
		},
		{
			name:    "think tags split across chunks",
			replies: []llmtest.Reply{{Content: "<think>\nThe user greets me.\n</think>\n\nHello there!", ChunkSize: 3, Usage: &usage}},
			want: llm.Response{Content: "Hello there!", Reasoning: "The user greets me.\n",
				Usage: usage, FinishReason: "stop", Model: testModel},
			wantCalls: 1, minContent: 3, minReasoning: 5,
		},
		{
			name:       "think tag not at the start is content",
			replies:    []llmtest.Reply{{Content: "Wrap it in <think></think> tags.", ChunkSize: 2, Usage: &usage}},
			want:       llm.Response{Content: "Wrap it in <think></think> tags.", Usage: usage, FinishReason: "stop", Model: testModel},
			wantCalls:  1,
			minContent: 5,
		},
		{
			name: "two parallel tool calls interleaved across chunks",
			replies: []llmtest.Reply{{
				Content: "Let me look.",
				ToolCalls: []llmtest.ToolCall{
					{ID: "call_1", Name: "web_search", Arguments: `{"query":"golang generics","count":5}`},
					{ID: "call_2", Name: "web_fetch", Arguments: `{"url":"https://go.dev/ü"}`},
				},
				InterleaveToolCalls: true,
				ChunkSize:           4,
				Usage:               &usage,
			}},
			want: llm.Response{
				Content: "Let me look.",
				ToolCalls: []llm.ToolCall{
					{ID: "call_1", Name: "web_search", Arguments: `{"query":"golang generics","count":5}`},
					{ID: "call_2", Name: "web_fetch", Arguments: `{"url":"https://go.dev/ü"}`},
				},
				Usage: usage, FinishReason: "tool_calls", Model: testModel,
			},
			wantCalls: 1, minContent: 3,
		},
		{
			name:      "request model overrides the default",
			replies:   []llmtest.Reply{{Content: "ok", Usage: &usage}},
			req:       llm.Request{Model: "other-model", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}},
			want:      llm.Response{Content: "ok", Usage: usage, FinishReason: "stop", Model: "other-model"},
			wantCalls: 1, minContent: 1,
		},
		{
			name:       "500 once then success",
			replies:    []llmtest.Reply{{Status: 500}, {Content: "recovered", Usage: &usage}},
			want:       llm.Response{Content: "recovered", Usage: usage, FinishReason: "stop", Model: testModel},
			wantCalls:  2,
			wantSleeps: []time.Duration{time.Second},
			minContent: 1,
		},
		{
			name:       "429 retried",
			replies:    []llmtest.Reply{{Status: 429, ErrorMessage: "rate limited"}, {Content: "fine", Usage: &usage}},
			want:       llm.Response{Content: "fine", Usage: usage, FinishReason: "stop", Model: testModel},
			wantCalls:  2,
			wantSleeps: []time.Duration{time.Second},
			minContent: 1,
		},
		{
			name: "stream broken mid-answer once: reset, then the full answer",
			replies: []llmtest.Reply{
				{Content: "This partial answer never finishes", BreakAfter: 3},
				{Content: "The complete answer.", Usage: &usage},
			},
			want:       llm.Response{Content: "The complete answer.", Usage: usage, FinishReason: "stop", Model: testModel},
			wantCalls:  2,
			wantSleeps: []time.Duration{time.Second},
			wantResets: 1,
			minContent: 3,
		},
		{
			name: "stream broken before any text: retried without reset",
			replies: []llmtest.Reply{
				{Content: "never sent", BreakAfter: 1},
				{Content: "answer", Usage: &usage},
			},
			want:       llm.Response{Content: "answer", Usage: usage, FinishReason: "stop", Model: testModel},
			wantCalls:  2,
			wantSleeps: []time.Duration{time.Second},
			minContent: 1,
		},
		{
			name: "stream cut after finish_reason is complete, without usage",
			// chunks: role, "done", finish; the usage chunk and [DONE] never come
			replies:    []llmtest.Reply{{Content: "done", BreakAfter: 3, Usage: &usage}},
			want:       llm.Response{Content: "done", FinishReason: "stop", Model: testModel},
			wantCalls:  1,
			minContent: 1,
		},
		{
			name:       "finish_reason length is reported",
			replies:    []llmtest.Reply{{Content: "truncat", FinishReason: "length", Usage: &usage}},
			want:       llm.Response{Content: "truncat", Usage: usage, FinishReason: "length", Model: testModel},
			wantCalls:  1,
			minContent: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Script(tt.replies...))
			h := newHarness(t, srv.URL(), nil)
			req := tt.req
			if req.Messages == nil {
				req = userRequest("hello")
			}
			var c consumer
			got, err := h.client.Stream(context.Background(), req, c.onDelta)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("response\n got %+v\nwant %+v", got, tt.want)
			}
			if c.content.String() != tt.want.Content || c.reasoning.String() != tt.want.Reasoning {
				t.Errorf("deltas after resets: content %q, reasoning %q", c.content.String(), c.reasoning.String())
			}
			if c.contentDeltas < tt.minContent || c.reasoningDeltas < tt.minReasoning {
				t.Errorf("%d content and %d reasoning deltas; want at least %d and %d",
					c.contentDeltas, c.reasoningDeltas, tt.minContent, tt.minReasoning)
			}
			if c.resets != tt.wantResets || len(c.bad) > 0 {
				t.Errorf("%d resets (want %d), malformed deltas %+v", c.resets, tt.wantResets, c.bad)
			}
			if srv.Calls() != tt.wantCalls {
				t.Errorf("server got %d calls, want %d", srv.Calls(), tt.wantCalls)
			}
			if !reflect.DeepEqual(h.sleeps, tt.wantSleeps) {
				t.Errorf("sleeps %v, want %v", h.sleeps, tt.wantSleeps)
			}
		})
	}
}

func TestStreamRequestShape(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Content: "ok"}))
	h := newHarness(t, srv.URL()+"/", nil) // a trailing slash is fine
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"query": map[string]any{"type": "string"}},
		"required":   []any{"query"},
	}
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are lead_agent."},
			{Role: llm.RoleUser, Content: "research go"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "web_search", Arguments: `{"query":"go"}`},
				{ID: "call_2", Name: "list_things"},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Content: "results"},
		},
		Tools: []llm.ToolDef{
			{Name: "web_search", Description: "Search the web.", Parameters: schema},
			{Name: "list_things", Description: "No parameters."},
		},
	}
	if _, err := h.client.Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	got := srv.Requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	r := got[0]
	if r.Model != testModel || !r.Stream || r.StreamOptions == nil || !r.StreamOptions.IncludeUsage {
		t.Errorf("model %q, stream %v, stream options %+v", r.Model, r.Stream, r.StreamOptions)
	}
	wantMsgs := []openai.ChatCompletionMessage{
		{Role: "system", Content: "You are lead_agent."},
		{Role: "user", Content: "research go"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{
			{ID: "call_1", Type: "function", Function: openai.FunctionCall{Name: "web_search", Arguments: `{"query":"go"}`}},
			{ID: "call_2", Type: "function", Function: openai.FunctionCall{Name: "list_things", Arguments: "{}"}},
		}},
		{Role: "tool", Content: "results", ToolCallID: "call_1"},
	}
	if !reflect.DeepEqual(r.Messages, wantMsgs) {
		t.Errorf("messages\n got %+v\nwant %+v", r.Messages, wantMsgs)
	}
	if len(r.Tools) != 2 {
		t.Fatalf("tools = %+v", r.Tools)
	}
	for i, want := range []map[string]any{schema, {"type": "object", "properties": map[string]any{}}} {
		tool := r.Tools[i]
		if tool.Type != openai.ToolTypeFunction || tool.Function == nil || tool.Function.Name != req.Tools[i].Name ||
			tool.Function.Description != req.Tools[i].Description || !reflect.DeepEqual(tool.Function.Parameters, want) {
			t.Errorf("tool %d = %+v, want parameters %v", i, tool.Function, want)
		}
	}
}

// errCase is one failing Stream call.
type errCase struct {
	name       string
	handler    llmtest.Handler
	edit       func(*llm.Config)
	wantIs     []error
	wantNotIs  []error
	wantCalls  int
	wantSleeps []time.Duration
	wantResets int
	wantText   []string // substrings of the error text; "{endpoint}" is replaced
}

func always(r llmtest.Reply) llmtest.Handler {
	return func(openai.ChatCompletionRequest, int) llmtest.Reply { return r }
}

func TestStreamErrors(t *testing.T) {
	twoSleeps := []time.Duration{time.Second, 2 * time.Second}
	tests := []errCase{
		{
			name:       "always 500: three tries, then ErrUnavailable naming endpoint and status",
			handler:    always(llmtest.Reply{Status: 500, ErrorMessage: "upstream overloaded"}),
			wantIs:     []error{llm.ErrUnavailable},
			wantNotIs:  []error{llm.ErrRejected, llm.ErrStreamBroken},
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantText:   []string{"llm: POST {endpoint}: 500 Internal Server Error after 3 tries: upstream overloaded"},
		},
		{
			name:       "always 429",
			handler:    always(llmtest.Reply{Status: 429, ErrorMessage: "slow down"}),
			wantIs:     []error{llm.ErrUnavailable},
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantText:   []string{"429 Too Many Requests after 3 tries: slow down"},
		},
		{
			name:      "401 is not retried and keeps the server's message",
			handler:   always(llmtest.Reply{Status: 401, ErrorMessage: "invalid api key"}),
			wantIs:    []error{llm.ErrRejected},
			wantNotIs: []error{llm.ErrUnavailable},
			wantCalls: 1,
			wantText:  []string{"llm: POST {endpoint}: 401 Unauthorized: invalid api key"},
		},
		{
			name:      "400 is not retried",
			handler:   always(llmtest.Reply{Status: 400, ErrorMessage: "context length exceeded"}),
			wantIs:    []error{llm.ErrRejected},
			wantCalls: 1,
			wantText:  []string{"400 Bad Request: context length exceeded"},
		},
		{
			name:      "404 unknown model is not retried",
			handler:   always(llmtest.Reply{Status: 404, ErrorMessage: "model not found"}),
			wantIs:    []error{llm.ErrRejected},
			wantCalls: 1,
			wantText:  []string{"404 Not Found: model not found"},
		},
		{
			name:       "a 4xx after transient failures stops the retries",
			handler:    llmtest.Script(llmtest.Reply{Status: 503}, llmtest.Reply{Status: 403, ErrorMessage: "forbidden region"}),
			wantIs:     []error{llm.ErrRejected},
			wantCalls:  2,
			wantSleeps: []time.Duration{time.Second},
			wantText:   []string{"403 Forbidden after 2 tries: forbidden region"},
		},
		{
			name:       "API key echoed by the server is redacted",
			handler:    always(llmtest.Reply{Status: 500, ErrorMessage: "bad key " + testKey + " for org"}),
			wantIs:     []error{llm.ErrUnavailable},
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantText:   []string{"bad key [REDACTED] for org"},
		},
		{
			name:       "always broken stream: ErrStreamBroken, which is also ErrUnavailable",
			handler:    always(llmtest.Reply{Content: "partial answer", BreakAfter: 2}),
			wantIs:     []error{llm.ErrStreamBroken, llm.ErrUnavailable},
			wantNotIs:  []error{llm.ErrRejected},
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantResets: 2, // before tries 2 and 3, never after the last
			wantText:   []string{"llm: POST {endpoint}: stream broken after 3 tries: unexpected EOF"},
		},
		{
			name:       "MaxTries and RetryDelay are honoured",
			handler:    always(llmtest.Reply{Status: 502}),
			edit:       func(c *llm.Config) { c.MaxTries = 4; c.RetryDelay = 10 * time.Millisecond },
			wantIs:     []error{llm.ErrUnavailable},
			wantCalls:  4,
			wantSleeps: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond},
			wantText:   []string{"502 Bad Gateway after 4 tries"},
		},
		{
			name:      "HTTP client timeout is retried as a network error",
			handler:   always(llmtest.Reply{Content: "never read"}),
			edit:      func(c *llm.Config) { c.HTTPClient = &http.Client{Timeout: time.Nanosecond} },
			wantIs:    []error{llm.ErrUnavailable},
			wantNotIs: []error{context.DeadlineExceeded, llm.ErrRejected},
			// the request may time out before or after reaching the server
			wantCalls:  -1,
			wantSleeps: twoSleeps,
			wantText:   []string{"network error after 3 tries", "Client.Timeout exceeded"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.handler)
			runErrCase(t, srv, srv.URL(), tt)
		})
	}
}

func runErrCase(t *testing.T, srv *llmtest.Server, baseURL string, tt errCase) {
	t.Helper()
	h := newHarness(t, baseURL, tt.edit)
	var c consumer
	resp, err := h.client.Stream(context.Background(), userRequest("hello"), c.onDelta)
	if err == nil {
		t.Fatalf("Stream succeeded with %+v", resp)
	}
	if !reflect.DeepEqual(resp, llm.Response{}) {
		t.Errorf("response on error is not zero: %+v", resp)
	}
	msg := err.Error()
	for _, want := range tt.wantIs {
		if !errors.Is(err, want) {
			t.Errorf("error %q does not wrap %v", msg, want)
		}
	}
	for _, no := range tt.wantNotIs {
		if errors.Is(err, no) {
			t.Errorf("error %q wraps %v", msg, no)
		}
	}
	for _, want := range tt.wantText {
		want = strings.ReplaceAll(want, "{endpoint}", h.client.Endpoint())
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	if strings.Contains(msg, testKey) || strings.Contains(h.logs.String(), testKey) {
		t.Errorf("API key leaked: error %q, logs %q", msg, h.logs.String())
	}
	if srv != nil && tt.wantCalls >= 0 && srv.Calls() != tt.wantCalls {
		t.Errorf("server got %d calls, want %d", srv.Calls(), tt.wantCalls)
	}
	if !reflect.DeepEqual(h.sleeps, tt.wantSleeps) {
		t.Errorf("sleeps %v, want %v", h.sleeps, tt.wantSleeps)
	}
	if retries := strings.Count(h.logs.String(), "llm: retrying"); retries != len(tt.wantSleeps) {
		t.Errorf("%d retry log records for %d sleeps: %s", retries, len(tt.wantSleeps), h.logs.String())
	}
	if c.resets != tt.wantResets {
		t.Errorf("%d resets, want %d", c.resets, tt.wantResets)
	}
}

// TestStreamCancellation: a cancelled ctx ends Stream at once, with no further tries, and
// the error wraps context.Canceled rather than a failure sentinel.
func TestStreamCancellation(t *testing.T) {
	long := llmtest.Reply{Content: strings.Repeat("a long answer the user stops half way. ", 20), ChunkSize: 2}
	tests := []struct {
		name string
		// setup returns the handler and the onDelta to use; both may call cancel
		setup         func(cancel context.CancelFunc) (llmtest.Handler, func(llm.Delta))
		cancelInSleep bool // the injected Sleep cancels ctx before it returns
		wantDeltas    int
		wantSleeps    []time.Duration
		wantText      string
	}{
		{
			name: "mid-stream, after the first delta",
			setup: func(cancel context.CancelFunc) (llmtest.Handler, func(llm.Delta)) {
				return always(long), func(llm.Delta) { cancel() }
			},
			wantDeltas: 1, // chunks already buffered are not delivered after the cancel
		},
		{
			name: "while waiting for the first chunk",
			setup: func(cancel context.CancelFunc) (llmtest.Handler, func(llm.Delta)) {
				return func(openai.ChatCompletionRequest, int) llmtest.Reply {
					cancel()
					return llmtest.Reply{Content: "late", Delay: time.Hour} // ends with the request's context
				}, nil
			},
		},
		{
			name: "during the backoff sleep",
			setup: func(context.CancelFunc) (llmtest.Handler, func(llm.Delta)) {
				return always(llmtest.Reply{Status: 500}), nil
			},
			cancelInSleep: true,
			wantSleeps:    []time.Duration{time.Second},
			wantText:      "waiting to retry after 500 Internal Server Error: context canceled",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			handler, onDelta := tt.setup(cancel)
			srv := llmtest.NewServer(t, handler)
			h := newHarness(t, srv.URL(), func(c *llm.Config) {
				if tt.cancelInSleep {
					record := c.Sleep
					c.Sleep = func(ctx context.Context, d time.Duration) error {
						cancel()
						return record(ctx, d)
					}
				}
			})
			deltas := 0
			_, err := h.client.Stream(ctx, userRequest("hello"), func(d llm.Delta) {
				deltas++
				if onDelta != nil {
					onDelta(d)
				}
			})
			if deltas != tt.wantDeltas {
				t.Errorf("%d deltas delivered, want %d", deltas, tt.wantDeltas)
			}
			if !errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrUnavailable) || errors.Is(err, llm.ErrRejected) {
				t.Fatalf("err = %v, want context.Canceled only", err)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not contain %q", err, tt.wantText)
			}
			if srv.Calls() != 1 || !reflect.DeepEqual(h.sleeps, tt.wantSleeps) {
				t.Errorf("%d calls, sleeps %v; want 1 call, sleeps %v", srv.Calls(), h.sleeps, tt.wantSleeps)
			}
		})
	}
}

func TestStreamConnectionRefused(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script())
	srv.Close()
	runErrCase(t, nil, srv.URL(), errCase{
		wantIs:     []error{llm.ErrUnavailable},
		wantNotIs:  []error{llm.ErrRejected, llm.ErrStreamBroken},
		wantSleeps: []time.Duration{time.Second, 2 * time.Second},
		wantText:   []string{"llm: POST {endpoint}: network error after 3 tries:", "connection refused"},
	})
}

// TestStreamRawServers covers server behaviour llmtest does not script: non-JSON error
// bodies from proxies, error events inside the stream, and a body that ends cleanly
// without [DONE].
func TestStreamRawServers(t *testing.T) {
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantIs     []error
		wantResets int
		wantText   string
	}{
		{
			name: "HTML 502 from a proxy",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				fmt.Fprint(w, "<html>\n  <body>Bad   gateway</body>\n</html>\n")
			},
			wantIs:   []error{llm.ErrUnavailable},
			wantText: "502 Bad Gateway after 3 tries: <html> <body>Bad gateway</body> </html>",
		},
		{
			name: "error event inside the stream",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}`+"\n\n")
				fmt.Fprint(w, `data: {"error":{"message":"model overloaded","type":"server_error"}}`+"\n\n")
			},
			wantIs:     []error{llm.ErrUnavailable},
			wantResets: 2, // "Hi" was delivered by tries 1 and 2
			wantText:   "error event in stream after 3 tries: model overloaded",
		},
		{
			name: "body ends cleanly without [DONE] or finish_reason",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}`+"\n\n")
			},
			wantIs:     []error{llm.ErrStreamBroken, llm.ErrUnavailable},
			wantResets: 2,
			wantText:   "stream broken after 3 tries: stream ended without [DONE] or finish_reason",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				tt.handler(w, r)
			}))
			t.Cleanup(srv.Close)
			runErrCase(t, nil, srv.URL+"/v1", errCase{
				wantResets: tt.wantResets,
				wantIs:     tt.wantIs,
				wantNotIs:  []error{llm.ErrRejected},
				wantSleeps: []time.Duration{time.Second, 2 * time.Second},
				wantText:   []string{tt.wantText},
			})
			if calls != 3 {
				t.Errorf("%d calls, want 3", calls)
			}
		})
	}
}

// TestStreamDoneWithoutFinishReason: [DONE] alone completes a stream, for servers that
// never send finish_reason.
func TestStreamDoneWithoutFinishReason(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hi"}}]}`+"\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	h := newHarness(t, srv.URL+"/v1", nil)
	got, err := h.client.Stream(context.Background(), userRequest("hello"), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if want := (llm.Response{Content: "Hi", Model: "m"}); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestStreamInvalidRequest(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"no messages", llm.Request{}},
		{"message without role", llm.Request{Messages: []llm.Message{{Content: "hi"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Script())
			h := newHarness(t, srv.URL(), nil)
			_, err := h.client.Stream(context.Background(), tt.req, nil)
			if !errors.Is(err, llm.ErrRejected) || srv.Calls() != 0 {
				t.Errorf("err %v, %d calls; want ErrRejected and no call", err, srv.Calls())
			}
		})
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name         string
		cfg          llm.Config
		wantErr      bool
		wantEndpoint string
		notInErr     string
	}{
		{name: "Ollama without key", cfg: llm.Config{BaseURL: "http://localhost:11434/v1/", Model: "qwen3"},
			wantEndpoint: "http://localhost:11434/v1/chat/completions"},
		{name: "https", cfg: llm.Config{BaseURL: "https://api.deepseek.com/v1", APIKey: "k", Model: "deepseek-chat"},
			wantEndpoint: "https://api.deepseek.com/v1/chat/completions"},
		{name: "password redacted in endpoint", cfg: llm.Config{BaseURL: "http://user:hunter2@proxy:8080/v1", Model: "m"},
			wantEndpoint: "http://user:xxxxx@proxy:8080/v1/chat/completions"},
		{name: "empty base URL", cfg: llm.Config{Model: "m"}, wantErr: true},
		{name: "no scheme", cfg: llm.Config{BaseURL: "localhost:11434/v1", Model: "m"}, wantErr: true},
		{name: "relative", cfg: llm.Config{BaseURL: "/v1", Model: "m"}, wantErr: true},
		{name: "ftp", cfg: llm.Config{BaseURL: "ftp://host/v1", Model: "m"}, wantErr: true},
		{name: "no host", cfg: llm.Config{BaseURL: "http:///v1", Model: "m"}, wantErr: true},
		{name: "unparsable", cfg: llm.Config{BaseURL: "http://[::1/v1", Model: "m"}, wantErr: true},
		{name: "query", cfg: llm.Config{BaseURL: "http://u:hunter2@host/v1?key=1", Model: "m"}, wantErr: true, notInErr: "hunter2"},
		{name: "no scheme, password", cfg: llm.Config{BaseURL: "user:hunter2@localhost:8080/v1", Model: "m"}, wantErr: true, notInErr: "hunter2"},
		{name: "empty model", cfg: llm.Config{BaseURL: "http://host/v1", Model: "  "}, wantErr: true},
		{name: "negative tries", cfg: llm.Config{BaseURL: "http://host/v1", Model: "m", MaxTries: -1}, wantErr: true},
		{name: "negative delay", cfg: llm.Config{BaseURL: "http://host/v1", Model: "m", RetryDelay: -time.Second}, wantErr: true},
		{name: "negative first-byte timeout", cfg: llm.Config{BaseURL: "http://host/v1", Model: "m", FirstByteTimeout: -time.Second}, wantErr: true},
		{name: "negative idle timeout", cfg: llm.Config{BaseURL: "http://host/v1", Model: "m", IdleTimeout: -time.Second}, wantErr: true},
		{name: "negative answer limit", cfg: llm.Config{BaseURL: "http://host/v1", Model: "m", MaxAnswerBytes: -1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := llm.New(tt.cfg)
			if tt.wantErr {
				if !errors.Is(err, llm.ErrConfig) {
					t.Fatalf("err = %v, want ErrConfig", err)
				}
				if tt.notInErr != "" && strings.Contains(err.Error(), tt.notInErr) {
					t.Errorf("error %q leaks %q", err, tt.notInErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if c.Endpoint() != tt.wantEndpoint || c.Model() != tt.cfg.Model {
				t.Errorf("Endpoint() %q, Model() %q", c.Endpoint(), c.Model())
			}
			if got := llm.EndpointOf(tt.cfg.BaseURL); got != c.Endpoint() {
				t.Errorf("EndpointOf = %q, Client.Endpoint %q", got, c.Endpoint())
			}
		})
	}
}

// TestEndpointOfNeverShowsAPassword: what Test connection shows for any base URL the user
// may type, parsable or not, keeps a password out.
func TestEndpointOfNeverShowsAPassword(t *testing.T) {
	for _, base := range []string{
		"http://user:hunter2@proxy:8080/v1", "user:hunter2@localhost:8080/v1", "http://u:hunter2@host/v1?key=hunter2",
		"ftp://u:hunter2@host/", "hunter2", "http://[::1/v1?hunter2", "//u:hunter2@host/v1",
	} {
		if got := llm.EndpointOf(base); strings.Contains(got, "hunter2") {
			t.Errorf("EndpointOf(%q) = %q shows the password", base, got)
		}
	}
}

// BenchmarkStream2000Chunks streams a 2,000-chunk answer (7 runes each) from the test
// server and assembles it; the server's own work in this process is included.
func BenchmarkStream2000Chunks(b *testing.B) {
	content := strings.Repeat("abcdefg", 2000)
	srv := llmtest.NewServer(b, always(llmtest.Reply{Content: content, ChunkSize: 7,
		Usage: &events.Usage{PromptTokens: 1, CompletionTokens: 2000, TotalTokens: 2001}}))
	h := newHarness(b, srv.URL(), nil)
	req := userRequest("hello")
	b.ReportAllocs()
	for b.Loop() {
		resp, err := h.client.Stream(context.Background(), req, func(llm.Delta) {})
		if err != nil || len(resp.Content) != len(content) {
			b.Fatalf("Stream: %v, %d bytes", err, len(resp.Content))
		}
	}
}

// A user message with images goes out as content parts: its text, then one image_url part
// per image whose URL is the image as a base64 data URL; messages without images keep a
// plain string content.
func TestStreamImageParts(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Content: "a cat"}))
	h := newHarness(t, srv.URL(), nil)
	png := []byte("\x89PNG\r\n\x1a\nfake")
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are lead_agent."},
		{Role: llm.RoleUser, Content: "what is in this picture?", Images: []llm.Image{
			{MIME: "image/png", Data: png}, {MIME: "image/jpeg", Data: []byte{0xff, 0xd8, 0xff}}}},
	}}
	if _, err := h.client.Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	bodies := srv.Bodies()
	if len(bodies) != 1 {
		t.Fatalf("%d requests", len(bodies))
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[0], &body); err != nil {
		t.Fatalf("decode body: %v", err)
	}
	if len(body.Messages) != 2 || string(body.Messages[0].Content) != `"You are lead_agent."` {
		t.Fatalf("messages = %s", bodies[0])
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(body.Messages[1].Content, &parts); err != nil {
		t.Fatalf("the user message's content is not a list of parts: %s (%v)", body.Messages[1].Content, err)
	}
	want := []string{"text:what is in this picture?",
		"image_url:data:image/png;base64," + base64.StdEncoding.EncodeToString(png), "image_url:data:image/jpeg;base64,/9j/"}
	var got []string
	for _, p := range parts {
		switch {
		case p.Type == "text":
			got = append(got, "text:"+p.Text)
		case p.Type == "image_url" && p.ImageURL != nil:
			got = append(got, "image_url:"+p.ImageURL.URL)
		default:
			got = append(got, "bad part "+p.Type)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parts\n got %q\nwant %q", got, want)
	}
}

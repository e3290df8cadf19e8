package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

// TestStreamNoChoicesAndNotStream: an endpoint whose stream holds only chunks without a
// choice, or that answers 2xx with a body that is not an event stream at all (a whole
// JSON completion, with or without choices, pretty-printed over hundreds of lines, an
// HTML page, text without a Content-Type), ends with a one-line error saying so:
// ErrNoChoices (an empty answer: retried) or ErrNotStream (a rejection: not retried,
// quoting the body's start), instead of "stream broken" after three tries.
func TestStreamNoChoicesAndNotStream(t *testing.T) {
	twoSleeps := []time.Duration{time.Second, 2 * time.Second}
	chunk := `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[]}` + "\n\n"
	completion := `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`
	pretty := "{\n" + strings.Repeat("  \"padding\": \"x\",\n", 400) + "  \"choices\": []\n}\n"
	notStream := "not an event stream: the endpoint answered 200 OK (Content-Type %s) with a body that has no data: lines; " +
		`it may ignore "stream": true, or the base URL is not an OpenAI-compatible API root: %s`
	tests := []struct {
		name        string
		contentType string
		body        string
		wantIs      []error
		wantNotIs   []error
		wantCalls   int
		wantSleeps  []time.Duration
		wantText    string
	}{
		{
			name: `"choices": [] in every chunk, then [DONE]`, contentType: "text/event-stream",
			body:      strings.Repeat(chunk, 3) + "data: [DONE]\n\n",
			wantIs:    []error{llm.ErrNoChoices, llm.ErrEmptyAnswer, llm.ErrUnavailable},
			wantNotIs: []error{llm.ErrRejected, llm.ErrNotStream}, wantCalls: 3, wantSleeps: twoSleeps,
			wantText: `llm: POST {endpoint}: empty answer after 3 tries: the stream ended with [DONE] after 3 chunks, ` +
				`none of them with a choice ("choices": [] throughout)`,
		},
		{
			name: "choices with empty deltas and no finish_reason, then [DONE]", contentType: "text/event-stream",
			body:      strings.Repeat(`data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{}}]}`+"\n\n", 2) + "data: [DONE]\n\n",
			wantIs:    []error{llm.ErrEmptyAnswer, llm.ErrUnavailable},
			wantNotIs: []error{llm.ErrNoChoices, llm.ErrRejected, llm.ErrNotStream}, wantCalls: 3, wantSleeps: twoSleeps,
			wantText: "empty answer after 3 tries: the stream ended with [DONE] before any content, reasoning, tool call or finish_reason",
		},
		{
			name: "a whole JSON completion without choices", contentType: "application/json",
			body:   `{"id":"x","object":"chat.completion","model":"m","choices":[]}`,
			wantIs: []error{llm.ErrNotStream, llm.ErrRejected}, wantNotIs: []error{llm.ErrUnavailable}, wantCalls: 1,
			wantText: "llm: POST {endpoint}: " + fmt.Sprintf(notStream, "application/json", `{"id":"x","object":"chat.completion","model":"m","choices":[]}`),
		},
		{
			name: "a whole JSON completion with an answer", contentType: "application/json", body: completion,
			wantIs: []error{llm.ErrNotStream, llm.ErrRejected}, wantNotIs: []error{llm.ErrUnavailable}, wantCalls: 1,
			wantText: fmt.Sprintf(notStream, "application/json", completion),
		},
		{
			name: "pretty-printed JSON of 400 lines", contentType: "application/json", body: pretty,
			wantIs: []error{llm.ErrNotStream}, wantNotIs: []error{llm.ErrUnavailable}, wantCalls: 1,
			wantText: fmt.Sprintf(notStream, "application/json", `{ "padding": "x", "padding": "x",`),
		},
		{
			name: "an HTML page", contentType: "text/html", body: "<html>\n<body>Sign in to the Wi-Fi</body>\n</html>\n",
			wantIs: []error{llm.ErrNotStream}, wantNotIs: []error{llm.ErrUnavailable}, wantCalls: 1,
			wantText: fmt.Sprintf(notStream, "text/html", "<html> <body>Sign in to the Wi-Fi</body> </html>"),
		},
		{
			name: "keep-alive comments, then the connection ends: a broken stream", contentType: "application/json",
			body:   ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n",
			wantIs: []error{llm.ErrStreamBroken, llm.ErrUnavailable}, wantNotIs: []error{llm.ErrNotStream}, wantCalls: 3, wantSleeps: twoSleeps,
			wantText: "stream broken after 3 tries: stream ended without [DONE] or finish_reason",
		},
		{
			name: "event: and id: fields, then the connection ends: a broken stream", contentType: "application/octet-stream",
			body:   "event: message\nid: 1\n\nretry: 3000\n\n",
			wantIs: []error{llm.ErrStreamBroken, llm.ErrUnavailable}, wantNotIs: []error{llm.ErrNotStream}, wantCalls: 3, wantSleeps: twoSleeps,
			wantText: "stream broken after 3 tries: stream ended without [DONE] or finish_reason",
		},
		{
			name: "a page whose lines start like field names is not a stream", contentType: "text/plain",
			body:   "events: none\nidle: yes\nretrying soon\n",
			wantIs: []error{llm.ErrNotStream}, wantNotIs: []error{llm.ErrUnavailable}, wantCalls: 1,
			wantText: "(Content-Type text/plain)",
		},
		{
			name: "junk under text/event-stream: a broken stream", contentType: "text/event-stream; charset=utf-8",
			body:   "hello\n\n",
			wantIs: []error{llm.ErrStreamBroken, llm.ErrUnavailable}, wantNotIs: []error{llm.ErrNotStream}, wantCalls: 3, wantSleeps: twoSleeps,
			wantText: "stream broken after 3 tries",
		},
		{
			name: "text without a Content-Type", body: "OK",
			wantIs: []error{llm.ErrNotStream}, wantNotIs: []error{llm.ErrUnavailable}, wantCalls: 1,
			wantText: "(Content-Type text/plain; charset=utf-8)", // net/http sniffs it
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				calls++
				if tt.contentType != "" {
					w.Header().Set("Content-Type", tt.contentType)
				}
				fmt.Fprint(w, tt.body)
			}))
			t.Cleanup(srv.Close)
			runErrCase(t, nil, srv.URL+"/v1", errCase{wantIs: tt.wantIs, wantNotIs: tt.wantNotIs, wantSleeps: tt.wantSleeps,
				wantText: []string{tt.wantText}})
			if calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", calls, tt.wantCalls)
			}
		})
	}
}

// TestStreamTenMegabyteAnswer: a finite answer of 10 MB, in content, reasoning or one
// tool call's arguments, is refused at the default 4 MiB cap with ErrTooLarge, at once
// (no retry), holding no more than the cap.
func TestStreamTenMegabyteAnswer(t *testing.T) {
	const size = 10_000_000
	text := strings.Repeat("0123456789", size/10)
	for _, tc := range []struct {
		name  string
		reply llmtest.Reply
	}{
		{"content", llmtest.Reply{Content: text, ChunkSize: 256 << 10}},
		{"reasoning", llmtest.Reply{Reasoning: text, Content: "ok", ChunkSize: 256 << 10}},
		{"tool-call arguments", llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "create_artifact",
			Arguments: `{"content":"` + text + `"}`}}, ChunkSize: 256 << 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, always(tc.reply))
			h := newHarness(t, srv.URL(), nil)
			ctx, cancel := context.WithTimeout(context.Background(), testBound)
			defer cancel()
			var c consumer
			_, err := h.client.Stream(ctx, userRequest("hello"), c.onDelta)
			checkErr(t, h.client, err, []error{llm.ErrTooLarge}, []error{llm.ErrUnavailable, llm.ErrRejected},
				"llm: POST {endpoint}: answer too large: the answer's content, reasoning and tool calls exceed 4 MiB (MaxAnswerBytes)")
			if srv.Calls() != 1 || len(h.sleeps) != 0 {
				t.Errorf("%d calls, sleeps %v; want 1 call and no retry", srv.Calls(), h.sleeps)
			}
			waitEnd(t, srv, 0) // loopback buffers may take all 10 MB before the client hangs up
			if n := c.content.Len() + c.reasoning.Len(); n > llm.DefaultMaxAnswerBytes {
				t.Errorf("%d bytes of text delivered, over the cap", n)
			}
		})
	}
}

// TestStreamGarbageToolArguments: tool-call arguments that are not JSON, truncated JSON or
// a JSON array are the model's to answer for: the client assembles them verbatim from
// their fragments and returns them without an error (the engine turns them into a tool
// error for the model), in one try.
func TestStreamGarbageToolArguments(t *testing.T) {
	calls := []llmtest.ToolCall{
		{ID: "c1", Name: "web_search", Arguments: "search for: moon distance, please"},
		{ID: "c2", Name: "web_search", Arguments: `{"query": "moon dist`},
		{ID: "c3", Name: "web_search", Arguments: `["moon", "distance"]`},
		{ID: "c4", Name: "web_search", Arguments: "\x00\xff{]"},
	}
	srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{ToolCalls: calls, ChunkSize: 3}))
	h := newHarness(t, srv.URL(), nil)
	resp, err := h.client.Stream(context.Background(), userRequest("hello"), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := make([]llm.ToolCall, len(calls))
	for i, c := range calls {
		want[i] = llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: strings.ToValidUTF8(c.Arguments, "\uFFFD")}
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.FinishReason != "tool_calls" || srv.Calls() != 1 {
		t.Fatalf("tool calls %q (finish %q, %d calls); want %q", resp.ToolCalls, resp.FinishReason, srv.Calls(), want)
	}
}

package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

// chunkLine is one SSE event holding a content chunk.
func chunkLine(content string) string {
	return `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":null}]}` + "\n\n"
}

// TestErrorsInsideStream checks errors that servers send inside a 2xx answer. The bodies
// are written out here after the shapes servers document and send (Groq's error event,
// OpenRouter's chunk with an "error" member, vLLM's error object); they are not
// recordings (none was found; see testdata/recorded/README.md). The user must see the
// server's own message with the key redacted, errors the request caused must not be
// retried, and the rest must be.
func TestErrorsInsideStream(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		ct        string // "" means text/event-stream
		wantIs    error
		wantNotIs error
		wantCalls int
		wantText  string
		wantCode  int // llm.HTTPStatus
	}{
		{
			name: "Groq error event about a tool call",
			body: chunkLine("Let me look") + "event: error\n" +
				`data: {"error":{"message":"Tool call validation failed: attempted to call tool 'serach' which was not in request.tools","type":"invalid_request_error","code":"tool_use_failed"}}` + "\n\n",
			wantIs: llm.ErrRejected, wantNotIs: llm.ErrUnavailable, wantCalls: 1,
			wantText: "error event in stream: Tool call validation failed: attempted to call tool 'serach' which was not in request.tools (code tool_use_failed)",
		},
		{
			name: "OpenRouter: finish_reason length, then the error that explains it",
			body: ": OPENROUTER PROCESSING\n\n" + chunkLine("The answer is") +
				`data: {"id":"gen-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":""},"finish_reason":"length"}]}` + "\n\n" +
				`data: {"id":"gen-1","object":"chat.completion.chunk","model":"m","provider":"P","error":{"code":400,"message":"Token limit reached"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n" +
				"data: [DONE]\n\n",
			wantIs: llm.ErrRejected, wantNotIs: llm.ErrUnavailable, wantCalls: 1,
			wantText: "error event in stream: Token limit reached (code 400)", wantCode: 400,
		},
		{
			name: "OpenRouter: the provider disconnected",
			body: chunkLine("Partial") +
				`data: {"id":"gen-1","object":"chat.completion.chunk","model":"m","error":{"code":502,"message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n",
			wantIs: llm.ErrUnavailable, wantNotIs: llm.ErrRejected, wantCalls: 3,
			wantText: "error event in stream after 3 tries: Provider disconnected unexpectedly (code 502)", wantCode: 502,
		},
		{
			name:   "OpenRouter: rate limited inside the stream",
			body:   `data: {"error":{"code":429,"message":"Rate limit exceeded","metadata":{"error_type":"rate_limit_exceeded"}},"choices":[{"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n",
			wantIs: llm.ErrUnavailable, wantNotIs: llm.ErrRejected, wantCalls: 3,
			wantText: "Rate limit exceeded (code 429)", wantCode: 429,
		},
		{
			name:   "vLLM error object",
			body:   `data: {"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}` + "\n\n",
			wantIs: llm.ErrRejected, wantNotIs: llm.ErrUnavailable, wantCalls: 1,
			wantText: "This model's maximum context length is 4096 tokens. (code 400)", wantCode: 400,
		},
		{
			name: "error event with CRLF line ends",
			body: strings.ReplaceAll(chunkLine("Hi")+"event: error\n"+
				`data: {"error":{"message":"Tool call validation failed: parameters did not match schema","type":"invalid_request_error"}}`+"\n\n", "\n", "\r\n"),
			wantIs: llm.ErrRejected, wantNotIs: llm.ErrUnavailable, wantCalls: 1,
			wantText: "error event in stream: Tool call validation failed: parameters did not match schema",
		},
		{
			name:   "error event with a text payload",
			body:   chunkLine("Hi") + "event: error\ndata: upstream overloaded\n\n",
			wantIs: llm.ErrUnavailable, wantNotIs: llm.ErrRejected, wantCalls: 3,
			wantText: "error event in stream after 3 tries: upstream overloaded",
		},
		{
			name:   "an error body with status 200, quoting the key",
			ct:     "application/json",
			body:   "{\n  \"error\": {\n    \"message\": \"Incorrect API key provided: " + testKey + "\",\n    \"code\": 401\n  }\n}\n",
			wantIs: llm.ErrRejected, wantNotIs: llm.ErrNotStream, wantCalls: 1,
			wantText: "error body with a 2xx status: Incorrect API key provided: [REDACTED] (code 401)", wantCode: 401,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.ct
			if ct == "" {
				ct = "text/event-stream"
			}
			srv := llmtest.Replay(t, &llmtest.Replayed{ContentType: ct, Body: []byte(tt.body)})
			h := newHarness(t, srv.URL(), nil)
			_, err := h.client.Stream(context.Background(), userRequest("hello"), nil)
			if err == nil || !errors.Is(err, tt.wantIs) || errors.Is(err, tt.wantNotIs) {
				t.Fatalf("err = %v, want one wrapping %v and not %v", err, tt.wantIs, tt.wantNotIs)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantText)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("err quotes the key: %q", err)
			}
			if got := llm.HTTPStatus(err); got != tt.wantCode {
				t.Errorf("HTTPStatus = %d, want %d", got, tt.wantCode)
			}
			if srv.Calls() != tt.wantCalls {
				t.Errorf("%d calls, want %d", srv.Calls(), tt.wantCalls)
			}
			if wantSleeps := tt.wantCalls - 1; len(h.sleeps) != wantSleeps {
				t.Errorf("slept %v, want %d retries", h.sleeps, wantSleeps)
			}
		})
	}
}

// TestStreamShapesThatAreNotErrors: a chunk whose "error" is null, content that mentions
// "error", and more keep-alive comments in a row than go-openai's limit on lines that
// are not data (300) leave the answer whole.
func TestStreamShapesThatAreNotErrors(t *testing.T) {
	body := strings.Repeat(": OPENROUTER PROCESSING\n\n", 400) +
		`data: {"id":"x","object":"chat.completion.chunk","model":"m","error":null,"choices":[{"index":0,"delta":{"content":"no \"error\": here"},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	srv := llmtest.Replay(t, &llmtest.Replayed{ContentType: "text/event-stream", Body: []byte(body)})
	h := newHarness(t, srv.URL(), func(c *llm.Config) { c.FirstByteTimeout = time.Minute })
	got, err := h.client.Stream(context.Background(), userRequest("hello"), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if got.Content != `no "error": here` || got.FinishReason != "stop" {
		t.Errorf("got %+v", got)
	}
}

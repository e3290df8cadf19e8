package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"
)

// post sends a chat completion request body to srv and returns the response.
func post(t *testing.T, srv *Server, body map[string]any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// streamBody is the usual request: streaming, usage requested, one user message.
func streamBody(user string) map[string]any {
	return map[string]any{
		"model":          "test-model",
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
		"messages":       []map[string]any{{"role": "user", "content": user}},
	}
}

// readEvents reads the SSE data payloads of resp until the body ends, returning them and
// the read error that ended the body (nil for a clean end).
func readEvents(t *testing.T, resp *http.Response) ([]string, error) {
	t.Helper()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not an SSE data line", line)
		}
		events = append(events, data)
	}
	return events, sc.Err()
}

func TestStreamWireFormat(t *testing.T) {
	srv := NewServer(t, Script(Reply{
		Reasoning: "Think first.",
		Content:   "Héllo wörld",
		ToolCalls: []ToolCall{
			{ID: "call_a", Name: "web_search", Arguments: `{"query":"go"}`},
			{ID: "call_b", Name: "web_fetch", Arguments: `{"url":"https://go.dev"}`},
		},
		ChunkSize: 4,
		Usage:     &Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33},
	}))
	resp := post(t, srv, streamBody("hi"))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events, err := readEvents(t, resp)
	if err != nil {
		t.Fatalf("reading stream: %v", err)
	}
	if n := len(events); n == 0 || events[n-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", events)
	}
	events = events[:len(events)-1]

	var reasoning, content strings.Builder
	args := map[int]string{}
	var headers []map[string]any
	for i, ev := range events {
		var raw map[string]any
		if err := json.Unmarshal([]byte(ev), &raw); err != nil {
			t.Fatalf("event %d is not JSON: %v", i, err)
		}
		if raw["id"] != "chatcmpl-llmtest-0" || raw["object"] != "chat.completion.chunk" ||
			raw["model"] != "test-model" || raw["created"] == nil {
			t.Errorf("event %d lacks chunk fields: %s", i, ev)
		}
		choices := raw["choices"].([]any)
		if i == len(events)-1 { // usage chunk
			if len(choices) != 0 || raw["usage"] == nil {
				t.Errorf("last chunk is not a usage chunk: %s", ev)
			}
			var c openai.ChatCompletionStreamResponse
			_ = json.Unmarshal([]byte(ev), &c)
			if got := *c.Usage; got.PromptTokens != 11 || got.CompletionTokens != 22 || got.TotalTokens != 33 {
				t.Errorf("usage = %+v", got)
			}
			continue
		}
		if u, ok := raw["usage"]; !ok || u != nil {
			t.Errorf("event %d: usage should be null before the last chunk: %s", i, ev)
		}
		if len(choices) != 1 {
			t.Fatalf("event %d has %d choices", i, len(choices))
		}
		choice := choices[0].(map[string]any)
		finish, hasFinish := choice["finish_reason"]
		if !hasFinish {
			t.Errorf("event %d has no finish_reason key", i)
		}
		if i == len(events)-2 {
			if finish != "tool_calls" {
				t.Errorf("last choice chunk finish_reason = %v, want tool_calls", finish)
			}
		} else if finish != nil {
			t.Errorf("event %d finish_reason = %v, want null", i, finish)
		}
		delta := choice["delta"].(map[string]any)
		if i == 0 && delta["role"] != "assistant" {
			t.Errorf("first chunk role = %v", delta["role"])
		}
		if s, ok := delta["reasoning_content"].(string); ok {
			reasoning.WriteString(s)
		}
		if s, ok := delta["content"].(string); ok {
			content.WriteString(s)
		}
		for _, tc := range asSlice(delta["tool_calls"]) {
			call := tc.(map[string]any)
			idx := int(call["index"].(float64))
			fn := call["function"].(map[string]any)
			if _, ok := call["id"]; ok {
				if call["type"] != "function" || fn["name"] == nil || fn["arguments"] != "" {
					t.Errorf("first delta of call %d = %v, want id, type, name and empty arguments", idx, call)
				}
				headers = append(headers, call)
				continue
			}
			if len(call) != 2 || len(fn) != 1 {
				t.Errorf("argument delta of call %d carries more than index and arguments: %v", idx, call)
			}
			args[idx] += fn["arguments"].(string)
		}
	}
	if reasoning.String() != "Think first." || content.String() != "Héllo wörld" {
		t.Errorf("reasoning %q, content %q", reasoning.String(), content.String())
	}
	if len(headers) != 2 || headers[0]["id"] != "call_a" || headers[1]["id"] != "call_b" {
		t.Errorf("tool call headers = %v", headers)
	}
	if args[0] != `{"query":"go"}` || args[1] != `{"url":"https://go.dev"}` {
		t.Errorf("arguments = %v", args)
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func TestChunking(t *testing.T) {
	tests := []struct {
		name        string
		reply       Reply
		wantContent int // content chunks
		wantTool    int // tool-call chunks, headers included
	}{
		{"default size splits short text", Reply{Content: "abcdefghijklmno"}, 3, 0},
		{"runes, not bytes", Reply{Content: "日本語のテキスト", ChunkSize: 3}, 3, 0},
		{"argument fragments", Reply{ToolCalls: []ToolCall{{ID: "c", Name: "n", Arguments: "0123456789"}}, ChunkSize: 4}, 0, 1 + 3},
		{"multibyte arguments never split inside a rune", Reply{ToolCalls: []ToolCall{{ID: "c", Name: "n", Arguments: "ééé"}}, ChunkSize: 3}, 0, 1 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t, Script(tt.reply))
			events, err := readEvents(t, post(t, srv, streamBody("hi")))
			if err != nil {
				t.Fatal(err)
			}
			var content, tool int
			var text, args strings.Builder
			for _, ev := range events {
				var c openai.ChatCompletionStreamResponse
				if ev == "[DONE]" || json.Unmarshal([]byte(ev), &c) != nil || len(c.Choices) == 0 {
					continue
				}
				d := c.Choices[0].Delta
				if d.Content != "" {
					content++
					text.WriteString(d.Content)
				}
				if len(d.ToolCalls) > 0 {
					tool++
					args.WriteString(d.ToolCalls[0].Function.Arguments)
					if !utf8.ValidString(d.ToolCalls[0].Function.Arguments) {
						t.Errorf("fragment %q is not valid UTF-8", d.ToolCalls[0].Function.Arguments)
					}
				}
			}
			if content != tt.wantContent || tool != tt.wantTool {
				t.Errorf("content chunks %d, tool chunks %d; want %d, %d", content, tool, tt.wantContent, tt.wantTool)
			}
			if text.String() != tt.reply.Content {
				t.Errorf("content %q, want %q", text.String(), tt.reply.Content)
			}
			if len(tt.reply.ToolCalls) > 0 && args.String() != tt.reply.ToolCalls[0].Arguments {
				t.Errorf("arguments %q, want %q", args.String(), tt.reply.ToolCalls[0].Arguments)
			}
		})
	}
}

func TestInterleavedToolCalls(t *testing.T) {
	srv := NewServer(t, Script(Reply{
		ToolCalls:           []ToolCall{{ID: "a", Name: "x", Arguments: "AAAA"}, {ID: "b", Name: "y", Arguments: "BB"}},
		InterleaveToolCalls: true,
		ChunkSize:           1,
	}))
	events, err := readEvents(t, post(t, srv, streamBody("hi")))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, ev := range events {
		var c openai.ChatCompletionStreamResponse
		if ev == "[DONE]" || json.Unmarshal([]byte(ev), &c) != nil || len(c.Choices) == 0 {
			continue
		}
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			order = append(order, fmt.Sprintf("%d:%s%s", *tc.Index, tc.ID, tc.Function.Arguments))
		}
	}
	want := []string{"0:a", "1:b", "0:A", "1:B", "0:A", "1:B", "0:A", "0:A"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("delta order %q, want %q", order, want)
	}
}

func TestErrorReply(t *testing.T) {
	tests := []struct {
		reply    Reply
		wantCode int
		wantMsg  string
		wantType string
	}{
		{Reply{Status: 401, ErrorMessage: "invalid api key"}, 401, "invalid api key", "invalid_request_error"},
		{Reply{Status: 503}, 503, "Service Unavailable", "server_error"},
	}
	for _, tt := range tests {
		t.Run(tt.wantMsg, func(t *testing.T) {
			srv := NewServer(t, Script(tt.reply))
			resp := post(t, srv, streamBody("hi"))
			var body struct {
				Error struct{ Message, Type string } `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantCode || body.Error.Message != tt.wantMsg || body.Error.Type != tt.wantType {
				t.Errorf("got %d %+v", resp.StatusCode, body.Error)
			}
		})
	}
}

func TestNonStreamingRequestRefused(t *testing.T) {
	srv := NewServer(t, Script(Reply{Content: "x"}))
	body := streamBody("hi")
	body["stream"] = false
	if resp := post(t, srv, body); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", resp.StatusCode)
	}
}

func TestBreakAfter(t *testing.T) {
	tests := []struct {
		name       string
		breakAfter int
		wantEvents int
	}{
		{"mid content", 3, 3},
		{"beyond the last chunk still drops [DONE]", 100, 1 + 2 + 1 + 1}, // role, 2 content, finish, usage
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t, Script(Reply{Content: "0123456789", BreakAfter: tt.breakAfter}))
			events, err := readEvents(t, post(t, srv, streamBody("hi")))
			if err == nil {
				t.Errorf("body ended cleanly; want a broken stream")
			}
			if len(events) != tt.wantEvents || events[len(events)-1] == "[DONE]" {
				t.Errorf("got %d events ending %q; want %d and no [DONE]", len(events), events[len(events)-1], tt.wantEvents)
			}
		})
	}
}

func TestNoUsageChunkUnlessAsked(t *testing.T) {
	srv := NewServer(t, Script(Reply{Content: "hi"}))
	body := streamBody("hi")
	delete(body, "stream_options")
	events, err := readEvents(t, post(t, srv, body))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if strings.Contains(ev, `"usage"`) {
			t.Errorf("event carries usage though none was asked for: %s", ev)
		}
	}
}

func TestFakeUsage(t *testing.T) {
	srv := NewServer(t, Script(Reply{Content: "12345678"})) // 8 runes -> 1+2 tokens
	events, err := readEvents(t, post(t, srv, streamBody("1234")))
	if err != nil {
		t.Fatal(err)
	}
	var c openai.ChatCompletionStreamResponse
	if err := json.Unmarshal([]byte(events[len(events)-2]), &c); err != nil || c.Usage == nil {
		t.Fatalf("no usage chunk before [DONE]: %v %q", err, events)
	}
	if c.Usage.PromptTokens != 2 || c.Usage.CompletionTokens != 3 || c.Usage.TotalTokens != 5 {
		t.Errorf("usage = %+v, want 2/3/5", *c.Usage)
	}
}

// recordingTB captures Errorf so that a test can check Script's failure report.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestScriptOverrun(t *testing.T) {
	rec := &recordingTB{TB: t}
	srv := NewServer(rec, Script(Reply{Content: "only one"}))
	if resp := post(t, srv, streamBody("1")); resp.StatusCode != http.StatusOK {
		t.Fatalf("scripted call: status %d", resp.StatusCode)
	}
	resp := post(t, srv, streamBody("2"))
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("unscripted call: status %d, want 500", resp.StatusCode)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "unscripted call 1") {
		t.Errorf("test failures reported = %q", rec.errs)
	}
}

func TestRequestsAndCalls(t *testing.T) {
	var seen []int
	var mu sync.Mutex
	srv := NewServer(t, func(req openai.ChatCompletionRequest, call int) Reply {
		mu.Lock()
		seen = append(seen, call)
		mu.Unlock()
		return Reply{Content: "echo " + req.Messages[0].Content}
	})
	for _, q := range []string{"first", "second"} {
		resp := post(t, srv, streamBody(q))
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	if srv.Calls() != 2 || !reflect.DeepEqual(seen, []int{0, 1}) {
		t.Errorf("Calls() = %d, handler calls %v", srv.Calls(), seen)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Messages[0].Content != "first" || reqs[1].Messages[0].Content != "second" ||
		!reqs[0].Stream || reqs[0].StreamOptions == nil || !reqs[0].StreamOptions.IncludeUsage {
		t.Fatalf("Requests() = %+v", reqs)
	}
	reqs[0].Messages[0].Content = "changed"
	if got := srv.Requests()[0].Messages[0].Content; got != "first" {
		t.Errorf("changing a returned request changed the record: %q", got)
	}
}

func TestClosedServerRefusesConnections(t *testing.T) {
	srv := NewServer(t, Script())
	srv.Close()
	if resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader("{}")); err == nil {
		_ = resp.Body.Close()
		t.Errorf("request to a closed server succeeded with %d", resp.StatusCode)
	}
}

func TestRouting(t *testing.T) {
	req := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: "You are search_agent."},
		{Role: "user", Content: "find papers"},
		{Role: "assistant", Content: "calling a tool"},
		{Role: "user", Content: "now crawl"},
	}}
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"last user message matches", LastUserContains(req, "crawl"), true},
		{"earlier user message does not count", LastUserContains(req, "papers"), false},
		{"assistant text does not count", LastUserContains(req, "tool"), false},
		{"no user message", LastUserContains(openai.ChatCompletionRequest{}, ""), false},
		{"system matches", SystemContains(req, "search_agent"), true},
		{"system does not match", SystemContains(req, "crawl_agent"), false},
		{"user text is not system", SystemContains(req, "papers"), false},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v", tt.name, tt.got)
		}
	}
}

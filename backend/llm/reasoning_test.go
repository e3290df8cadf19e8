package llm_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

// TestReasoningFields: reasoning arrives in whichever field the server uses, apart from
// the answer, and text a server repeats in two fields of one delta counts once. The
// streams are written out here (the recorded ones are in TestRecordedStreams).
func TestReasoningFields(t *testing.T) {
	delta := func(d string) string {
		return `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + d + `,"finish_reason":null}]}` + "\n\n"
	}
	end := `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	tests := []struct {
		name                     string
		body                     string
		wantReasoning, wantReply string
	}{
		{"reasoning_content", delta(`{"reasoning_content":"a"}`) + delta(`{"content":"b"}`), "a", "b"},
		{"reasoning", delta(`{"reasoning":"a","content":""}`) + delta(`{"content":"b","reasoning":null}`), "a", "b"},
		{
			"reasoning_details only: text and summary kept, encrypted skipped",
			delta(`{"reasoning_details":[{"type":"reasoning.summary","summary":"plan. ","index":0}]}`) +
				delta(`{"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAB..."},{"type":"reasoning.text","text":"step","signature":"s"}]}`) +
				delta(`{"content":"b"}`),
			"plan. step", "b",
		},
		{"reasoning and reasoning_details with the same text", delta(`{"reasoning":"a","reasoning_details":[{"type":"reasoning.text","text":"a"}]}`) + delta(`{"content":"b"}`), "a", "b"},
		{"reasoning_content and reasoning with the same text", delta(`{"reasoning_content":"a","reasoning":"a"}`) + delta(`{"content":"b"}`), "a", "b"},
		{"think tags split across chunks", delta(`{"content":"<thi"}`) + delta(`{"content":"nk>a</th"}`) + delta(`{"content":"ink>b"}`), "a", "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Replay(t, &llmtest.Replayed{ContentType: "text/event-stream", Body: []byte(tt.body + end)})
			h := newHarness(t, srv.URL(), nil)
			var c consumer
			got, err := h.client.Stream(context.Background(), userRequest("hello"), c.onDelta)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if got.Reasoning != tt.wantReasoning || got.Content != tt.wantReply {
				t.Errorf("reasoning %q, content %q; want %q, %q", got.Reasoning, got.Content, tt.wantReasoning, tt.wantReply)
			}
			if c.reasoning.String() != tt.wantReasoning || c.content.String() != tt.wantReply {
				t.Errorf("deltas: reasoning %q, content %q; want %q, %q", c.reasoning.String(), c.content.String(), tt.wantReasoning, tt.wantReply)
			}
		})
	}
}

// TestReasoningSentBackOnlyWithToolCalls: an assistant message's reasoning goes back as
// "reasoning_content" only on a message with tool calls (DeepSeek's thinking mode refuses
// a tool-call turn without it), never on other messages.
func TestReasoningSentBackOnlyWithToolCalls(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Content: "ok"}))
	h := newHarness(t, srv.URL(), nil)
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "q1", ReasoningContent: "not mine"},
		{Role: llm.RoleAssistant, Content: "a1", ReasoningContent: "answered without tools"},
		{Role: llm.RoleUser, Content: "q2"},
		{Role: llm.RoleAssistant, ReasoningContent: "I should search",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_search", Arguments: `{"query":"x"}`}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: "results", ReasoningContent: "not mine either"},
	}}
	if _, err := h.client.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(srv.Bodies()[0], &body); err != nil {
		t.Fatal(err)
	}
	for i, m := range body.Messages {
		got, has := m["reasoning_content"]
		if want := i == 3; has != want || want && got != "I should search" {
			t.Errorf("message %d (%v): reasoning_content %v, sent %v; want sent only on the tool-call turn", i, m["role"], got, has)
		}
	}
}

// TestResponseReasoningContent: the reply says which reasoning came as
// "reasoning_content" (to be sent back), apart from reasoning in other fields.
func TestResponseReasoningContent(t *testing.T) {
	for _, tc := range []struct {
		file string
		want bool
	}{{"deepseek-tool-call.sse", true}, {"groq-gpt-oss-reasoning.sse", false}, {"openrouter-qwen3.5-reasoning.sse", false}} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "recorded", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			srv := llmtest.Replay(t, &llmtest.Replayed{ContentType: "text/event-stream", Body: body})
			got, err := newHarness(t, srv.URL(), nil).client.Stream(context.Background(), userRequest("hello"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Reasoning == "" || (got.ReasoningContent == got.Reasoning) != tc.want || !tc.want && got.ReasoningContent != "" {
				t.Errorf("reasoning %d bytes, reasoning_content %d bytes; want reasoning_content = reasoning: %v", len(got.Reasoning), len(got.ReasoningContent), tc.want)
			}
		})
	}
}

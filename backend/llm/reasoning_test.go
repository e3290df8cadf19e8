package llm_test

import (
	"context"
	"testing"

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

package llmfake

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
)

func TestStream(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name       string
		reply      Reply
		wantDeltas []llm.Delta
		wantResp   llm.Response
		wantErr    error
	}{
		{"content", Reply{Content: "hello"}, []llm.Delta{{Content: "hello"}},
			llm.Response{Content: "hello", FinishReason: "stop", Model: "fake"}, nil},
		{"chunks and reasoning", Reply{Reasoning: "hmm", Content: "abcde", ChunkSize: 2, Usage: events.Usage{PromptTokens: 3}},
			[]llm.Delta{{Reasoning: "hm"}, {Reasoning: "m"}, {Content: "ab"}, {Content: "cd"}, {Content: "e"}},
			llm.Response{Reasoning: "hmm", Content: "abcde", FinishReason: "stop", Model: "fake", Usage: events.Usage{PromptTokens: 3}}, nil},
		{"tool call", Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t", Arguments: "{}"}}}, nil,
			llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t", Arguments: "{}"}}, FinishReason: "tool_calls", Model: "fake"}, nil},
		{"error after content", Reply{Content: "par", Err: boom}, []llm.Delta{{Content: "par"}},
			llm.Response{Content: "par", Model: "fake"}, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Script(tt.reply)
			var got []llm.Delta
			resp, err := m.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}, func(d llm.Delta) { got = append(got, d) })
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.wantDeltas) {
				t.Errorf("deltas = %+v, want %+v", got, tt.wantDeltas)
			}
			if !reflect.DeepEqual(resp, tt.wantResp) {
				t.Errorf("resp = %+v, want %+v", resp, tt.wantResp)
			}
			if reqs := m.Requests(); len(reqs) != 1 || reqs[0].Messages[0].Content != "q" {
				t.Errorf("requests = %+v", reqs)
			}
		})
	}
}

func TestScriptExhausted(t *testing.T) {
	m := Script(Reply{Content: "one"})
	if _, err := m.Stream(context.Background(), llm.Request{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stream(context.Background(), llm.Request{}, nil); !errors.Is(err, ErrScriptExhausted) {
		t.Fatalf("second call = %v, want ErrScriptExhausted", err)
	}
}

func TestBlockHonoursCancel(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		wantDeltas int
	}{
		{"before headers", Reply{Content: "x", Block: make(chan struct{})}, 0},
		{"mid stream", Reply{Content: "abc", ChunkSize: 1, BlockAfter: make(chan struct{})}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			n := 0
			m := Script(tt.reply)
			done := make(chan error, 1)
			first := make(chan struct{}, 1)
			go func() {
				_, err := m.Stream(ctx, llm.Request{}, func(llm.Delta) { n++; first <- struct{}{} })
				done <- err
			}()
			if tt.wantDeltas > 0 {
				<-first
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if n != tt.wantDeltas {
				t.Errorf("deltas = %d, want %d", n, tt.wantDeltas)
			}
		})
	}
}

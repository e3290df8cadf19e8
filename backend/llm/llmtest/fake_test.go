package llmtest

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm"
)

// TestFakeMatchesTheWire: for each reply, the Fake hands the handler the request the
// server decodes and returns the Response (and the deltas) the client assembles from the
// server's stream. A Fake that drifts from the wire makes engine tests pass on behaviour
// the real client does not have.
func TestFakeMatchesTheWire(t *testing.T) {
	zero, half := float32(0), float32(0.5)
	req := llm.Request{
		Messages: []llm.Message{
			{Role: "system", Content: "You are lead_agent."},
			{Role: "user", Content: "How far is the Moon? 月球有多远？"},
			{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_search", Arguments: `{"query":"moon"}`}}},
			{Role: "tool", ToolCallID: "c1", Content: "[1] Moon facts"},
		},
		Tools:    []llm.ToolDef{{Name: "web_search", Description: "search", Parameters: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}}}},
		Sampling: llm.Sampling{Temperature: &zero, TopP: &half, MaxTokens: 300},
	}
	usage := Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18}
	tests := []struct {
		name  string
		reply Reply
		model string
	}{
		{"content", Reply{Content: "The Moon is 384,400 km away [1]."}, ""},
		{"reasoning and content, chunk 3", Reply{Reasoning: "think about 月球", Content: "384,400 km", ChunkSize: 3}, ""},
		{"tool calls named and unnamed", Reply{Content: "Let me look.", ToolCalls: []ToolCall{
			{ID: "a", Name: "web_fetch", Arguments: `{"url":"https://example.org/moon"}`},
			{Name: "web_search", Arguments: `{"query":"月球 距离"}`},
		}}, ""},
		{"interleaved tool calls", Reply{InterleaveToolCalls: true, ToolCalls: []ToolCall{
			{ID: "x", Name: "a", Arguments: `{"k":"0123456789"}`}, {ID: "y", Name: "b", Arguments: `{"k":"abcdefghij"}`},
		}}, ""},
		{"explicit usage and finish", Reply{Content: "cut", FinishReason: "length", Usage: &usage}, ""},
		{"empty answer", Reply{}, ""},
		{"model named in the request", Reply{Content: "ok"}, "other-model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req
			r.Model = tt.model
			var mu sync.Mutex
			var seen []openai.ChatCompletionRequest
			h := func(q openai.ChatCompletionRequest, _ int) Reply {
				mu.Lock()
				seen = append(seen, q)
				mu.Unlock()
				return tt.reply
			}
			srv := NewServer(t, h)
			client, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", RetryDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			fake := NewFake(t, "m", h)
			wireResp, wireDeltas := play(t, client, r)
			fakeResp, fakeDeltas := play(t, fake, r)
			if !reflect.DeepEqual(fakeResp, wireResp) {
				t.Errorf("Response:\nfake %+v\nwire %+v", fakeResp, wireResp)
			}
			if !reflect.DeepEqual(fakeDeltas, wireDeltas) {
				t.Errorf("deltas:\nfake %q\nwire %q", fakeDeltas, wireDeltas)
			}
			if len(seen) != 2 || !reflect.DeepEqual(seen[1], seen[0]) {
				t.Fatalf("the handler saw different requests:\nfake %+v\nwire %+v", seen[1:], seen[:1])
			}
			if got := fake.Requests(); fake.Calls() != 1 || !reflect.DeepEqual(got[0], srv.Requests()[0]) {
				t.Errorf("Fake.Requests = %+v, want the server's %+v", got, srv.Requests())
			}
		})
	}
}

// play streams req through m and returns the Response and the deltas as "r:" / "c:" text.
func play(t *testing.T, m llm.Model, req llm.Request) (llm.Response, []string) {
	t.Helper()
	var deltas []string
	resp, err := m.Stream(context.Background(), req, func(d llm.Delta) {
		if d.Reasoning != "" {
			deltas = append(deltas, "r:"+d.Reasoning)
		}
		if d.Content != "" {
			deltas = append(deltas, "c:"+d.Content)
		}
	})
	if err != nil {
		t.Fatalf("%T.Stream: %v", m, err)
	}
	return resp, deltas
}

// TestFakeRefusesWhatOnlyTheWireCanPlay: a reply the Fake cannot reproduce (an HTTP
// status, a broken, slow or endless stream, a <think> block the client would split, a call
// beyond the script) fails the test and the call, so a test never passes on an imitation.
func TestFakeRefusesWhatOnlyTheWireCanPlay(t *testing.T) {
	tests := []struct {
		name  string
		reply Reply
		want  string
	}{
		{"status", Reply{Status: 429}, "Status 429"},
		{"break", Reply{Content: "abc", BreakAfter: 2}, "BreakAfter"},
		{"delay", Reply{Content: "abc", Delay: time.Millisecond}, "Delay"},
		{"no choices", Reply{NoChoices: true}, "NoChoices"},
		{"hang", Reply{Hang: HangMidStream}, "Hang"},
		{"flood", Reply{Flood: FloodContent}, "Flood"},
		{"think", Reply{Content: "<think>x</think>answer"}, "<think>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			fake := NewFake(rec, "m", Script(tt.reply))
			_, err := fake.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}}, nil)
			if !errors.Is(err, llm.ErrUnavailable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Stream error = %v, want ErrUnavailable naming %q", err, tt.want)
			}
			if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "NewServer") {
				t.Errorf("test errors = %q, want one pointing at NewServer", rec.errs)
			}
		})
	}
	t.Run("beyond the script", func(t *testing.T) {
		rec := &recordingTB{TB: t}
		fake := NewFake(rec, "m", Script(Reply{Content: "one"}))
		q := llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}}
		if _, err := fake.Stream(context.Background(), q, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := fake.Stream(context.Background(), q, nil); err == nil || len(rec.errs) != 1 {
			t.Errorf("second call: err %v, test errors %q", err, rec.errs)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		fake := NewFake(t, "m", Script(Reply{Content: "one"}))
		if _, err := fake.Stream(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}}, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("Stream on a cancelled context = %v", err)
		}
	})
}

package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm"
)

// Fake is an in-memory llm.Model that answers from the same Handler as Server, without
// HTTP (issue 11, item 3: engine tests should not pay for the wire in every case). The
// handler sees the request as the server would decode it (llm.WireRequest), and a reply is
// played back as the client would assemble it from the server's stream: reasoning, then
// content in chunks of ChunkSize runes (DefaultChunkSize when 0) through onDelta, tool
// calls, the finish reason ("tool_calls" or "stop" when empty), and Usage (the server's
// fake count when nil).
//
// A reply that only the wire can play fails the test (t.Errorf) and the call (an error
// wrapping llm.ErrUnavailable): a non-200 Status, BreakAfter, Delay, NoChoices, Hang,
// Flood, content with a <think> block (the client splits it), a call beyond a Script. Such
// tests use NewServer. Fake is safe for concurrent use.
type Fake struct {
	t     testing.TB
	h     Handler
	model string

	mu   sync.Mutex
	reqs []openai.ChatCompletionRequest
}

var _ llm.Model = (*Fake)(nil)

// NewFake returns a Fake answering with h; model is the model name a request without one
// is sent with (as llm.Config.Model).
func NewFake(t testing.TB, model string, h Handler) *Fake {
	t.Helper()
	if h == nil {
		t.Fatal("llmtest: NewFake with a nil Handler")
	}
	return &Fake{t: t, h: h, model: model}
}

// Requests returns the requests received so far in call order, as the server would have
// decoded them.
func (f *Fake) Requests() []openai.ChatCompletionRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), f.reqs...)
}

// Calls returns how many calls Stream has received.
func (f *Fake) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// Stream implements llm.Model: it converts req with llm.WireRequest, asks the handler for
// the reply and plays it back through onDelta on the calling goroutine. It returns an
// error wrapping ctx.Err() when ctx is done before or while the reply plays, and
// llm.ErrRejected for a request the client would refuse.
func (f *Fake) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	creq, err := llm.WireRequest(f.model, req)
	if err != nil {
		return llm.Response{}, err
	}
	f.mu.Lock()
	call := len(f.reqs)
	f.reqs = append(f.reqs, creq)
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("llmtest: fake call %d: %w", call, err)
	}
	reply := f.h(creq, call)
	if what := wireOnly(reply); what != "" {
		f.t.Errorf("llmtest.Fake: the reply to call %d uses %s, which only the wire can play: run this test against NewServer", call, what)
		return llm.Response{}, fmt.Errorf("llmtest: fake call %d: %s: %w", call, what, llm.ErrUnavailable)
	}
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	n := reply.ChunkSize
	if n <= 0 {
		n = DefaultChunkSize
	}
	// Reply.Reasoning is what the wire sends as reasoning_content (see Reply).
	resp := llm.Response{Model: creq.Model, Reasoning: reply.Reasoning, ReasoningContent: reply.Reasoning, Content: reply.Content}
	for _, part := range []struct {
		text      string
		reasoning bool
	}{{reply.Reasoning, true}, {reply.Content, false}} {
		if part.text == "" {
			continue
		}
		for _, p := range splitRunes(part.text, n) {
			if err := ctx.Err(); err != nil {
				return llm.Response{}, fmt.Errorf("llmtest: fake call %d: %w", call, err)
			}
			if part.reasoning {
				onDelta(llm.Delta{Reasoning: p})
			} else {
				onDelta(llm.Delta{Content: p})
			}
		}
	}
	for i, tc := range reply.ToolCalls {
		id := tc.ID
		if id == "" {
			id = "call_" + strconv.Itoa(i) // as the client names a call the server left unnamed
		}
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: id, Name: tc.Name, Arguments: tc.Arguments})
	}
	resp.FinishReason = reply.FinishReason
	if resp.FinishReason == "" {
		resp.FinishReason = string(openai.FinishReasonStop)
		if len(reply.ToolCalls) > 0 {
			resp.FinishReason = string(openai.FinishReasonToolCalls)
		}
	}
	usage := reply.Usage
	if usage == nil {
		usage = fakeUsage(creq, reply)
	}
	resp.Usage = *usage
	return resp, nil
}

// wireOnly names the first field of reply that Fake cannot play, or "".
func wireOnly(r Reply) string {
	switch {
	case r.unscripted:
		return "no reply (a call beyond the script)"
	case r.Status != 0 && r.Status != http.StatusOK:
		return fmt.Sprintf("Status %d", r.Status)
	case r.BreakAfter > 0:
		return "BreakAfter"
	case r.Delay > 0:
		return "Delay"
	case r.NoChoices:
		return "NoChoices"
	case r.Hang != NoHang:
		return "Hang"
	case r.Flood != NoFlood:
		return "Flood"
	case strings.Contains(r.Content, "<think>"):
		return "a <think> block in Content"
	}
	return ""
}

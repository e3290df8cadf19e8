// Package llmfake is an in-memory llm.Model for tests, modelled on langchaingo's llms/fake:
// each call to Stream asks a handler (or a fixed script) for a Reply and plays it back
// through the same llm.Model interface the engine uses — streamed content and reasoning
// deltas, native tool calls, usage, and errors — without HTTP, sockets or timers.
//
// Use it wherever the HTTP wire is not what a test is about; the wire itself is tested
// in package llm against llmtest's httptest server.
package llmfake

import (
	"context"
	"fmt"
	"sync"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
)

// Reply is one scripted answer to one Stream call.
//   - Content and Reasoning are streamed as deltas (reasoning first), split into pieces of
//     ChunkSize bytes (0: one delta each), and returned assembled in the Response.
//   - ToolCalls are returned in the Response (native mode); FinishReason is "tool_calls"
//     when there are any, else "stop", unless FinishReason is set.
//   - Usage is returned as is (token counts).
//   - Err, when set, is returned after the deltas, with the Response assembled so far.
//   - Block, when non-nil, holds the call before any delta until it is closed or ctx is
//     done; on ctx done Stream returns ctx.Err() (wrapped with %w).
//   - BlockAfter, when non-nil, holds the call after the first delta the same way (a
//     reply that goes silent mid-stream).
type Reply struct {
	Content      string
	Reasoning    string
	ToolCalls    []llm.ToolCall
	Usage        events.Usage
	FinishReason string
	ChunkSize    int
	Err          error
	Block        <-chan struct{}
	BlockAfter   <-chan struct{}
}

// Handler answers the call-th Stream call (0-based, counted across all callers of one
// Model) for req. It may be called from several goroutines at once.
type Handler func(req llm.Request, call int) Reply

// ErrScriptExhausted is returned by a Model built with Script when it is called more
// times than it has replies.
var ErrScriptExhausted = fmt.Errorf("llmfake: script exhausted")

// Model is an llm.Model that answers from a Handler. It records every request it is given
// (Requests). The zero value is not usable; build one with New or Script.
type Model struct {
	h    Handler
	mu   sync.Mutex
	reqs []llm.Request
}

var _ llm.Model = (*Model)(nil)

// New returns a Model that answers each call with h.
func New(h Handler) *Model { return &Model{h: h} }

// Script returns a Model that answers the i-th call with replies[i], and with
// ErrScriptExhausted once they run out.
func Script(replies ...Reply) *Model {
	return New(func(_ llm.Request, call int) Reply {
		if call >= len(replies) {
			return Reply{Err: ErrScriptExhausted}
		}
		return replies[call]
	})
}

// Requests returns a copy of the requests received so far, in call order.
func (m *Model) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.reqs...)
}

// Calls returns how many times Stream has been called.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reqs)
}

// Stream implements llm.Model: it records req, asks the handler for a Reply and plays it
// back through onDelta on the calling goroutine. It returns ctx.Err() (wrapped) if ctx is
// done before the reply starts or while it is blocked.
func (m *Model) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	m.mu.Lock()
	call := len(m.reqs)
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return llm.Response{}, fmt.Errorf("llmfake: %w", err)
	}
	r := m.h(req, call)
	if err := wait(ctx, r.Block); err != nil {
		return llm.Response{}, err
	}
	model := req.Model
	if model == "" {
		model = "fake"
	}
	resp := llm.Response{Model: model, Usage: r.Usage}
	sent := 0
	emit := func(d llm.Delta) error {
		if onDelta != nil {
			onDelta(d)
		}
		sent++
		if sent == 1 {
			return wait(ctx, r.BlockAfter)
		}
		return nil
	}
	for _, p := range chunks(r.Reasoning, r.ChunkSize) {
		resp.Reasoning += p
		if err := emit(llm.Delta{Reasoning: p}); err != nil {
			return resp, err
		}
	}
	for _, p := range chunks(r.Content, r.ChunkSize) {
		resp.Content += p
		if err := emit(llm.Delta{Content: p}); err != nil {
			return resp, err
		}
	}
	if r.Err != nil {
		return resp, r.Err
	}
	resp.ToolCalls = append([]llm.ToolCall(nil), r.ToolCalls...)
	resp.FinishReason = r.FinishReason
	if resp.FinishReason == "" {
		resp.FinishReason = "stop"
		if len(resp.ToolCalls) > 0 {
			resp.FinishReason = "tool_calls"
		}
	}
	return resp, nil
}

// wait blocks until ch is closed or ctx is done; a nil ch does not block.
func wait(ctx context.Context, ch <-chan struct{}) error {
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("llmfake: %w", ctx.Err())
	}
}

// chunks splits s into pieces of n bytes (n <= 0: one piece); "" gives none.
func chunks(s string, n int) []string {
	if s == "" {
		return nil
	}
	if n <= 0 || n >= len(s) {
		return []string{s}
	}
	out := make([]string, 0, (len(s)+n-1)/n)
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"artifactflow/backend/llm"
	"artifactflow/backend/tokens"
)

// TestRawCountMatchesCounter: the engine's memoized count equals tokens.Counter's own, for
// fresh and already-seen messages, and its estimate applies the same correction.
func TestRawCountMatchesCounter(t *testing.T) {
	c, err := tokens.NewCounter("gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	c.Observe(100, 130)
	long := strings.Repeat("a long tool result with words, ", 40)
	tests := []struct {
		name  string
		msgs  []llm.Message
		extra string
	}{
		{"empty", nil, ""},
		{"one user", []llm.Message{{Role: llm.RoleUser, Content: "hello there"}}, ""},
		{"tools", []llm.Message{
			{Role: llm.RoleSystem, Content: "You are lead"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "create_artifact", Arguments: `{"id":"x"}`}}},
			{Role: llm.RoleTool, ToolCallID: "1", Content: long},
		}, `[{"name":"t"}]`},
		{"same content twice", []llm.Message{{Role: llm.RoleUser, Content: "again"}, {Role: llm.RoleUser, Content: "again"}}, long},
	}
	am := &agentModel{counter: c}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for pass := range 2 { // the second pass reads the memo
				want, _ := c.RawContext(context.Background(), tt.msgs, tt.extra)
				got, err := am.raw(context.Background(), tt.msgs, tt.extra)
				if err != nil || got != want {
					t.Fatalf("pass %d: raw = %d, %v; want %d", pass, got, err, want)
				}
				wantEst, _ := c.EstimateContext(context.Background(), tt.msgs, tt.extra)
				if est, _ := am.estimate(context.Background(), tt.msgs, tt.extra); est != wantEst {
					t.Fatalf("pass %d: estimate = %d, want %d", pass, est, wantEst)
				}
			}
		})
	}
}

// TestRawCountsOnlyNewMessages: re-counting a 50-message history already seen costs no
// tokenizer work, which shows as (almost) no allocations; counting it from scratch through
// tokens.Counter allocates for every message.
func TestRawCountsOnlyNewMessages(t *testing.T) {
	c, err := tokens.NewCounter("gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	var msgs []llm.Message
	for i := range 50 {
		msgs = append(msgs, llm.Message{Role: llm.RoleTool, Content: fmt.Sprintf("result %d: - [x] step %d", i, i)})
	}
	am := &agentModel{counter: c}
	if _, err := am.raw(context.Background(), msgs, ""); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(10, func() { _, _ = am.raw(context.Background(), msgs, "") })
	if allocs > 5 {
		t.Fatalf("re-counting a seen history: %.0f allocations, want at most 5 (it is being re-tokenized)", allocs)
	}
}

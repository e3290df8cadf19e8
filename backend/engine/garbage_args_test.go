package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmfake"
)

// TestGarbageToolArguments: a native tool call whose arguments are not JSON, truncated
// JSON, a JSON array or a JSON number goes back to the model as a failed tool result
// saying what is wrong and what to send, echoed in the assistant message as valid JSON
// that still shows the text; the run goes on to the model's final answer and loses
// nothing: the artifact made before the garbage call is kept, and tool_start records the
// text the model sent.
func TestGarbageToolArguments(t *testing.T) {
	tests := []struct {
		name, args string
		wantErr    string // in the tool result
	}{
		{"not JSON", "id=notes, content=hello", "are not valid JSON"},
		{"truncated JSON", `{"id": "notes", "content_type": "markdown", "title": "N", "content": "hel`, "are not valid JSON"},
		{"a JSON array", `["notes", "markdown", "N", "hello"]`, "must be a JSON object, not an array"},
		{"a JSON number", `42`, "must be a JSON object, not a number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			good := `{"id": "plan", "content_type": "markdown", "title": "Plan", "content": "- [ ] step"}`
			e, db, rec, m := newFakeEngine(t, func(_ llm.Request, call int) llmfake.Reply {
				switch call {
				case 0:
					return llmfake.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "create_artifact", Arguments: good}}}
				case 1:
					return llmfake.Reply{ToolCalls: []llm.ToolCall{{ID: "c2", Name: "create_artifact", Arguments: tc.args}}}
				default:
					return llmfake.Reply{Content: "Done despite the bad call."}
				}
			})
			ctx := context.Background()
			res, err := e.Ask(ctx, Request{Content: "make notes"})
			if err != nil || res.Status != events.Complete || res.Response != "Done despite the bad call." {
				t.Fatalf("run = %+v, %v; want complete with the final answer", res, err)
			}
			reqs := m.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model calls, want 3", len(reqs))
			}
			// The third call's history: the garbage call echoed as valid JSON, and its failed result.
			var echoed *llm.ToolCall
			var result string
			for _, msg := range reqs[2].Messages {
				for i, c := range msg.ToolCalls {
					if c.ID == "c2" {
						echoed = &msg.ToolCalls[i]
					}
				}
				if msg.Role == llm.RoleTool && msg.ToolCallID == "c2" {
					result = msg.Content
				}
			}
			if echoed == nil || !json.Valid([]byte(echoed.Arguments)) || !strings.Contains(echoed.Arguments, strings.Trim(tc.args, `"`)[:2]) {
				t.Errorf("the garbage call is echoed as %+v; want valid JSON showing the model's text", echoed)
			}
			if !strings.HasPrefix(result, "Error: could not read your call to create_artifact") || !strings.Contains(result, tc.wantErr) ||
				!strings.Contains(result, "send one JSON object like") {
				t.Errorf("tool result = %q; want the failure saying %q and what to send", result, tc.wantErr)
			}
			// Events: tool_start keeps the model's text; tool_complete failed.
			var start events.DataToolStart
			var done events.DataToolComplete
			rec.mu.Lock()
			for _, ev := range rec.evs {
				switch ev.Type {
				case events.ToolStart:
					var d events.DataToolStart
					if json.Unmarshal(ev.Data, &d) == nil && d.CallID == "c2" {
						start = d
					}
				case events.ToolComplete:
					var d events.DataToolComplete
					if json.Unmarshal(ev.Data, &d) == nil && d.CallID == "c2" {
						done = d
					}
				}
			}
			rec.mu.Unlock()
			want, raw := tc.args, ""
			if json.Unmarshal(start.Params, &raw) != nil { // valid JSON is kept as JSON (compacted)
				raw = string(start.Params)
				var b bytes.Buffer
				if json.Compact(&b, []byte(tc.args)) == nil {
					want = b.String()
				}
			}
			if raw != want {
				t.Errorf("tool_start params = %s; want the model's text %q", start.Params, tc.args)
			}
			if done.Success || !strings.Contains(done.Error, tc.wantErr) {
				t.Errorf("tool_complete = %+v; want a failure saying %q", done, tc.wantErr)
			}
			if a, err := db.GetArtifact(ctx, res.ConversationID, "plan"); err != nil || !strings.Contains(a.Content, "step") {
				t.Errorf("the artifact made before the bad call: %+v, %v", a, err)
			}
			if _, err := db.GetArtifact(ctx, res.ConversationID, "notes"); err == nil {
				t.Error("the garbage call created an artifact")
			}
		})
	}
}

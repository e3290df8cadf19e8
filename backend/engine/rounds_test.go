package engine

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// TestOneToolCallPerRound: a reply with two tool calls runs only the first (seed 001, one
// tool call per agent round): one tool_start, one artifact; the model is told in the tool
// results that the second was not executed, both in the round that follows and in the
// history the next run rebuilds from events. Native: the second call id gets a "not
// executed" tool message. XML: a failed <tool_result> for the ignored call follows the
// executed one, where extra calls used to be dropped silently.
func TestOneToolCallPerRound(t *testing.T) {
	first := map[string]string{"id": "first", "content_type": "markdown", "title": "First", "content": "one"}
	second := map[string]string{"id": "second", "content_type": "markdown", "title": "Second", "content": "two"}
	args := func(m map[string]string) string { b, _ := json.Marshal(m); return string(b) }
	tests := []struct {
		mode toolcall.Mode
		// reply is the lead's first reply, with two calls.
		reply llmtest.Reply
		// told returns the text of req that answers the first reply's calls.
		told func(req openai.ChatCompletionRequest) string
		want []string
	}{
		{toolcall.ModeNative,
			llmtest.Reply{ToolCalls: []llmtest.ToolCall{
				{ID: "call_a", Name: "create_artifact", Arguments: args(first)},
				{ID: "call_b", Name: "create_artifact", Arguments: args(second)}}},
			func(req openai.ChatCompletionRequest) string {
				var out []string
				for _, m := range req.Messages {
					if m.Role == openai.ChatMessageRoleTool {
						out = append(out, m.ToolCallID+"="+m.Content)
					}
				}
				return strings.Join(out, "\n")
			},
			[]string{"call_a=<artifact version=\"1\"><id>first</id>", "call_b=Error: not executed: only one tool call is executed per message"}},
		{toolcall.ModeXML,
			llmtest.Reply{Content: "Two at once.\n" + toolcall.FormatXMLCall("create_artifact", first) + "\n" + toolcall.FormatXMLCall("create_artifact", second)},
			func(req openai.ChatCompletionRequest) string {
				for _, m := range req.Messages {
					if m.Role == openai.ChatMessageRoleUser && strings.Contains(m.Content, "<tool_result") {
						return m.Content
					}
				}
				return ""
			},
			[]string{"<tool_result name=\"create_artifact\" success=\"true\">", "<id>first</id>",
				"<tool_result name=\"create_artifact\" success=\"false\">", "not executed: only one tool call is executed per message"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			var leadCalls atomic.Int64
			e, db, rec, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if leadCalls.Add(1) == 1 {
					return tt.reply
				}
				return llmtest.Reply{Content: "answer"}
			}, func(d *Deps) { d.Mode = tt.mode })
			ctx := context.Background()
			res, err := e.Ask(ctx, Request{Content: "make two"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %v %+v", err, res)
			}
			if n := countType(rec.types(), events.ToolStart); n != 1 || res.Steps != 1 {
				t.Fatalf("tool_start events %d, steps %d: want exactly one execution", n, res.Steps)
			}
			as, err := db.ListArtifacts(ctx, res.ConversationID)
			if err != nil || len(as) != 1 || as[0].ID != "first" {
				t.Fatalf("artifacts = %+v, %v; want only the first call's", as, err)
			}
			if _, err := e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "next"}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			live, rebuilt := tt.told(reqs[1]), tt.told(reqs[2])
			for _, w := range tt.want {
				if !strings.Contains(live, w) {
					t.Errorf("the round after two calls lacks %q in:\n%s", w, live)
				}
			}
			if live != rebuilt {
				t.Errorf("the next run's history tells the model something else:\nlive:    %q\nrebuilt: %q", live, rebuilt)
			}
		})
	}
}

// TestPathEventsOneQuery: a path's events are read in one query (store.PathEvents); they
// must be exactly what one query per message gives, in seq order, without the events of
// sibling branches whose seqs interleave with the path's, and the lead's history built from
// them must hold no off-path message.
func TestPathEventsOneQuery(t *testing.T) {
	ctx := context.Background()
	e, db, _, _ := newEngine(t, func(openai.ChatCompletionRequest, int) llmtest.Reply { return llmtest.Reply{Content: "x"} })
	const messages = 70
	last := seedChain(t, db, messages, 2, 5)
	path, err := db.MessagePath(ctx, "c", last)
	if err != nil || len(path) != messages {
		t.Fatalf("path: %d messages, %v", len(path), err)
	}
	var want []events.Event
	ids := make([]string, len(path))
	for i, m := range path {
		ids[i] = m.ID
		evs, err := db.ListEvents(ctx, store.EventQuery{ConversationID: "c", MessageID: m.ID})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, evs...)
	}
	got, err := db.PathEvents(ctx, "c", ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PathEvents gave %d events, one query per message %d", len(got), len(want))
	}
	all, _ := db.ListEvents(ctx, store.EventQuery{ConversationID: "c"})
	if len(all) <= len(got) {
		t.Fatalf("the fixture has no off-path events (%d of %d on the path)", len(got), len(all))
	}
	hist, err := e.history(ctx, "c", last, "lead_agent", toolcall.ModeNative)
	if err != nil || len(hist) != messages*6 {
		t.Fatalf("history: %d messages, want %d, %v", len(hist), messages*6, err)
	}
	for i, m := range hist {
		if strings.Contains(m.Content, " b0") {
			t.Fatalf("history message %d comes from a sibling branch: %q", i, m.Content)
		}
	}
	if hist[0].Content != "question m0000" || hist[len(hist)-1].Content != "answer "+last {
		t.Fatalf("history runs from %q to %q", hist[0].Content, hist[len(hist)-1].Content)
	}
}

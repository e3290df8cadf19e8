package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/tokens"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/web"
)

// pageFetch answers each URL with its page from pages.
type pageFetch map[string]string

func (p pageFetch) Fetch(_ context.Context, u string) (web.Page, error) {
	c, ok := p[u]
	if !ok {
		return web.Page{}, fmt.Errorf("no page at %s", u)
	}
	return web.Page{URL: u, Title: "Page", Content: c, ContentType: "text/html"}, nil
}

// page returns a page of about tokens tokens whose every sentence names word, so its
// text is told apart from the other pages'.
func page(word string, tokens int) string {
	return strings.Repeat("The "+word+" station logged one more laser echo from the Moon. ", tokens/12)
}

// fetchCall is a reply calling web_fetch on u, in mode.
func fetchCall(mode toolcall.Mode, id, u string) llmtest.Reply {
	if mode == toolcall.ModeXML {
		return llmtest.Reply{Content: "Fetching.\n" + toolcall.FormatXMLCall("web_fetch", map[string]string{"url": u})}
	}
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: "web_fetch", Arguments: `{"url":"` + u + `"}`}}}
}

// TestCompactionKeepsTheWorkInHand: a crawl agent fetches two pages, and the second
// brings its context past the threshold, so it is compacted before its next call. That
// next request (as the scripted model receives it) still holds the agent's instruction
// verbatim and, when the latest page fits in keptShare of the window, that page with its
// tool call, paired as the API requires; a page larger than keptShare of the window is not
// kept (the summary covers it) and neither is anything before it. The summarizer saw both
// pages. The history rebuilt from the stored events after the run (what a later call of
// the agent sees) is the compacted context the live run used, followed by its answer.
func TestCompactionKeepsTheWorkInHand(t *testing.T) {
	const (
		window      = 4000 // tokens; threshold 3,200, keptShare 1,000
		instruction = "Read https://a.example/ranging and https://b.example/ranging and report the echo counts of each station."
	)
	for _, mode := range []toolcall.Mode{toolcall.ModeNative, toolcall.ModeXML} {
		for _, tc := range []struct {
			name         string
			first, last  int // page sizes, tokens
			wantLastKept bool
		}{
			// 2,200 + 750 (+ the system prompt, ~370 tokens native) pass the threshold; the
			// round of the 750-token page (with its call and the source line, ~830 in xml
			// mode) fits in the 1,000 left after the instruction.
			{"latest page fits", 2200, 750, true},
			// 900 + 2,000: the latest page is larger than a quarter of the window.
			{"latest page too large", 900, 2000, false},
		} {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				pages := pageFetch{"https://a.example/ranging": page("Apache", tc.first), "https://b.example/ranging": page("Bishop", tc.last)}
				var crawlCalls atomic.Int64
				var mu sync.Mutex
				var crawlReqs []openai.ChatCompletionRequest
				e, db, _, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
					switch {
					case isCompaction(req):
						return llmtest.Reply{Content: summaryText}
					case isAgent(req, "crawl_agent"):
						mu.Lock()
						crawlReqs = append(crawlReqs, req)
						mu.Unlock()
						switch crawlCalls.Add(1) {
						case 1:
							return fetchCall(mode, "c_fetch_a", "https://a.example/ranging")
						case 2:
							return fetchCall(mode, "c_fetch_b", "https://b.example/ranging")
						default:
							return llmtest.Reply{Content: "Apache: 42 echoes; Bishop: 17 echoes."}
						}
					}
					if len(req.Messages) == 2 {
						if mode == toolcall.ModeXML {
							return llmtest.Reply{Content: toolcall.FormatXMLCall("call_subagent", map[string]string{"agent_name": "crawl_agent", "instruction": instruction})}
						}
						return call("call_subagent", `{"agent_name":"crawl_agent","instruction":`+jsonString(instruction)+`}`)
					}
					return llmtest.Reply{Content: "final"}
				}, func(d *Deps) { d.ContextWindow = window; d.Fetcher = pages; d.Mode = mode })
				ctx := context.Background()
				res, err := e.Ask(ctx, Request{Content: "How many echoes did each station log?"})
				if err != nil || res.Err != nil {
					t.Fatalf("run: %+v %v", res, err)
				}
				compactions, _ := compactionRequests(srv)
				if len(compactions) != 1 || len(crawlReqs) != 3 {
					t.Fatalf("%d compactions, %d crawl_agent calls; want one compaction, before the third call", len(compactions), len(crawlReqs))
				}
				shown := compactions[0].Messages[1].Content
				for _, w := range []string{"The Apache station", "The Bishop station", instruction} {
					if !strings.Contains(shown, w) {
						t.Errorf("the summarizer was not shown %q", w)
					}
				}

				next := crawlReqs[2]
				msgs := next.Messages[1:] // after the system prompt
				if !strings.HasPrefix(msgs[0].Content, summaryPrefix) {
					t.Fatalf("the request after the compaction starts with %.60q, not the summary", msgs[0].Content)
				}
				if len(msgs) < 2 || msgs[1].Role != openai.ChatMessageRoleUser || msgs[1].Content != instruction {
					t.Fatalf("the request after the compaction holds %d messages after the summary, not the instruction verbatim first", len(msgs)-1)
				}
				if msgs[1].Role != openai.ChatMessageRoleUser || msgs[1].Content != instruction {
					t.Errorf("message after the summary = %s %.80q, want the instruction verbatim", msgs[1].Role, msgs[1].Content)
				}
				checkToolPairs(t, msgs)
				var text strings.Builder
				for _, m := range msgs {
					text.WriteString(m.Content)
				}
				if got := strings.Contains(text.String(), pages["https://b.example/ranging"]); got != tc.wantLastKept {
					t.Errorf("the latest page kept verbatim: %v, want %v", got, tc.wantLastKept)
				}
				if strings.Contains(text.String(), "The Apache station") {
					t.Errorf("the page fetched before the latest one is still in the context")
				}
				if !tc.wantLastKept && strings.Contains(text.String(), "The Bishop station") {
					t.Errorf("part of the page larger than the kept share is in the context")
				}
				if want := 2; tc.wantLastKept && len(msgs) != 4 || !tc.wantLastKept && len(msgs) != want {
					t.Errorf("%d messages after the system prompt, want the summary, the instruction%s", len(msgs),
						map[bool]string{true: " and the fetch round", false: ""}[tc.wantLastKept])
				}

				var sum events.DataCompactionSummary
				for _, ev := range userHistory(t, db, res.ConversationID) {
					if ev.Type == events.CompactionSummary {
						sum = decode[events.DataCompactionSummary](t, ev)
					}
				}
				if !sum.Success || sum.Kept != instruction || sum.TokensAfter > 3200 {
					t.Errorf("compaction_summary: success %v, kept %.60q, %d tokens after", sum.Success, sum.Kept, sum.TokensAfter)
				}
				hist, err := e.history(ctx, res.ConversationID, res.MessageID, "crawl_agent", mode)
				if err != nil {
					t.Fatal(err)
				}
				if len(hist) != len(msgs)+1 {
					t.Fatalf("rebuilt history has %d messages, want the %d of the compacted context and the answer", len(hist), len(msgs))
				}
				for i, m := range msgs {
					if !sameMessage(hist[i], m) {
						t.Errorf("rebuilt message %d = %+v\nlive %+v", i, hist[i], m)
					}
				}
				if last := hist[len(hist)-1]; last.Role != llm.RoleAssistant || !strings.Contains(last.Content, "42 echoes") {
					t.Errorf("rebuilt history ends with %+v, want the agent's answer", last)
				}
			})
		}
	}
}

// checkToolPairs fails t unless every tool message follows the assistant message whose
// tool call it answers (after that call's earlier siblings' results) and every native
// tool call has its result: what chat APIs require of a conversation.
func checkToolPairs(t *testing.T, msgs []openai.ChatCompletionMessage) {
	t.Helper()
	var open []string
	for i, m := range msgs {
		switch {
		case m.Role == openai.ChatMessageRoleTool:
			if len(open) == 0 || open[0] != m.ToolCallID {
				t.Errorf("message %d: tool result %q does not follow its call (open calls %v)", i, m.ToolCallID, open)
				continue
			}
			open = open[1:]
		case len(open) > 0:
			t.Errorf("message %d: calls %v left without results", i, open)
			open = nil
		}
		for _, c := range m.ToolCalls {
			open = append(open, c.ID)
		}
	}
	if len(open) > 0 {
		t.Errorf("calls %v left without results at the end", open)
	}
}

// sameMessage reports whether a rebuilt message is the one the model received.
func sameMessage(h llm.Message, m openai.ChatCompletionMessage) bool {
	if h.Role != m.Role || h.Content != m.Content || h.ToolCallID != m.ToolCallID || len(h.ToolCalls) != len(m.ToolCalls) {
		return false
	}
	for i, c := range h.ToolCalls {
		if c.ID != m.ToolCalls[i].ID || c.Name != m.ToolCalls[i].Function.Name || c.Arguments != m.ToolCalls[i].Function.Arguments {
			return false
		}
	}
	return true
}

// TestCompactionInASubagentsFirstRound: a crawl agent called a second time in a run
// carries its first call's work; with the new instruction that passes the threshold before
// its first model call. The compacted request holds the summary and the new instruction
// once, and so does the history rebuilt from the events (the instruction is recorded after
// the compaction that kept it).
func TestCompactionInASubagentsFirstRound(t *testing.T) {
	const first, second = "Read https://a.example/ranging and report its echo count.",
		"Now compare that echo count with the figures of the other stations you know of."
	pages := pageFetch{"https://a.example/ranging": page("Apache", 2600)}
	var crawlCalls, leadCalls atomic.Int64
	var mu sync.Mutex
	var crawlReqs []openai.ChatCompletionRequest
	e, _, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		switch {
		case isCompaction(req):
			return llmtest.Reply{Content: summaryText}
		case isAgent(req, "crawl_agent"):
			mu.Lock()
			crawlReqs = append(crawlReqs, req)
			mu.Unlock()
			if crawlCalls.Add(1) == 1 {
				return fetchCall(toolcall.ModeNative, "c_fetch_a", "https://a.example/ranging")
			}
			return llmtest.Reply{Content: "Apache: 42 echoes."}
		}
		switch leadCalls.Add(1) {
		case 1:
			return call("call_subagent", `{"agent_name":"crawl_agent","instruction":`+jsonString(first)+`}`)
		case 2:
			return call("call_subagent", `{"agent_name":"crawl_agent","instruction":`+jsonString(second+strings.Repeat(" Be thorough.", 300))+`}`)
		}
		return llmtest.Reply{Content: "final"}
	}, func(d *Deps) { d.ContextWindow = 4000; d.Fetcher = pages })
	ctx := context.Background()
	res, err := e.Ask(ctx, Request{Content: "How many echoes?"})
	if err != nil || res.Err != nil {
		t.Fatalf("run: %+v %v", res, err)
	}
	if len(crawlReqs) != 3 {
		t.Fatalf("%d crawl_agent calls, want 3", len(crawlReqs))
	}
	msgs := crawlReqs[2].Messages[1:]
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0].Content, summaryPrefix) || !strings.HasPrefix(msgs[1].Content, second) {
		t.Fatalf("the second call's first request = %d messages (%.40q…); want the summary and the new instruction", len(msgs), msgs[0].Content)
	}
	hist, err := e.history(ctx, res.ConversationID, res.MessageID, "crawl_agent", toolcall.ModeNative)
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	for _, m := range hist {
		if m.Role == llm.RoleUser && strings.HasPrefix(m.Content, second) {
			seen++
		}
	}
	if seen != 1 || len(hist) != 3 || !sameMessage(hist[0], msgs[0]) || !sameMessage(hist[1], msgs[1]) {
		t.Errorf("rebuilt history: %d messages, the instruction %d times; want the summary, the instruction once, the answer", len(hist), seen)
	}
}

// TestPlanKeepKeepsRoundsWhole: what a compaction keeps is whole rounds, newest first
// within the budget (an assistant message with parallel tool calls and all their results
// together), the instructions since the last answer, and never a tool result without its
// call or a call whose results are missing.
func TestPlanKeepKeepsRoundsWhole(t *testing.T) {
	c, err := tokens.NewCounter("m")
	if err != nil {
		t.Fatal(err)
	}
	am := &agentModel{counter: c}
	big := page("Bishop", 600)
	calls := func(ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "web_fetch", Arguments: `{"url":"https://x.example/` + id + `"}`})
		}
		return m
	}
	result := func(id, text string) llm.Message {
		return llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: text}
	}
	user := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
	for _, tc := range []struct {
		name   string
		msgs   []llm.Message
		budget int
		want   []int // indexes of the kept messages
	}{
		{"parallel round kept whole", []llm.Message{user("old question"), {Role: llm.RoleAssistant, Content: "old answer"}, user("task"),
			calls("a"), result("a", big), calls("b", "c"), result("b", "short b"), result("c", "short c")}, 500, []int{2, 5, 6, 7}},
		{"a round over the budget ends the choice", []llm.Message{user("task"), calls("a"), result("a", "short"), calls("b"), result("b", big)},
			300, []int{0}},
		{"a call without all its results is not kept", []llm.Message{user("task"), calls("a", "b"), result("a", "short")}, 1000, []int{0}},
		{"xml rounds", []llm.Message{user("task"), {Role: llm.RoleAssistant, Content: "<tool_call>…</tool_call>"},
			user(`<tool_result name="web_fetch" success="true">` + big + `</tool_result>`),
			{Role: llm.RoleAssistant, Content: "<tool_call>…</tool_call>"}, user(`<tool_result name="web_fetch" success="true">short</tool_result>`),
			user("queued input")}, 200, []int{0, 3, 4, 5}},
		{"an earlier summary is not kept", []llm.Message{user(summaryPrefix + "old"), user("task"), calls("a"), result("a", "x")}, 1000, []int{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planKeep(context.Background(), am, tc.msgs, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for i, u := range p.units {
				if p.keep[i] {
					for j := u.from; j < u.to; j++ {
						got = append(got, j)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("kept messages %v, want %v", got, tc.want)
			}
		})
	}
}

package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/tools"
)

// extraTool is a tool from outside the app, with a JSON Schema of its own.
type extraTool struct {
	name  string
	calls *[]string
	mu    *sync.Mutex
}

func (t extraTool) Name() string        { return t.name }
func (t extraTool) Description() string { return "an extra tool" }
func (t extraTool) Params() []tools.Param {
	return []tools.Param{{Name: "q", Type: "string", Required: true}}
}
func (t extraTool) InputSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "minLength": 2}},
		"required": []any{"q"}}
}
func (t extraTool) Execute(_ context.Context, p map[string]any) tools.Result {
	t.mu.Lock()
	*t.calls = append(*t.calls, t.name)
	t.mu.Unlock()
	return tools.OK("extra " + t.name + " got " + p["q"].(string))
}

// sourceOf is a ToolSource giving one tool at each run's start, offered to agents, with a
// policy.
type sourceOf struct {
	tool   tools.Tool
	agents []string
	policy string
	asked  *[]ToolRequest
}

func (s sourceOf) Tools(_ context.Context, req ToolRequest) ToolSet {
	*s.asked = append(*s.asked, req)
	return ToolSet{Tools: []tools.Tool{s.tool}, Agents: map[string][]string{s.tool.Name(): s.agents},
		Permissions: map[string]string{s.tool.Name(): s.policy}, Warnings: []string{"one server was skipped"}}
}

// TestExtraTools: Deps.ExtraTools are offered to the agents Deps.ExtraToolAgents names (and
// to no other), with their own JSON Schema as the parameters; a ToolSource's tools join
// them at the run's start, told the run's agents, with their permission policies (a
// confirm tool asks, and without an answer it does not run); a tool named like a built-in
// one is left out.
func TestExtraTools(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	var asked []ToolRequest
	offered := map[string][][]string{}
	e, _, rec, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		agent := "lead_agent"
		if isAgent(req, "search_agent") {
			agent = "search_agent"
		}
		var names []string
		for _, td := range req.Tools {
			names = append(names, td.Function.Name)
			if b, _ := json.Marshal(td.Function.Parameters); td.Function.Name == "x__static" && strings.Contains(string(b), `"minLength":2`) {
				names = append(names, "x__static with its schema")
			}
		}
		mu.Lock()
		offered[agent] = append(offered[agent], names)
		mu.Unlock()
		results := 0
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleTool {
				results++
			}
		}
		switch {
		case agent == "search_agent" && results == 0:
			return call("x__static", `{"q":"one"}`)
		case agent == "search_agent" && results == 1:
			return call("x__sourced", `{"q":"two"}`)
		case agent == "search_agent":
			return llmtest.Reply{Content: "sub done"}
		case results == 0:
			return call("call_subagent", `{"agent_name":"search_agent","instruction":"go"}`)
		default:
			return llmtest.Reply{Content: "lead done"}
		}
	}, func(d *Deps) {
		d.ExtraTools = []tools.Tool{extraTool{name: "x__static", calls: &calls, mu: &mu}, extraTool{name: "web_search", calls: &calls, mu: &mu}}
		d.ExtraToolAgents = map[string][]string{"x__static": {"search_agent"}, "web_search": {"lead_agent"}}
		d.ToolSource = sourceOf{tool: extraTool{name: "x__sourced", calls: &calls, mu: &mu}, agents: []string{"search_agent"},
			policy: PolicyConfirm, asked: &asked}
		d.PermissionTimeout = 50 * time.Millisecond // nobody answers: the confirm tool does not run
	})
	res, err := e.Ask(context.Background(), Request{Content: "q"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	if len(asked) != 1 || !slices.Contains(asked[0].Agents, "search_agent") || asked[0].Sources == nil {
		t.Fatalf("the source was asked %+v", asked)
	}
	if !slices.Equal(calls, []string{"x__static"}) {
		t.Fatalf("calls = %v (x__sourced is confirm and was denied)", calls)
	}
	for _, names := range offered["lead_agent"] {
		if slices.Contains(names, "x__static") || slices.Contains(names, "x__sourced") || slices.Contains(names, "web_search") {
			t.Fatalf("the lead is offered %v", names)
		}
	}
	sub := offered["search_agent"][0]
	if !slices.Contains(sub, "x__static with its schema") || !slices.Contains(sub, "x__sourced") || !slices.Contains(sub, "web_search") {
		t.Fatalf("search_agent is offered %v", sub)
	}
	var denied bool
	rec.mu.Lock()
	for _, ev := range rec.evs {
		if ev.Type == events.ToolComplete && strings.Contains(string(ev.Data), "did not answer the request to allow this x__sourced call") {
			denied = true
		}
	}
	rec.mu.Unlock()
	if !denied {
		t.Fatal("the unanswered permission request did not reach the agent")
	}
}

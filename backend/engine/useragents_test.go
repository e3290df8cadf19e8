package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/agent"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/toolcall"
)

// reviewerAgent is a user-defined agent as package useragents gives it: its own
// instructions, one tool and its own model.
var reviewerAgent = agent.Config{Name: "reviewer", Description: "Reviews a draft artifact for unsupported claims.",
	Tools: []string{"read_artifact"}, MaxToolRounds: 3, Model: "reviewer-model", File: "reviewer.md",
	RolePrompt: "You are reviewer. REVIEWER-INSTRUCTIONS: read the artifact and list its problems."}

// reviewerScript scripts a lead that writes a draft, calls reviewer on it and answers
// with what reviewer reported; reviewer reads the draft, then reports. reqs collects each
// agent's requests by agent.
type reviewerScript struct {
	mu   sync.Mutex
	reqs map[string][]openai.ChatCompletionRequest
}

func (s *reviewerScript) handler(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reqs == nil {
		s.reqs = map[string][]openai.ChatCompletionRequest{}
	}
	results := toolResults(req)
	switch {
	case llmtest.SystemContains(req, "You are reviewer"):
		s.reqs["reviewer"] = append(s.reqs["reviewer"], req)
		if len(results) == 0 {
			return call("read_artifact", `{"id":"draft"}`)
		}
		return llmtest.Reply{Content: "REVIEW: the draft says " + results[0]}
	case isAgent(req, "lead_agent"):
		s.reqs["lead_agent"] = append(s.reqs["lead_agent"], req)
		switch len(results) {
		case 0:
			return call("create_artifact", `{"id":"draft","content_type":"markdown","title":"Draft","content":"The Moon is made of cheese."}`)
		case 1:
			return call("call_subagent", `{"agent_name":"reviewer","instruction":"Review the artifact draft."}`)
		default:
			return llmtest.Reply{Content: "Lead's answer. " + results[1]}
		}
	}
	return llmtest.Reply{Content: "unexpected agent"}
}

// TestUserAgentRuns: a user-defined agent in Deps.UserAgents is offered to the lead
// (call_subagent's list and the lead's <available_subagents> with its description), and a
// call to it runs as a sub-agent over HTTP: its requests carry its instructions as the
// system prompt, exactly its own tools, and its own model name; its final answer reaches
// the lead as the call_subagent result; its events carry its name and the instance.
func TestUserAgentRuns(t *testing.T) {
	s := &reviewerScript{}
	e, _, rec, srv := newWireEngineWith(t, s.handler, func(d *Deps) {
		d.UserAgents = []agent.Config{reviewerAgent}
		d.SubAgents = &AgentModel{Name: "sub-model"}
	})
	res, err := e.Ask(context.Background(), Request{Content: "Is the Moon made of cheese?"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	if !strings.Contains(res.Response, "REVIEW: the draft says") || !strings.Contains(res.Response, "cheese") {
		t.Errorf("the lead's answer %q does not carry the reviewer's report", res.Response)
	}
	revs := s.reqs["reviewer"]
	if len(revs) != 2 {
		t.Fatalf("reviewer made %d requests; want 2 (read, then report)", len(revs))
	}
	for i, r := range revs {
		if r.Model != "reviewer-model" {
			t.Errorf("reviewer request %d: model %q; want reviewer-model", i, r.Model)
		}
		if got := toolNamesOf(r); !slices.Equal(got, []string{"read_artifact"}) {
			t.Errorf("reviewer request %d: tools %v; want exactly read_artifact", i, got)
		}
		if sys := r.Messages[0]; sys.Role != openai.ChatMessageRoleSystem || !strings.HasPrefix(sys.Content, reviewerAgent.RolePrompt) {
			t.Errorf("reviewer request %d: system prompt %q; want it to start with the agent's instructions", i, sys.Content)
		}
		if !llmtest.LastUserContains(revs[0], "Review the artifact draft.") {
			t.Errorf("reviewer's first request does not carry the lead's instruction")
		}
	}
	lead := s.reqs["lead_agent"][0]
	if lead.Model != "m" {
		t.Errorf("the lead's model %q; want m", lead.Model)
	}
	if !llmtest.SystemContains(lead, "- reviewer: "+reviewerAgent.Description+" [defined by the user]") {
		t.Errorf("the lead's system prompt does not list reviewer with its description:\n%s", lead.Messages[0].Content)
	}
	for _, tool := range lead.Tools {
		if tool.Function.Name == "call_subagent" && !strings.Contains(tool.Function.Description, "reviewer") {
			t.Errorf("call_subagent's description %q does not name reviewer", tool.Function.Description)
		}
	}
	if srv.Calls() != 5 {
		t.Errorf("%d model calls; want 5 (3 lead, 2 reviewer)", srv.Calls())
	}
	var starts int
	rec.mu.Lock()
	for _, ev := range rec.evs {
		if ev.Type == events.AgentStart && ev.AgentName == "reviewer" {
			starts++
			if instanceOf(ev.Data) != "c_call_subagent" {
				t.Errorf("reviewer's agent_start %s carries no instance", ev.Data)
			}
		}
	}
	rec.mu.Unlock()
	if starts != 2 {
		t.Errorf("%d agent_start events of reviewer; want 2", starts)
	}
}

// TestUserAgentModelAndMemory: a user-defined agent without a model of its own runs on
// the sub-agents' model; Deps.AgentModels decides the tool-call mode of a model name
// (xml here: no native tools, the XML instructions); and in the next run of the
// conversation the agent's history holds what it did in the first (its own memory).
func TestUserAgentModelAndMemory(t *testing.T) {
	inherit := reviewerAgent
	inherit.Model = ""
	for _, tc := range []struct {
		name   string
		agent  agent.Config
		models map[string]AgentModel
		model  string
		xml    bool
	}{
		{"inherit", inherit, nil, "sub-model", false},
		{"own model in xml mode", reviewerAgent, map[string]AgentModel{"reviewer-model": {Mode: toolcall.ModeXML}}, "reviewer-model", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var revs []openai.ChatCompletionRequest
			e, _, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if llmtest.SystemContains(req, "You are reviewer") {
					mu.Lock()
					revs = append(revs, req)
					mu.Unlock()
					return llmtest.Reply{Content: "REPORT " + req.Messages[len(req.Messages)-1].Content}
				}
				if results := toolResults(req); len(results) > 0 {
					return llmtest.Reply{Content: "done"}
				}
				return call("call_subagent", `{"agent_name":"reviewer","instruction":"`+llmtestLastUser(req)+`"}`)
			}, func(d *Deps) {
				d.UserAgents = []agent.Config{tc.agent}
				d.SubAgents = &AgentModel{Name: "sub-model"}
				d.AgentModels = tc.models
			})
			first, err := e.Ask(context.Background(), Request{Content: "FIRST-QUESTION"})
			if err != nil || first.Status != events.Complete {
				t.Fatalf("first run: %v %+v", err, first)
			}
			second, err := e.Ask(context.Background(), Request{ConversationID: first.ConversationID, Content: "SECOND-QUESTION"})
			if err != nil || second.Status != events.Complete {
				t.Fatalf("second run: %v %+v", err, second)
			}
			if len(revs) != 2 {
				t.Fatalf("reviewer requests %d; want 2", len(revs))
			}
			for i, r := range revs {
				if r.Model != tc.model {
					t.Errorf("request %d: model %q; want %q", i, r.Model, tc.model)
				}
				native := len(r.Tools) > 0
				xml := strings.Contains(r.Messages[0].Content, "<tool_call>")
				if native == tc.xml || xml != tc.xml {
					t.Errorf("request %d: native tools %v, xml instructions %v; want xml %v", i, native, xml, tc.xml)
				}
			}
			var memory strings.Builder
			for _, m := range revs[1].Messages[1:] {
				memory.WriteString(m.Content + "\n")
			}
			if !strings.Contains(memory.String(), "FIRST-QUESTION") || !strings.Contains(memory.String(), "REPORT FIRST-QUESTION") ||
				!strings.Contains(memory.String(), "SECOND-QUESTION") {
				t.Errorf("reviewer's second request does not hold its first call and answer:\n%s", memory.String())
			}
		})
	}
}

// llmtestLastUser returns the last user message's text.
func llmtestLastUser(req openai.ChatCompletionRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == openai.ChatMessageRoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

// TestUserAgentWarnings: the run's metadata event (sent and stored) carries Deps.Warnings
// (an agent file that was skipped), and a warning for a user-defined agent that takes a
// built-in agent's name (skipped: the built-in keeps it) and for an MCP tool no server
// offers (the agent runs without it); the run completes, and the lead is not offered the
// skipped agent.
func TestUserAgentWarnings(t *testing.T) {
	impostor := reviewerAgent
	impostor.Name, impostor.RolePrompt = "search_agent", "You are an impostor."
	withMCP := reviewerAgent
	withMCP.Tools = []string{"read_artifact", "mcp__everything__echo"}
	var mu sync.Mutex
	var revTools [][]string
	var leadSystem string
	e, db, rec, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if llmtest.SystemContains(req, "You are reviewer") {
			revTools = append(revTools, toolNamesOf(req))
			return llmtest.Reply{Content: "reviewed"}
		}
		if llmtest.SystemContains(req, "impostor") {
			return llmtest.Reply{Content: "impostor ran"}
		}
		leadSystem = req.Messages[0].Content
		if len(toolResults(req)) > 0 {
			return llmtest.Reply{Content: "done"}
		}
		return call("call_subagent", `{"agent_name":"reviewer","instruction":"check"}`)
	}, func(d *Deps) {
		d.UserAgents = []agent.Config{impostor, withMCP}
		d.Warnings = []string{`broken.md:3: tools: unknown tool "foo" (the agent is skipped)`}
	})
	res, err := e.Ask(context.Background(), Request{Content: "question"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	evs, err := db.PathEvents(context.Background(), res.ConversationID, []string{res.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	var md events.DataMetadata
	for _, ev := range evs {
		if ev.Type == events.Metadata {
			if err := json.Unmarshal(ev.Data, &md); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{`broken.md:3: tools: unknown tool "foo"`, `agent "search_agent" is skipped`, `agent "reviewer" runs without mcp__everything__echo`}
	if len(md.Warnings) != len(want) {
		t.Fatalf("stored metadata warnings %q; want %d", md.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(md.Warnings[i], w) {
			t.Errorf("warning %d = %q; want it to start %q", i, md.Warnings[i], w)
		}
	}
	rec.mu.Lock()
	sent := rec.evs[0]
	rec.mu.Unlock()
	if sent.Type != events.Metadata || !strings.Contains(string(sent.Data), "broken.md:3") {
		t.Errorf("the metadata event sent %s %s does not carry the warnings", sent.Type, sent.Data)
	}
	if len(revTools) != 1 || !slices.Equal(revTools[0], []string{"read_artifact"}) {
		t.Errorf("reviewer's tools %v; want read_artifact only (no server offers the MCP tool)", revTools)
	}
	if strings.Contains(leadSystem, "impostor") || strings.Count(leadSystem, "- search_agent:") != 1 {
		t.Errorf("the lead's prompt lists the impostor:\n%s", leadSystem)
	}
}

// TestBuiltinTools: the catalog agent files are checked against names every built-in tool.
func TestBuiltinTools(t *testing.T) {
	got := BuiltinTools()
	for _, want := range []string{"create_artifact", "update_artifact", "rewrite_artifact", "read_artifact", "record_artifact",
		"call_subagent", "web_search", "web_fetch", "search_files", "read_file"} {
		if !slices.Contains(got, want) {
			t.Errorf("BuiltinTools() = %v lacks %s", got, want)
		}
	}
}

// offeringSource is sourceOf that also says, before the run starts any server, which names
// it may offer (ToolOfferer): every name under prefix.
type offeringSource struct {
	sourceOf
	prefix string
}

func (s offeringSource) MayOffer(name string) bool { return strings.HasPrefix(name, s.prefix) }

// TestUserAgentGetsSourcedTool: a tool source (the MCP servers) offering a tool only to a
// user-defined agent is told that agent and the tool it lists, the agent is offered the tool
// and calls it, and the run's metadata does not call the tool missing although the source
// supplies it only after the metadata is sent.
func TestUserAgentGetsSourcedTool(t *testing.T) {
	withMCP := reviewerAgent
	withMCP.Tools = []string{"read_artifact", "mcp__docs__lookup"}
	var mu sync.Mutex
	var calls []string
	var asked []ToolRequest
	var revTools [][]string
	e, db, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if llmtest.SystemContains(req, "You are reviewer") {
			revTools = append(revTools, toolNamesOf(req))
			if len(toolResults(req)) > 0 {
				return llmtest.Reply{Content: "reviewed"}
			}
			return call("mcp__docs__lookup", `{"q":"spec"}`)
		}
		if len(toolResults(req)) > 0 {
			return llmtest.Reply{Content: "done"}
		}
		return call("call_subagent", `{"agent_name":"reviewer","instruction":"check"}`)
	}, func(d *Deps) {
		d.UserAgents = []agent.Config{withMCP}
		d.ToolSource = offeringSource{sourceOf: sourceOf{tool: extraTool{name: "mcp__docs__lookup", calls: &calls, mu: &mu},
			agents: []string{"reviewer"}, policy: PolicyAuto, asked: &asked}, prefix: "mcp__docs__"}
	})
	res, err := e.Ask(context.Background(), Request{Content: "question"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	if len(asked) != 1 || !slices.Contains(asked[0].Agents, "reviewer") || !slices.Contains(asked[0].Wanted, "mcp__docs__lookup") {
		t.Errorf("the tool source was asked %+v; want the user's agent and the tool it lists", asked)
	}
	if len(revTools) == 0 || !slices.Equal(revTools[0], []string{"read_artifact", "mcp__docs__lookup"}) {
		t.Errorf("reviewer's tools %v; want read_artifact and mcp__docs__lookup", revTools)
	}
	if !slices.Equal(calls, []string{"mcp__docs__lookup"}) {
		t.Errorf("sourced tool calls %v; want one", calls)
	}
	evs, err := db.PathEvents(context.Background(), res.ConversationID, []string{res.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == events.Metadata && strings.Contains(string(ev.Data), "runs without") {
			t.Errorf("metadata calls a tool the source supplies missing: %s", ev.Data)
		}
	}
}

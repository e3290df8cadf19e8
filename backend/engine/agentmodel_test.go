package engine

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/toolcall"
)

func f32(v float32) *float32 { return &v }

// TestEachAgentCallsItsOwnModel: with Deps.SubAgents set, the lead calls the lead's model
// (its name, native tools, its sampling) and the search agent calls the sub-agents' model
// (its name, xml tool calls, its sampling, its context window: its compaction goes to its
// own model too). Two scripted servers stand for the two models; each must see only its
// own agent's requests.
func TestEachAgentCallsItsOwnModel(t *testing.T) {
	var leadCalls, subCalls atomic.Int64
	leadSrv := llmtest.NewServer(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		leadCalls.Add(1)
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleTool {
				return llmtest.Reply{Content: "final: " + m.Content}
			}
		}
		return call("call_subagent", `{"agent_name":"search_agent","instruction":"find the moon distance"}`)
	})
	subSrv := llmtest.NewServer(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isCompaction(req) {
			return llmtest.Reply{Content: summaryText}
		}
		switch subCalls.Add(1) {
		case 1:
			return llmtest.Reply{Content: "<tool_call><name>web_search</name><params><query><![CDATA[moon distance]]></query></params></tool_call>"}
		case 2:
			return llmtest.Reply{Content: "<tool_call><name>web_search</name><params><query><![CDATA[lunar laser ranging]]></query></params></tool_call>"}
		default:
			return llmtest.Reply{Content: "384,400 km"}
		}
	})
	newClient := func(srv *llmtest.Server, name string) llm.Model {
		c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: name, RetryDelay: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const subWindow = 700
	e, _, rec, _ := newEngineWith(t, llmtest.Script(), func(d *Deps) {
		d.Model, d.ModelName, d.Mode = newClient(leadSrv, "lead-model"), "lead-model", toolcall.ModeNative
		d.LeadSampling = llm.Sampling{Temperature: f32(0.25)}
		d.SubAgents = &AgentModel{Model: newClient(subSrv, "sub-model"), Name: "sub-model", Mode: toolcall.ModeXML,
			ContextWindow: subWindow, CompactAt: 0.5, Sampling: llm.Sampling{Temperature: f32(0), MaxTokens: 256}}
	})
	res, err := e.Ask(context.Background(), Request{Content: "How far is the Moon?"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	if !strings.Contains(res.Response, "384,400 km") {
		t.Fatalf("the lead did not get the search agent's answer: %q", res.Response)
	}

	leadReqs := leadSrv.Requests()
	if len(leadReqs) != 2 {
		t.Fatalf("lead model got %d requests, want 2", len(leadReqs))
	}
	for i, r := range leadReqs {
		if !isAgent(r, "lead_agent") || r.Model != "lead-model" || len(r.Tools) == 0 || r.Temperature != 0.25 || r.MaxTokens != 0 {
			t.Errorf("lead request %d: agent lead %v, model %q, %d tools, temperature %v, max_tokens %d; want the lead's model, native tools, 0.25, unset",
				i, isAgent(r, "lead_agent"), r.Model, len(r.Tools), r.Temperature, r.MaxTokens)
		}
	}
	subReqs := subSrv.Requests()
	var compactions, rounds int
	for i, r := range subReqs {
		if r.Model != "sub-model" {
			t.Errorf("sub request %d went to model %q", i, r.Model)
		}
		if isCompaction(r) {
			compactions++
			continue
		}
		rounds++
		if !isAgent(r, "search_agent") || len(r.Tools) != 0 || r.MaxTokens != 256 || !llmtest.SystemContains(r, "<tool_call>") {
			t.Errorf("sub request %d: search agent %v, %d native tools, max_tokens %d; want the search agent in xml mode with max_tokens 256",
				i, isAgent(r, "search_agent"), len(r.Tools), r.MaxTokens)
		}
	}
	if rounds != 3 {
		t.Fatalf("search agent rounds on its model = %d, want 3", rounds)
	}
	for i, b := range subSrv.Bodies() {
		if !strings.Contains(string(b), `"temperature":0`) {
			t.Errorf("sub request %d does not send the sub-agents' temperature 0: %.200s", i, b)
		}
	}
	for i, b := range leadSrv.Bodies() {
		if strings.Contains(string(b), `"max_tokens"`) {
			t.Errorf("lead request %d sends max_tokens, which only the sub-agents set", i)
		}
	}
	// The sub-agents' small window compacts the search agent on its own model; the lead,
	// with its default window, never compacts.
	if compactions == 0 {
		t.Fatal("the search agent was never compacted on its own model with its small window")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, ev := range rec.evs {
		if ev.Type != events.CompactionStart {
			continue
		}
		var d events.DataCompactionStart
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		if ev.AgentName != "search_agent" || d.Window != subWindow || d.Threshold != subWindow/2 {
			t.Errorf("compaction of %s with window %d, threshold %d; want search_agent with %d, %d", ev.AgentName, d.Window, d.Threshold, subWindow, subWindow/2)
		}
	}
}

// TestSubAgentsInheritTheLeadsModel: without Deps.SubAgents every agent calls the lead's
// model with the lead's sampling; with SubAgents naming only another model name, the
// sub-agents use the lead's client and mode with that name.
func TestSubAgentsInheritTheLeadsModel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sub     *AgentModel
		subName string
	}{
		{"no SubAgents", nil, "m"},
		{"SubAgents with a name only", &AgentModel{Name: "small"}, "small"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, _, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if isAgent(req, "search_agent") {
					return llmtest.Reply{Content: "found"}
				}
				for _, m := range req.Messages {
					if m.Role == openai.ChatMessageRoleTool {
						return llmtest.Reply{Content: "done"}
					}
				}
				return call("call_subagent", `{"agent_name":"search_agent","instruction":"look"}`)
			}, func(d *Deps) {
				d.LeadSampling = llm.Sampling{TopP: f32(0.5)}
				d.SubAgents = tc.sub
			})
			if res, err := e.Ask(context.Background(), Request{Content: "q"}); err != nil || res.Status != events.Complete {
				t.Fatalf("run: %v %+v", err, res)
			}
			for _, r := range srv.Requests() {
				sub := isAgent(r, "search_agent")
				want := "m"
				if sub {
					want = tc.subName
				}
				if r.Model != want || len(r.Tools) == 0 {
					t.Errorf("search agent %v: model %q with %d tools, want %q in native mode", sub, r.Model, len(r.Tools), want)
				}
				if wantTopP := tc.sub == nil || !sub; (r.TopP == 0.5) != wantTopP {
					t.Errorf("search agent %v: top_p %v; the lead's sampling goes to the sub-agents only without SubAgents", sub, r.TopP)
				}
			}
		})
	}
}

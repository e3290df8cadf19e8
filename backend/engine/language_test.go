package engine

import (
	"context"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
)

// TestSystemPromptLanguage: every lead request carries the rule to answer and write
// artifacts in the question's language and names the interface language from Deps.Language
// as the fallback; the sub-agents are told to report in their instruction's language.
func TestSystemPromptLanguage(t *testing.T) {
	for _, tc := range []struct {
		lang, want string
	}{
		{"zh-CN", "The user's interface language is 简体中文 (zh-CN)."},
		{"en", "The user's interface language is English (en)."},
		{"", "Not known: use English."},
	} {
		t.Run("lang="+tc.lang, func(t *testing.T) {
			e, _, _, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if isAgent(req, "search_agent") {
					return llmtest.Reply{Content: "找到的结果"}
				}
				for _, m := range req.Messages {
					if m.Role == openai.ChatMessageRoleTool {
						return llmtest.Reply{Content: "答案"}
					}
				}
				return call("call_subagent", `{"agent_name":"search_agent","instruction":"搜索固态电池"}`)
			}, func(d *Deps) { d.Language = tc.lang })
			res, err := e.Ask(context.Background(), Request{Content: "https://example.org/paper.pdf"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %v %+v", err, res)
			}
			var lead, sub int
			for _, req := range srv.Requests() {
				system := req.Messages[0].Content
				switch {
				case isAgent(req, "lead_agent"):
					lead++
					for _, s := range []string{"in the language of the user's latest question", "<user_language>\n" + tc.want} {
						if !strings.Contains(system, s) {
							t.Errorf("lead system prompt lacks %q", s)
						}
					}
				case isAgent(req, "search_agent"):
					sub++
					if !strings.Contains(system, "in the language of its instruction") || strings.Contains(system, "<user_language>") {
						t.Errorf("search_agent system prompt: want the instruction-language rule and no <user_language>")
					}
				}
			}
			if lead < 2 || sub < 1 {
				t.Fatalf("requests: %d lead, %d search_agent; want both agents called", lead, sub)
			}
		})
	}
}

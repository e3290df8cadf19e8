package windowtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm/llmtest"
)

// world is a research environment on loopback for the window: an OpenAI-compatible
// scripted model, a SearXNG instance and a web page, plus a data directory.
type world struct {
	dataDir string
	model   *llmtest.Server
	searx   *httptest.Server
	site    *httptest.Server
	pageURL string
	calls   atomic.Int64 // tool calls scripted so far, for unique ids
}

const (
	question   = "How far away is the Moon?"
	fact       = "The Moon's mean distance from Earth is 384,400 km."
	finalReply = "The Moon is on average 384,400 km from Earth; see research_report for sources."
	moonPage   = `<!doctype html><html><head><meta charset="utf-8"><title>Moon facts</title></head><body>
<nav><a href="/">Home</a> | <a href="/shop">Shop</a> | <a href="/login">Log in</a></nav>
<article><h1>Moon facts</h1>
<p>` + fact + ` Light takes about 1.3 seconds to cover it, a figure measured with laser ranging since 1969.</p>
<p>The distance varies between perigee and apogee because the orbit is elliptical, so sources quote the mean value.</p>
<p>See the <a href="/apollo">Apollo retroreflectors</a> for how it is measured.</p>
</article>
<footer>Copyright Example Space Facts. All rights reserved.</footer></body></html>`
)

// newWorld starts the world's servers; handler scripts the model (nil: research).
func newWorld(t *testing.T, handler func(w *world) llmtest.Handler) *world {
	t.Helper()
	w := &world{dataDir: filepath.Join(t.TempDir(), "data")}
	w.site = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, moonPage)
	}))
	t.Cleanup(w.site.Close)
	w.pageURL = w.site.URL + "/moon"
	w.searx = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(rw, "bad request", http.StatusBadRequest)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(map[string]any{"query": r.URL.Query().Get("q"), "results": []map[string]any{
			{"title": "Moon facts", "url": w.pageURL, "content": "Mean distance, orbit and measurement.", "engine": "test"},
			{"title": "Unrelated", "url": w.site.URL + "/other", "content": "Something else.", "engine": "test"},
		}})
	}))
	t.Cleanup(w.searx.Close)
	if handler == nil {
		handler = (*world).research
	}
	w.model = llmtest.NewServer(t, handler(w))
	return w
}

// args returns the global flags pointing at this world, then extra.
func (w *world) args(extra ...string) []string {
	return append([]string{"--data-dir", w.dataDir, "--base-url", w.model.URL(), "--model", "test-model",
		"--tool-call-mode", "native", "--searxng-url", w.searx.URL, "--api-key", "sk-test-secret"}, extra...)
}

// toolCall scripts one native tool call.
func (w *world) toolCall(name string, params map[string]any) llmtest.Reply {
	b, _ := json.Marshal(params)
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%d", w.calls.Add(1)), Name: name, Arguments: string(b)}}}
}

// agentOf tells which agent a request comes from by its role prompt.
func agentOf(req openai.ChatCompletionRequest) string {
	for _, a := range []string{"search_agent", "crawl_agent", "lead_agent"} {
		if llmtest.SystemContains(req, "You are "+a) {
			return a
		}
	}
	return ""
}

// toolResults returns the tool results the agent has received so far in req, in order.
func toolResults(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool || (m.Role == openai.ChatMessageRoleUser && strings.HasPrefix(m.Content, "<tool_result")) {
			out = append(out, m.Content)
		}
	}
	return out
}

// lastUser returns the last user message of req.
func lastUser(req openai.ChatCompletionRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == openai.ChatMessageRoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

var factRE = regexp.MustCompile(`The Moon.s mean distance[^.]*\.`)

// research scripts a whole research run: the lead plans, sends search_agent and
// crawl_agent out, writes the report, ticks the plan and answers.
func (w *world) research() llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		results := toolResults(req)
		switch agentOf(req) {
		case "search_agent":
			if len(results) == 0 {
				return w.toolCall("web_search", map[string]any{"query": "moon distance from earth", "count": 3})
			}
			url := regexp.MustCompile(`URL: (\S+)`).FindStringSubmatch(results[0])
			if url == nil {
				return llmtest.Reply{Content: "no results"}
			}
			return llmtest.Reply{Content: "1. Moon facts - " + url[1] + " - mean distance and measurement."}
		case "crawl_agent":
			if len(results) == 0 {
				return w.toolCall("web_fetch", map[string]any{"url": w.pageURL})
			}
			if f := factRE.FindString(results[0]); f != "" {
				return llmtest.Reply{Content: "Extract from " + w.pageURL + ": " + f}
			}
			return llmtest.Reply{Content: "The page could not be read: " + results[0]}
		case "lead_agent":
			switch len(results) {
			case 0:
				return w.toolCall("create_artifact", map[string]any{"id": "task_plan", "content_type": "markdown", "title": "Task plan",
					"content": "# Moon distance\n- [ ] Search sources\n- [ ] Read the best page\n- [ ] Write the report"})
			case 1:
				return w.toolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Find sources on the Moon's distance from Earth."})
			case 2:
				return w.toolCall("update_artifact", map[string]any{"id": "task_plan", "old_str": "- [ ] Search sources", "new_str": "- [x] Search sources"})
			case 3:
				return w.toolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "Read " + w.pageURL + " and extract the distance."})
			case 4:
				extract := factRE.FindString(results[3])
				return w.toolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown", "title": "Moon distance",
					"content": "# Moon distance\n\n" + extract + "\n\nSource: [Moon facts](" + w.pageURL + ")"})
			case 5:
				return w.toolCall("update_artifact", map[string]any{"id": "task_plan", "old_str": "- [ ] Read the best page", "new_str": "- [x] Read the best page"})
			case 6:
				return w.toolCall("update_artifact", map[string]any{"id": "task_plan", "old_str": "- [ ] Write the report", "new_str": "- [x] Write the report"})
			default:
				return llmtest.Reply{Content: finalReply, Reasoning: "The user wants the Moon's distance; I have it from the crawl."}
			}
		}
		return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "unknown agent"}
	}
}

// citingResearch scripts a run whose search agent searches (SearXNG answers with the Moon
// page and an unrelated one), whose crawl agent reads the Moon page, and whose lead cites
// [1] and [2] in the report and the answer.
func (w *world) citingResearch() llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		results := toolResults(req)
		switch agentOf(req) {
		case "search_agent":
			if len(results) == 0 {
				return w.toolCall("web_search", map[string]any{"query": "moon distance"})
			}
			return llmtest.Reply{Content: "Results:\n" + results[0]}
		case "crawl_agent":
			if len(results) == 0 {
				return w.toolCall("web_fetch", map[string]any{"url": w.pageURL})
			}
			return llmtest.Reply{Content: "Source [1]: " + factRE.FindString(results[0]) + " [1]"}
		case "lead_agent":
			switch len(results) {
			case 0:
				return w.toolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Find sources on the Moon's distance."})
			case 1:
				return w.toolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "Read " + w.pageURL})
			case 2:
				return w.toolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown", "title": "Moon distance",
					"content": "# Moon distance\n\n" + fact + " [1]\n\nAnother page exists [2].\n"})
			default:
				return llmtest.Reply{Content: "The Moon is 384,400 km away on average [1]; see also [2]."}
			}
		}
		return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "unknown agent"}
	}
}

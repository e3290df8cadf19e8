// Package apptest holds the test fixtures that the tests of package app, of the command
// line (app/cli) and of browser mode (app/browser) share: a whole research world on
// loopback (a scripted OpenAI-compatible model, a SearXNG instance and a web page) and the
// web search stand-in that keeps every test off the real web. Only tests import it.
package apptest

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/toolcall"
)

// World is a whole research environment on loopback: an OpenAI-compatible model server,
// a SearXNG instance and a web page, plus a data directory.
type World struct {
	T        *testing.T
	Mode     string // tool-call mode: "native" or "xml"
	DataDir  string
	Model    *llmtest.Server
	Searx    *httptest.Server
	Site     *httptest.Server
	PageURL  string       // the Moon page (MoonPage) on Site
	PageHits atomic.Int64 // requests Site has answered
	calls    atomic.Int64 // tool calls scripted so far, for unique ids
}

// The research the scripted model does by default (World.Research): the question, the
// fact the page holds, the lead's final answer and reasoning, and the page.
const (
	Question   = "How far away is the Moon?"
	Fact       = "The Moon's mean distance from Earth is 384,400 km."
	FinalReply = "The Moon is on average 384,400 km from Earth; see research_report for sources."
	Reasoning  = "The user wants the Moon's distance; I have it from the crawl."
	MoonPage   = `<!doctype html><html><head><meta charset="utf-8"><title>Moon facts</title></head><body>
<nav><a href="/">Home</a> | <a href="/shop">Shop</a> | <a href="/login">Log in</a></nav>
<article><h1>Moon facts</h1>
<p>` + Fact + ` Light takes about 1.3 seconds to cover it, a figure measured with laser ranging since 1969.</p>
<p>The distance varies between perigee and apogee because the orbit is elliptical, so sources quote the mean value.</p>
<p>See the <a href="/apollo">Apollo retroreflectors</a> for how it is measured.</p>
</article>
<footer>Copyright Example Space Facts. All rights reserved.</footer></body></html>`
)

// NewWorld starts the world's servers, closed when t ends; handler scripts the model (nil:
// Research). mode is the tool-call mode, "native" or "xml".
func NewWorld(t *testing.T, mode string, handler func(w *World) llmtest.Handler) *World {
	t.Helper()
	w := &World{T: t, Mode: mode, DataDir: filepath.Join(t.TempDir(), "data")}
	w.Site = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.PageHits.Add(1)
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, MoonPage)
	}))
	t.Cleanup(w.Site.Close)
	w.PageURL = w.Site.URL + "/moon"
	w.Searx = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(rw, "bad request", http.StatusBadRequest)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(map[string]any{"query": r.URL.Query().Get("q"), "results": []map[string]any{
			{"title": "Moon facts", "url": w.PageURL, "content": "Mean distance, orbit and measurement.", "engine": "test"},
			{"title": "Unrelated", "url": w.Site.URL + "/other", "content": "Something else.", "engine": "test"},
		}})
	}))
	t.Cleanup(w.Searx.Close)
	if handler == nil {
		handler = (*World).Research
	}
	w.Model = llmtest.NewServer(t, handler(w))
	return w
}

// Args returns the global flags pointing at this world.
func (w *World) Args(extra ...string) []string {
	return append([]string{"--data-dir", w.DataDir, "--base-url", w.Model.URL(), "--model", "test-model",
		"--tool-call-mode", w.Mode, "--searxng-url", w.Searx.URL, "--api-key", "sk-test-secret"}, extra...)
}

// Overrides are the settings of a Core opened on this world (app.Options.Overrides): its
// model, tool-call mode and SearXNG, with private addresses allowed (the page is on
// loopback).
func (w *World) Overrides() config.Settings {
	return config.Settings{BaseURL: w.Model.URL(), Model: "test-model", ToolCallMode: w.Mode,
		SearxngURL: w.Searx.URL, AllowPrivateNetwork: true}
}

// DB opens the data directory's SQLite file directly, as a user's tool would.
func (w *World) DB() *sql.DB {
	w.T.Helper()
	db, err := sql.Open("sqlite3", filepath.Join(w.DataDir, "artifactflow.db"))
	if err != nil {
		w.T.Fatal(err)
	}
	w.T.Cleanup(func() { db.Close() })
	return db
}

// ToolCall scripts one tool call in the world's format.
func (w *World) ToolCall(name string, params map[string]any) llmtest.Reply {
	if w.Mode == "xml" {
		sp := map[string]string{}
		for k, v := range params {
			sp[k] = fmt.Sprint(v)
		}
		return llmtest.Reply{Content: "Next step.\n" + toolcall.FormatXMLCall(name, sp)}
	}
	b, _ := json.Marshal(params)
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%d", w.calls.Add(1)), Name: name, Arguments: string(b)}}}
}

// AgentOf tells which agent a request comes from by its role prompt.
func AgentOf(req openai.ChatCompletionRequest) string {
	for _, a := range []string{"search_agent", "crawl_agent", "lead_agent"} {
		if llmtest.SystemContains(req, "You are "+a) {
			return a
		}
	}
	return ""
}

// ToolResults returns the tool results the agent has received so far in req, in order.
func ToolResults(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool || (m.Role == openai.ChatMessageRoleUser && strings.HasPrefix(m.Content, "<tool_result")) {
			out = append(out, m.Content)
		}
	}
	return out
}

// Research scripts a whole research run: the lead plans, sends search_agent and
// crawl_agent out, writes the report, ticks the plan and answers. Replies depend on what
// the request holds, so the sub-agents' real outputs flow into later steps.
func (w *World) Research() llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		results := ToolResults(req)
		switch AgentOf(req) {
		case "search_agent":
			if len(results) == 0 {
				return w.ToolCall("web_search", map[string]any{"query": "moon distance from earth", "count": 3})
			}
			url := regexp.MustCompile(`URL: (\S+)`).FindStringSubmatch(results[0])
			if url == nil {
				return llmtest.Reply{Content: "no results"}
			}
			return llmtest.Reply{Content: "1. Moon facts - " + url[1] + " - mean distance and measurement.", Reasoning: "Pick the facts page."}
		case "crawl_agent":
			if len(results) == 0 {
				return w.ToolCall("web_fetch", map[string]any{"url": w.PageURL})
			}
			if f := FactRE.FindString(results[0]); f != "" {
				return llmtest.Reply{Content: "Extract from " + w.PageURL + ": " + f}
			}
			return llmtest.Reply{Content: "The page could not be read: " + results[0]}
		case "lead_agent":
			switch len(results) {
			case 0:
				return w.ToolCall("create_artifact", map[string]any{"id": "task_plan", "content_type": "markdown", "title": "Task plan",
					"content": "# Moon distance\n- [ ] Search sources\n- [ ] Read the best page\n- [ ] Write the report"})
			case 1:
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Find sources on the Moon's distance from Earth."})
			case 2:
				return w.ToolCall("update_artifact", map[string]any{"id": "task_plan", "old_str": "- [ ] Search sources", "new_str": "- [x] Search sources"})
			case 3:
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "Read " + w.PageURL + " and extract the distance."})
			case 4:
				extract := FactRE.FindString(results[3])
				return w.ToolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown", "title": "Moon distance",
					"content": "# Moon distance\n\n" + extract + "\n\nSource: [Moon facts](" + w.PageURL + ")"})
			case 5:
				return w.ToolCall("update_artifact", map[string]any{"id": "task_plan", "old_str": "- [ ] Read the best page", "new_str": "- [x] Read the best page"})
			case 6:
				return w.ToolCall("update_artifact", map[string]any{"id": "task_plan", "old_str": "- [ ] Write the report", "new_str": "- [x] Write the report"})
			default:
				return llmtest.Reply{Content: FinalReply, Reasoning: Reasoning}
			}
		}
		return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "unknown agent"}
	}
}

// Keys the search stand-in knows (SearchStandIn).
const (
	GoodBraveKey = "BSA-good-key-0001"
	BadBraveKey  = "BSA-bad-key-SECRET"
)

// SearchStandIn answers Brave's API (GET /brave?q=…, X-Subscription-Token) with two
// results for GoodBraveKey and Brave's 401 for any other key; every other provider gets a
// 503, so a test that searches without choosing a provider fails loudly instead of
// reaching the internet.
func SearchStandIn() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/brave", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("X-Subscription-Token") != GoodBraveKey {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":401}}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "search", "web": map[string]any{"results": []map[string]any{
			{"title": "Test - Wikipedia", "url": "https://en.wikipedia.org/wiki/Test", "description": "A test is …"},
			{"title": "Speedtest", "url": "https://www.speedtest.net/", "description": "Test your connection."},
		}}})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "search stand-in: no provider here (tests never search the real web)", http.StatusServiceUnavailable)
	})
	return mux
}

// RunWithSearchStandIn serves SearchStandIn on loopback, passes set the endpoint of every
// search provider but SearXNG (whose URL each test sets) on it, runs the tests and returns
// their exit code: a TestMain calls it before any test runs, since a run without a SearXNG
// URL would otherwise search the real web (DuckDuckGo is the default provider).
func RunWithSearchStandIn(m *testing.M, set func(endpoints map[string]string)) int {
	srv := httptest.NewServer(SearchStandIn())
	defer srv.Close()
	endpoints := map[string]string{}
	for _, id := range config.SearchProviders() {
		if id != config.ProviderSearXNG {
			endpoints[id] = srv.URL + "/" + id
		}
	}
	set(endpoints)
	return m.Run()
}

// FactRE finds the page's fact (Fact) in a tool result.
var FactRE = regexp.MustCompile(`The Moon.s mean distance[^.]*\.`)

// EchoWorld is a world whose model answers every request with the user messages it saw,
// "saw a / b", in native tool-call mode.
func EchoWorld(t *testing.T) *World {
	return NewWorld(t, "native", func(w *World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			var users []string
			for _, m := range req.Messages {
				if m.Role == openai.ChatMessageRoleUser {
					users = append(users, m.Content)
				}
			}
			return llmtest.Reply{Content: "saw " + strings.Join(users, " / ")}
		}
	})
}

// WithSuggestions answers the call that writes a conversation's title and follow-up
// questions after a complete run (its system prompt starts with engine.SuggestRole) with
// title and questions as the JSON the call asks for; every other call goes to h.
func WithSuggestions(h llmtest.Handler, title string, questions ...string) llmtest.Handler {
	b, _ := json.Marshal(map[string]any{"title": title, "questions": questions})
	return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
		if llmtest.SystemContains(req, engine.SuggestRole) {
			return llmtest.Reply{Content: string(b)}
		}
		return h(req, call)
	}
}

// LastUser returns the content of the last user message of req ("" if none).
func LastUser(req openai.ChatCompletionRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == openai.ChatMessageRoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

// CitingResearch scripts a run whose search agent searches (SearXNG answers with the Moon
// page and an unrelated page), whose crawl agent fetches the Moon page, and whose lead
// writes a report citing [1] and [2] and answers citing both.
func (w *World) CitingResearch() llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		results := ToolResults(req)
		switch AgentOf(req) {
		case "search_agent":
			if len(results) == 0 {
				return w.ToolCall("web_search", map[string]any{"query": "moon distance"})
			}
			return llmtest.Reply{Content: "Results:\n" + results[0]}
		case "crawl_agent":
			if len(results) == 0 {
				return w.ToolCall("web_fetch", map[string]any{"url": w.PageURL})
			}
			return llmtest.Reply{Content: "Source [1]: " + FactRE.FindString(results[0]) + " [1]"}
		case "lead_agent":
			switch len(results) {
			case 0:
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Find sources on the Moon's distance."})
			case 1:
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "Read " + w.PageURL})
			case 2:
				return w.ToolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown", "title": "Moon distance",
					"content": "# Moon distance\n\n" + Fact + " [1]\n\nAnother page exists [2].\n"})
			default:
				return llmtest.Reply{Content: "The Moon is 384,400 km away on average [1]; see also [2]."}
			}
		}
		return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "unknown agent"}
	}
}

// Post sends body to url as browser mode's page does (with token in the X-ArtifactFlow-Token
// header unless empty) and returns the status code and the response body.
func Post(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("X-ArtifactFlow-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String()
}

// E2EFrontend returns the absolute path of the built frontend (frontend/dist, from a test
// two levels below the module root, as app/browser and app/cli are) for a Chromium
// end-to-end test. It skips the test unless AF_E2E=1 (make test sets it: the test needs the
// built frontend, Node and Chromium) and fails it when the frontend is not built.
func E2EFrontend(t *testing.T) string {
	t.Helper()
	if os.Getenv("AF_E2E") != "1" {
		t.Skip("set AF_E2E=1 (make test does) to run the browser end-to-end test")
	}
	dist, err := filepath.Abs("../../frontend/dist")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
		t.Fatalf("frontend not built (%v): run make frontend", err)
	}
	return dist
}

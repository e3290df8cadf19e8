package browser

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
)

// chineseReport and chineseAnswer are what the Chinese research of
// TestBrowserE2EChineseErrors writes.
const (
	chineseReport = "# 月球距离\n\n月球与地球的平均距离约为 384,400 公里 [1]。\n"
	chineseAnswer = "月球与地球的平均距离约为 384,400 公里 [1]。"
)

// chineseResearch is CitingResearch in Chinese: the search agent searches (SearXNG is dead,
// so that fails), the crawl agent reads the Moon page (source 1) and the lead writes a
// Chinese report citing it.
func chineseResearch(w *apptest.World) llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		results := apptest.ToolResults(req)
		switch apptest.AgentOf(req) {
		case "search_agent":
			if len(results) == 0 {
				return w.ToolCall("web_search", map[string]any{"query": "月球 距离"})
			}
			return llmtest.Reply{Content: "搜索失败：" + results[0]}
		case "crawl_agent":
			if len(results) == 0 {
				return w.ToolCall("web_fetch", map[string]any{"url": w.PageURL})
			}
			return llmtest.Reply{Content: "来源 [1]：" + apptest.FactRE.FindString(results[0]) + " [1]"}
		case "lead_agent":
			switch len(results) {
			case 0:
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "查找月球距离的来源。"})
			case 1:
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "阅读 " + w.PageURL})
			case 2:
				return w.ToolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown", "title": "月球距离",
					"content": chineseReport})
			default:
				return llmtest.Reply{Content: chineseAnswer}
			}
		}
		return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "unknown agent"}
	}
}

// TestBrowserE2EChineseErrors runs frontend/e2e/chinese-errors.mjs against browser mode in a
// zh-CN profile with SearXNG at a dead address: Settings' checks say in Chinese that a key
// was refused (a 401 endpoint), that nothing answers at a model endpoint and at SearXNG (and,
// when port 11434 is free here, that Ollama is not running and how to start it); a research
// run's footer and banner say in Chinese that the search failed, with the cause
// ("connection refused") kept; its Chinese report's Sources section is headed "来源"; an
// upload of an unsupported type has its note in Chinese. Screenshots go to /tmp/ui-zh-*.png.
// Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2EChineseErrors(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", chineseResearch)
	dead := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	searx, model := dead(), dead()
	ollama := ""
	if ln, err := net.Listen("tcp", "127.0.0.1:11434"); err == nil { // free here: nothing answers there once closed
		ln.Close()
		ollama = "http://127.0.0.1:11434/v1"
	}
	refusing := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusUnauthorized)
		rw.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
	}))
	t.Cleanup(refusing.Close)
	// Stored, not flags: the dialog's fields stay editable.
	if err := config.Save(w.DataDir, config.Settings{BaseURL: w.Model.URL(), Model: "test-model", ToolCallMode: w.Mode,
		AllowPrivateNetwork: true, SearxngURL: "http://" + searx, Search: config.SearchSettings{Provider: config.ProviderSearXNG}}); err != nil {
		t.Fatal(err)
	}
	core, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	srv, hs := serveCore(t, core, dist)
	if err := runScript(t, 4*time.Minute, "chinese-errors.mjs", hs.URL+"/?token="+srv.Token(), nil,
		"AF_SEARX="+searx, "AF_DEAD_MODEL=http://"+model+"/v1", "AF_REFUSING="+refusing.URL+"/v1", "AF_OLLAMA="+ollama); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

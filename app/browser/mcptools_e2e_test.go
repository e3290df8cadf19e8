package browser

import (
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/internal/mcpnpm"
)

// echoMessage is what the scripted search agent asks mcp__everything__echo to echo.
const echoMessage = "hello from ArtifactFlow"

// echoResearch scripts a lead that sends search_agent once and then answers, and a
// search_agent that calls mcp__everything__echo once and reports what came back.
func echoResearch(w *apptest.World) llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		results := apptest.ToolResults(req)
		if apptest.AgentOf(req) == "search_agent" {
			if len(results) == 0 {
				return w.ToolCall("mcp__everything__echo", map[string]any{"message": echoMessage})
			}
			return llmtest.Reply{Content: "The echo tool answered: " + results[0]}
		}
		if len(results) == 0 {
			return w.ToolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Echo a greeting with the everything server."})
		}
		return llmtest.Reply{Content: "The MCP server echoed the greeting back."}
	}
}

// brokenServer is a stdio MCP server that writes a line on stderr and exits at once.
var brokenServer = config.MCPServer{Command: "/bin/sh", Args: []string{"-c", "echo 'cannot start: no API key configured' >&2; exit 3"}}

// TestBrowserE2EMCPTools runs frontend/e2e/mcp-tools.mjs against browser mode with
// config.json naming server-everything over stdio ("everything") and a program that exits at
// once ("broken"): Settings → MCP servers lists both; Test shows everything running with its
// tools and broken failed with its error and log lines; get-env switched off stays off over
// a reload and in config.json; adding a server says it is desktop-only; a run whose search
// agent calls mcp__everything__echo asks first, naming the server and the tool, and its
// activity shows "echo · everything" with the result. Needs AF_E2E=1, a built frontend and
// make mcp-deps.
func TestBrowserE2EMCPTools(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	p := mcpnpm.Require(t)
	w := apptest.NewWorld(t, "native", echoResearch)
	servers := config.MCPServers{
		"everything": {Command: p.Node, Args: []string{p.Everything, "stdio"}},
		"broken":     brokenServer,
	}
	if err := config.Save(w.DataDir, config.Settings{MCPServers: servers}); err != nil {
		t.Fatal(err)
	}
	_, srv, hs := newBrowserServer(t, w, dist)
	if err := runScript(t, 5*time.Minute, "mcp-tools.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION=Echo a greeting through the MCP server."); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	stored, err := config.Load(w.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if got := stored.MCPServers["everything"].DisabledTools; !slices.Equal(got, []string{"get-env"}) {
		t.Errorf("everything's disabled_tools in config.json = %v, want [get-env]", got)
	}
	if _, ok := stored.MCPServers["broken"]; !ok || len(stored.MCPServers) != 2 {
		t.Errorf("servers in config.json after the run: %v", stored.MCPServers.Names())
	}
	var echoed bool
	for _, r := range w.Model.Requests() {
		if apptest.AgentOf(r) == "search_agent" && slices.ContainsFunc(apptest.ToolResults(r), func(s string) bool { return strings.Contains(s, echoMessage) }) {
			echoed = true
		}
	}
	if !echoed {
		t.Error("the echo's result never reached the search agent's next request")
	}
}

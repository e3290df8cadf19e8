package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/internal/mcpnpm"
	"artifactflow/internal/proctest"
)

// TestMCPCommands: `mcp list` starts the servers that are switched on and shows each one's
// transport, state and tools, or its error; `--json --no-start` gives the settings page's
// view without starting any; `mcp test NAME` lists a server's tools, or fails with exit 1
// and a one-line reason; bad usage exits 2. No server process outlives the command.
func TestMCPCommands(t *testing.T) {
	p := mcpnpm.Require(t)
	dir := t.TempDir()
	if err := config.Save(dir, config.Settings{MCPServers: config.MCPServers{
		"everything": {Command: p.Node, Args: []string{p.Everything, "stdio"}},
		"broken":     {Command: "no-such-program-af"},
		"off":        {Command: p.Node, Disabled: true},
	}}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "mcp", "list", "--data-dir", dir)
	if code != ExitOK {
		t.Fatalf("mcp list: %d %q %q", code, out, errOut)
	}
	for _, want := range []string{"everything  (stdio)  running, ", "mcp__everything__echo", "Echoes back the input string",
		"broken  (stdio)  failed", `the program "no-such-program-af" is not found on PATH`, "off  (stdio)  disabled",
		"agents: search_agent, crawl_agent; permission: confirm; timeout: 60s"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, "mcp", "list", "--json", "--no-start", "--data-dir", dir)
	var views []app.MCPServerView
	if code != ExitOK || json.Unmarshal([]byte(out), &views) != nil || len(views) != 3 {
		t.Fatalf("mcp list --json --no-start: %d %q %q", code, out, errOut)
	}
	for _, v := range views {
		if want := map[string]string{"broken": "stopped", "everything": "stopped", "off": "disabled"}[v.Name]; v.State != want {
			t.Errorf("%s is %s without starting, want %s", v.Name, v.State, want)
		}
	}

	code, out, errOut = runCLI(t, "mcp", "test", "everything", "--data-dir", dir)
	if code != ExitOK || !strings.HasPrefix(out, "everything: ok, ") || !strings.Contains(out, "mcp__everything__get-sum") {
		t.Fatalf("mcp test everything: %d %q %q", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp", "test", "--data-dir", dir, "broken"}, ExitError, `artifactflow: mcp test broken: mcp: the server is not available: broken: the program "no-such-program-af" is not found on PATH`},
		{[]string{"mcp", "test", "--data-dir", dir, "nope"}, ExitError, "no such MCP server"},
		{[]string{"mcp", "test", "--data-dir", dir}, ExitUsage, "no server name given"},
		{[]string{"mcp", "--data-dir", dir}, ExitUsage, "say list or test NAME"},
		{[]string{"mcp", "frobnicate"}, ExitUsage, `unknown command "frobnicate"`},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: %d %q %q, want exit %d saying %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
		if code == ExitError && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: the reason is not one line: %q", tc.args, errOut)
		}
	}

	// Every start of everything (by list and by test) ended with its command.
	proctest.Need(t)
	log, err := os.ReadFile(filepath.Join(dir, "logs", "mcp", "everything.log"))
	if err != nil {
		t.Fatal(err)
	}
	starts := strings.Split(string(log), "started, pid ")[1:]
	if len(starts) != 2 {
		t.Fatalf("%d starts in the log, want 2:\n%s", len(starts), log)
	}
	for _, s := range starts {
		pid, _ := strconv.Atoi(strings.Fields(s)[0])
		proctest.WaitGone(t, pid, 5*time.Second)
	}
}

// TestAskLeavesNoMCPServer: `artifactflow ask` with an MCP server configured (permission
// auto) has search_agent call its tools; one starts a child process of the server's own.
// When ask has exited, neither the server nor that child runs any more.
func TestAskLeavesNoMCPServer(t *testing.T) {
	proctest.Need(t)
	p := mcpnpm.Require(t)
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			results := apptest.ToolResults(req)
			switch apptest.AgentOf(req) {
			case "search_agent":
				if len(results) == 0 {
					return w.ToolCall("mcp__scripted__spawn", map[string]any{})
				}
				return llmtest.Reply{Content: "child " + results[0]}
			default:
				if len(results) == 0 {
					return w.ToolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Start the child."})
				}
				return llmtest.Reply{Content: "The server's " + results[0] + " is running."}
			}
		}
	})
	if err := config.Save(w.DataDir, config.Settings{MCPServers: config.MCPServers{
		"scripted": {Command: p.Node, Args: []string{filepath.Join(mcpnpm.Root(), "testserver.mjs")}, Permission: "auto"},
	}}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ask(context.Background(), w, "Start a child")
	if code != ExitOK || !strings.Contains(out, "The server's child ") {
		t.Fatalf("ask: %d %q %q", code, out, errOut)
	}
	child, err := strconv.Atoi(strings.Fields(strings.TrimPrefix(strings.TrimSpace(out), "The server's child "))[0])
	if err != nil {
		t.Fatalf("no child pid in %q", out)
	}
	log, err := os.ReadFile(filepath.Join(w.DataDir, "logs", "mcp", "scripted.log"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(log), "started, pid ")
	if i < 0 {
		t.Fatalf("log: %s", log)
	}
	server, _ := strconv.Atoi(strings.Fields(string(log)[i+len("started, pid "):])[0])
	// ask has returned: Close has killed the groups already; allow init a moment to reap.
	proctest.WaitGone(t, server, 5*time.Second)
	if proctest.Alive(child) {
		t.Fatalf("the server's child %d outlived ask", child)
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/config"
	"artifactflow/internal/mcpnpm"
	"artifactflow/internal/proctest"
)

// TestEverything: server-everything, over stdio and over Streamable HTTP, is started at
// its first use; its tools come with their JSON Schema and models' names; echo answers;
// the status says running with the tools; Close leaves no process of the stdio server.
func TestEverything(t *testing.T) {
	for _, transport := range []string{config.MCPStdio, config.MCPHTTP} {
		t.Run(transport, func(t *testing.T) {
			srv := everything(t)
			if transport == config.MCPHTTP {
				srv = config.MCPServer{URL: httpEverything(t, "streamableHttp") + "/mcp"}
			}
			m := newManager(t, config.MCPServers{"everything": srv})
			if st, _ := m.Status("everything"); st.State != StateStopped {
				t.Fatalf("before first use: %+v", st)
			}
			tools, err := m.Tools(context.Background(), "everything")
			if err != nil {
				t.Fatal(err)
			}
			var echo *Tool
			for i := range tools {
				if tools[i].Name == "echo" {
					echo = &tools[i]
				}
			}
			if echo == nil || echo.QualifiedName != "mcp__everything__echo" || !echo.ReadOnly {
				t.Fatalf("echo = %+v among %d tools", echo, len(tools))
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(echo.InputSchema, &schema); err != nil || schema.Type != "object" ||
				schema.Properties["message"] == nil || len(schema.Required) != 1 {
				t.Fatalf("echo schema %s: %v", echo.InputSchema, err)
			}
			if got := callText(t, m, "everything", "echo", map[string]any{"message": "hello 你好"}); got != "Echo: hello 你好" {
				t.Fatalf("echo = %q", got)
			}
			st := running(t, m, "everything")
			if st.Tools != len(tools) || st.Transport != transport {
				t.Fatalf("status %+v", st)
			}
			if s, tool, ok := m.Resolve("mcp__everything__echo"); !ok || s != "everything" || tool != "echo" {
				t.Fatalf("Resolve = %s %s %v", s, tool, ok)
			}
			if transport == config.MCPStdio {
				if st.PID == 0 {
					t.Fatal("no pid")
				}
				noOrphans(t, m, st.PID)
			}
		})
	}
}

// TestSSEFallback: a URL whose server answers the Streamable HTTP initialize POST with a
// 4xx status (server-everything's legacy SSE mode) is reached over SSE; with transport
// "http" it is not.
func TestSSEFallback(t *testing.T) {
	base := httpEverything(t, "sse")
	m := newManager(t, config.MCPServers{"legacy": {URL: base + "/sse"}, "strict": {URL: base + "/sse", Transport: config.MCPHTTP}})
	if got := callText(t, m, "legacy", "echo", map[string]any{"message": "over sse"}); got != "Echo: over sse" {
		t.Fatalf("echo = %q", got)
	}
	if st := running(t, m, "legacy"); st.Transport != config.MCPSSE {
		t.Fatalf("transport %s, want sse", st.Transport)
	}
	if _, err := m.Tools(context.Background(), "strict"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("strict Streamable HTTP against an SSE server: %v", err)
	}
}

// TestFilesystem: server-filesystem on a temporary folder reads a file through
// read_text_file.
func TestFilesystem(t *testing.T) {
	p := mcpnpm.Require(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(file, []byte("# Notes\nMCP works.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, config.MCPServers{"filesystem": {Command: p.Node, Args: []string{p.Filesystem, dir}}})
	if got := callText(t, m, "filesystem", "read_text_file", map[string]any{"path": file}); !strings.Contains(got, "MCP works.") {
		t.Fatalf("read_text_file = %q", got)
	}
	noOrphans(t, m, running(t, m, "filesystem").PID)
}

// TestKilledMidCall: a server killed during a call fails the call with ErrUnavailable
// saying it exited, shows failed with that error, and is started again at the next call.
func TestKilledMidCall(t *testing.T) {
	m := newManager(t, config.MCPServers{"scripted": testServer(t)})
	if _, err := m.Tools(context.Background(), "scripted"); err != nil {
		t.Fatal(err)
	}
	first := running(t, m, "scripted").PID
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(context.Background(), "scripted", "wait", nil)
		done <- err
	}()
	waitFor(t, 5*time.Second, "the wait call to reach the server", func() bool {
		log, _ := m.Log("scripted")
		return strings.Contains(log, "running with")
	})
	time.Sleep(200 * time.Millisecond) // the request is written; the server is waiting in it
	proc, err := os.FindProcess(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil { // the server alone, as a crash would end it
		t.Fatal(err)
	}
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end when its server was killed")
	}
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("call on a killed server: %v", err)
	}
	if st, _ := m.Status("scripted"); st.State != StateFailed || !strings.Contains(st.Error, "killed") {
		t.Fatalf("status after the kill: %+v", st)
	}
	if got := callText(t, m, "scripted", "env", map[string]any{"name": "HOME"}); got == "" {
		t.Fatal("no answer after the restart")
	}
	second := running(t, m, "scripted").PID
	if second == first {
		t.Fatal("not restarted")
	}
	noOrphans(t, m, first, second)
}

// TestNeverAnswers: a server that never answers initialize fails its start with
// ErrTimeout after timeout_seconds (or Options.MinStartTimeout, when longer), is killed,
// and shows failed.
func TestNeverAnswers(t *testing.T) {
	p := mcpnpm.Require(t)
	m := New(Options{LogDir: t.TempDir(), MinStartTimeout: time.Millisecond}) // timeout_seconds alone bounds the start
	defer m.Close()
	m.Configure(config.MCPServers{"mute": {Command: p.Node, Args: []string{"-e", "process.stdin.resume()"}, TimeoutSeconds: 1}})
	start := time.Now()
	_, err := m.Tools(context.Background(), "mute")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("Tools on a mute server: %v", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("took %v", took)
	}
	st, _ := m.Status("mute")
	if st.State != StateFailed || !strings.Contains(st.Error, "not started within 1s") {
		t.Fatalf("status %+v", st)
	}
	log, _ := m.Log("mute")
	i := strings.Index(log, "started, pid ")
	if i < 0 {
		t.Fatalf("log: %s", log)
	}
	pid, _ := strconv.Atoi(strings.Fields(log[i+len("started, pid "):])[0])
	proctest.Need(t)
	proctest.WaitGone(t, pid, 5*time.Second)
}

// TestCallTimeoutAndCancel: a call the server never answers ends with ErrTimeout after
// timeout_seconds, and a call whose caller gives up ends with the caller's cause; both
// times the server is told (notifications/cancelled reaches it) and keeps running.
func TestCallTimeoutAndCancel(t *testing.T) {
	srv := testServer(t)
	srv.TimeoutSeconds = 1 // a call's limit; the start gets Options.MinStartTimeout
	m := newManager(t, config.MCPServers{"scripted": srv})
	if _, err := m.Call(context.Background(), "scripted", "wait", nil); !errors.Is(err, ErrTimeout) {
		t.Fatalf("call past timeout_seconds: %v", err)
	}
	stop := errors.New("stopped by the user")
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel(stop)
	}()
	if _, err := m.Call(ctx, "scripted", "wait", nil); !errors.Is(err, stop) {
		t.Fatalf("cancelled call: %v", err)
	}
	waitFor(t, 5*time.Second, "two cancellations in the server's log", func() bool {
		log, _ := m.Log("scripted")
		return strings.Count(log, "cancelled request") == 2
	})
	running(t, m, "scripted")
}

// TestJunkOnStdout: lines a server writes on stdout that are not JSON-RPC, before the
// session and during a call, are counted and logged; the server keeps working.
func TestJunkOnStdout(t *testing.T) {
	m := newManager(t, config.MCPServers{"noisy": testServer(t, "--junk")})
	if got := callText(t, m, "noisy", "junk", nil); got != "ok" {
		t.Fatalf("junk = %q", got)
	}
	if got := callText(t, m, "noisy", "env", map[string]any{"name": "HOME"}); got == "" {
		t.Fatal("no answer after the junk")
	}
	st := running(t, m, "noisy")
	if st.StdoutJunk != 2 {
		t.Fatalf("StdoutJunk = %d, want 2", st.StdoutJunk)
	}
	log, _ := m.Log("noisy")
	for _, want := range []string{"this banner is not JSON-RPC", "some debug print on stdout"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestToolListChanged: when the server announces tools/list_changed, the cached list is
// listed again.
func TestToolListChanged(t *testing.T) {
	m := newManager(t, config.MCPServers{"scripted": testServer(t)})
	callText(t, m, "scripted", "add-tool", map[string]any{"name": "fresh.tool"})
	waitFor(t, 5*time.Second, "the new tool in the cache", func() bool {
		for _, tool := range m.CachedTools("scripted") {
			if tool.Name == "fresh.tool" && tool.QualifiedName != "mcp__scripted__fresh.tool" &&
				strings.HasPrefix(tool.QualifiedName, "mcp__scripted__fresh_tool_") {
				return true
			}
		}
		return false
	})
	if s, tool, ok := m.Resolve(QualifiedName("scripted", "fresh.tool")); !ok || s != "scripted" || tool != "fresh.tool" {
		t.Fatalf("Resolve = %s %s %v", s, tool, ok)
	}
}

// TestNoChildLeftAfterClose: a server's own child process (started by a tool) ends with
// the server when the manager closes.
func TestNoChildLeftAfterClose(t *testing.T) {
	proctest.Need(t)
	m := newManager(t, config.MCPServers{"scripted": testServer(t)})
	child, err := strconv.Atoi(callText(t, m, "scripted", "spawn", nil))
	if err != nil || !proctest.Alive(child) {
		t.Fatalf("no child: %v", err)
	}
	pid := running(t, m, "scripted").PID
	noOrphans(t, m, pid)
	if proctest.Alive(child) {
		t.Fatalf("the server's child %d outlived Close", child)
	}
	if _, err := m.Tools(context.Background(), "scripted"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Tools after Close: %v", err)
	}
}

// TestEnvAndSecrets: a stdio server gets the entry's env but not the app's model key, and
// the env values it prints on stderr are hidden in its log.
func TestEnvAndSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-app-key-not-for-servers")
	srv := testServer(t)
	srv.Env = map[string]string{"SERVICE_TOKEN": "tok-0123456789"}
	m := newManager(t, config.MCPServers{"scripted": srv})
	if got := callText(t, m, "scripted", "env", map[string]any{"name": "SERVICE_TOKEN"}); got != "tok-0123456789" {
		t.Fatalf("SERVICE_TOKEN = %q", got)
	}
	if got := callText(t, m, "scripted", "env", map[string]any{"name": "OPENAI_API_KEY"}); got != "" {
		t.Fatalf("the server got the app's key: %q", got)
	}
	waitFor(t, 5*time.Second, "the env line in the log", func() bool {
		log, _ := m.Log("scripted")
		return strings.Contains(log, "env SERVICE_TOKEN=[secret]")
	})
	log, _ := m.Log("scripted")
	if strings.Contains(log, "tok-0123456789") {
		t.Fatalf("the secret is in the log:\n%s", log)
	}
}

// TestUnusableServers: an invalid entry, a program not on PATH and a switched-off server
// each give a clear error and a status saying so; a failed start is not tried again
// before its backoff unless Test asks.
func TestUnusableServers(t *testing.T) {
	m := New(Options{LogDir: t.TempDir(), Backoff: func(int) time.Duration { return time.Hour }})
	defer m.Close()
	m.Configure(config.MCPServers{
		"bad":     {URL: "ftp://example/mcp"},
		"missing": {Command: "no-such-program-af"},
		"off":     {Command: "npx", Disabled: true},
	})
	if _, err := m.Tools(context.Background(), "bad"); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "mcp_servers.bad.url") {
		t.Fatalf("invalid entry: %v", err)
	}
	if _, err := m.Tools(context.Background(), "off"); !errors.Is(err, ErrDisabled) {
		t.Fatalf("disabled: %v", err)
	}
	if st, _ := m.Status("off"); st.State != StateDisabled {
		t.Fatalf("disabled status %+v", st)
	}
	if _, err := m.Tools(context.Background(), "nope"); !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("unknown: %v", err)
	}
	_, err := m.Tools(context.Background(), "missing")
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "not found on PATH") {
		t.Fatalf("missing program: %v", err)
	}
	st, _ := m.Status("missing")
	if st.State != StateFailed || st.RetryAt.IsZero() {
		t.Fatalf("status %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := m.Tools(ctx, "missing"); err == nil || !strings.Contains(err.Error(), "started again in") {
		t.Fatalf("a second use within the backoff: %v", err)
	}
	if _, err := m.Test(context.Background(), "missing"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Test: %v", err)
	}
	log, _ := m.Log("missing")
	if n := strings.Count(log, "failed: "); n != 2 {
		t.Fatalf("%d start attempts, want 2 (the first and Test's):\n%s", n, log)
	}
}

// TestConfigureRestartsChangedServers: a change of a running server's command stops it
// and starts the new one at the next use; a change of only its timeout keeps it running.
func TestConfigureRestartsChangedServers(t *testing.T) {
	proctest.Need(t)
	srv := testServer(t)
	m := newManager(t, config.MCPServers{"scripted": srv})
	callText(t, m, "scripted", "env", map[string]any{"name": "HOME"})
	first := running(t, m, "scripted").PID
	srv.TimeoutSeconds = 5
	m.Configure(config.MCPServers{"scripted": srv})
	if st := running(t, m, "scripted"); st.PID != first {
		t.Fatalf("a timeout change restarted the server: %+v", st)
	}
	srv.Env = map[string]string{"X": "1"}
	m.Configure(config.MCPServers{"scripted": srv})
	if st, _ := m.Status("scripted"); st.State != StateStopped {
		t.Fatalf("after an env change: %+v", st)
	}
	proctest.WaitGone(t, first, 5*time.Second)
	if got := callText(t, m, "scripted", "env", map[string]any{"name": "X"}); got != "1" {
		t.Fatalf("X = %q", got)
	}
	m.Configure(nil)
	if _, err := m.Status("scripted"); !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("after removal: %v", err)
	}
}

// TestDefaultBackoff: 1 s after the first failure in a row, doubling, at most 30 s.
func TestDefaultBackoff(t *testing.T) {
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := defaultBackoff(i + 1); got != w {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

// TestQualifiedName: names models may use, unique per tool, at most 64 characters.
func TestQualifiedName(t *testing.T) {
	tests := []struct{ server, tool, want string }{
		{"everything", "echo", "mcp__everything__echo"},
		{"fs", "read_text_file", "mcp__fs__read_text_file"},
		{"fs", "get-sum", "mcp__fs__get-sum"},
	}
	for _, tt := range tests {
		if got := QualifiedName(tt.server, tt.tool); got != tt.want {
			t.Errorf("QualifiedName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
	a, b := QualifiedName("s", "a.b"), QualifiedName("s", "a b")
	long := QualifiedName(strings.Repeat("s", 64), strings.Repeat("t", 40))
	long2 := QualifiedName(strings.Repeat("s", 64), strings.Repeat("t", 41))
	for _, n := range []string{a, b, long, long2} {
		if len(n) > 64 || strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("%q is not a valid function name", n)
		}
	}
	if a == b || long == long2 {
		t.Errorf("two tools share a name: %q %q / %q %q", a, b, long, long2)
	}
}

// TestAgentToolsDoNotWaitForSlowServers: a run's start waits for servers at most
// Options.RunStartWait; one still starting then is left out with a warning saying so, and
// the others' tools are given.
func TestAgentToolsDoNotWaitForSlowServers(t *testing.T) {
	p := mcpnpm.Require(t)
	m := New(Options{LogDir: t.TempDir(), RunStartWait: 500 * time.Millisecond})
	defer m.Close()
	servers := config.MCPServers{"mute": {Command: p.Node, Args: []string{"-e", "process.stdin.resume()"}},
		"missing": {Command: "no-such-program-af"}, "off": {Command: "npx", Disabled: true},
		"elsewhere": {Command: "npx", Agents: []string{"reviewer"}}}
	start := time.Now()
	set := m.AgentTools(context.Background(), servers, []string{"lead_agent", "search_agent", "crawl_agent"}, nil, ToolEnv{})
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("AgentTools took %v", took)
	}
	if len(set.Tools) != 0 || len(set.Warnings) != 2 || !strings.Contains(set.Warnings[0], "MCP server missing") ||
		!strings.Contains(set.Warnings[1], "MCP server mute is still starting") {
		t.Fatalf("set = %+v", set)
	}
	for _, name := range []string{"off", "elsewhere"} {
		if st, _ := m.Status(name); st.State == StateStarting || st.State == StateRunning {
			t.Fatalf("%s was started: %+v", name, st)
		}
	}
	if st, _ := m.Status("mute"); st.State != StateStarting {
		t.Fatalf("mute's start did not go on: %+v", st)
	}
}

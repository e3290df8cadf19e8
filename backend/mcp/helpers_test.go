package mcp

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/config"
	"artifactflow/backend/procgroup"
	"artifactflow/internal/mcpnpm"
	"artifactflow/internal/proctest"
)

// fastBackoff keeps the tests' restarts quick; TestDefaultBackoff checks the real one.
func fastBackoff(int) time.Duration { return 50 * time.Millisecond }

// newManager returns a Manager logging to a temporary folder, closed at the test's end,
// after which no process of any server it started may remain (checked by the tests that
// start processes through noOrphans).
func newManager(t *testing.T, servers config.MCPServers) *Manager {
	t.Helper()
	m := New(Options{LogDir: t.TempDir(), Backoff: fastBackoff, StopWait: 500 * time.Millisecond, ClientVersion: "test"})
	t.Cleanup(func() { _ = m.Close() })
	m.Configure(servers)
	return m
}

// testServer returns the command of testdata/mcp/testserver.mjs (the scripted server),
// with extra arguments, skipping like mcpnpm.Require when the packages are missing.
func testServer(t *testing.T, args ...string) config.MCPServer {
	t.Helper()
	p := mcpnpm.Require(t)
	script := filepath.Join(mcpnpm.Root(), "testserver.mjs")
	if _, err := os.Stat(filepath.Join(mcpnpm.Root(), "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skipf("the MCP TypeScript SDK is not installed: %v (run make mcp-deps)", err)
	}
	return config.MCPServer{Command: p.Node, Args: append([]string{script}, args...)}
}

// everything returns server-everything over stdio.
func everything(t *testing.T) config.MCPServer {
	p := mcpnpm.Require(t)
	return config.MCPServer{Command: p.Node, Args: []string{p.Everything, "stdio"}}
}

// text returns the text of a call result's content, joined.
func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// callText calls tool and returns its text, failing the test on an error.
func callText(t *testing.T, m *Manager, server, tool string, args map[string]any) string {
	t.Helper()
	res, err := m.Call(context.Background(), server, tool, args)
	if err != nil {
		t.Fatalf("call %s/%s: %v", server, tool, err)
	}
	if res.IsError {
		t.Fatalf("call %s/%s: error result %q", server, tool, text(t, res))
	}
	return text(t, res)
}

// running returns server name's status once it is running, failing the test otherwise.
func running(t *testing.T, m *Manager, name string) Status {
	t.Helper()
	st, err := m.Status(name)
	if err != nil || st.State != StateRunning {
		t.Fatalf("status of %s = %+v, %v; want running", name, st, err)
	}
	return st
}

// noOrphans checks, after m is closed, that the process group of a server that ran as
// pid is gone.
func noOrphans(t *testing.T, m *Manager, pids ...int) {
	t.Helper()
	proctest.Need(t)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		proctest.WaitGone(t, pid, 5*time.Second)
	}
}

// waitFor polls cond every 20 ms until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// httpEverything starts server-everything in mode (streamableHttp or sse) on a free
// loopback port and returns its base URL; it is killed, with its group, at the test's end.
func httpEverything(t *testing.T, mode string) string {
	t.Helper()
	p := mcpnpm.Require(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(p.Node, p.Everything, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = procgroup.Kill(cmd)
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitFor(t, 20*time.Second, "server-everything listening on "+addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "http://" + addr
}

package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/config"
)

// goServer serves an in-process MCP server (the official Go SDK) offering tools named
// names over Streamable HTTP on loopback, and returns its URL.
func goServer(t *testing.T, names ...string) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "collide", Version: "1"}, nil)
	for _, n := range names {
		sdk.AddTool(srv, &sdk.Tool{Name: n}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: n}}}, nil, nil
		})
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestQualifiedNameCollisionRefused: server "a_" with tool "b" and server "a" with tool
// "_b" both come out as mcp__a___b. Neither is offered to the models (a warning names
// both servers) and Resolve refuses the name, so a call never reaches a server picked by
// chance; the servers' other tools are still offered.
func TestQualifiedNameCollisionRefused(t *testing.T) {
	servers := config.MCPServers{
		"a_": {URL: goServer(t, "b", "only_here"), Transport: config.MCPHTTP, Agents: []string{"search_agent"}, TimeoutSeconds: 10},
		"a":  {URL: goServer(t, "_b"), Transport: config.MCPHTTP, Agents: []string{"search_agent"}, TimeoutSeconds: 10},
	}
	if QualifiedName("a_", "b") != QualifiedName("a", "_b") {
		t.Fatalf("the two tools do not share a name: %s, %s", QualifiedName("a_", "b"), QualifiedName("a", "_b"))
	}
	m := New(Options{LogDir: t.TempDir(), Backoff: fastBackoff, RunStartWait: 20 * time.Second})
	t.Cleanup(func() { _ = m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	set := m.AgentTools(ctx, servers, []string{"search_agent"}, nil, ToolEnv{})
	var names []string
	for _, tl := range set.Tools {
		names = append(names, tl.Name())
	}
	if got := strings.Join(names, ","); got != QualifiedName("a_", "only_here") {
		t.Errorf("tools offered = %q, want only %s", got, QualifiedName("a_", "only_here"))
	}
	collided := QualifiedName("a", "_b")
	if _, ok := set.Policies[collided]; ok {
		t.Errorf("a policy is still set for %s", collided)
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], collided) ||
		!strings.Contains(set.Warnings[0], `a (tool "_b")`) || !strings.Contains(set.Warnings[0], `a_ (tool "b")`) {
		t.Errorf("warnings = %q, want one naming %s and both servers", set.Warnings, collided)
	}
	if s, tool, ok := m.Resolve(collided); ok {
		t.Errorf("Resolve(%s) = %s/%s, want it refused", collided, s, tool)
	}
	if s, tool, ok := m.Resolve(QualifiedName("a_", "only_here")); !ok || s != "a_" || tool != "only_here" {
		t.Errorf("Resolve of a tool only one server has = %s/%s/%v", s, tool, ok)
	}
}

// TestServerLogHidesURLAndArgSecrets: the secrets a server's url (a query value) and args
// (a secret-named flag's value) carry never reach its log, where the manager notes what it
// starts and connects to.
func TestServerLogHidesURLAndArgSecrets(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no MCP here", http.StatusNotFound)
	}))
	t.Cleanup(hs.Close)
	m := New(Options{LogDir: t.TempDir(), Backoff: func(int) time.Duration { return time.Hour }})
	t.Cleanup(func() { _ = m.Close() })
	m.Configure(config.MCPServers{
		"remote": {URL: hs.URL + "/mcp?api_key=qv-secret-77", Transport: config.MCPHTTP, TimeoutSeconds: 5},
		"local":  {Command: filepath.Join(t.TempDir(), "no-such-server"), Args: []string{"--api-key", "ak-secret-78"}, TimeoutSeconds: 5},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, name := range []string{"remote", "local"} {
		if _, err := m.Tools(ctx, name); err == nil {
			t.Fatalf("%s started", name)
		}
		text, err := m.Log(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text, "secret-7") || !strings.Contains(text, "[secret]") {
			t.Errorf("log of %s:\n%s\nwant its secret replaced by [secret]", name, text)
		}
	}
}

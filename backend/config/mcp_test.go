package config

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestValidateMCPServers: each bad key of an mcp_servers entry gives a problem naming it as
// mcp_servers.<name>.<key>; good stdio and HTTP entries pass.
func TestValidateMCPServers(t *testing.T) {
	abs, _ := filepath.Abs(t.TempDir())
	tests := []struct {
		name  string
		srv   string
		s     MCPServer
		field string // the problem's key, "" for a valid entry
	}{
		{"stdio", "everything", MCPServer{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"},
			Env: map[string]string{"TOKEN": "t"}, Cwd: abs}, ""},
		{"absolute program", "files", MCPServer{Command: filepath.Join(abs, "server")}, ""},
		{"http", "remote", MCPServer{URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"},
			Agents: []string{"search_agent", "reviewer"}, Permission: "auto", TimeoutSeconds: 5, DisabledTools: []string{"rm"}}, ""},
		{"sse", "legacy", MCPServer{URL: "http://127.0.0.1:9/sse", Transport: MCPSSE}, ""},
		{"bad name", "a b", MCPServer{Command: "npx"}, "mcp_servers"},
		{"long name", strings.Repeat("a", 65), MCPServer{Command: "npx"}, "mcp_servers"},
		// "__" separates server from tool in mcp__<server>__<tool>: server "a__b" tool "x"
		// would be offered under the same name as server "a" tool "b__x".
		{"double underscore", "a__b", MCPServer{Command: "npx"}, "mcp_servers"},
		{"single underscores", "a_b-c_", MCPServer{Command: "npx"}, ""},
		{"neither", "x", MCPServer{}, "mcp_servers.x"},
		{"both", "x", MCPServer{Command: "npx", URL: "http://a/mcp"}, "mcp_servers.x"},
		{"relative program", "x", MCPServer{Command: "./bin/server"}, "mcp_servers.x.command"},
		{"relative cwd", "x", MCPServer{Command: "npx", Cwd: "work"}, "mcp_servers.x.cwd"},
		{"bad url", "x", MCPServer{URL: "localhost:3001/mcp"}, "mcp_servers.x.url"},
		{"bad transport", "x", MCPServer{URL: "http://a/mcp", Transport: "websocket"}, "mcp_servers.x.transport"},
		{"stdio without command", "x", MCPServer{URL: "http://a/mcp", Transport: MCPStdio}, "mcp_servers.x.transport"},
		{"env name", "x", MCPServer{Command: "npx", Env: map[string]string{"A=B": "1"}}, "mcp_servers.x.env"},
		{"header value", "x", MCPServer{URL: "http://a/mcp", Headers: map[string]string{"X-Key": "a\nb"}}, "mcp_servers.x.headers.X-Key"},
		{"header name", "x", MCPServer{URL: "http://a/mcp", Headers: map[string]string{"Bad Name": "v"}}, "mcp_servers.x.headers"},
		{"permission", "x", MCPServer{Command: "npx", Permission: "ask"}, "mcp_servers.x.permission"},
		{"timeout", "x", MCPServer{Command: "npx", TimeoutSeconds: MaxMCPTimeoutSeconds + 1}, "mcp_servers.x.timeout_seconds"},
		{"agent name", "x", MCPServer{Command: "npx", Agents: []string{"search agent"}}, "mcp_servers.x.agents[0]"},
		{"empty disabled tool", "x", MCPServer{Command: "npx", DisabledTools: []string{" "}}, "mcp_servers.x.disabled_tools[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateMCPServer(tt.srv, tt.s)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("ValidateMCPServer() = %v, want nil", err)
				}
				return
			}
			var ie *InvalidError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("ValidateMCPServer() = %v, want an *InvalidError", err)
			}
			if _, ok := ie.Fields()[tt.field]; !ok {
				t.Fatalf("problems %q do not name %s", ie.Problems, tt.field)
			}
		})
	}
}

// TestMCPServerDefaults: an entry without our keys offers its tools to the search and crawl
// agents, asks before each call, allows 60 s and infers its transport.
func TestMCPServerDefaults(t *testing.T) {
	s := MCPServer{Command: "npx"}
	if !slices.Equal(s.AgentNames(), []string{"search_agent", "crawl_agent"}) || s.Policy() != MCPPermissionConfirm ||
		s.Timeout() != 60 || s.Kind() != MCPStdio {
		t.Fatalf("defaults: agents %v, policy %s, timeout %d, kind %s", s.AgentNames(), s.Policy(), s.Timeout(), s.Kind())
	}
	if k := (MCPServer{URL: "http://a/mcp"}).Kind(); k != MCPHTTP {
		t.Fatalf("a url's kind = %s, want http", k)
	}
	if (MCPServer{DisabledTools: []string{"rm"}}).ToolEnabled("rm") {
		t.Fatal("a disabled tool is enabled")
	}
}

// TestParseMCPServers: a pasted block in any of the shapes other apps write is read, with
// their "type" key as the transport and unknown keys reported; bad blocks give clear
// errors naming the key.
func TestParseMCPServers(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    MCPServers
		ignored []string
		err     string // a substring of the error; "" for none
	}{
		{"claude desktop", `{"mcpServers": {"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"K": "v"}}}}`,
			MCPServers{"filesystem": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: map[string]string{"K": "v"}}}, nil, ""},
		{"bare with byte-order mark", "\ufeff" + `{"everything": {"command": "node", "args": ["index.js"]}, "remote": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer t"}}}`,
			MCPServers{"everything": {Command: "node", Args: []string{"index.js"}}, "remote": {URL: "https://x.example/mcp", Headers: map[string]string{"Authorization": "Bearer t"}}}, nil, ""},
		{"claude code types", `{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}, "b": {"type": "streamable-http", "url": "http://h/mcp"}, "c": {"type": "stdio", "command": "uvx", "alwaysAllow": ["x"]}}}`,
			MCPServers{"a": {URL: "http://h/sse", Transport: MCPSSE}, "b": {URL: "http://h/mcp", Transport: MCPHTTP}, "c": {Command: "uvx", Transport: MCPStdio}}, []string{"c.alwaysAllow"}, ""},
		{"vs code", `{"servers": {"gh": {"url": "https://api.example/mcp/"}}}`, MCPServers{"gh": {URL: "https://api.example/mcp/"}}, nil, ""},
		{"a bare server named servers", `{"servers": {"command": "npx"}}`, MCPServers{"servers": {Command: "npx"}}, nil, ""},
		{"our own keys", `{"mcp_servers": {"x": {"command": "npx", "agents": ["reviewer"], "permission": "auto", "timeout_seconds": 5}}}`,
			MCPServers{"x": {Command: "npx", Agents: []string{"reviewer"}, Permission: "auto", TimeoutSeconds: 5}}, nil, ""},
		{"not json", `{"mcpServers": {`, nil, nil, "not an MCP servers block"},
		{"a list", `[1, 2]`, nil, nil, "not an MCP servers block"},
		{"empty", `{"mcpServers": {}}`, nil, nil, "names no server"},
		{"wrong type", `{"x": {"command": "npx", "args": "-y"}}`, nil, nil, "mcp_servers.x.args: must be a list"},
		{"bad entry", `{"mcpServers": {"bad name": {"command": "npx"}, "y": {"url": "ftp://h"}}}`, nil, nil, "mcp_servers.y.url"},
		{"unknown type", `{"x": {"type": "ws", "url": "http://h"}}`, nil, nil, "mcp_servers.x.type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ignored, err := ParseMCPServers(tt.text)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || !slices.Equal(ignored, tt.ignored) {
				t.Fatalf("got %v ignoring %v, want %v ignoring %v", got, ignored, tt.want, tt.ignored)
			}
			for name, s := range tt.want {
				if !slices.Equal(got[name].Secrets(), s.Secrets()) {
					t.Fatalf("%s secrets differ", name)
				}
			}
		})
	}
}

// TestMCPServerSecrets: besides env and header values, the secrets a server's url and
// args carry are secrets too (user info, query values, a secret-named flag's value, a
// header given as an argument), and printing the entry hides them.
func TestMCPServerSecrets(t *testing.T) {
	s := MCPServer{URL: "https://me:pw-in-url@mcp.example.com/mcp?api_key=qv-secret-1&x=y%2Fz", Headers: map[string]string{"X-Key": "hv-secret"}}
	got := s.Secrets()
	for _, want := range []string{"me", "pw-in-url", "qv-secret-1", "y/z", "y%2Fz", "hv-secret"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets() = %q, want %q among them", got, want)
		}
	}
	if out := fmt.Sprint(s); strings.Contains(out, "pw-in-url") || strings.Contains(out, "qv-secret-1") {
		t.Errorf("String() shows a url secret: %s", out)
	}
	a := MCPServer{Command: "npx", Args: []string{"-y", "mcp-remote", "https://h/mcp", "--api-key", "ak-secret-1",
		"--token=tk-secret-2", "--header", "Authorization: Bearer br-secret-3", "API_KEY=env-secret-4", "--verbose", "plain"}}
	got = a.Secrets()
	for _, want := range []string{"ak-secret-1", "tk-secret-2", "Authorization: Bearer br-secret-3", "br-secret-3", "env-secret-4"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets() = %q, want %q among them", got, want)
		}
	}
	for _, not := range []string{"-y", "mcp-remote", "https://h/mcp", "--verbose", "plain"} {
		if slices.Contains(got, not) {
			t.Errorf("Secrets() = %q holds %q, which is no secret", got, not)
		}
	}
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("server", "s", s)
	for _, out := range []string{fmt.Sprint(a), buf.String()} {
		if strings.Contains(out, "secret-") || strings.Contains(out, "pw-in-url") {
			t.Errorf("a secret is printed: %s", out)
		}
	}
}

// TestMCPSecretsNotPrinted: printing or logging settings with MCP servers shows the env and
// header names, never their values.
func TestMCPSecretsNotPrinted(t *testing.T) {
	m := MCPServers{"gh": {Command: "npx", Env: map[string]string{"GITHUB_TOKEN": "ghp-secret-1"}},
		"remote": {URL: "http://h/mcp", Headers: map[string]string{"Authorization": "Bearer secret-2"}}}
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("settings", "mcp", m, "one", m["gh"])
	for _, out := range []string{fmt.Sprint(m), fmt.Sprintf("%v %+v %s", m["gh"], m["remote"], m), buf.String()} {
		if strings.Contains(out, "secret") {
			t.Fatalf("a secret is printed: %s", out)
		}
		if !strings.Contains(out, "GITHUB_TOKEN") {
			t.Fatalf("the env names are not shown: %s", out)
		}
	}
}

// TestUpdateMCPServerWritesOnlyItsKeys: changing one key of one server through Update
// writes that key alone; the other servers, the entry's keys this version does not know and
// the rest of the file stay as they were; removing a server removes its entry only.
func TestUpdateMCPServerWritesOnlyItsKeys(t *testing.T) {
	dir := t.TempDir()
	const file = `{
  "model": "m",
  "mcp_servers": {
    "a": {"command": "npx", "args": ["-y", "pkg"], "env": {"TOKEN": "t1"}, "x_note": "mine"},
    "b": {"url": "http://127.0.0.1:1/mcp"}
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _, err := Update(dir, func(s Settings) (Settings, error) {
		a := s.MCPServers["a"]
		a.Permission = MCPPermissionAuto
		return s.WithMCPServer("a", &a), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.MCPServers["a"].Policy() != MCPPermissionAuto || s.MCPServers["a"].Env["TOKEN"] != "t1" {
		t.Fatalf("stored a = %v", s.MCPServers["a"])
	}
	b, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	m := decodeMap(t, b)
	a := m["mcp_servers"].(map[string]any)["a"].(map[string]any)
	if a["x_note"] != "mine" || a["permission"] != "auto" || m["model"] != "m" || len(m["mcp_servers"].(map[string]any)) != 2 {
		t.Fatalf("file after the change: %s", b)
	}
	if _, _, err := Update(dir, func(s Settings) (Settings, error) { return s.WithMCPServer("b", nil), nil }); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, ConfigFile))
	if servers := decodeMap(t, b)["mcp_servers"].(map[string]any); len(servers) != 1 || servers["a"] == nil {
		t.Fatalf("file after removing b: %s", b)
	}
	// An invalid server is refused with its key named, and the file is left as it was.
	_, _, err = Update(dir, func(s Settings) (Settings, error) {
		return s.WithMCPServer("c", &MCPServer{Command: "npx", Permission: "sometimes"}), nil
	})
	if err == nil || !strings.Contains(err.Error(), "mcp_servers.c.permission") {
		t.Fatalf("Update with a bad server = %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, ConfigFile)); !bytes.Equal(after, b) {
		t.Fatal("a refused change altered the file")
	}
}

// A config.json that already holds a server named with "__" (valid before that rule) still
// saves every other setting: Settings.Validate leaves the rule to the server's own checks
// (ValidateMCPServer: adding, editing, importing, starting), and each other shape rule is
// the same in both.
func TestDoubleUnderscoreNameKeepsOtherSettings(t *testing.T) {
	old := Settings{MCPServers: MCPServers{"a__b": {Command: "npx"}}}
	if err := old.Validate(); err != nil {
		t.Errorf("Validate() with an existing a__b server = %v, want nil (the other settings must still save)", err)
	}
	if err := ValidateMCPServer("a__b", MCPServer{Command: "npx"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("ValidateMCPServer(a__b) = %v, want ErrInvalid", err)
	}
	if err := (Settings{MCPServers: MCPServers{"x": {}}}).Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Validate() of a server with neither command nor url = %v, want ErrInvalid", err)
	}
}

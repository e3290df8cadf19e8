package browser

import (
	"net/http"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestBrowserModeMCPServers: browser mode lists the MCP servers configured in config.json
// (secrets masked) and removes one, but refuses to add or change one, since an entry
// names a program this computer would run; nothing is written then.
func TestBrowserModeMCPServers(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	if err := config.Save(w.DataDir, config.Settings{MCPServers: config.MCPServers{
		"files": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: map[string]string{"TOKEN": "tok-secret-42"}},
	}}); err != nil {
		t.Fatal(err)
	}
	_, srv, hs := newBrowserServer(t, w, "")
	code, body := apptest.Post(t, hs.URL+"/api/bind/SettingsService/MCPServers", srv.Token(), `[]`)
	if code != http.StatusOK || !strings.Contains(body, `"name":"files"`) || strings.Contains(body, "tok-secret-42") {
		t.Fatalf("MCPServers -> %d %s", code, body)
	}
	for _, call := range []struct{ method, args string }{
		{"SaveMCPServer", `["evil", {"command": "/bin/sh", "args": ["-c", "touch /tmp/pwned"]}]`},
		{"ImportMCPServers", `["{\"mcpServers\": {\"evil\": {\"command\": \"/bin/sh\"}}}"]`},
	} {
		code, body := apptest.Post(t, hs.URL+"/api/bind/SettingsService/"+call.method, srv.Token(), call.args)
		if code != http.StatusForbidden || !strings.Contains(body, `"code":"desktop_only"`) {
			t.Fatalf("%s -> %d %s, want 403 desktop_only", call.method, code, body)
		}
	}
	if s, _ := config.Load(w.DataDir); len(s.MCPServers) != 1 {
		t.Fatalf("servers after the refused calls: %v", s.MCPServers)
	}
	if code, body := apptest.Post(t, hs.URL+"/api/bind/SettingsService/RemoveMCPServer", srv.Token(), `["files"]`); code != http.StatusOK {
		t.Fatalf("RemoveMCPServer -> %d %s", code, body)
	}
	if s, _ := config.Load(w.DataDir); len(s.MCPServers) != 0 {
		t.Fatalf("servers after removal: %v", s.MCPServers)
	}
}

package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
)

// newBrowserServer opens a Core on w (closed when t ends) and serves browser mode on it,
// with the built frontend in assets ("" for none).
func newBrowserServer(t *testing.T, w *apptest.World, assets string) (*app.Core, *Server, *httptest.Server) {
	t.Helper()
	core, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir, Overrides: w.Overrides()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	srv, hs := serveCore(t, core, assets)
	return core, srv, hs
}

// serveCore serves core in browser mode with the frontend in assets ("" for none) on a
// test server closed when the test ends.
func serveCore(t *testing.T, core *app.Core, assets string) (*Server, *httptest.Server) {
	t.Helper()
	var fsys = os.DirFS(assets)
	if assets == "" {
		fsys = nil
	}
	srv, err := NewServer(core, fsys)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs
}

// runScript runs node frontend/e2e/<script> URL [args...] (Playwright driving headless
// Chromium) with env (KEY=value) added to this process's environment, for at most
// timeout, and logs what it printed. Errors: the script failed, or timed out.
func runScript(t *testing.T, timeout time.Duration, script, url string, args []string, env ...string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"e2e/" + script, url}, args...)...)
	cmd.Dir = "../../frontend"
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s output:\n%s", script, out)
	return err
}

// TestBrowserServerAPI checks the browser-mode contract: token and loopback Host
// required, bound methods called with a JSON array, Go errors as {"error"} with 500.
func TestBrowserServerAPI(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	_, srv, hs := newBrowserServer(t, w, "")
	tests := []struct {
		name, path, token, body string
		status                  int
		want                    string
	}{
		{"no token", "/api/bind/SettingsService/Get", "", "[]", 401, "token"},
		{"wrong token", "/api/bind/SettingsService/Get", "nope", "[]", 401, "token"},
		{"settings", "/api/bind/SettingsService/Get", srv.Token(), "[]", 200, `"model":"test-model"`},
		{"no such method", "/api/bind/SettingsService/Explode", srv.Token(), "[]", 404, "no such method"},
		{"args not an array", "/api/bind/ConversationService/Get", srv.Token(), `{"id":1}`, 400, "JSON array"},
		{"wrong arg count", "/api/bind/ConversationService/Get", srv.Token(), `[]`, 500, "expected 1 arguments"},
		{"go error", "/api/bind/ConversationService/Get", srv.Token(), `["missing"]`, 500, "not found"},
		{"empty send", "/api/bind/ChatService/Send", srv.Token(), `[{"content":"  "}]`, 500, "empty"},
		{"agent file by path", "/api/bind/SettingsService/ReadUserAgent", srv.Token(), `["../config.json"]`, 500, `"code":"invalid_request"`},
		{"agent file written by path", "/api/bind/SettingsService/SaveUserAgent", srv.Token(), `["../x.md","---"]`, 500, `"code":"invalid_request"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := apptest.Post(t, hs.URL+tc.path, tc.token, tc.body)
			if code != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("%s -> %d %s, want %d containing %q", tc.path, code, body, tc.status, tc.want)
			}
		})
	}
	// A foreign Host header (DNS rebinding) is refused even with the token.
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/api/bind/SettingsService/Get", strings.NewReader("[]"))
	req.Host = "evil.example:80"
	req.Header.Set("X-ArtifactFlow-Token", srv.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign host -> %d, want 403", resp.StatusCode)
	}
}

// TestBrowserServerRun starts a run through the HTTP API and reads its events from the
// SSE stream, as the shim does.
func TestBrowserServerRun(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	_, srv, hs := newBrowserServer(t, w, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/api/events", nil)
	req.Header.Set(TokenHeader, srv.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	code, body := apptest.Post(t, hs.URL+"/api/bind/ChatService/Send", srv.Token(), `[{"content":"`+apptest.Question+`"}]`)
	if code != 200 {
		t.Fatalf("Send -> %d %s", code, body)
	}
	var sent app.SendResult
	if err := json.Unmarshal([]byte(body), &sent); err != nil || sent.ConversationID == "" {
		t.Fatalf("Send result %s: %v", body, err)
	}
	var types []string
	buf := make([]byte, 0, 1<<16)
	chunk := make([]byte, 4096)
	for !strings.Contains(string(buf), `"type":"complete"`) {
		n, err := resp.Body.Read(chunk)
		if err != nil {
			t.Fatalf("SSE ended before complete: %v\n%s", err, buf)
		}
		buf = append(buf, chunk[:n]...)
	}
	for _, line := range strings.Split(string(buf), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var msg struct {
				Name string `json:"name"`
				Data struct {
					Type           string `json:"type"`
					ConversationID string `json:"conversation_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(data), &msg); err != nil {
				t.Fatalf("bad SSE data %q: %v", data, err)
			}
			if msg.Name != app.RunEventName || msg.Data.ConversationID != sent.ConversationID {
				t.Fatalf("SSE message %+v", msg)
			}
			types = append(types, msg.Data.Type)
		}
	}
	joined := strings.Join(types, ",")
	if !strings.HasPrefix(joined, "metadata,agent_start") || !strings.Contains(joined, "llm_chunk") {
		t.Fatalf("SSE events = %s", joined)
	}
	code, body = apptest.Post(t, hs.URL+"/api/bind/ArtifactService/List", srv.Token(), `["`+sent.ConversationID+`"]`)
	if code != 200 || !strings.Contains(body, `"id":"research_report"`) || !strings.Contains(body, `"id":"task_plan"`) {
		t.Fatalf("ArtifactService.List -> %d %s", code, body)
	}
}

// TestBrowserE2E runs the real frontend in headless Chromium against browser mode, with
// the model, SearXNG and web page served locally (frontend/e2e/real.mjs). make test sets
// AF_E2E=1; elsewhere it is skipped because it needs the built frontend, Node and Chromium.
func TestBrowserE2E(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", nil)
	_, srv, hs := newBrowserServer(t, w, dist)
	if err := runScript(t, 3*time.Minute, "real.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question, "AF_ANSWER="+apptest.FinalReply, "AF_FACT=384,400 km"); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"artifactflow/app"
	"artifactflow/app/browser"
	"artifactflow/app/internal/dbtest"
	"artifactflow/backend/store"
)

// FuzzServeHandlers sends random methods, paths, bodies and header sets to browser mode's
// handler (what `serve` mounts) over a real core on SQLite in t.TempDir(). It never
// panics and never answers 5xx to a request it refuses; a request with a non-loopback
// Host gets 403, an /api/ request without the right token (or from a foreign origin) gets
// 401 or 403; and no request the fuzz sends changes anything: the row count of every
// table and config.json stay as they were. Bound calls that the token and origin would
// let through are not made (they may legitimately change things); everything else is.
//
// headers is "Name: value" lines; a Host line sets the Host header.
func FuzzServeHandlers(f *testing.F) {
	core, err := app.NewCore(context.Background(), app.Options{DataDir: filepath.Join(f.TempDir(), "data"),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = core.Close(context.Background()) })
	if err := core.Store().CreateConversation(context.Background(), store.Conversation{ID: slowConv, Title: "Before"}); err != nil {
		f.Fatal(err)
	}
	assets := fstest.MapFS{
		"index.html":    {Data: []byte("<html><head></head><body>app</body></html>")},
		"assets/app.js": {Data: []byte("console.log(1)")},
	}
	srv, err := browser.NewServer(core, assets)
	if err != nil {
		f.Fatal(err)
	}
	token := srv.Token()
	configPath := filepath.Join(core.DataDir(), "config.json")
	state := func(t testing.TB) string {
		cfg, _ := os.ReadFile(configPath)
		return dbtest.RowCounts(t, core.Store()) + " config=" + string(cfg)
	}
	rename := "/api/bind/ConversationService/Rename"
	seeds := []struct {
		method, path string
		body         string
		auth         uint8
		headers      string
	}{
		{"GET", "/", "", 0, ""},
		{"GET", "/assets/app.js", "", 0, ""},
		{"GET", "/../../../etc/passwd", "", 0, ""},
		{"GET", "/assets/%2e%2e/%2e%2e/config.json", "", 0, ""},
		{"GET", "/__af/shim.js", "", 0, "Host: evil.example"},
		{"POST", "/", "x", 0, ""},
		{"POST", rename, `["conv-slow","Evil"]`, 0, ""},
		{"POST", rename, `["conv-slow","Evil"]`, 1, ""},
		{"POST", rename, `["conv-slow","Evil"]`, 2, "Origin: https://evil.example"},
		{"POST", rename, `["conv-slow","Evil"]`, 2, "Sec-Fetch-Site: cross-site"},
		{"POST", rename, `["conv-slow","Evil"]`, 2, "Host: attacker.example:8080"},
		{"POST", "/api/bind/ConversationService/Delete", `["conv-slow"]`, 1, "Origin: null"},
		{"POST", "/api/bind/SettingsService/Save", `[{"apiKey":"x"}]`, 0, "X-ArtifactFlow-Token: wrong"},
		{"POST", "/api/bind/ArtifactService/UploadPaths", `["conv-slow",["/etc/passwd"]]`, 2, ""},
		{"GET", "/api/events", "", 0, ""},
		{"GET", "/api/events", "", 2, ""},
		{"GET", "/api/nope", "", 2, ""},
		{"DELETE", "/api", "", 2, "Host: [::1]:1"},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, []byte(s.body), s.auth, s.headers)
	}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4243}
	f.Fuzz(func(t *testing.T, method, path string, body []byte, auth uint8, headers string) {
		base := context.WithValue(context.Background(), http.LocalAddrContextKey, net.Addr(local))
		ctx, cancel := context.WithTimeout(base, 50*time.Millisecond) // ends event streams
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:4243"+path, bytes.NewReader(body))
		if err != nil {
			return // not a request a server could receive
		}
		req.Host = "127.0.0.1:4243"
		switch auth % 3 {
		case 1:
			req.Header.Set(browser.TokenHeader, token+"x")
		case 2:
			req.Header.Set(browser.TokenHeader, token)
		}
		for _, line := range strings.Split(headers, "\n") {
			name, value, ok := strings.Cut(line, ":")
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			switch {
			case !ok || name == "":
			case strings.EqualFold(name, "Host"):
				req.Host = value
			default:
				req.Header.Add(name, value)
			}
		}
		api := req.URL.Path == "/api" || strings.HasPrefix(req.URL.Path, "/api/")
		foreignHost := !browser.LoopbackHost(req.Host)
		tokens := req.Header.Values(browser.TokenHeader)
		badToken := len(tokens) == 0 || tokens[0] != token
		// As browsers send them: one Sec-Fetch-Site, one Origin ("" counts as none).
		site, origin := req.Header.Get("Sec-Fetch-Site"), strings.ToLower(req.Header.Get("Origin"))
		crossSite := site != "" && site != "same-origin" ||
			origin != "" && !strings.Contains(origin, "127.0.0.1") && !strings.Contains(origin, "localhost") && !strings.Contains(origin, "[::1]")
		mustRefuse := foreignHost || api && (badToken || crossSite)
		if api && strings.HasPrefix(req.URL.Path, "/api/bind/") && !mustRefuse {
			return // a bound call the guard lets through may change things by design
		}
		before := state(t)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if mustRefuse && rec.Code != http.StatusUnauthorized && rec.Code != http.StatusForbidden {
			t.Fatalf("%s %q %q must be refused, answered %d: %s", method, path, headers, rec.Code, rec.Body)
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %q %q -> %d: %s", method, path, headers, rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), token) {
			t.Fatalf("%s %q %q: the answer carries the token", method, path, headers)
		}
		if after := state(t); after != before {
			t.Fatalf("%s %q %q answered %d but changed state:\n%s\n%s", method, path, headers, rec.Code, before, after)
		}
	})
}

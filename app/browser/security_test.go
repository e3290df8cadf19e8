package browser

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// oldTokenCookie is the cookie that used to carry the token (it reached every port).
const oldTokenCookie = "af_token"

// call sends one request to the browser server with the given headers ("Cookie" included)
// and returns the status, the body and the response headers.
func call(t *testing.T, method, url string, headers map[string]string, body string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	// An event stream that wrongly opens never ends: the timeout cuts it off (the status is
	// what matters then).
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// saveUserSettings stores settings with the user's API key the way the page does, so that
// config.json exists, and returns its bytes.
func saveUserSettings(t *testing.T, hs *httptest.Server, token, dataDir string) []byte {
	t.Helper()
	code, body := apptest.Post(t, hs.URL+"/api/bind/SettingsService/Save", token,
		`[{"base_url":"http://127.0.0.1:1/v1","api_key":"sk-user-secret","model":"test-model","tool_call_mode":"native"}]`)
	if code != http.StatusOK {
		t.Fatalf("the user's own Save -> %d %s", code, body)
	}
	b, err := os.ReadFile(filepath.Join(dataDir, config.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("sk-user-secret")) {
		t.Fatalf("config.json lacks the saved key: %s", b)
	}
	return b
}

// TestBrowserServerRefusesForeignPages replays the attack of a page served on another port
// of 127.0.0.1: the browser sends it the token cookie (cookies are not port-scoped) and a
// no-cors POST needs no preflight. Every /api/ request from another origin is refused with
// 403 and no side effect; a cookie or a query token no longer authorizes anything; the
// app's own page and clients that are not browsers still get through with the header.
func TestBrowserServerRefusesForeignPages(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	_, srv, hs := newBrowserServer(t, w, "")
	token := srv.Token()
	self := hs.URL // http://127.0.0.1:PORT
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	evil := other.URL // a page on another port of the same host
	before := saveUserSettings(t, hs, token, w.DataDir)
	attack := `[{"base_url":"` + evil + `/v1","model":"test-model","tool_call_mode":"native"}]`
	cookie := oldTokenCookie + "=" + token

	refused := []struct {
		name, method, path string
		headers            map[string]string
		body               string
		status             int
		code               string
	}{
		{"the reported attack: no-cors POST from another port with the cookie", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Origin": evil, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Content-Type": "text/plain;charset=UTF-8", "Cookie": cookie},
			attack, 403, "forbidden_origin"},
		{"another port even with the token header", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Origin": evil, "Sec-Fetch-Site": "same-site", TokenHeader: token}, attack, 403, "forbidden_origin"},
		{"another site", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", TokenHeader: token}, attack, 403, "forbidden_origin"},
		{"another port, Origin alone (no Sec-Fetch-Site)", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Origin": evil, TokenHeader: token}, attack, 403, "forbidden_origin"},
		{"same-site, Sec-Fetch-Site alone", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Sec-Fetch-Site": "same-site", TokenHeader: token}, attack, 403, "forbidden_origin"},
		{"same-origin claimed but Origin of another port", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Origin": evil, "Sec-Fetch-Site": "same-origin", TokenHeader: token}, attack, 403, "forbidden_origin"},
		{"opaque origin (sandboxed frame, data: URL)", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Origin": "null", TokenHeader: token}, attack, 403, "forbidden_origin"},
		{"https origin of the same host and port", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Origin": strings.Replace(self, "http:", "https:", 1), TokenHeader: token}, attack, 403, "forbidden_origin"},
		{"the cookie alone no longer authorizes", "POST", "/api/bind/SettingsService/Save",
			map[string]string{"Cookie": cookie}, attack, 401, "unauthorized"},
		{"a query token no longer authorizes", "POST", "/api/bind/SettingsService/Save?token=" + token,
			nil, attack, 401, "unauthorized"},
		{"CORS preflight from another port", "OPTIONS", "/api/bind/SettingsService/Save",
			map[string]string{"Origin": evil, "Sec-Fetch-Site": "same-site", "Access-Control-Request-Method": "POST",
				"Access-Control-Request-Headers": "x-artifactflow-token"}, "", 403, "forbidden_origin"},
		{"reading files by path from another port", "POST", "/api/bind/ArtifactService/UploadPaths",
			map[string]string{"Origin": evil, "Sec-Fetch-Site": "same-site", "Cookie": cookie}, `["", ["/etc/passwd"]]`, 403, "forbidden_origin"},
		{"reading conversations from another site", "POST", "/api/bind/ConversationService/List",
			map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Cookie": cookie}, `[]`, 403, "forbidden_origin"},
		{"the event stream from another port", "GET", "/api/events",
			map[string]string{"Origin": evil, "Sec-Fetch-Site": "same-site", "Cookie": cookie}, "", 403, "forbidden_origin"},
		{"the event stream with the cookie alone", "GET", "/api/events",
			map[string]string{"Cookie": cookie}, "", 401, "unauthorized"},
		{"the event stream with a query token", "GET", "/api/events?token=" + token,
			nil, "", 401, "unauthorized"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			code, body, hdr := call(t, tc.method, self+tc.path, tc.headers, tc.body)
			var e struct{ Code, Error string }
			_ = json.Unmarshal([]byte(body), &e)
			if code != tc.status || e.Code != tc.code || !strings.HasPrefix(e.Error, tc.code+": ") {
				t.Fatalf("%s %s -> %d %s, want %d with code %q", tc.method, tc.path, code, body, tc.status, tc.code)
			}
			if v := hdr.Get("Access-Control-Allow-Origin"); v != "" {
				t.Fatalf("Access-Control-Allow-Origin %q on a refusal", v)
			}
			after, err := os.ReadFile(filepath.Join(w.DataDir, config.ConfigFile))
			if err != nil || !bytes.Equal(after, before) {
				t.Fatalf("config.json changed (err %v):\nbefore %s\nafter  %s", err, before, after)
			}
		})
	}
	code, body, _ := call(t, "POST", self+"/api/bind/ConversationService/List", nil, "[]")
	if code != 401 {
		t.Fatalf("List without any credential -> %d %s", code, body)
	}
	if _, body := apptest.Post(t, self+"/api/bind/ConversationService/List", token, "[]"); body != "[]\n" {
		t.Fatalf("a refused request left conversations behind: %s", body)
	}

	allowed := []struct {
		name    string
		headers map[string]string
	}{
		{"the app's own page", map[string]string{"Origin": self, "Sec-Fetch-Site": "same-origin", TokenHeader: token}},
		{"the app's own page named localhost", map[string]string{"Origin": strings.Replace(self, "127.0.0.1", "localhost", 1), "Host": strings.Replace(strings.TrimPrefix(self, "http://"), "127.0.0.1", "localhost", 1), TokenHeader: token}},
		{"a client that is not a browser", map[string]string{TokenHeader: token}},
	}
	for _, tc := range allowed {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", self+"/api/bind/SettingsService/Get", strings.NewReader("[]"))
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			if h := tc.headers["Host"]; h != "" {
				req.Host = h
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), `"model":"test-model"`) {
				t.Fatalf("-> %d %s", resp.StatusCode, b)
			}
		})
	}
}

// TestBrowserServerRefusesPaths checks that browser mode never reads a file by a path the
// caller names (the reported attack uploaded /etc/passwd and /proc/self/environ and
// exported them back), while the page's own upload of file contents and the export of an
// artifact's bytes keep working.
func TestBrowserServerRefusesPaths(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	_, srv, hs := newBrowserServer(t, w, "")
	token := srv.Token()
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-LINE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, paths := range []string{`["/etc/passwd"]`, `["/proc/self/environ"]`, `["` + secret + `"]`} {
		code, body, _ := call(t, "POST", hs.URL+"/api/bind/ArtifactService/UploadPaths",
			map[string]string{TokenHeader: token, "Origin": hs.URL, "Sec-Fetch-Site": "same-origin"}, `["", `+paths+`]`)
		if code != http.StatusForbidden || !strings.Contains(body, `"code":"desktop_only"`) || !strings.Contains(body, "uploads file contents") {
			t.Fatalf("UploadPaths %s -> %d %s, want 403 desktop_only", paths, code, body)
		}
		if strings.Contains(body, "SECRET") || strings.Contains(body, "root:") {
			t.Fatalf("UploadPaths %s leaked the file: %s", paths, body)
		}
	}
	if code, body := apptest.Post(t, hs.URL+"/api/bind/ConversationService/List", token, "[]"); code != 200 || body != "[]\n" {
		t.Fatalf("after refused UploadPaths, conversations = %d %s", code, body)
	}

	// The browser's own way: the page reads the file and sends its contents.
	data := base64.StdEncoding.EncodeToString([]byte("# Field notes\n\nMeasured at noon.\n"))
	code, body := apptest.Post(t, hs.URL+"/api/bind/ArtifactService/Upload", token, `["", [{"name":"notes.md","data":"`+data+`"}]]`)
	var ups []app.UploadResult
	if err := json.Unmarshal([]byte(body), &ups); code != 200 || err != nil || len(ups) != 1 || ups[0].Error != "" || ups[0].ConversationID == "" {
		t.Fatalf("Upload -> %d %s (%v)", code, body, err)
	}
	code, body = apptest.Post(t, hs.URL+"/api/bind/ArtifactService/Export", token,
		fmt.Sprintf(`[%q, %q, 0, "markdown"]`, ups[0].ConversationID, ups[0].ArtifactID))
	var ex struct {
		Filename  string `json:"filename"`
		Data      []byte `json:"data"`
		SavedPath string `json:"saved_path"`
	}
	if err := json.Unmarshal([]byte(body), &ex); code != 200 || err != nil || !strings.Contains(string(ex.Data), "Measured at noon.") || ex.SavedPath != "" {
		t.Fatalf("Export -> %d %s (%v): want the bytes and no saved path", code, body, err)
	}
}

// browserReviewed lists the bound methods reviewed for browser mode: none takes a
// filesystem path or writes where its caller says (Export writes only where the window's
// native save dialog says, and browser mode has no dialogs: it returns the bytes).
var browserReviewed = []string{
	// Ids and text only, each checked by the service as any client input: a link added by
	// the user (the declared store's own validation), a question picture read by its upload
	// artifact id, pin/archive and a run's rating; Publish writes an HTML artifact into its
	// own conversation's workspace under a name made from its title (no path is given).
	"ArtifactService/AddLink", "ArtifactService/Image", "ArtifactService/Publish",
	"ConversationService/Pin", "ConversationService/Archive", "ConversationService/SetFeedback",
	"ArtifactService/DiscardDraft", "ArtifactService/Drafts", "ArtifactService/Export", "ArtifactService/ExportWithDiagrams", "ArtifactService/Get",
	"ArtifactService/KeepDraft", "ArtifactService/List", "ArtifactService/Restore", "ArtifactService/Save",
	"ArtifactService/Upload", "ArtifactService/Version", "ArtifactService/Versions", "ArtifactService/ListDeclared", "ArtifactService/RemoveDeclared", "ArtifactService/DeleteArtifact",
	"ChatService/Queue", "ChatService/Regenerate", "ChatService/Respond", "ChatService/Running", "ChatService/Send", "ChatService/Stop",
	"ConversationService/Delete", "ConversationService/Events", "ConversationService/Get", "ConversationService/History",
	"ConversationService/List", "ConversationService/Rename", "ConversationService/Search", "ConversationService/SwitchBranch",
	"ConversationService/Sources",
	"ConversationService/WorkspaceStatus", "ConversationService/Reindex", "ConversationService/ResetWorkspace", "ConversationService/WorkspaceFailures",
	"SettingsService/Get", "SettingsService/ModelContext", "SettingsService/Save",
	"SettingsService/ListModels", "SettingsService/Presets", "SettingsService/TestConnection", "SettingsService/TestSearch",
	"SettingsService/SetLanguage",
	// FindLocalServers takes no argument: it asks fixed ports of 127.0.0.1 for model lists.
	"SettingsService/FindLocalServers",
	// The MCP servers the user configured (in the window or config.json): listed, tested
	// (started as configured), read, a tool switched off, removed. Adding or changing one
	// is desktopOnly: it names a program to run.
	"SettingsService/MCPServers", "SettingsService/TestMCPServer", "SettingsService/MCPServerLog",
	"SettingsService/SetMCPToolEnabled", "SettingsService/RemoveMCPServer",
	// The agent-file methods take a file name, never a path: a plain *.md name in
	// <data-dir>/agents/ (a separator, "..", a hidden or other file is invalid_request), and
	// write only there. An agent file gives the agents no tool the page could not already
	// have them use by asking a question.
	"SettingsService/UserAgents", "SettingsService/ReadUserAgent", "SettingsService/SaveUserAgent",
	"SettingsService/NewUserAgent", "SettingsService/DeleteUserAgent",
	// A conversation file: Export returns the bytes in browser mode (no dialog), Import takes
	// bytes, never a path (ImportFile, which opens the native dialog, is desktopOnly).
	"ConversationService/Export", "ConversationService/Import",
	// Backup takes no argument: without a dialog it writes a new file of a name it chooses
	// into the Documents folder, never over a file and never where the caller says.
	"SettingsService/Backup",
}

// TestBrowserModeReviewsEveryMethod fails when a bound method is added without a decision
// about browser mode, where any page the user opens could try it: a method that reads or
// writes a path the caller names belongs in desktopOnly (app/browser/browser.go), any other in
// browserReviewed above.
func TestBrowserModeReviewsEveryMethod(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	_, srv, _ := newBrowserServer(t, w, "")
	reviewed := map[string]bool{}
	for _, m := range browserReviewed {
		reviewed[m] = true
	}
	for name := range srv.methods {
		_, refused := desktopOnly[name]
		if reviewed[name] == refused {
			t.Errorf("bound method %s: put it in exactly one of desktopOnly (app/browser/browser.go: it takes a filesystem path) "+
				"and browserReviewed (app/browser/security_test.go: safe for the browser page to call)", name)
		}
	}
	for name := range desktopOnly {
		if _, ok := srv.methods[name]; !ok {
			t.Errorf("desktopOnly names %s, which is not bound", name)
		}
	}
}

// TestBrowserServerSecurityHeaders checks the headers every browser-mode response carries
// (pages, assets, the shim, API answers and refusals), that the page loads without the
// token and never carries it, and that no cookie is set.
func TestBrowserServerSecurityHeaders(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	dist := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dist, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dist, "index.html"), []byte(`<!DOCTYPE html><html><head><title>AF</title><script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dist, "assets", "app.js"), []byte("console.log(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, srv, hs := newBrowserServer(t, w, dist)
	token := srv.Token()
	requests := []struct {
		name, method, path string
		headers            map[string]string
		status             int
	}{
		{"the page opened with the printed URL", "GET", "/?token=" + token, nil, 200},
		{"the page reloaded without the token", "GET", "/", nil, 200},
		{"an asset", "GET", "/assets/app.js", nil, 200},
		{"the shim", "GET", "/__af/shim.js", nil, 200},
		{"a bound call", "POST", "/api/bind/SettingsService/Get", map[string]string{TokenHeader: token}, 200},
		{"a refused call", "POST", "/api/bind/SettingsService/Get", nil, 401},
		{"a foreign call", "POST", "/api/bind/SettingsService/Get", map[string]string{"Origin": "http://evil.example", TokenHeader: token}, 403},
		{"a POST to the page", "POST", "/", nil, 405},
	}
	csp := []string{"default-src 'self'", "script-src 'self'", "frame-src 'none'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'"}
	for _, tc := range requests {
		t.Run(tc.name, func(t *testing.T) {
			code, body, hdr := call(t, tc.method, hs.URL+tc.path, tc.headers, "[]")
			if code != tc.status {
				t.Fatalf("%s %s -> %d %s, want %d", tc.method, tc.path, code, body, tc.status)
			}
			for _, d := range csp {
				if !strings.Contains(hdr.Get("Content-Security-Policy"), d) {
					t.Errorf("Content-Security-Policy %q lacks %q", hdr.Get("Content-Security-Policy"), d)
				}
			}
			if script := cspDirective(hdr.Get("Content-Security-Policy"), "script-src"); script != "script-src 'self'" {
				t.Errorf("Content-Security-Policy has %q, want scripts from the app alone", script)
			}
			for k, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
				if got := hdr.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if c := hdr.Values("Set-Cookie"); len(c) > 0 {
				t.Errorf("Set-Cookie %q: no cookie may carry the token", c)
			}
			if strings.Contains(body, token) {
				t.Errorf("the response carries the token: %s", body)
			}
		})
	}
	_, page, _ := call(t, "GET", hs.URL+"/", nil, "")
	if !strings.Contains(page, `<head><script src="/__af/shim.js"></script>`) {
		t.Fatalf("index.html does not load the shim first: %s", page)
	}
}

// TestBrowserE2EForeignPage replays the reported attack in Chromium: the user opens the app
// URL printed by `serve`; a page served on another port of 127.0.0.1 then tries a no-cors
// SettingsService.Save with credentials, UploadPaths of /etc/passwd,
// ConversationService.List and the event stream (frontend/e2e/security.mjs). The app server
// must have seen those requests (so the browser did send them) and refused each with 403,
// config.json must be unchanged, the app URL must lose its token and the app must keep
// working after a reload, with no Content-Security-Policy violation; an image-map area, a
// javascript: area and a form in the page must not navigate the app's tab. Needs AF_E2E=1
// like TestBrowserE2E.
func TestBrowserE2EForeignPage(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", nil)
	_, srv, hs := newBrowserServer(t, w, dist)
	before := saveUserSettings(t, hs, srv.Token(), w.DataDir)

	// What the app server answered to requests that came from the attacker's page.
	type seen struct {
		method, path, site string
		status             int
		cookie             bool
	}
	var mu sync.Mutex
	var foreign []seen
	attacker := httptest.NewServer(nil)
	t.Cleanup(attacker.Close)
	hs.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: rw, status: 200}
		srv.ServeHTTP(rec, r)
		if r.Header.Get("Origin") == attacker.URL {
			mu.Lock()
			foreign = append(foreign, seen{r.Method, r.URL.Path, r.Header.Get("Sec-Fetch-Site"), rec.status, r.Header.Get("Cookie") != ""})
			mu.Unlock()
		}
	})
	attacker.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, foreignPage(hs.URL, attacker.URL))
	})

	if err := runScript(t, 2*time.Minute, "security.mjs", hs.URL+"/?token="+srv.Token(), []string{attacker.URL + "/"}); err != nil {
		t.Errorf("browser end-to-end failed: %v", err) // what the server saw is still worth checking
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("requests from the foreign page: %+v", foreign)
	want := map[string]bool{"/api/bind/SettingsService/Save": false, "/api/bind/ArtifactService/UploadPaths": false,
		"/api/bind/ConversationService/List": false, "/api/events": false}
	for _, f := range foreign {
		if f.status != http.StatusForbidden {
			t.Errorf("%s %s from the foreign page (Sec-Fetch-Site %q) -> %d, want 403", f.method, f.path, f.site, f.status)
		}
		if f.cookie {
			t.Errorf("%s %s from the foreign page carried a cookie of the app", f.method, f.path)
		}
		if _, ok := want[f.path]; ok {
			want[f.path] = true
		}
	}
	for path, ok := range want {
		if !ok {
			t.Errorf("the app server never saw the foreign page's request to %s: the test did not replay the attack", path)
		}
	}
	after, err := os.ReadFile(filepath.Join(w.DataDir, config.ConfigFile))
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("config.json changed (err %v):\nbefore %s\nafter  %s", err, before, after)
	}
}

// statusRecorder remembers the status a handler wrote; it forwards Flush for the SSE stream.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// foreignPage is the attacker's page: the requests of the report, each with the browser's
// credentials, then window.__done. Their answers are opaque to it (no-cors); the app
// server's log of them is what the test checks.
func foreignPage(app, self string) string {
	save := `[{"base_url":"` + self + `/v1","model":"test-model","tool_call_mode":"native"}]`
	return `<!DOCTYPE html><html><head><title>a page on another port</title></head><body><script>
const app = ` + jsString(app) + `;
const post = (path, body) => fetch(app + path, {method: 'POST', mode: 'no-cors', credentials: 'include', body})
  .then(() => 'sent', (e) => 'failed: ' + e);
window.__results = {};
(async () => {
  window.__results.save = await post('/api/bind/SettingsService/Save', ` + jsString(save) + `);
  window.__results.uploadPaths = await post('/api/bind/ArtifactService/UploadPaths', '["", ["/etc/passwd", "/proc/self/environ"]]');
  window.__results.list = await post('/api/bind/ConversationService/List', '[]');
  window.__results.events = await new Promise((resolve) => {
    const es = new EventSource(app + '/api/events', {withCredentials: true});
    es.onopen = () => { es.close(); resolve('open'); };
    es.onerror = () => { es.close(); resolve('error'); };
  });
  window.__done = true;
})();
</script></body></html>`
}

// cspDirective returns the directive of policy that starts with name, or "".
func cspDirective(policy, name string) string {
	for _, d := range strings.Split(policy, ";") {
		if d = strings.TrimSpace(d); d == name || strings.HasPrefix(d, name+" ") {
			return d
		}
	}
	return ""
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

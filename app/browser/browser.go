// Package browser is ArtifactFlow's browser mode (`artifactflow serve`): Server serves the
// built frontend and calls package app's bound services for it over HTTP on a loopback
// address, as the window's Wails bindings do, with run events as a server-sent event
// stream. A per-process token, loopback Host and same-origin checks, a strict Content
// Security Policy and the refusal of desktop-only methods keep other pages and processes
// out (docs/ARCHITECTURE.md, "Security"). The shim (shim/shim.js) gives the page the
// `window.go.app` bindings and runtime events it expects from Wails.
package browser

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	_ "embed" // the browser-mode shim
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"artifactflow/app"
	"artifactflow/backend/events"
)

//go:embed shim/shim.js
var shimJS []byte

// TokenHeader is the request header that carries the browser-mode token on every /api/
// request. The shim (shim/shim.js) sends it; a page on another origin cannot, because
// a custom header makes its request need a CORS preflight, which this server never grants.
const TokenHeader = "X-ArtifactFlow-Token"

// ContentSecurityPolicy is sent with every browser-mode response. The built frontend needs
// only its own scripts, styles and chunks (checked in Chromium: no violation in the
// end-to-end tests); images only from the app, data: URLs (the icon) and blob: URLs: a
// remote image in an answer could carry the conversation to its server with no click
// (the page drops such URLs too; see frontend/src/markdown/markdown.ts). style-src allows inline styles because an
// HTML artifact's sandboxed srcdoc frame inherits this policy and its own <style> and style
// attributes would otherwise be dropped (markdown is sanitized of styles regardless).
// frame-src 'none' still lets that srcdoc frame render but stops a link inside it from
// loading another page into it. Forms never submit, plugins never load, <base> cannot
// redirect relative URLs, and no other page may frame the app.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; " +
	"frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// desktopOnly lists bound methods that browser mode refuses, with the reason shown to the
// caller: they read files by path (which only the window's own file drop produces; a page
// uploads file contents through ArtifactService.Upload instead), open files and folders
// on this computer or store programs for it to run (MCP servers), which a page served to
// a browser must not be able to make happen.
var desktopOnly = map[string]string{
	"ArtifactService/UploadPaths":         "desktop_only: browser mode does not read files by path; the page uploads file contents (ArtifactService.Upload)",
	"ArtifactService/OpenDeclared":        "desktop_only: browser mode does not open files on this computer; copy the file's path from the menu and open it yourself",
	"ArtifactService/RevealDeclared":      "desktop_only: browser mode does not open folders on this computer; copy the file's path from the menu instead",
	"ArtifactService/OpenSourceFile":      "desktop_only: browser mode does not open files on this computer; open the cited file from its folder yourself",
	"ArtifactService/RevealExport":        "desktop_only: browser mode does not open folders on this computer; the export was downloaded by the browser",
	"ConversationService/ChooseWorkspace": "desktop_only: browser mode has no folder dialog; choose the research folder in the desktop window",
	// An MCP server's entry names a program the app starts: a page must not be able to
	// make this computer run one. Servers are added and changed in the desktop window (or
	// config.json); browser mode lists, tests, switches tools of and removes them.
	"SettingsService/SaveMCPServer":    "desktop_only: browser mode does not add or change MCP servers, which start programs on this computer; use the desktop window or config.json",
	"SettingsService/ImportMCPServers": "desktop_only: browser mode does not add or change MCP servers, which start programs on this computer; use the desktop window or config.json",
	"ConversationService/ImportFile":   "desktop_only: browser mode has no open dialog; the page sends the file's contents (ConversationService.Import)",
}

// maxBindBody caps a bound-method request body (uploads come through their own path).
const maxBindBody = 8 << 20

// Server serves the frontend and the bound services over HTTP for browser mode (contract in
// docs/ARCHITECTURE.md, "Contracts other code relies on"):
// `POST /api/bind/<Service>/<Method>` with a JSON array of arguments returns the method's
// JSON result (a Go error gives status 500 and the AppError's JSON plus "error", the
// error's text: {"code","message","fields"?,…,"error"}); `GET /api/events` is an SSE stream
// of {"name","data"} messages, the same events the window gets. Every request must carry a
// loopback Host header, else 403 with {"error","code":"forbidden_host"} (a DNS-rebinding
// page names its own host).
//
// /api/ requests must also come from the app's own origin (an Origin header, when present,
// equal to this server's scheme, host and port as named in Host; a Sec-Fetch-Site header,
// when present, equal to "same-origin"), else 403 with {"error","code":"forbidden_origin"};
// and they must carry the token in header X-ArtifactFlow-Token (TokenHeader), else 401 with
// {"error","code":"unauthorized"}. Neither has any side effect. No cookie authorizes
// anything. Clients that are not browsers send no Origin and pass with the header alone.
//
// The page itself (index.html, its assets and /__af/shim.js) loads without the token: it
// holds nothing secret. The URL printed by `serve` carries `?token=`; the shim keeps the
// token in sessionStorage, removes it from the address bar and sends it on every call.
// Every response carries ContentSecurityPolicy, X-Frame-Options DENY, X-Content-Type-Options
// nosniff, Referrer-Policy no-referrer and same-origin resource and opener policies.
// Methods that read or open files on this computer (desktopOnly) are refused with 403 and
// code "desktop_only".
type Server struct {
	core    *app.Core
	token   string
	assets  fs.FS
	methods map[string]reflect.Value // "Service/Method" -> bound method
}

// NewServer returns a server for core with a fresh random token. assets holds the
// built frontend (index.html at its root); nil serves only the API.
func NewServer(core *app.Core, assets fs.FS) (*Server, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("app: make token: %w", err)
	}
	s := &Server{core: core, token: hex.EncodeToString(b), assets: assets, methods: map[string]reflect.Value{}}
	for _, svc := range core.Bindings() {
		v := reflect.ValueOf(svc)
		name := v.Elem().Type().Name()
		for i := 0; i < v.NumMethod(); i++ {
			s.methods[name+"/"+v.Type().Method(i).Name] = v.Method(i)
		}
	}
	return s, nil
}

// Token returns the token a client must present.
func (s *Server) Token() string { return s.token }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	if !LoopbackHost(r.Host) {
		writeJSON(w, http.StatusForbidden, map[string]string{"code": "forbidden_host",
			"error": "forbidden_host: " + r.Host + " is not a loopback address; open the URL printed by `artifactflow serve`"})
		return
	}
	if r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/") {
		s.serveAPI(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/__af/shim.js" {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(shimJS)
		return
	}
	s.serveAsset(w, r)
}

// serveAPI checks the origin, then the token, then dispatches an /api/ request.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if err := sameOrigin(r); err != nil {
		s.core.Logger().Warn("browser mode: refused a request from another origin", "method", r.Method, "path", r.URL.Path,
			"origin", r.Header.Get("Origin"), "sec_fetch_site", r.Header.Get("Sec-Fetch-Site"), "err", err)
		writeJSON(w, http.StatusForbidden, map[string]string{"code": "forbidden_origin",
			"error": "forbidden_origin: " + err.Error() + "; only the ArtifactFlow page itself may call this API"})
		return
	}
	if !s.authorized(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"code": "unauthorized",
			"error": "unauthorized: missing or wrong token in " + TokenHeader + ": open the URL printed by `artifactflow serve`"})
		return
	}
	switch {
	case r.URL.Path == "/api/events":
		s.serveEvents(w, r)
	case strings.HasPrefix(r.URL.Path, "/api/bind/"):
		s.serveBind(w, r)
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"code": "not_found", "error": "not_found: no such API " + r.URL.Path})
	}
}

// setSecurityHeaders sets the headers every browser-mode response carries (see Server).
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// sameOrigin returns why r, an /api/ request, does not come from the app's own page, or nil.
// Sec-Fetch-Site, which browsers always send, must be "same-origin": another port of
// 127.0.0.1 is "same-site", and a cookie would have reached it, so "same-site" is refused
// like "cross-site" and "none". Origin, when present, must name this server's scheme, host
// and port as the request's Host header gives them. A request with neither header does not
// come from a browser page and is left to the token check.
func sameOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return fmt.Errorf("Sec-Fetch-Site is %q", site)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	want, err := canonicalOrigin(scheme + "://" + r.Host)
	if err != nil {
		return fmt.Errorf("bad Host %q: %w", r.Host, err)
	}
	got, err := canonicalOrigin(origin)
	if err != nil || got != want {
		return fmt.Errorf("origin %q is not %q", origin, want)
	}
	return nil
}

// canonicalOrigin returns origin as "scheme://host:port" in lower case with the default port
// made explicit, so that http://127.0.0.1 and http://127.0.0.1:80 compare equal.
func canonicalOrigin(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil {
		return "", err
	}
	if u.Host == "" || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin", origin)
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		default:
			return "", fmt.Errorf("%q is not an http origin", origin)
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), nil
}

// authorized reports whether r carries the token in TokenHeader. Cookies and query
// parameters are ignored: a cookie reaches every port of the host, and a URL is logged.
func (s *Server) authorized(r *http.Request) bool {
	return subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), []byte(s.token)) == 1
}

// LoopbackHost reports whether a Host header names a loopback address, which defeats DNS
// rebinding: a page on another origin cannot make the browser send such a Host.
func LoopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func (s *Server) serveBind(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use POST"})
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/api/bind/")
	if why, refused := desktopOnly[name]; refused {
		writeJSON(w, http.StatusForbidden, map[string]string{"code": "desktop_only", "error": why})
		return
	}
	m, ok := s.methods[name]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such method " + r.URL.Path})
		return
	}
	var raw []json.RawMessage
	// Uploads arrive base64-encoded: allow the upload limit plus a third.
	limit := max(int64(maxBindBody), s.core.MaxUploadBytes()*4/3+1<<20)
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err == nil && int64(len(body)) > limit {
		err = errors.New("request body too large")
	}
	if err == nil && len(bytes.TrimSpace(body)) > 0 {
		err = json.Unmarshal(body, &raw)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "arguments must be a JSON array: " + err.Error()})
		return
	}
	result, err := callBound(m, raw)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, boundErrorBody{app.ToAppError(err), err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, result)
}

// boundErrorBody is browser mode's body for a bound method's error: the AppError's fields
// (the same code the window gets) and "error", the original error text older pages read.
type boundErrorBody struct {
	*app.AppError
	Text string `json:"error"`
}

var errorType = reflect.TypeFor[error]()

// callBound decodes raw into m's parameters, calls m and splits its results the way Wails
// does: an optional value and an optional trailing error.
func callBound(m reflect.Value, raw []json.RawMessage) (any, error) {
	t := m.Type()
	if len(raw) != t.NumIn() {
		return nil, fmt.Errorf("expected %d arguments, got %d", t.NumIn(), len(raw))
	}
	in := make([]reflect.Value, t.NumIn())
	for i := range in {
		p := reflect.New(t.In(i))
		if err := json.Unmarshal(raw[i], p.Interface()); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		in[i] = p.Elem()
	}
	out := m.Call(in)
	var result any
	for _, o := range out {
		if o.Type().Implements(errorType) && o.Type() == errorType {
			if !o.IsNil() {
				return nil, o.Interface().(error)
			}
			continue
		}
		result = o.Interface()
	}
	return result, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sseBuffer is how many events a slow browser may lag behind before it is disconnected;
// it reconnects and reloads from the store.
const sseBuffer = 4096

func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch := make(chan events.Event, sseBuffer)
	overflow := make(chan struct{})
	var once sync.Once
	remove := s.core.AddSink(app.SinkFunc(func(ev events.Event) {
		select {
		case ch <- ev:
		default:
			once.Do(func() { close(overflow) })
		}
	}))
	defer remove()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, ": connected\n\n")
	flusher.Flush()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-overflow:
			return
		case <-ping.C:
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return
			}
		case ev := <-ch:
			b, _ := json.Marshal(map[string]any{"name": app.RunEventName, "data": ev})
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return
			}
		}
		flusher.Flush()
	}
}

func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request) {
	if s.assets == nil {
		http.NotFound(w, r)
		return
	}
	if r.URL.Path == "/" || r.URL.Path == "/index.html" {
		page, err := fs.ReadFile(s.assets, "index.html")
		if err != nil {
			http.Error(w, "frontend not built: run `make build`", http.StatusNotFound)
			return
		}
		page = bytes.Replace(page, []byte("<head>"), []byte(`<head><script src="/__af/shim.js"></script>`), 1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(page)
		return
	}
	http.FileServerFS(s.assets).ServeHTTP(w, r)
}

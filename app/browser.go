package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed" // the browser-mode shim
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"

	"artifactflow/backend/events"
)

//go:embed shim/shim.js
var shimJS []byte

// tokenCookie carries the browser-mode token after the first page load.
const tokenCookie = "af_token"

// maxBindBody caps a bound-method request body (uploads come through their own path).
const maxBindBody = 8 << 20

// BrowserServer serves the frontend and the bound services over HTTP for browser mode
// (DESIGN.md, "Browser mode"): `POST /api/bind/<Service>/<Method>` with a JSON array of
// arguments returns the method's JSON result (a Go error gives status 500 and
// {"error": message}); `GET /api/events` is an SSE stream of {"name","data"} messages, the
// same events the window gets. Every request must carry the random token (query
// `?token=`, which sets a SameSite=Strict cookie, or the cookie, or header
// X-ArtifactFlow-Token) and a loopback Host header.
type BrowserServer struct {
	core    *Core
	token   string
	assets  fs.FS
	methods map[string]reflect.Value // "Service/Method" -> bound method
}

// NewBrowserServer returns a server for core with a fresh random token. assets holds the
// built frontend (index.html at its root); nil serves only the API.
func NewBrowserServer(core *Core, assets fs.FS) (*BrowserServer, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("app: make token: %w", err)
	}
	s := &BrowserServer{core: core, token: hex.EncodeToString(b), assets: assets, methods: map[string]reflect.Value{}}
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
func (s *BrowserServer) Token() string { return s.token }

// ServeHTTP implements http.Handler.
func (s *BrowserServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		http.Error(w, "forbidden host", http.StatusForbidden)
		return
	}
	if !s.authorized(w, r) {
		http.Error(w, "missing or wrong token: open the URL printed by `artifactflow serve`", http.StatusUnauthorized)
		return
	}
	switch {
	case r.URL.Path == "/api/events":
		s.serveEvents(w, r)
	case strings.HasPrefix(r.URL.Path, "/api/bind/"):
		s.serveBind(w, r)
	case r.URL.Path == "/__af/shim.js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write(shimJS)
	default:
		s.serveAsset(w, r)
	}
}

func (s *BrowserServer) authorized(w http.ResponseWriter, r *http.Request) bool {
	ok := func(v string) bool { return subtle.ConstantTimeCompare([]byte(v), []byte(s.token)) == 1 }
	if q := r.URL.Query().Get("token"); q != "" && ok(q) {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return true
	}
	if c, err := r.Cookie(tokenCookie); err == nil && ok(c.Value) {
		return true
	}
	return ok(r.Header.Get("X-ArtifactFlow-Token"))
}

// loopbackHost reports whether a Host header names a loopback address, which defeats DNS
// rebinding: a page on another origin cannot make the browser send such a Host.
func loopbackHost(hostport string) bool {
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

func (s *BrowserServer) serveBind(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use POST"})
		return
	}
	m, ok := s.methods[strings.TrimPrefix(r.URL.Path, "/api/bind/")]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such method " + r.URL.Path})
		return
	}
	var raw []json.RawMessage
	// Uploads arrive base64-encoded: allow the upload limit plus a third.
	limit := max(int64(maxBindBody), s.core.maxUploadBytes()*4/3+1<<20)
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
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, result)
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

func (s *BrowserServer) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch := make(chan events.Event, sseBuffer)
	overflow := make(chan struct{})
	var once sync.Once
	remove := s.core.AddSink(SinkFunc(func(ev events.Event) {
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
			b, _ := json.Marshal(map[string]any{"name": RunEventName, "data": ev})
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return
			}
		}
		flusher.Flush()
	}
}

func (s *BrowserServer) serveAsset(w http.ResponseWriter, r *http.Request) {
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

func runServe(ctx context.Context, env Env, args []string) int {
	var addr string
	g, _, ok := parse(env, "serve", args, func(fs *flag.FlagSet) {
		fs.StringVar(&addr, "addr", "127.0.0.1:0", "loopback address to listen on")
	})
	if !ok {
		return ExitUsage
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !loopbackHost(host) {
		fmt.Fprintf(env.Stderr, "artifactflow: serve: --addr %q must be a loopback address such as 127.0.0.1:8765\n", addr)
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	srv, err := NewBrowserServer(core, env.Assets)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", err)
		return ExitError
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: serve: %v\n", oneLine(err))
		return ExitError
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(env.Stdout, "ArtifactFlow browser mode: http://%s/?token=%s\n", ln.Addr(), srv.Token())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		fmt.Fprintf(env.Stderr, "artifactflow: serve: %v\n", oneLine(err))
		return ExitError
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdownCtx)
	<-errc
	return ExitOK
}

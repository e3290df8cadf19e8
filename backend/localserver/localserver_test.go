package localserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// portOf returns the port of a loopback test server.
func portOf(t *testing.T, srv *httptest.Server) int {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if u.Hostname() != Host {
		t.Fatalf("test server on %s, not %s", u.Hostname(), Host)
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}

// closedPort returns a loopback port nothing listens on (one just freed).
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", Host+":0")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return p
}

// TestFind: of stand-ins on loopback for Ollama (no /v1/models, models from /api/tags), an
// OpenAI-style server (LM Studio: /v1/models), a closed port, a server that never answers,
// and a web server answering HTML on /v1/models, Find offers the first two with their
// sorted models and base URLs on 127.0.0.1, and returns although the hanging server
// never answers (its probe is cut off by the timeout).
func TestFind(t *testing.T) {
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":5200000000},{"name":"llama3.2:3b"}]}`))
	}))
	t.Cleanup(ollama.Close)
	lmstudio := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"qwen2.5-7b-instruct","object":"model"},{"id":"gemma-3-4b","object":"model"}]}`))
	}))
	t.Cleanup(lmstudio.Close)
	release := make(chan struct{})
	var hangHits atomic.Int64
	hanging := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hangHits.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	hanging.Start()
	t.Cleanup(func() { close(release); hanging.Close() })
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>My app</title>"))
	}))
	t.Cleanup(web.Close)

	candidates := []Candidate{
		{Name: "Ollama", Port: portOf(t, ollama), Ollama: true},
		{Name: "LM Studio", Port: portOf(t, lmstudio)},
		{Name: "llama.cpp", Port: closedPort(t)},
		{Name: "vLLM", Port: portOf(t, hanging)},
		{Name: "web app", Port: portOf(t, web)},
	}
	done := make(chan []Server, 1)
	go func() { done <- Find(context.Background(), candidates, DefaultTimeout) }()
	var got []Server
	select {
	case got = <-done:
	case <-time.After(10 * time.Second): // a deadline for the test, not a measurement
		t.Fatal("Find did not return: the hanging server's probe was not cut off")
	}
	want := []Server{
		{Name: "Ollama", BaseURL: "http://127.0.0.1:" + strconv.Itoa(candidates[0].Port) + "/v1", Models: []string{"llama3.2:3b", "qwen3:8b"}},
		{Name: "LM Studio", BaseURL: "http://127.0.0.1:" + strconv.Itoa(candidates[1].Port) + "/v1", Models: []string{"gemma-3-4b", "qwen2.5-7b-instruct"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Find = %+v\nwant %+v", got, want)
	}
	if hangHits.Load() == 0 {
		t.Fatal("the hanging server was never asked: the test would prove nothing")
	}
}

// TestFindNothing: with no server answering, Find returns an empty list (not nil, so the
// page gets []), and a done ctx ends it at once.
func TestFindNothing(t *testing.T) {
	got := Find(context.Background(), []Candidate{{Name: "Ollama", Port: closedPort(t), Ollama: true}}, 0)
	if got == nil || len(got) != 0 {
		t.Fatalf("Find = %#v; want an empty list", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := Find(ctx, Candidates(), 0); len(got) != 0 {
		t.Fatalf("Find with a done ctx = %+v", got)
	}
}

// TestCandidates: the usual ports, Ollama's marked for its native list.
func TestCandidates(t *testing.T) {
	ports := map[string]int{}
	for _, c := range Candidates() {
		ports[c.Name] = c.Port
		if c.Ollama != (c.Name == "Ollama") {
			t.Errorf("%s: Ollama = %v", c.Name, c.Ollama)
		}
	}
	want := map[string]int{"Ollama": 11434, "LM Studio": 1234, "llama.cpp": 8080, "vLLM": 8000}
	if !reflect.DeepEqual(ports, want) {
		t.Fatalf("candidates %v; want %v", ports, want)
	}
}

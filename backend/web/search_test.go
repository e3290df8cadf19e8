package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func TestNewSearXNG(t *testing.T) {
	tests := []struct {
		base     string
		wantErr  error
		endpoint string
	}{
		{"", ErrNotConfigured, ""},
		{"   ", ErrNotConfigured, ""},
		{"ftp://searx.local", ErrBadURL, ""},
		{"localhost:8888", ErrBadURL, ""}, // parsed as scheme "localhost"
		{"http://", ErrBadURL, ""},
		{"/searx", ErrBadURL, ""},
		{"http://[::1", ErrBadURL, ""},
		{"http://localhost:8888", nil, "http://localhost:8888/search"},
		{"http://localhost:8888/", nil, "http://localhost:8888/search"},
		{"https://example.org/searxng/", nil, "https://example.org/searxng/search"},
		{"https://example.org/searxng/search", nil, "https://example.org/searxng/search"},
		{"http://127.0.0.1:8080/?x=1#frag", nil, "http://127.0.0.1:8080/search"},
	}
	for _, tc := range tests {
		t.Run(tc.base, func(t *testing.T) {
			s, err := NewSearXNG(tc.base, nil)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.endpoint.String(); got != tc.endpoint {
				t.Errorf("endpoint = %q, want %q", got, tc.endpoint)
			}
		})
	}
	_, err := NewSearXNG("", nil)
	if msg := err.Error(); !strings.Contains(msg, "Settings") || !strings.Contains(msg, "--searxng-url") {
		t.Errorf("not-configured message %q should say where to set the URL", msg)
	}
}

// searxngServer serves n fake results under prefix+"/search" and records the last query.
func searxngServer(t *testing.T, prefix string, n int) (*SearXNG, *atomic.Value) {
	t.Helper()
	var lastQuery atomic.Value
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != prefix+"/search" || r.URL.Query().Get("format") != "json" {
			http.NotFound(w, r)
			return
		}
		lastQuery.Store(r.URL.Query().Get("q"))
		results := make([]map[string]any, 0, n)
		for i := range n {
			res := map[string]any{
				"title":         fmt.Sprintf("  Result %d ", i),
				"url":           fmt.Sprintf("https://example.com/%d", i),
				"content":       fmt.Sprintf("snippet %d", i),
				"engine":        "duckduckgo",
				"publishedDate": nil,
			}
			if i == 0 {
				res["publishedDate"] = "2024-05-01T10:00:00"
			}
			if i == 1 {
				res["title"] = ""
			}
			results = append(results, res)
		}
		// A result without a URL is skipped.
		results = append([]map[string]any{{"title": "no url", "url": ""}}, results...)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"query": "x", "number_of_results": n, "results": results})
	})
	s, err := NewSearXNG(ts.URL+prefix, ts.Client())
	if err != nil {
		t.Fatal(err)
	}
	return s, &lastQuery
}

func TestSearXNGSearchParsesResults(t *testing.T) {
	s, lastQuery := searxngServer(t, "/searx", 30)
	got, err := s.Search(context.Background(), "  go generics & maps  ", 3)
	if err != nil {
		t.Fatal(err)
	}
	if q := lastQuery.Load(); q != "go generics & maps" {
		t.Errorf("query sent = %q", q)
	}
	want := []SearchResult{
		{Title: "Result 0", URL: "https://example.com/0", Snippet: "snippet 0", Engine: "duckduckgo", PublishedDate: "2024-05-01T10:00:00"},
		{Title: "https://example.com/1", URL: "https://example.com/1", Snippet: "snippet 1", Engine: "duckduckgo"},
		{Title: "Result 2", URL: "https://example.com/2", Snippet: "snippet 2", Engine: "duckduckgo"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestSearXNGSearchCount(t *testing.T) {
	tests := []struct{ available, count, want int }{
		{30, 0, DefaultSearchCount},
		{30, -3, DefaultSearchCount},
		{30, 1, 1},
		{30, 20, 20},
		{30, 50, MaxSearchCount},
		{2, 10, 2},
		{0, 5, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d_of_%d", tc.count, tc.available), func(t *testing.T) {
			s, _ := searxngServer(t, "", tc.available)
			got, err := s.Search(context.Background(), "q", tc.count)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Errorf("got %d results, want %d", len(got), tc.want)
			}
		})
	}
}

func TestSearXNGSearchErrors(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		body        string
		wantIs      error
		wantMessage []string
	}{
		{"json disabled", http.StatusForbidden, "Forbidden", ErrHTTPStatus, []string{"403", "settings.yml", "json"}},
		{"rate limited", http.StatusTooManyRequests, "Too Many Requests", ErrHTTPStatus, []string{"429", "limiter"}},
		{"server error", http.StatusInternalServerError, "boom", ErrHTTPStatus, []string{"500"}},
		{"html instead of json", http.StatusOK, "<html><body>search</body></html>", nil, []string{"decode JSON"}},
		{"truncated json", http.StatusOK, `{"results": [{"title": "a"`, nil, []string{"decode JSON"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			})
			s, err := NewSearXNG(ts.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Search(context.Background(), "climate", 5)
			if err == nil {
				t.Fatal("want an error")
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("err = %v, want %v", err, tc.wantIs)
			}
			host := strings.TrimPrefix(ts.URL, "http://")
			if !strings.HasPrefix(err.Error(), "searxng search at "+host+": ") {
				t.Errorf("error %q does not start with the instance's host", err)
			}
			for _, m := range tc.wantMessage {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q lacks %q", err, m)
				}
			}
		})
	}
}

// TestSearXNGDeadInstance: with nothing listening at the SearXNG URL the error says so
// first and briefly ("searxng search at 127.0.0.1:N: connection refused by …"), without
// the request URL or the query, however long the query: clipped to the 200 characters of
// a run's footer, it still says "connection refused".
func TestSearXNGDeadInstance(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s, err := NewSearXNG("http://"+addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	query := strings.Repeat("dense urban heat island mitigation ", 8)
	_, err = s.Search(context.Background(), query, 5)
	want := "searxng search at " + addr + ": connection refused by " + addr
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v, want it to start with %q", err, want)
	}
	if strings.Contains(err.Error(), "dense") || strings.Contains(err.Error(), "format=json") {
		t.Errorf("the error quotes the query or the request URL: %v", err)
	}
	if len([]rune(err.Error())) > 200 {
		t.Errorf("the error is %d characters long: %v", len([]rune(err.Error())), err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) {
		t.Errorf("the error no longer wraps the network error: %v", err)
	}
}

func TestSearXNGEmptyQuery(t *testing.T) {
	var hits atomic.Int64
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	s, err := NewSearXNG(ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "  \t\n"} {
		if _, err := s.Search(context.Background(), q, 5); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("Search(%q) err = %v, want ErrEmptyQuery", q, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("an empty query reached the server")
	}
}

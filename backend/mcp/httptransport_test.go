package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"artifactflow/backend/config"
)

// countingTransport counts the requests it carries and hands them to http.DefaultTransport.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPServersUseOptionsTransport: a server reached by URL is connected through the
// transport Options.HTTP gives (the app's proxy setting), over Streamable HTTP and over
// the legacy SSE transport alike, never through http.DefaultTransport behind its back.
func TestHTTPServersUseOptionsTransport(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no MCP here", http.StatusNotFound)
	}))
	t.Cleanup(hs.Close)
	for _, transport := range []string{config.MCPHTTP, config.MCPSSE} {
		t.Run(transport, func(t *testing.T) {
			rt := &countingTransport{}
			m := New(Options{LogDir: t.TempDir(), HTTP: func() http.RoundTripper { return rt },
				Backoff: func(int) time.Duration { return time.Hour }})
			t.Cleanup(func() { _ = m.Close() })
			m.Configure(config.MCPServers{"remote": {URL: hs.URL + "/mcp", Transport: transport, TimeoutSeconds: 5}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := m.Tools(ctx, "remote"); err == nil {
				t.Fatal("a server answering 404 started")
			}
			if rt.n.Load() == 0 {
				t.Errorf("no request went through Options.HTTP's transport")
			}
		})
	}
}

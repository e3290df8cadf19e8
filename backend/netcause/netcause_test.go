package netcause

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestOf makes each failure for real on loopback (a closed port, a server that does not
// answer in time, a certificate nobody trusts) or, for a name that does not resolve, as
// the resolver reports it, and checks its kind, host and words.
func TestOf(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(untrusted.Close)

	get := func(raw string, timeout time.Duration) error {
		c := &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: nil}}
		resp, err := c.Get(raw)
		if err == nil {
			resp.Body.Close()
			return errors.New("no error")
		}
		return err
	}
	noSuchHost := fmt.Errorf("duckduckgo search: %w", &url.Error{Op: "Post", URL: "https://html.duckduckgo.com/html/",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "html.duckduckgo.com", IsNotFound: true}}})

	tests := []struct {
		name       string
		err        error
		kind, host string
		words      string
	}{
		{"refused", get("http://"+closed+"/search?q=a+very+long+query", 5*time.Second), Refused, closed,
			"connection refused by " + closed + " (nothing is listening there)"},
		{"no such host", noSuchHost, Offline, "html.duckduckgo.com", "cannot resolve html.duckduckgo.com (you may be offline, or the name is wrong)"},
		{"timeout", get(slow.URL, 100*time.Millisecond), Timeout, "", "no answer in time"},
		{"untrusted certificate", get(untrusted.URL, 5*time.Second), TLS, "", "TLS failed"},
		{"other", errors.New("HTTP 500"), "", "", "HTTP 500"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind, host := Of(tc.err)
			if kind != tc.kind || tc.host != "" && host != tc.host {
				t.Fatalf("Of(%v) = %q, %q; want %q, %q", tc.err, kind, host, tc.kind, tc.host)
			}
			if got := Describe(tc.err); !strings.HasPrefix(got, tc.words) {
				t.Fatalf("Describe = %q, want it to start with %q", got, tc.words)
			}
			if strings.Contains(Describe(tc.err), "very+long+query") {
				t.Errorf("Describe quotes the request URL: %q", Describe(tc.err))
			}
		})
	}
}

package localapi

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// FuzzLocalAPI sends random methods, paths, bodies and headers to the handler: it never
// panics, always answers JSON or an event stream, and without the valid token (or with
// a foreign Host or Origin) never changes the list or the change log.
func FuzzLocalAPI(f *testing.F) {
	h := newHarness(f, func(o *Options) { o.Rate, o.Burst = 1e6, 1e6 })
	victim := h.postLink("https://example.com/victim", "Victim", "alice")
	seeds := []struct {
		method, path string
		body         []byte
		auth         uint8
		hname, hval  string
	}{
		{"GET", "/capabilities", nil, 2, "", ""},
		{"POST", "/session/" + testConv + "/artifacts", []byte(`{"title":"T","url":"https://a.example/"}`), 1, "", ""},
		{"POST", "/session/" + testConv + "/artifacts", []byte(`{"artifacts":[{"title":"T","url":"https://b.example/"}],"clientId":"c"}`), 2, "X-Client-Id", "c"},
		{"DELETE", "/session/" + testConv + "/artifacts/" + victim, nil, 0, "", ""},
		{"DELETE", "/session/" + testConv + "/artifacts/" + victim, []byte(`{"clientId":"alice"}`), 3, "Origin", "null"},
		{"GET", "/session/" + testConv + "/events", nil, 2, "Last-Event-ID", "0"},
		{"POST", "/session/%2e%2e/artifacts", []byte(`{"title":"<b>","workspacePath":"../x"}`), 2, "Host", "evil.example"},
		{"PATCH", "/session/" + testConv + "/artifacts/x/y", []byte{0xff, 0xfe}, 2, "Sec-Fetch-Site", "cross-site"},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.body, s.auth, s.hname, s.hval)
	}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4242}
	f.Fuzz(func(t *testing.T, method, path string, body []byte, auth uint8, hname, hval string) {
		ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), http.LocalAddrContextKey, net.Addr(local)), 50*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:4242"+path, bytes.NewReader(body))
		if err != nil {
			return // not a request a server could receive
		}
		req.Host = "127.0.0.1:4242"
		valid := false
		switch auth % 4 {
		case 1:
			req.Header.Set("Authorization", "Bearer "+h.token+"x")
		case 2, 3:
			req.Header.Set("Authorization", "Bearer "+h.token)
			valid = true
		}
		if hname != "" {
			if hname == "Host" || hname == "host" {
				req.Host = hval
			} else {
				req.Header.Set(hname, hval)
			}
		}
		// A valid request may change things: only the refusals are checked.
		refused := !valid || req.Host != "127.0.0.1:4242" || len(req.Header.Values("Origin")) > 0 ||
			(len(req.Header.Values("Sec-Fetch-Site")) > 0 && req.Header.Get("Sec-Fetch-Site") != "none") ||
			len(req.Header.Values("Authorization")) != 1 || req.Header.Get("Authorization") != "Bearer "+h.token
		var before string
		if refused {
			before = h.state(t)
		}
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		ct := rec.Header().Get("Content-Type")
		if ct != "application/json; charset=utf-8" && ct != "text/event-stream" {
			t.Fatalf("%s %q -> %d with content type %q", method, path, rec.Code, ct)
		}
		if refused {
			if rec.Code != http.StatusUnauthorized && rec.Code != http.StatusForbidden {
				t.Fatalf("refused request %s %q answered %d: %s", method, path, rec.Code, rec.Body)
			}
			if after := h.state(t); after != before {
				t.Fatalf("refused request %s %q changed state:\n%s\n%s", method, path, before, after)
			}
		}
	})
}

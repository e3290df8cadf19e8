package localapi

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawConn is a TCP connection to a started API that records everything the server sends
// until the server (or the test) closes it.
type rawConn struct {
	net.Conn
	mu     sync.Mutex
	got    bytes.Buffer
	closed chan struct{} // closed when the server closed the connection (or Close was called)
}

// dialRaw connects to addr; the reader goroutine it starts ends when the connection does,
// at the latest in the test's cleanup.
func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	rc := &rawConn{Conn: c, closed: make(chan struct{})}
	go func() {
		defer close(rc.closed)
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			rc.mu.Lock()
			rc.got.Write(buf[:n])
			rc.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { c.Close(); <-rc.closed })
	return rc
}

// trickle sends b one byte per tick and stops early when the server has closed the
// connection; it reports whether it did.
func (rc *rawConn) trickle(b []byte, tick time.Duration) bool {
	tk := time.NewTicker(tick)
	defer tk.Stop()
	for i := range b {
		select {
		case <-rc.closed:
			return true
		case <-tk.C:
		}
		if _, err := rc.Write(b[i : i+1]); err != nil {
			return true
		}
	}
	return false
}

// waitClosed waits, at most limit, for the server to close the connection.
func (rc *rawConn) waitClosed(limit time.Duration) bool {
	select {
	case <-rc.closed:
		return true
	case <-time.After(limit):
		return false
	}
}

// responses parses the answers the server sent (possibly none).
func (rc *rawConn) responses() []int {
	rc.mu.Lock()
	data := append([]byte(nil), rc.got.Bytes()...)
	rc.mu.Unlock()
	var codes []int
	br := bufio.NewReader(bytes.NewReader(data))
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return codes
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
}

// TestSlowClientsAreDisconnected talks raw TCP to a started API with short, injected
// timeouts: a request whose headers arrive byte by byte (ReadHeaderTimeout), a valid POST
// whose body trickles (ReadTimeout; 408), headers that never end, and a kept-alive
// connection left idle (IdleTimeout) are each closed by the server, and none of the
// trickled mutations lands. Unhindered, each trickle would finish within seconds and its
// POST would succeed; the test waits for the close with a deadline well beyond the
// injected timeouts but far below the defaults.
func TestSlowClientsAreDisconnected(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.ReadHeaderTimeout, o.ReadTimeout, o.IdleTimeout = 300*time.Millisecond, time.Second, 300*time.Millisecond
	})
	rn, err := Start(context.Background(), h.srv, "", h.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rn.Close(context.Background()) })
	addr := strings.TrimPrefix(rn.URL(), "http://")
	body := `{"title":"Slow","url":"https://slow.example/"}` + strings.Repeat(" ", 300)
	post := func(b string) string {
		return fmt.Sprintf("POST /session/%s/artifacts HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", testConv, addr, h.token, len(body), b)
	}
	get := fmt.Sprintf("GET /capabilities HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", addr, h.token)
	tests := []struct {
		name      string
		at, slow  string // sent at once, then one byte every 10 ms
		wantOK    int    // how many 200 answers come before the close
		wantError int    // the error status that comes (0: any 4xx, or none)
	}{
		{"headers byte by byte", "", post(body), 0, 0},
		{"body byte by byte", post(""), body, 0, http.StatusRequestTimeout},
		{"headers never end", "GET /capabilities HTTP/1.1\r\nHost: " + addr + "\r\nX-Pad: ", "", 0, 0},
		{"idle keep-alive", get, "", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.state(t)
			rc := dialRaw(t, addr)
			if _, err := io.WriteString(rc, tc.at); err != nil {
				t.Fatal(err)
			}
			cut := rc.trickle([]byte(tc.slow), 10*time.Millisecond)
			if !rc.waitClosed(20 * time.Second) {
				t.Fatalf("the server kept the connection open (trickle cut: %v; answers %v)", cut, rc.responses())
			}
			if tc.slow != "" && !cut {
				t.Errorf("the whole trickle was accepted before the server closed the connection")
			}
			ok, errs := 0, []int{}
			for _, code := range rc.responses() {
				if code == http.StatusOK {
					ok++
				} else {
					errs = append(errs, code)
				}
			}
			if ok != tc.wantOK {
				t.Errorf("%d answers 200, want %d", ok, tc.wantOK)
			}
			for _, code := range errs {
				if code < 400 || code > 499 || (tc.wantError != 0 && code != tc.wantError) {
					t.Errorf("answer %d, want only client errors (%d)", code, tc.wantError)
				}
			}
			if tc.wantError != 0 && len(errs) != 1 {
				t.Errorf("error answers %v, want one %d", errs, tc.wantError)
			}
			if after := h.state(t); after != before {
				t.Errorf("a slow request changed state:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	// The server still serves well-behaved clients.
	if r := h.call(http.MethodGet, "/capabilities", nil, ""); r.status != http.StatusOK {
		t.Fatalf("after the slow clients: %d %s", r.status, r.body)
	}
}

// countingReader is a request body of n bytes that counts how many were read.
type countingReader struct {
	data []byte
	off  int
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.off >= len(c.data) {
		return 0, io.EOF
	}
	n := copy(p, c.data[c.off:])
	c.off += n
	return n, nil
}

// TestBodyCapStopsReading sends bodies around the cap straight to the handler with a
// counting body: past the cap the answer is 413, at most MaxBody+1 bytes are read (none
// when Content-Length announces the excess), and nothing changes; a body of exactly the
// cap is accepted.
func TestBodyCapStopsReading(t *testing.T) {
	const maxBody = 4096
	h := newHarness(t, func(o *Options) { o.MaxBody = maxBody })
	victim := h.postLink("https://example.com/cap", "Cap", "")
	link := `{"title":"Big","url":"https://example.com/big"}`
	pad := func(n int) []byte { return []byte(link + strings.Repeat(" ", n-len(link))) }
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4242}
	tests := []struct {
		name, method, path string
		body               []byte
		announce           bool // send Content-Length
		status             int
		maxRead            int
	}{
		{"post 64x cap, unannounced", "POST", "/session/" + testConv + "/artifacts", pad(64 * maxBody), false, 413, maxBody + 1},
		{"post 64x cap, announced", "POST", "/session/" + testConv + "/artifacts", pad(64 * maxBody), true, 413, 0},
		{"post cap+1, unannounced", "POST", "/session/" + testConv + "/artifacts", pad(maxBody + 1), false, 413, maxBody + 1},
		{"delete 64x cap, unannounced", "DELETE", "/session/" + testConv + "/artifacts/" + victim, []byte(`{"clientId":"` + strings.Repeat("a", 64*maxBody) + `"}`), false, 413, maxBody + 1},
		{"delete 64x cap, announced", "DELETE", "/session/" + testConv + "/artifacts/" + victim, []byte(`{"clientId":"` + strings.Repeat("a", 64*maxBody) + `"}`), true, 413, 0},
		{"post exactly the cap", "POST", "/session/" + testConv + "/artifacts", pad(maxBody), true, 200, maxBody},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.state(t)
			cr := &countingReader{data: tc.body}
			ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, net.Addr(local))
			req, err := http.NewRequestWithContext(ctx, tc.method, "http://127.0.0.1:4242"+tc.path, io.NopCloser(cr))
			if err != nil {
				t.Fatal(err)
			}
			req.Host = "127.0.0.1:4242"
			req.Header.Set("Authorization", "Bearer "+h.token)
			req.ContentLength = -1
			if tc.announce {
				req.ContentLength = int64(len(tc.body))
			}
			rec := httptest.NewRecorder()
			h.srv.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("-> %d %s, want %d", rec.Code, rec.Body, tc.status)
			}
			if cr.off > tc.maxRead {
				t.Errorf("the handler read %d bytes of a %d-byte body; at most %d may be read", cr.off, len(tc.body), tc.maxRead)
			}
			if tc.status != 200 {
				if got := (reply{status: rec.Code, body: rec.Body.String()}).errBody(t).Code; got != CodePayloadTooLarge {
					t.Errorf("code %s, want %s", got, CodePayloadTooLarge)
				}
				if after := h.state(t); after != before {
					t.Errorf("an oversized body changed state:\nbefore %s\nafter  %s", before, after)
				}
			}
		})
	}
}

// TestHostSpellings sends a valid, token-bearing POST over raw TCP to a started API with
// Host headers in many spellings, and in the absolute request-target form (whose host Go
// uses as the request's Host): only 127.0.0.1:PORT and localhost:PORT (any case) are
// served; every other spelling (another port, no port, other loopback addresses, IPv6
// loopback, legacy or trailing-dot forms, a rebinding name) is refused with 403 and adds
// nothing.
func TestHostSpellings(t *testing.T) {
	h := newHarness(t, nil)
	rn, err := Start(context.Background(), h.srv, "", h.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rn.Close(context.Background()) })
	addr := strings.TrimPrefix(rn.URL(), "http://")
	_, port, _ := net.SplitHostPort(addr)
	other := "1"
	if port == other {
		other = "2"
	}
	tests := []struct {
		name, target, host string
		want               int
	}{
		{"own address", "/session/" + testConv + "/artifacts", "127.0.0.1:" + port, 200},
		{"localhost", "/session/" + testConv + "/artifacts", "localhost:" + port, 200},
		{"LOCALHOST", "/session/" + testConv + "/artifacts", "LOCALHOST:" + port, 200},
		{"no port", "/session/" + testConv + "/artifacts", "127.0.0.1", 403},
		{"localhost no port", "/session/" + testConv + "/artifacts", "localhost", 403},
		{"other port", "/session/" + testConv + "/artifacts", "127.0.0.1:" + other, 403},
		{"other loopback", "/session/" + testConv + "/artifacts", "127.0.0.2:" + port, 403},
		{"ipv6 loopback", "/session/" + testConv + "/artifacts", "[::1]:" + port, 403},
		{"mapped loopback", "/session/" + testConv + "/artifacts", "[::ffff:127.0.0.1]:" + port, 403},
		{"unspecified", "/session/" + testConv + "/artifacts", "0.0.0.0:" + port, 403},
		{"decimal", "/session/" + testConv + "/artifacts", "2130706433:" + port, 403},
		{"short form", "/session/" + testConv + "/artifacts", "127.1:" + port, 403},
		{"trailing dot", "/session/" + testConv + "/artifacts", "127.0.0.1.:" + port, 403},
		{"localhost trailing dot", "/session/" + testConv + "/artifacts", "localhost.:" + port, 403},
		{"rebinding name", "/session/" + testConv + "/artifacts", "attacker.example:" + port, 403},
		{"sub-localhost", "/session/" + testConv + "/artifacts", "evil.localhost:" + port, 403},
		{"absolute target, foreign host", "http://attacker.example:" + port + "/session/" + testConv + "/artifacts", "127.0.0.1:" + port, 403},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.state(t) + " " + h.rows(t)
			body := fmt.Sprintf(`{"title":"Host %d","url":"https://host.example/%d"}`, i, i)
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
				tc.target, tc.host, h.token, len(body), body)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("Host %q target %q -> %d %s, want %d", tc.host, tc.target, resp.StatusCode, b, tc.want)
			}
			if after := h.state(t) + " " + h.rows(t); tc.want != 200 && after != before {
				t.Fatalf("a refused Host changed state:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/browser"
	"artifactflow/app/internal/apptest"
	"artifactflow/app/internal/dbtest"
	"artifactflow/backend/store"
)

// slowConv is the conversation the slow-client tests try to rename.
const slowConv = "conv-slow"

// browserMode is serve's HTTP server (newServeServer) over a real core on SQLite in
// t.TempDir(), listening on 127.0.0.1.
type browserMode struct {
	core  *app.Core
	token string
	addr  string // 127.0.0.1:PORT
}

func startBrowserMode(t *testing.T, tm serveTimeouts) *browserMode {
	t.Helper()
	core := newTestCore(t, apptest.NewWorld(t, "native", nil))
	if err := core.Store().CreateConversation(context.Background(), store.Conversation{ID: slowConv, Title: "Before"}); err != nil {
		t.Fatal(err)
	}
	srv, err := browser.NewServer(core, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := newServeServer(srv, tm)
	done := make(chan struct{})
	go func() { defer close(done); _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close(); <-done })
	return &browserMode{core: core, token: srv.Token(), addr: ln.Addr().String()}
}

// state is what a refused request must leave untouched: the conversation's title and the
// row count of every table.
func (b *browserMode) state(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	cv, err := b.core.Store().GetConversation(ctx, slowConv)
	if err != nil {
		t.Fatal(err)
	}
	return "title=" + cv.Title + " " + dbtest.RowCounts(t, b.core.Store())
}

// slowConn is a raw connection whose reader goroutine records whether the server closed
// it; the goroutine ends with the connection, at the latest in the test's cleanup.
type slowConn struct {
	net.Conn
	closed chan struct{}
	first  chan string // the first line the server sent ("" if none)
}

func dialSlow(t *testing.T, addr string) *slowConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	sc := &slowConn{Conn: c, closed: make(chan struct{}), first: make(chan string, 1)}
	go func() {
		defer close(sc.closed)
		br := bufio.NewReader(c)
		line, _ := br.ReadString('\n')
		sc.first <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, br)
	}()
	t.Cleanup(func() { c.Close(); <-sc.closed })
	return sc
}

// trickle sends b one byte every 10 ms; it stops early, reporting true, once the server
// has closed the connection.
func (sc *slowConn) trickle(b string) bool {
	tk := time.NewTicker(10 * time.Millisecond)
	defer tk.Stop()
	for i := range len(b) {
		select {
		case <-sc.closed:
			return true
		case <-tk.C:
		}
		if _, err := io.WriteString(sc, b[i:i+1]); err != nil {
			return true
		}
	}
	return false
}

// TestServeRefusesSlowClients talks raw TCP to serve's HTTP server with short injected
// timeouts: a bind call whose headers or body trickle byte by byte (with or without the
// token), an events request that announces a body and trickles it, endless headers and an
// idle kept-alive connection are each closed by the server, and no trickled call renames
// the conversation or adds a row anywhere. Unhindered, each trickle finishes within a few
// seconds (the rename would then succeed); the close is awaited with a deadline far below
// the defaults.
func TestServeRefusesSlowClients(t *testing.T) {
	b := startBrowserMode(t, serveTimeouts{readHeader: 300 * time.Millisecond, read: time.Second, idle: 300 * time.Millisecond})
	body := `["` + slowConv + `","Renamed"]` + strings.Repeat(" ", 300)
	bind := func(token bool, b2 string) string {
		s := "POST /api/bind/ConversationService/Rename HTTP/1.1\r\nHost: " + b.addr + "\r\n"
		if token {
			s += browser.TokenHeader + ": " + b.token + "\r\n"
		}
		return s + fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), b2)
	}
	tests := []struct {
		name     string
		at, slow string // sent at once, then one byte every 10 ms
		answer   string // the status line's prefix before the close ("" for none or any 4xx)
	}{
		{"headers byte by byte", "", bind(true, body), ""},
		{"body byte by byte", bind(true, ""), body, ""},
		{"body byte by byte without the token", bind(false, ""), body, "HTTP/1.1 401"},
		{"events with a trickled body", "GET /api/events HTTP/1.1\r\nHost: " + b.addr + "\r\nContent-Length: 300\r\n\r\n", strings.Repeat(" ", 300), "HTTP/1.1 401"},
		{"headers never end", "GET /__af/shim.js HTTP/1.1\r\nHost: " + b.addr + "\r\nX-Pad: ", "", ""},
		{"idle keep-alive", "GET /__af/shim.js HTTP/1.1\r\nHost: " + b.addr + "\r\n\r\n", "", "HTTP/1.1 200"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := b.state(t)
			sc := dialSlow(t, b.addr)
			if _, err := io.WriteString(sc, tc.at); err != nil {
				t.Fatal(err)
			}
			cut := sc.trickle(tc.slow)
			select {
			case <-sc.closed:
			case <-time.After(20 * time.Second):
				t.Fatalf("the server kept the connection open (trickle cut: %v)", cut)
			}
			if tc.slow != "" && !cut {
				t.Errorf("the whole trickle was accepted before the server closed the connection")
			}
			first := <-sc.first
			switch {
			case tc.answer != "" && !strings.HasPrefix(first, tc.answer):
				t.Errorf("answer %q, want %s", first, tc.answer)
			case tc.answer == "" && first != "" && !strings.HasPrefix(first, "HTTP/1.1 4"):
				t.Errorf("answer %q, want none or a client error", first)
			}
			if after := b.state(t); after != before {
				t.Errorf("a slow request changed state:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestServeEventsOutliveReadTimeout: the event stream stays open well past the server's
// ReadTimeout (which would otherwise cancel it) and still delivers; a bind call on
// another connection still works.
func TestServeEventsOutliveReadTimeout(t *testing.T) {
	const readTimeout = 200 * time.Millisecond
	b := startBrowserMode(t, serveTimeouts{readHeader: readTimeout, read: readTimeout, idle: readTimeout})
	sc := dialSlow(t, b.addr)
	if _, err := io.WriteString(sc, "GET /api/events HTTP/1.1\r\nHost: "+b.addr+"\r\n"+browser.TokenHeader+": "+b.token+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case first := <-sc.first:
		if !strings.HasPrefix(first, "HTTP/1.1 200") {
			t.Fatalf("events: %q", first)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the events request")
	}
	select {
	case <-sc.closed:
		t.Fatal("the event stream ended at the read timeout")
	case <-time.After(5 * readTimeout):
	}
	c, err := net.Dial("tcp", b.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://"+b.addr+"/api/bind/ConversationService/List", strings.NewReader("[]"))
	req.Header.Set(browser.TokenHeader, b.token)
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("bind call beside the stream: %v %v", resp, err)
	}
	resp.Body.Close()
}

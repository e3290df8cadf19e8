package localapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckAddr: only 127.0.0.1 is accepted.
func TestCheckAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:0": true, "127.0.0.1:8766": true,
		"0.0.0.0:8766": false, "localhost:8766": false, "[::1]:8766": false, ":8766": false,
		"192.168.1.2:8766": false, "127.0.0.1": false, "127.0.0.2:1": false,
	} {
		err := CheckAddr(addr)
		if (err == nil) != ok || (err != nil && !errors.Is(err, ErrAddr)) {
			t.Errorf("CheckAddr(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
}

// TestStartWritesAndRemovesDiscovery: Start writes api.json (mode 0600, url/token/pid of
// this process) and a client found through it works; Close ends open event streams and
// removes the file; a file another instance wrote meanwhile is left alone.
func TestStartWritesAndRemovesDiscovery(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	rn, err := Start(ctx, h.srv, "", h.dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.dir, DiscoveryFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("api.json mode %v", fi.Mode().Perm())
	}
	d, err := ReadDiscovery(h.dir)
	if err != nil || d != rn.Discovery() || d.PID != os.Getpid() || d.Token != h.token {
		t.Fatalf("discovery %+v %v, want %+v", d, err, rn.Discovery())
	}
	if matches, _ := filepath.Glob(filepath.Join(h.dir, ".api.json.*")); len(matches) != 0 {
		t.Fatalf("temporary files left: %v", matches)
	}
	c, err := Discover(ctx, h.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Add(ctx, testConv, "cli", nil); err == nil {
		t.Fatal("an empty add succeeded")
	}
	arts, err := c.List(ctx, testConv)
	if err != nil || len(arts) != 0 {
		t.Fatalf("list %v %v", arts, err)
	}

	// An open event stream does not hold Close up.
	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	req, _ := http.NewRequestWithContext(sctx, http.MethodGet, rn.URL()+"/session/"+testConv+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+h.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v %v", resp, err)
	}
	defer resp.Body.Close()
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := rn.Close(cctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Close took %v with a stream open", d)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("api.json after Close: %v", err)
	}
	if _, err := Discover(ctx, h.dir); !errors.Is(err, ErrNoServer) {
		t.Fatalf("Discover after Close: %v", err)
	}

	// Another instance's file survives our Close.
	rn2, err := Start(ctx, h.srv, "127.0.0.1:0", h.dir)
	if err != nil {
		t.Fatal(err)
	}
	other := Discovery{URL: "http://127.0.0.1:1", Token: "theirs", PID: os.Getpid() + 1}
	if err := writeDiscovery(h.dir, other); err != nil {
		t.Fatal(err)
	}
	if err := rn2.Close(cctx); err != nil {
		t.Fatal(err)
	}
	if d, err := ReadDiscovery(h.dir); err != nil || d != other {
		t.Fatalf("another instance's api.json: %+v %v", d, err)
	}
}

// TestDiscoverStale: api.json of an ended process (even naming a live API), of a live
// process whose API does not answer, or naming a non-loopback URL means no server.
func TestDiscoverStale(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := Discover(ctx, dir); !errors.Is(err, ErrNoServer) {
		t.Fatalf("no file: %v", err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to make an ended process:", err)
	}
	live, err := Start(ctx, h.srv, "", h.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for name, tc := range map[string]struct {
		d    Discovery
		want error
	}{
		"ended process":   {Discovery{URL: live.URL(), Token: h.token, PID: cmd.Process.Pid}, ErrNoServer},
		"nothing listens": {Discovery{URL: closed, Token: h.token, PID: os.Getpid()}, ErrNoServer},
		"not loopback":    {Discovery{URL: "http://example.com:80", Token: h.token, PID: os.Getpid()}, ErrNoServer},
		// A live API that refuses us: an app runs, so nothing may write behind its back.
		"wrong token": {Discovery{URL: live.URL(), Token: "stale", PID: os.Getpid()}, ErrNoAnswer},
	} {
		if err := writeDiscovery(dir, tc.d); err != nil {
			t.Fatal(err)
		}
		if _, err := Discover(ctx, dir); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	// The same file with this (live) process's id is a server.
	if err := writeDiscovery(dir, Discovery{URL: live.URL(), Token: h.token, PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	if _, err := Discover(ctx, dir); err != nil {
		t.Fatalf("live: %v", err)
	}
}

// TestSlowHeaders: a client that never finishes its request headers is cut off
// (ReadHeaderTimeout), so slow clients cannot pile up connections.
func TestSlowHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("takes the header timeout")
	}
	h := newHarness(t, nil)
	rn, err := Start(context.Background(), h.srv, "", h.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rn.Close(context.Background())
	conn, err := net.Dial("tcp", rn.URL()[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /capabilities HTTP/1.1\r\nHost: 127.0.0.1\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(DefaultReadHeaderTimeout + 5*time.Second))
	start := time.Now()
	buf := make([]byte, 512)
	for {
		if _, err := conn.Read(buf); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the server kept a half-sent request open for %v", time.Since(start))
			}
			break // closed by the server
		}
	}
}

package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// gzipped compresses b.
func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// emptyBlocksGzip is a gzip stream of n empty, non-final stored deflate blocks: n*5 bytes
// on the wire that decompress to nothing, so only a cap on the compressed side stops it.
func emptyBlocksGzip(n int) []byte {
	head := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	return append(head, bytes.Repeat([]byte{0x00, 0x00, 0x00, 0xff, 0xff}, n)...)
}

// TestFetchGzipCaps: a gzip body is capped before and after decompression.
func TestFetchGzipCaps(t *testing.T) {
	bomb := gzipped(t, make([]byte, 10<<20)) // 10 MiB of zeros, about 10 KB sent
	small := gzipped(t, []byte("hello, compressed world"))
	tests := []struct {
		name    string
		body    []byte
		max     int64
		want    string // content when wantErr is nil
		wantErr error
		inMsg   string
	}{
		{"small gzip body decodes", small, 1 << 20, "hello, compressed world", nil, ""},
		{"bomb stops at the decompressed cap", bomb, 1 << 20, "", ErrBodyTooLarge, "expands past 1048576 bytes"},
		{"endless empty blocks stop at the compressed cap", emptyBlocksGzip(40000), 64 << 10, "", ErrBodyTooLarge, "compressed bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept-Encoding") != "gzip" {
					t.Errorf("Accept-Encoding = %q, want gzip", r.Header.Get("Accept-Encoding"))
				}
				w.Header().Set("Content-Type", "text/plain")
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(tc.body)
			})
			f := NewFetcher(FetcherConfig{AllowPrivate: true, MaxBytes: tc.max})
			p, err := f.Fetch(context.Background(), ts.URL)
			if tc.wantErr == nil {
				if err != nil || p.Content != tc.want {
					t.Fatalf("err %v content %q, want %q", err, p.Content, tc.want)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.inMsg) {
				t.Fatalf("err = %v, want %v naming %q", err, tc.wantErr, tc.inMsg)
			}
		})
	}
}

// TestFetchEndlessBodyStopsAtCap: a body with no Content-Length that never ends is cut at
// MaxBytes (a regression test: this already held before the gzip change).
func TestFetchEndlessBodyStopsAtCap(t *testing.T) {
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := bytes.Repeat([]byte("a"), 4096)
		for { // ends when the client hangs up and the write fails
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	const max = 100 << 10
	p, err := NewFetcher(FetcherConfig{AllowPrivate: true, MaxBytes: max}).Fetch(context.Background(), ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || p.Bytes != max || len(p.Content) != max {
		t.Errorf("Truncated %v Bytes %d len %d, want true %d %d", p.Truncated, p.Bytes, len(p.Content), max, max)
	}
}

// TestFetchRedirectCapSentinel: too many redirects wrap ErrTooManyRedirects.
func TestFetchRedirectCapSentinel(t *testing.T) {
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound) // redirects forever
	})
	for _, max := range []int{1, 3} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			f := NewFetcher(FetcherConfig{AllowPrivate: true, MaxRedirects: max})
			_, err := f.Fetch(context.Background(), ts.URL+"/")
			if !errors.Is(err, ErrTooManyRedirects) || !strings.Contains(err.Error(), fmt.Sprintf("stopped after %d redirects", max)) {
				t.Fatalf("err = %v, want ErrTooManyRedirects after %d", err, max)
			}
		})
	}
}

// TestFetchTrickleHitsTimeout: a server sending one byte every 100 ms forever is stopped
// by the fetcher's total Timeout (a regression test: http.Client.Timeout covers the body).
func TestFetchTrickleHitsTimeout(t *testing.T) {
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	})
	f := NewFetcher(FetcherConfig{AllowPrivate: true, Timeout: 350 * time.Millisecond})
	_, err := f.Fetch(context.Background(), ts.URL)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "timed out after 350ms") {
		t.Fatalf("err = %v, want ErrTimeout naming the limit", err)
	}
}

func TestParseLegacyIPv4(t *testing.T) {
	tests := []struct {
		host string
		want string // "" when not a legacy spelling
	}{
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F000001", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"127.1.", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
		{"167772161", "10.0.0.1"},
		{"0", "0.0.0.0"},
		{"127.0.0.1", ""}, // canonical: netip handles it
		{"8.8.8.8", ""},
		{"example.com", ""},
		{"1.2.3.4.5", ""},
		{"256.1", ""},
		{"1.2.65536", ""},
		{"4294967296", ""},
		{"0x", ""},
		{"08", ""},
		{"1..2", ""},
		{"", ""},
		{"0x7g", ""},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			ip, ok := parseLegacyIPv4(tc.host)
			got := ""
			if ok {
				got = ip.String()
			}
			if got != tc.want {
				t.Errorf("parseLegacyIPv4(%q) = %q, want %q", tc.host, got, tc.want)
			}
		})
	}
}

// TestGuardEverySpelling fetches a live loopback server under every spelling of a
// non-public address; none may connect, and each must name ErrBlockedAddress (or
// ErrBadURL for refused schemes).
func TestGuardEverySpelling(t *testing.T) {
	srv := newCountingServer(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("secret"))
	})
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	blocked := []string{
		"http://2130706433" + port + "/",
		"http://0x7f000001" + port + "/",
		"http://0x7f.1" + port + "/",
		"http://0177.0.0.1" + port + "/",
		"http://127.1" + port + "/",
		"http://127.0.1" + port + "/",
		"http://017700000001" + port + "/",
		"http://[::ffff:127.0.0.1]" + port + "/",
		"http://[::ffff:7f00:1]" + port + "/",
		"http://0.0.0.0" + port + "/",
		"http://0" + port + "/",
		"http://[::]" + port + "/",
		"http://[::1]" + port + "/",
		"http://localhost." + port + "/",
		"http://LOCALHOST" + port + "/",
		"http://LocalHost." + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://0xa9fea9fe/latest/meta-data/",
		"http://10.1.2.3/",
		"http://172.16.0.1/",
		"http://172.31.255.254/",
		"http://192.168.0.1/",
		"http://100.64.0.1/",
		"http://[fc00::1]/",
		"http://[fd00::1]/",
		"http://[fe80::1]/",
		"http://a@127.0.0.1" + port + "/",
		"http://127.0.0.1@example.com@127.0.0.1" + port + "/",
		"http://user:pw@0x7f.1" + port + "/",
	}
	f := NewFetcher(FetcherConfig{})
	for _, u := range blocked {
		t.Run(u, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), u)
			if !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("err = %v, want ErrBlockedAddress", err)
			}
		})
	}
	for _, u := range []string{"file:///etc/passwd", "ftp://127.0.0.1" + port + "/", "gopher://127.0.0.1" + port + "/",
		"data:text/plain,secret", "javascript:fetch('http://127.0.0.1" + port + "')"} {
		t.Run(u, func(t *testing.T) {
			if _, err := f.Fetch(context.Background(), u); !errors.Is(err, ErrBadURL) {
				t.Fatalf("err = %v, want ErrBadURL", err)
			}
		})
	}
	if h, c := srv.hits.Load(), srv.ln.accepted.Load(); h != 0 || c != 0 {
		t.Errorf("blocked fetches reached the server: %d requests, %d connections", h, c)
	}
}

// TestRedirectToLegacySpellingIsRefused: a stand-in public server (127.0.0.2, allowed by
// the test's guard) redirects to loopback spelled in legacy forms; none connects.
func TestRedirectToLegacySpellingIsRefused(t *testing.T) {
	victim := newCountingServer(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("internal"))
	})
	port := victim.URL[strings.LastIndex(victim.URL, ":"):]
	targets := map[string]string{
		"/decimal":  "http://2130706433" + port + "/",
		"/hex":      "http://0x7f.1" + port + "/",
		"/short":    "http://127.1" + port + "/",
		"/mapped":   "http://[::ffff:7f00:1]" + port + "/",
		"/trailing": "http://localhost." + port + "/",
	}
	public := newCountingServer(t, "127.0.0.2:0", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, targets[r.URL.Path], http.StatusFound)
	})
	if public == nil {
		t.Skip("cannot listen on 127.0.0.2 on this system")
	}
	publicIP := netip.MustParseAddr("127.0.0.2")
	f := NewFetcher(FetcherConfig{})
	f.blocked = func(ip netip.Addr) bool { return ip != publicIP && IsBlockedIP(ip) }
	for path := range targets {
		t.Run(path, func(t *testing.T) {
			if _, err := f.Fetch(context.Background(), public.URL+path); !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("err = %v, want ErrBlockedAddress", err)
			}
		})
	}
	if h, c := victim.hits.Load(), victim.ln.accepted.Load(); h != 0 || c != 0 {
		t.Errorf("redirects reached the loopback server: %d requests, %d connections", h, c)
	}
	if public.hits.Load() != int64(len(targets)) {
		t.Errorf("public server saw %d requests, want %d", public.hits.Load(), len(targets))
	}
}

package web

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestIsBlockedIP(t *testing.T) {
	tests := []struct {
		ip      string
		blocked bool
	}{
		// Public addresses pass.
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"93.184.216.34", false},
		{"198.18.0.1", false}, // fake-IP proxies resolve public names here
		{"2606:4700:4700::1111", false},
		{"2001:4860:4860::8888", false},
		{"::ffff:8.8.8.8", false},
		{"64:ff9b::808:808", false}, // NAT64 of 8.8.8.8
		// Loopback.
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"64:ff9b::7f00:1", true}, // NAT64 of 127.0.0.1
		// Private (RFC 1918, ULA).
		{"10.0.0.1", true},
		{"172.16.5.4", true},
		{"172.31.255.255", true},
		{"192.168.1.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:192.168.0.1", true},
		{"64:ff9b::c0a8:101", true}, // NAT64 of 192.168.1.1
		{"fc00::1", true},
		{"fd12:3456::1", true},
		// Link-local, including the cloud metadata endpoint.
		{"169.254.169.254", true},
		{"169.254.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		// Multicast and broadcast.
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"255.255.255.255", true},
		{"ff02::1", true},
		{"ff01::1", true},
		{"ff0e::1", true},
		// Unspecified and "this network".
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"::", true},
		// CGNAT, reserved, deprecated IPv6 forms, local-use NAT64.
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"100.128.0.1", false},
		{"240.0.0.1", true},
		{"::7f00:1", true}, // IPv4-compatible 127.0.0.1
		{"fec0::1", true},
		{"64:ff9b:1::808:808", true},
		{"172.32.0.1", false},
		{"11.0.0.1", false},
	}
	for _, tc := range tests {
		t.Run(tc.ip, func(t *testing.T) {
			if got := IsBlockedIP(netip.MustParseAddr(tc.ip)); got != tc.blocked {
				t.Errorf("IsBlockedIP(%s) = %v, want %v", tc.ip, got, tc.blocked)
			}
		})
	}
	if !IsBlockedIP(netip.Addr{}) {
		t.Error("the zero Addr must be blocked")
	}
}

func TestFetchRefusesNonPublicTargetsWithoutConnecting(t *testing.T) {
	srv := newCountingServer(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("secret"))
	})
	port := srv.URL[strings.LastIndex(srv.URL, ":"):] // ":NNNN"
	f := NewFetcher(FetcherConfig{})
	tests := []string{
		srv.URL, // http://127.0.0.1:port of the live server
		"http://localhost" + port + "/admin",
		"http://LOCALHOST" + port,
		"http://[::1]" + port,
		"http://[::ffff:127.0.0.1]" + port,
		"http://[::ffff:7f00:1]" + port,
		"http://[64:ff9b::7f00:1]" + port,
		"http://0.0.0.0" + port,
		"http://10.0.0.1/",
		"https://192.168.1.1/router",
		"http://169.254.169.254/latest/meta-data/",
		"http://[fe80::1%25lo]" + port,
		"http://100.64.1.1/",
		"http://user:pw@127.0.0.1" + port + "/",
	}
	for _, u := range tests {
		t.Run(u, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), u)
			if !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("err = %v, want ErrBlockedAddress", err)
			}
			if !strings.Contains(err.Error(), "allow-private-network") {
				t.Errorf("error %q should tell how to allow private addresses", err)
			}
		})
	}
	if h, c := srv.hits.Load(), srv.ln.accepted.Load(); h != 0 || c != 0 {
		t.Errorf("blocked fetches reached the server: %d requests, %d connections", h, c)
	}
	// The same server is reachable when private access is allowed, so the zero counts
	// above come from the guard and not from an unreachable server.
	if _, err := NewFetcher(FetcherConfig{AllowPrivate: true}).Fetch(context.Background(), srv.URL); err != nil {
		t.Fatal(err)
	}
	if srv.hits.Load() != 1 {
		t.Errorf("allowed fetch: %d requests, want 1", srv.hits.Load())
	}
}

func TestFetchBadURL(t *testing.T) {
	f := NewFetcher(FetcherConfig{})
	tests := []string{
		"file:///etc/passwd",
		"ftp://example.com/file.txt",
		"javascript:alert(1)",
		"data:text/html,<b>x</b>",
		"gopher://example.com/",
		"http://",
		"http:///path-only",
		"https://user:pass@/nohost",
		"example.com/no-scheme",
		"//example.com/scheme-relative",
		"",
		"http://exa mple.com/",
		"http://[::1/",
	}
	for _, u := range tests {
		t.Run(u, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), u)
			if !errors.Is(err, ErrBadURL) {
				t.Fatalf("err = %v, want ErrBadURL", err)
			}
		})
	}
}

// TestRedirectToBlockedTargetIsRefused runs a "public" server (127.0.0.2, which the
// fetcher's guard is told to treat as public) that redirects to loopback targets on
// 127.0.0.1: a literal IP (refused by CheckRedirect), a name resolving to loopback
// (refused at connect time) and a non-http scheme.
func TestRedirectToBlockedTargetIsRefused(t *testing.T) {
	victim := newCountingServer(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("internal"))
	})
	victimPort := victim.URL[strings.LastIndex(victim.URL, ":"):]
	public := newCountingServer(t, "127.0.0.2:0", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-literal":
			http.Redirect(w, r, victim.URL+"/secret", http.StatusFound)
		case "/to-name":
			http.Redirect(w, r, "http://localhost"+victimPort+"/secret", http.StatusMovedPermanently)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusTemporaryRedirect)
		default:
			w.Write([]byte("public page"))
		}
	})
	if public == nil {
		t.Skip("cannot listen on 127.0.0.2 on this system")
	}
	publicIP := netip.MustParseAddr("127.0.0.2")
	f := NewFetcher(FetcherConfig{})
	f.blocked = func(ip netip.Addr) bool { return ip != publicIP && IsBlockedIP(ip) }

	if p, err := f.Fetch(context.Background(), public.URL+"/"); err != nil || p.Content != "public page" {
		t.Fatalf("the stand-in public server must be reachable: %v %q", err, p.Content)
	}
	tests := []struct {
		path string
		want error
	}{
		{"/to-literal", ErrBlockedAddress},
		{"/to-name", ErrBlockedAddress},
		{"/to-metadata", ErrBlockedAddress},
		{"/to-file", ErrBadURL},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), public.URL+tc.path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if h, c := victim.hits.Load(), victim.ln.accepted.Load(); h != 0 || c != 0 {
		t.Errorf("redirects reached the loopback server: %d requests, %d connections", h, c)
	}
}

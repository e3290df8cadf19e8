package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestGuardMoreSpellings covers spellings of non-public targets that TestGuardEverySpelling
// does not: IPv4-mapped IPv6 of the metadata and private ranges, the expanded mapped form,
// zoned loopback, the edges of 100.64/10, fc00::/7 and fe80::/10, a percent-encoded host,
// a canonical dotted quad with a trailing dot, and more userinfo tricks. None may connect.
func TestGuardMoreSpellings(t *testing.T) {
	srv := newCountingServer(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("secret"))
	})
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	tests := []struct {
		name, url string
		want      error
	}{
		{"mapped expanded", "http://[0:0:0:0:0:ffff:127.0.0.1]" + port + "/", ErrBlockedAddress},
		{"mapped hex upper", "http://[::FFFF:7F00:1]" + port + "/", ErrBlockedAddress},
		{"mapped unspecified", "http://[::ffff:0.0.0.0]" + port + "/", ErrBlockedAddress},
		{"mapped metadata", "http://[::ffff:169.254.169.254]/latest/meta-data/", ErrBlockedAddress},
		{"mapped metadata hex", "http://[::ffff:a9fe:a9fe]/latest/meta-data/", ErrBlockedAddress},
		{"mapped private", "http://[::ffff:10.0.0.1]/", ErrBlockedAddress},
		{"mapped cgnat", "http://[::ffff:100.64.0.1]/", ErrBlockedAddress},
		{"loopback zoned", "http://[::1%25lo]" + port + "/", ErrBlockedAddress},
		{"unspecified v6 expanded", "http://[0:0:0:0:0:0:0:0]" + port + "/", ErrBlockedAddress},
		{"zero network", "http://0.1.2.3/", ErrBlockedAddress},
		{"metadata", "http://169.254.169.254/", ErrBlockedAddress},
		{"metadata trailing dot", "http://169.254.169.254./", ErrBlockedAddress},
		{"loopback trailing dot", "http://127.0.0.1." + port + "/", ErrBlockedAddress},
		{"cgnat first", "http://100.64.0.0/", ErrBlockedAddress},
		{"cgnat last", "http://100.127.255.255/", ErrBlockedAddress},
		{"ula first", "http://[fc00::]/", ErrBlockedAddress},
		{"ula last", "http://[fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]/", ErrBlockedAddress},
		{"link-local last", "http://[febf:ffff::1]/", ErrBlockedAddress},
		{"link-local zoned", "http://[fe80::1%25eth0]/", ErrBlockedAddress},
		{"percent-encoded host", "http://%31%32%37.0.0.1" + port + "/", ErrBadURL},
		{"userinfo with port", "http://127.0.0.1:80@127.0.0.1" + port + "/", ErrBlockedAddress},
		{"userinfo public-looking", "http://example.com@127.0.0.1" + port + "/", ErrBlockedAddress},
		{"userinfo encoded at", "http://example.com%40evil@127.0.0.1" + port + "/", ErrBlockedAddress},
		{"userinfo mapped", "http://a:b@[::ffff:127.0.0.1]" + port + "/", ErrBlockedAddress},
		{"upper-case scheme", "HTTP://127.0.0.1" + port + "/", ErrBlockedAddress},
		{"file host", "file://127.0.0.1/etc/passwd", ErrBadURL},
		{"ftp", "ftp://example.com/", ErrBadURL},
		{"gopher", "gopher://127.0.0.1" + port + "/_GET%20/", ErrBadURL},
		{"data", "data:text/html,<script>alert(1)</script>", ErrBadURL},
		{"javascript upper", "JavaScript:alert(1)", ErrBadURL},
		{"ws", "ws://127.0.0.1" + port + "/", ErrBadURL},
		{"opaque http", "http:127.0.0.1" + port, ErrBadURL},
		{"no host", "http:///etc/passwd", ErrBadURL},
		{"scheme-relative", "//127.0.0.1" + port + "/", ErrBadURL},
	}
	f := NewFetcher(FetcherConfig{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := f.Fetch(context.Background(), tc.url); !errors.Is(err, tc.want) {
				t.Fatalf("Fetch(%q) err = %v, want %v", tc.url, err, tc.want)
			}
		})
	}
	if h, c := srv.hits.Load(), srv.ln.accepted.Load(); h != 0 || c != 0 {
		t.Errorf("blocked fetches reached the server: %d requests, %d connections", h, c)
	}
}

// TestGuardChecksDialedAddress: a name that passes the URL check but resolves to a
// non-public address (a DNS answer, or a rebinding) is refused by the check on the address
// actually dialed (net.Dialer.ControlContext), before connecting. The Fetcher's own dialer
// is kept; only name resolution is replaced, by rewriting the name to the address a
// hostile DNS server would answer, as the resolver does before the dialer's Control hook.
func TestGuardChecksDialedAddress(t *testing.T) {
	srv := newCountingServer(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("secret"))
	})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	answers := map[string]string{
		"rebind.example":   "127.0.0.1",
		"mapped.example":   "::ffff:127.0.0.1",
		"metadata.example": "169.254.169.254",
		"private.example":  "10.0.0.1",
	}
	f := NewFetcher(FetcherConfig{Timeout: 5 * time.Second})
	tr := f.client.Transport.(*http.Transport)
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, p, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		ip, ok := answers[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		if strings.Contains(ip, ":") {
			network = "tcp6"
			if strings.HasPrefix(ip, "::ffff:") { // the kernel dials a mapped address over IPv4
				network = "tcp"
			}
		}
		return dial(ctx, network, net.JoinHostPort(ip, p))
	}
	for name := range answers {
		t.Run(name, func(t *testing.T) {
			u := "http://" + net.JoinHostPort(name, port) + "/"
			if err := f.checkTarget(mustParse(t, u)); err != nil {
				t.Fatalf("the URL check already refuses %s (%v): this test needs a name it lets through", u, err)
			}
			if _, err := f.Fetch(context.Background(), u); !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("Fetch(%q) err = %v, want ErrBlockedAddress", u, err)
			}
		})
	}
	if h, c := srv.hits.Load(), srv.ln.accepted.Load(); h != 0 || c != 0 {
		t.Errorf("names resolving to loopback reached the server: %d requests, %d connections", h, c)
	}
	// The same dial path does connect when the guard allows the address, so the refusals
	// above are the guard's and not a broken rewrite.
	f.blocked = func(netip.Addr) bool { return false }
	if p, err := f.Fetch(context.Background(), "http://"+net.JoinHostPort("rebind.example", port)+"/"); err != nil || p.Content != "secret" {
		t.Fatalf("with the guard allowing it, the rewritten dial must connect: %v %q", err, p.Content)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

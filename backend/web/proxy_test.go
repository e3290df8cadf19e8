package web

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"testing"

	"artifactflow/backend/netproxy/proxytest"
)

// TestFetchThroughProxy sends web_fetch through a forward proxy on loopback (the usual
// local proxy). Pages behind public-looking names (served on 127.0.0.2, which the guard is
// told to treat as public; the names map to it in the fetcher's lookup and in the proxy)
// are reached over plain http and, by CONNECT, over https. Non-public targets are still
// refused with the proxy set, by literal address, by name and by the addresses a name
// resolves to, also after a redirect, and none of them reaches the proxy.
func TestFetchThroughProxy(t *testing.T) {
	victim := newCountingServer(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("internal"))
	})
	_, victimPort, _ := net.SplitHostPort(victim.Listener.Addr().String())
	public := newCountingServer(t, "127.0.0.2:0", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to-intranet" {
			http.Redirect(w, r, "http://intranet.example:"+victimPort+"/secret", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("public page"))
	})
	if public == nil {
		t.Skip("cannot listen on 127.0.0.2 on this system")
	}
	_, publicPort, _ := net.SplitHostPort(public.Listener.Addr().String())
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	secure := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("secure page"))
	}))
	secure.Listener.Close()
	secure.Listener = ln
	secure.StartTLS() // its certificate names example.com
	t.Cleanup(secure.Close)
	_, securePort, _ := net.SplitHostPort(ln.Addr().String())

	proxy := proxytest.New(t, map[string]string{"news.example": "127.0.0.2", "example.com": "127.0.0.2", "intranet.example": "127.0.0.1"})
	// What the fetcher's lookup answers (a DNS server's stand-in).
	names := map[string]string{"news.example": "127.0.0.2", "example.com": "127.0.0.2", "intranet.example": "127.0.0.1",
		"metadata.example": "169.254.169.254"}
	f := NewFetcher(FetcherConfig{Proxy: http.ProxyURL(proxy.URL())})
	publicIP := netip.MustParseAddr("127.0.0.2")
	f.blocked = func(ip netip.Addr) bool { return ip != publicIP && IsBlockedIP(ip) }
	f.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		if ip, ok := names[host]; ok {
			return []netip.Addr{netip.MustParseAddr(ip)}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	tr := f.client.Transport.(*http.Transport)
	tr.TLSClientConfig = &tls.Config{RootCAs: secure.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}

	for _, tc := range []struct{ url, want string }{
		{"http://news.example:" + publicPort + "/", "public page"},
		{"https://example.com:" + securePort + "/", "secure page"},
	} {
		p, err := f.Fetch(context.Background(), tc.url)
		if err != nil || p.Content != tc.want {
			t.Fatalf("Fetch(%s) through the proxy = %q, %v; want %q", tc.url, p.Content, err, tc.want)
		}
	}
	wantSeen := []string{"news.example:" + publicPort, "example.com:" + securePort}
	if got := proxy.Seen(); !slices.Equal(got, wantSeen) {
		t.Fatalf("the proxy was asked for %q, want %q", got, wantSeen)
	}

	refused := []struct {
		name, url string
		want      error
	}{
		{"literal loopback", "http://127.0.0.1:" + victimPort + "/secret", ErrBlockedAddress},
		{"literal private", "http://10.0.0.1/", ErrBlockedAddress},
		{"localhost", "http://localhost:" + victimPort + "/", ErrBlockedAddress},
		{"name resolving to loopback", "http://intranet.example:" + victimPort + "/secret", ErrBlockedAddress},
		{"name resolving to metadata", "https://metadata.example/latest/", ErrBlockedAddress},
		{"redirect to a loopback name", "http://news.example:" + publicPort + "/to-intranet", ErrBlockedAddress},
		{"name that does not resolve", "http://nowhere.example/", nil},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), tc.url)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Fetch(%s) err = %v, want %v", tc.url, err, tc.want)
			}
		})
	}
	// The redirect's first hop went through the proxy; nothing refused did.
	wantSeen = append(wantSeen, "news.example:"+publicPort)
	if got := proxy.Seen(); !slices.Equal(got, wantSeen) {
		t.Errorf("the proxy was asked for %q, want %q", got, wantSeen)
	}
	if h, c := victim.hits.Load(), victim.ln.accepted.Load(); h != 0 || c != 0 {
		t.Errorf("refused fetches reached the loopback server: %d requests, %d connections", h, c)
	}

	// With private network access allowed the same loopback name is fetched through the
	// proxy, so the refusals above are the guard's.
	open := NewFetcher(FetcherConfig{AllowPrivate: true, Proxy: http.ProxyURL(proxy.URL())})
	if p, err := open.Fetch(context.Background(), "http://intranet.example:"+victimPort+"/secret"); err != nil || p.Content != "internal" {
		t.Fatalf("with private access allowed: %q, %v", p.Content, err)
	}
}

// TestFetcherWithoutProxyConnectsDirectly: with no FetcherConfig.Proxy the transport has no
// proxy, so proxy variables in the environment cannot carry a fetch past the guard (the
// app passes the proxy it chose explicitly).
func TestFetcherWithoutProxyConnectsDirectly(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:9")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:9")
	for _, cfg := range []FetcherConfig{{}, {AllowPrivate: true}} {
		tr, ok := NewFetcher(cfg).client.Transport.(*http.Transport)
		if !ok || tr.Proxy != nil {
			t.Errorf("cfg %+v: transport must not use a proxy (ok=%v)", cfg, ok)
		}
	}
	srv := serveBody(t, "text/plain", []byte("direct"))
	if p, err := NewFetcher(FetcherConfig{AllowPrivate: true}).Fetch(context.Background(), srv.URL); err != nil || p.Content != "direct" {
		t.Fatalf("direct fetch with proxy variables set: %q, %v", p.Content, err)
	}
}

// TestProxyAddr: the address compared with the dialed one is the transport's, the scheme's
// port filled in.
func TestProxyAddr(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:7890": "127.0.0.1:7890",
		"http://proxy.lan":      "proxy.lan:80",
		"https://[::1]":         "[::1]:443",
		"socks5://localhost":    "localhost:1080",
		"socks5h://h:1081":      "h:1081",
	} {
		u, _ := url.Parse(raw)
		if got := proxyAddr(u); got != want {
			t.Errorf("proxyAddr(%s) = %s, want %s", raw, got, want)
		}
	}
}

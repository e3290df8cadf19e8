// Package proxytest is a forward proxy for tests: an httptest server on loopback that
// answers CONNECT (for https targets) and absolute-form requests (plain http), reaching
// the target through a name map instead of DNS, so a test can put a page behind a
// public-looking name such as "news.example" and send a client there only through the
// proxy.
package proxytest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Proxy is a running test proxy. Its methods are safe for concurrent use.
type Proxy struct {
	*httptest.Server
	hosts map[string]string

	mu      sync.Mutex
	seen    []string
	tunnels map[net.Conn]bool // open CONNECT tunnels' ends, closed by Close
}

// New starts a proxy on 127.0.0.1, closed when the test ends. hosts maps a target's host
// name (without port) to the loopback address dialed instead, e.g. {"news.example":
// "127.0.0.2"}; the target's port is kept. The proxy dials only loopback addresses: a
// target that is not in hosts and not a loopback address, or that hosts maps elsewhere,
// is answered 502 Bad Gateway, so no test traffic leaves the machine.
func New(t testing.TB, hosts map[string]string) *Proxy {
	t.Helper()
	p := &Proxy{hosts: hosts, tunnels: map[net.Conn]bool{}}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

// Close stops the proxy and closes the tunnels still open, so their handlers end.
func (p *Proxy) Close() {
	p.mu.Lock()
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	p.Server.Close()
}

// track adds (or, with on false, removes) a tunnel end to close on Close.
func (p *Proxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.tunnels[c] = true
	} else {
		delete(p.tunnels, c)
	}
}

// URL returns the proxy's URL, e.g. "http://127.0.0.1:41234", as a proxy setting.
func (p *Proxy) URL() *url.URL {
	u, _ := url.Parse(p.Server.URL)
	return u
}

// Seen returns the targets the proxy was asked for so far ("host:port"), in order.
func (p *Proxy) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// target records a requested host:port and maps it to the loopback address dialed.
func (p *Proxy) target(hostport string) (string, error) {
	p.mu.Lock()
	p.seen = append(p.seen, hostport)
	p.mu.Unlock()
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", err
	}
	if to, ok := p.hosts[host]; ok {
		host = to
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		return "", fmt.Errorf("proxytest dials only loopback addresses, not %s", host)
	}
	return net.JoinHostPort(host, port), nil
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "proxytest: not a proxy request", http.StatusBadRequest)
		return
	}
	hostport := r.URL.Host
	if r.URL.Port() == "" {
		hostport = net.JoinHostPort(r.URL.Hostname(), "80")
	}
	addr, err := p.target(hostport)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	client := &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true,
			Dial: func(network, _ string) (net.Conn, error) { return net.DialTimeout(network, addr, 5*time.Second) }},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(out)
	if err != nil {
		http.Error(w, "proxytest: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// connect tunnels a CONNECT request to its (mapped) target until either side closes.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "proxytest: cannot hijack", http.StatusInternalServerError)
		return
	}
	addr, err := p.target(r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	up, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		http.Error(w, "proxytest: "+err.Error(), http.StatusBadGateway)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	p.track(conn, true)
	p.track(up, true)
	defer func() {
		conn.Close()
		up.Close()
		p.track(conn, false)
		p.track(up, false)
	}()
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, buf); done <- struct{}{} }()
	go func() { io.Copy(conn, up); done <- struct{}{} }()
	<-done // one side ended: closing both (deferred) ends the other copy
}

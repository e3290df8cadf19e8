package web

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// countingListener counts accepted connections, to prove that a blocked fetch never
// connected.
type countingListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// countingServer is an httptest server that counts handler calls and accepted connections.
type countingServer struct {
	*httptest.Server
	hits atomic.Int64
	ln   *countingListener
}

// newCountingServer starts a server on addr ("127.0.0.1:0" or another loopback address)
// serving h. It returns nil when addr cannot be listened on.
func newCountingServer(t testing.TB, addr string, h http.HandlerFunc) *countingServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil
	}
	cs := &countingServer{ln: &countingListener{Listener: ln}}
	cs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.hits.Add(1)
		h(w, r)
	}))
	cs.Server.Listener.Close()
	cs.Server.Listener = cs.ln
	cs.Start()
	t.Cleanup(cs.Close)
	return cs
}

// serve starts a plain httptest server (127.0.0.1) for h.
func serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// serveBody answers every request with body and the given Content-Type ("" sends none;
// Go's server would otherwise sniff one).
func serveBody(t testing.TB, contentType string, body []byte) *httptest.Server {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		if contentType == "" {
			w.Header()["Content-Type"] = nil
		} else {
			w.Header().Set("Content-Type", contentType)
		}
		w.Write(body)
	})
}

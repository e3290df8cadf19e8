package web

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
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

// buildPDF writes a minimal valid PDF by hand: one page per text, each page's text shown
// with a WinAnsi Helvetica font, an Info dictionary with title, and an exact xref table.
func buildPDF(title string, pageTexts ...string) []byte {
	n := len(pageTexts)
	// Objects: 1 catalog, 2 pages, 3 font, 4 info, then (page, contents) pairs.
	kids := make([]string, n)
	for i := range pageTexts {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Title (%s) >>", title),
	}
	for i, text := range pageTexts {
		var content strings.Builder
		content.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for _, line := range strings.Split(text, "\n") {
			fmt.Fprintf(&content, "(%s) Tj T*\n", line)
		}
		content.WriteString("ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 6+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

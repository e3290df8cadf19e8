package localapi

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"artifactflow/app/internal/dbtest"
)

// FuzzLocalAPI sends random methods, paths, bodies and header sets to the handler. It
// never panics; it always answers JSON or an event stream; it never answers 5xx (a request
// cannot make the server fail; only a request whose context ended, i.e. a client that went
// away, may see 503); a request the guard must refuse (wrong, missing or repeated token,
// foreign Host, an Origin, a cross-site Sec-Fetch-Site) gets 401 or 403; and no request
// answered with an error changes anything: neither the artifact list and change log nor
// the row count of any table in the database.
//
// headers is "Name: value" lines; a Host line sets the Host header, a Content-Length line
// the announced length (the body is cut to it, or ends early as a real connection would).
func FuzzLocalAPI(f *testing.F) {
	h := newHarness(f, func(o *Options) { o.Rate, o.Burst, o.MaxBody = 1e6, 1e6, 8192 })
	victim := h.postLink("https://example.com/victim", "Victim", "alice")
	conv := "/session/" + testConv
	seeds := []struct {
		method, path string
		body         string
		auth         uint8
		headers      string
	}{
		{"GET", "/capabilities", "", 2, ""},
		{"POST", conv + "/artifacts", `{"title":"T","url":"https://a.example/"}`, 1, ""},
		{"POST", conv + "/artifacts", `{"artifacts":[{"title":"T","url":"https://b.example/"}],"clientId":"c"}`, 2, "X-Client-Id: c"},
		{"POST", conv + "/artifacts", `{"artifacts":[{"title":"T","url":"https://c.example/"},{"title":""}]}`, 2, ""},
		{"POST", conv + "/artifacts?clientId=x", `{"title":"T","url":"https://d.example/","clientId":"y"}`, 2, "X-Client-Id: z"},
		{"POST", conv + "/artifacts", `{"title":"T","url":"https://e.example/"}`, 2, "Content-Length: 99999999"},
		{"POST", conv + "/artifacts", `{"title":"T","url":"https://f.example/"}`, 2, "Content-Length: 10"},
		{"POST", conv + "/artifacts", `{"title":"T","url":"https://g.example/","description":"` + strings.Repeat("x", 9000) + `"}`, 2, ""},
		{"POST", "/session/nope/artifacts", `{"title":"T","url":"https://h.example/"}`, 2, ""},
		{"DELETE", conv + "/artifacts/" + victim, "", 0, ""},
		{"DELETE", conv + "/artifacts/" + victim, `{"clientId":"mallory"}`, 2, ""},
		{"DELETE", conv + "/artifacts/" + victim, `{"clientId":"alice"}`, 3, "Origin: null"},
		{"DELETE", conv + "/artifacts/" + victim, `{"clientId":"alice"}`, 2, "Authorization: Bearer x"},
		{"GET", conv + "/events", "", 2, "Last-Event-ID: 0"},
		{"GET", conv + "/events?lastEventId=-1", "", 2, "Last-Event-ID: 99999999999999999999"},
		{"POST", "/session/%2e%2e/artifacts", `{"title":"<b>","workspacePath":"../x"}`, 2, "Host: evil.example"},
		{"POST", conv + "/artifacts", `{"title":"T","url":"https://i.example/"}`, 2, "Host: localhost:4242\nOrigin: http://127.0.0.1:4242"},
		{"POST", conv + "/artifacts", `{"title":"T","url":"https://j.example/"}`, 2, "Host: 127.0.0.1.:4242"},
		{"PATCH", conv + "/artifacts/x/y", "\xff\xfe", 2, "Sec-Fetch-Site: cross-site"},
		{"OPTIONS", "/capabilities", "", 2, "Sec-Fetch-Site: none\nAccess-Control-Request-Method: DELETE"},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, []byte(s.body), s.auth, s.headers)
	}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4242}
	f.Fuzz(func(t *testing.T, method, path string, body []byte, auth uint8, headers string) {
		base := context.WithValue(context.Background(), http.LocalAddrContextKey, net.Addr(local))
		ctx, cancel := context.WithTimeout(base, 50*time.Millisecond) // ends event streams
		defer cancel()
		var rd io.Reader = bytes.NewReader(body)
		req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:4242"+path, nil)
		if err != nil {
			return // not a request a server could receive
		}
		req.Host = "127.0.0.1:4242"
		req.ContentLength = int64(len(body))
		switch auth % 4 {
		case 1:
			req.Header.Set("Authorization", "Bearer "+h.token+"x")
		case 2, 3:
			req.Header.Set("Authorization", "Bearer "+h.token)
		}
		for _, line := range strings.Split(headers, "\n") {
			name, value, ok := strings.Cut(line, ":")
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			switch {
			case !ok || name == "":
			case strings.EqualFold(name, "Host"):
				req.Host = value
			case strings.EqualFold(name, "Content-Length"):
				n, err := strconv.ParseInt(value, 10, 64)
				if err != nil || n < 0 {
					return // the server answers 400 before any handler runs
				}
				req.ContentLength = n
				if n < int64(len(body)) {
					rd = bytes.NewReader(body[:n])
				} else if n > int64(len(body)) {
					rd = io.MultiReader(bytes.NewReader(body), errReader{io.ErrUnexpectedEOF})
				}
			default:
				req.Header.Add(name, value)
			}
		}
		req.Body = io.NopCloser(rd)
		auths := req.Header.Values("Authorization")
		scheme, tok, _ := strings.Cut(strings.Join(auths, ""), " ")
		refused := len(auths) != 1 || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) != h.token ||
			(req.Host != "127.0.0.1:4242" && !strings.EqualFold(req.Host, "localhost:4242")) ||
			len(req.Header.Values("Origin")) > 0 ||
			(len(req.Header.Values("Sec-Fetch-Site")) > 0 && (len(req.Header.Values("Sec-Fetch-Site")) > 1 || req.Header.Get("Sec-Fetch-Site") != "none"))
		before := h.state(t) + " " + h.rows(t)
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		ct := rec.Header().Get("Content-Type")
		if ct != "application/json; charset=utf-8" && ct != "text/event-stream" {
			t.Fatalf("%s %q -> %d with content type %q", method, path, rec.Code, ct)
		}
		if rec.Code >= 500 && !(rec.Code == http.StatusServiceUnavailable && ctx.Err() != nil) {
			t.Fatalf("%s %q %q -> %d: %s", method, path, headers, rec.Code, rec.Body)
		}
		if refused && rec.Code != http.StatusUnauthorized && rec.Code != http.StatusForbidden {
			t.Fatalf("refused request %s %q %q answered %d: %s", method, path, headers, rec.Code, rec.Body)
		}
		if rec.Code != http.StatusOK {
			if after := h.state(t) + " " + h.rows(t); after != before {
				t.Fatalf("%s %q %q answered %d but changed state:\n%s\n%s", method, path, headers, rec.Code, before, after)
			}
		}
	})
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// rows returns the row count of every table of the database (dbtest.RowCounts), so a
// refused request that wrote anything anywhere shows.
func (h *harness) rows(t testing.TB) string { return dbtest.RowCounts(t, h.db) }

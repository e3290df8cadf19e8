package localapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// testConv is the conversation (session) every harness creates.
const testConv = "conv-1"

// harness is the API over a real declared.Service on SQLite in t.TempDir(), served by
// httptest on 127.0.0.1, with a fan-out of logged changes standing in for
// app.Core.SubscribeDeclared.
type harness struct {
	t     testing.TB
	ctx   context.Context
	dir   string
	db    *store.DB
	svc   *declared.Service
	srv   *Server
	hs    *httptest.Server
	token string

	mu    sync.Mutex
	sinks map[int]func(string, declared.LoggedChange)
	next  int
}

func newHarness(t testing.TB, tweak func(*Options)) *harness {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "artifactflow.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateConversation(ctx, store.Conversation{ID: testConv, Title: "t"}); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, ctx: ctx, dir: dir, db: db, sinks: map[int]func(string, declared.LoggedChange){}}
	h.svc = declared.New(db, declared.Options{
		Workspace: func(ctx context.Context, id string) (string, error) {
			if _, err := db.GetConversation(ctx, id); err != nil {
				return "", err
			}
			return filepath.Join(dir, "workspaces", id), nil
		},
		Publish: h.publish,
	})
	opts := Options{Declared: h.svc, Subscribe: h.subscribe, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if tweak != nil {
		tweak(&opts)
	}
	h.srv, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.token = h.srv.Token()
	h.hs = httptest.NewServer(h.srv)
	t.Cleanup(h.hs.Close)
	return h
}

// publish hands a logged change to the subscribers, as app.Core.publishDeclared does.
func (h *harness) publish(conv string, ch declared.LoggedChange) {
	h.mu.Lock()
	fns := make([]func(string, declared.LoggedChange), 0, len(h.sinks))
	for _, f := range h.sinks {
		fns = append(fns, f)
	}
	h.mu.Unlock()
	for _, f := range fns {
		f(conv, ch)
	}
}

func (h *harness) subscribe(fn func(string, declared.LoggedChange)) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := h.next
	h.next++
	h.sinks[id] = fn
	return func() {
		h.mu.Lock()
		delete(h.sinks, id)
		h.mu.Unlock()
	}
}

// reply is an answer of the API.
type reply struct {
	status int
	header http.Header
	body   string
}

// errBody decodes the error envelope of r.
func (r reply) errBody(t testing.TB) ErrorBody {
	t.Helper()
	var env ErrorEnvelope
	if err := json.Unmarshal([]byte(r.body), &env); err != nil || env.V != 1 || env.Error.Code == "" {
		t.Fatalf("not an error envelope (%v): %d %s", err, r.status, r.body)
	}
	return env.Error
}

// call sends one request; headers with the value "-" are removed (Authorization is set to
// the harness token unless given).
func (h *harness) call(method, path string, headers map[string]string, body string) reply {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.hs.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	for k, v := range headers {
		switch {
		case k == "Host":
			req.Host = v
		case v == "-":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := h.hs.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// mutation decodes a MutationResult from a 200 answer.
func (h *harness) mutation(r reply) MutationResult {
	h.t.Helper()
	if r.status != http.StatusOK {
		h.t.Fatalf("status %d: %s", r.status, r.body)
	}
	var m MutationResult
	if err := json.Unmarshal([]byte(r.body), &m); err != nil || m.V != 1 || m.Changes == nil {
		h.t.Fatalf("not a mutation result (%v): %s", err, r.body)
	}
	return m
}

// postLink posts one link artifact as client (X-Client-Id; "" for none) and returns its id.
func (h *harness) postLink(url, title, client string) string {
	h.t.Helper()
	hdr := map[string]string{}
	if client != "" {
		hdr[ClientIDHeader] = client
	}
	m := h.mutation(h.call(http.MethodPost, "/session/"+testConv+"/artifacts", hdr, fmt.Sprintf(`{"title":%q,"url":%q}`, title, url)))
	if len(m.Changes) == 0 {
		h.t.Fatalf("posting %s changed nothing", url)
	}
	return m.Changes[0].ArtifactID
}

// state is what a refused request must leave untouched: the list and the change log.
func (h *harness) state(t testing.TB) string {
	t.Helper()
	arts, err := h.svc.List(h.ctx, testConv)
	if err != nil {
		t.Fatal(err)
	}
	log, err := h.svc.ChangesSince(h.ctx, testConv, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range arts {
		ids = append(ids, a.ID+"@"+a.UpdatedAt)
	}
	return fmt.Sprintf("artifacts=%v changes=%d", ids, len(log))
}

// sseEvent is one event read from a stream.
type sseEvent struct {
	id    int64
	name  string
	event Event
}

// stream is an open GET /session/:id/events.
type stream struct {
	t      testing.TB
	resp   *http.Response
	events chan sseEvent
	cancel context.CancelFunc
	done   chan struct{}
}

// openStream connects to the session's event stream (lastID "" for none) and waits for
// the server's first comment, sent once it is subscribed.
func (h *harness) openStream(session, lastID string) *stream {
	h.t.Helper()
	return h.openStreamAt("/session/"+session+"/events", lastID)
}

// openStreamAt is openStream of a path with its query.
func (h *harness) openStreamAt(path, lastID string) *stream {
	h.t.Helper()
	s, r := h.tryOpenStreamAt(path, lastID)
	if s == nil {
		h.t.Fatalf("events: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	return s
}

// tryOpenStreamAt is openStreamAt that returns, instead of failing the test, a nil stream
// and the answer when the server does not start a stream.
func (h *harness) tryOpenStreamAt(path, lastID string) (*stream, reply) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(h.ctx)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.hs.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+h.token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := h.hs.Client().Do(req)
	if err != nil {
		cancel()
		h.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, reply{resp.StatusCode, resp.Header, string(b)}
	}
	s := &stream{t: h.t, resp: resp, events: make(chan sseEvent, 1024), cancel: cancel, done: make(chan struct{})}
	ready := make(chan struct{})
	go s.read(ready)
	h.t.Cleanup(s.close)
	select {
	case <-ready:
	case <-time.After(5 * time.Second):
		h.t.Fatal("no first comment on the event stream")
	}
	return s, reply{status: resp.StatusCode, header: resp.Header}
}

// read parses the stream until it ends; it owns s.events and closes done.
func (s *stream) read(ready chan struct{}) {
	defer close(s.done)
	defer close(s.events)
	sc := bufio.NewScanner(s.resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur sseEvent
	var data string
	first := true
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			if first {
				first = false
				close(ready)
			}
		case strings.HasPrefix(line, "id: "):
			cur.id, _ = strconv.ParseInt(strings.TrimPrefix(line, "id: "), 10, 64)
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		case line == "" && data != "":
			if err := json.Unmarshal([]byte(data), &cur.event); err != nil {
				s.t.Errorf("bad event data %q: %v", data, err)
			}
			s.events <- cur
			cur, data = sseEvent{}, ""
		}
	}
}

// next returns the next event, failing after a deadline.
func (s *stream) next() sseEvent {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatal("the event stream ended")
		}
		return ev
	case <-time.After(5 * time.Second):
		s.t.Fatal("no event within 5 s")
	}
	return sseEvent{}
}

// none checks that no event arrives within d.
func (s *stream) none(d time.Duration) {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if ok {
			s.t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(d):
	}
}

func (s *stream) close() {
	s.cancel()
	s.resp.Body.Close()
	<-s.done
}

package localapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// TestRoutes checks the status and envelope of every route and error: each row is one
// request and what must come back. Validation failures, path traversal and markup
// included, reach the service and come back as 400 naming the field.
func TestRoutes(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Rate, o.Burst = 1000, 1000 })
	existing := h.postLink("https://example.com/existing", "Existing", "")
	if err := h.db.CreateConversation(h.ctx, store.Conversation{ID: "empty", Title: "e"}); err != nil {
		t.Fatal(err)
	}
	sess := "/session/" + testConv
	tests := []struct {
		name    string
		method  string
		path    string
		headers map[string]string
		body    string
		status  int
		code    string // "" for success
		field   string
		check   func(t *testing.T, r reply)
	}{
		{name: "capabilities", method: "GET", path: "/capabilities", status: 200, check: func(t *testing.T, r reply) {
			var c Capabilities
			if err := json.Unmarshal([]byte(r.body), &c); err != nil || c.V != 1 || len(c.Features) != 1 || c.Features[0] != "session_artifacts" {
				t.Fatalf("capabilities %s (%v)", r.body, err)
			}
		}},
		{name: "capabilities POST", method: "POST", path: "/capabilities", status: 405, code: CodeMethodNotAllowed, check: allowIs("GET")},
		{name: "list", method: "GET", path: sess + "/artifacts", status: 200, check: func(t *testing.T, r reply) {
			var env ArtifactsEnvelope
			if err := json.Unmarshal([]byte(r.body), &env); err != nil || env.V != 1 || env.SessionID != testConv || len(env.Artifacts) != 1 || env.Artifacts[0].ID != existing {
				t.Fatalf("list %s (%v)", r.body, err)
			}
		}},
		{name: "list unknown session", method: "GET", path: "/session/nope/artifacts", status: 404, code: CodeSessionNotFound},
		{name: "list empty is []", method: "GET", path: "/session/empty/artifacts", status: 200, check: func(t *testing.T, r reply) {
			if !strings.Contains(r.body, `"artifacts":[]`) {
				t.Fatalf("empty list %s", r.body)
			}
		}},
		{name: "put", method: "PUT", path: sess + "/artifacts", body: "{}", status: 405, code: CodeMethodNotAllowed, check: allowIs("GET, POST")},
		{name: "post one", method: "POST", path: sess + "/artifacts", body: `{"kind":"link","title":"Task","url":"https://ops.example.com/t/1","mimeType":"text/html","metadata":{"resourceType":"task","n":3,"ok":true}}`, status: 200, check: func(t *testing.T, r reply) {
			m := decodeMutation(t, r)
			c := m.Changes[0]
			if len(m.Changes) != 1 || c.Action != "created" || c.Artifact == nil || c.Artifact.Source != "client" || !c.Artifact.ClientRetained || c.Artifact.Metadata["n"] != 3.0 {
				t.Fatalf("post one: %s", r.body)
			}
		}},
		{name: "post batch with clientId", method: "POST", path: sess + "/artifacts", body: `{"clientId":"tool-x","artifacts":[{"title":"A","url":"https://a.example/"},{"title":"B","workspacePath":"out/report.html"}]}`, status: 200, check: func(t *testing.T, r reply) {
			m := decodeMutation(t, r)
			if len(m.Changes) != 2 || m.Changes[1].Artifact.Kind != "html" || m.Changes[1].Artifact.Status != "missing" {
				t.Fatalf("batch: %s", r.body)
			}
		}},
		{name: "post same again is no change", method: "POST", path: sess + "/artifacts", body: `{"title":"Existing","url":"https://example.com/existing"}`, status: 200, check: func(t *testing.T, r reply) {
			if m := decodeMutation(t, r); len(m.Changes) != 0 {
				t.Fatalf("repeat: %s", r.body)
			}
		}},
		{name: "post unknown session", method: "POST", path: "/session/nope/artifacts", body: `{"title":"A","url":"https://a.example/"}`, status: 404, code: CodeSessionNotFound},
		{name: "path traversal", method: "POST", path: sess + "/artifacts", body: `{"title":"P","workspacePath":"../../etc/passwd"}`, status: 400, code: CodeValidation, field: "workspacePath"},
		{name: "absolute path", method: "POST", path: sess + "/artifacts", body: `{"title":"P","workspacePath":"/etc/passwd"}`, status: 400, code: CodeValidation, field: "workspacePath"},
		{name: "markup in title", method: "POST", path: sess + "/artifacts", body: `{"title":"<script>alert(1)</script>","url":"https://a.example/"}`, status: 400, code: CodeValidation, field: "title"},
		{name: "encoded markup in description", method: "POST", path: sess + "/artifacts", body: `{"title":"T","description":"&lt;img src=x onerror=alert(1)&gt;","url":"https://a.example/"}`, status: 400, code: CodeValidation, field: "description"},
		{name: "javascript url", method: "POST", path: sess + "/artifacts", body: `{"title":"T","url":"javascript:alert(1)"}`, status: 400, code: CodeValidation, field: "url"},
		{name: "batch names the index", method: "POST", path: sess + "/artifacts", body: `{"artifacts":[{"title":"ok","url":"https://ok.example/"},{"title":"T","url":"file:///etc/passwd"}]}`, status: 400, code: CodeValidation, field: "artifacts[1].url"},
		{name: "published refused", method: "POST", path: sess + "/artifacts", body: `{"title":"T","storage":"published","url":"https://a.example/"}`, status: 400, code: CodeValidation, field: "storage"},
		{name: "two locators", method: "POST", path: sess + "/artifacts", body: `{"title":"T","url":"https://a.example/","managedId":"m1"}`, status: 400, code: CodeValidation, field: "url"},
		{name: "source is not the payload's", method: "POST", path: sess + "/artifacts", body: `{"title":"T","url":"https://a.example/","source":"tool"}`, status: 400, code: CodeValidation, field: "source"},
		{name: "trustedPublisher refused", method: "POST", path: sess + "/artifacts", body: `{"artifacts":[{"title":"T","url":"https://a.example/","trustedPublisher":true}]}`, status: 400, code: CodeValidation, field: "artifacts[0].trustedPublisher"},
		{name: "case-folded field refused", method: "POST", path: sess + "/artifacts", body: `{"Title":"T","url":"https://a.example/"}`, status: 400, code: CodeValidation, field: "Title"},
		{name: "wrong type", method: "POST", path: sess + "/artifacts", body: `{"title":7,"url":"https://a.example/"}`, status: 400, code: CodeValidation, field: "title"},
		{name: "metadata not object", method: "POST", path: sess + "/artifacts", body: `{"title":"T","url":"https://a.example/","metadata":[1]}`, status: 400, code: CodeValidation, field: "metadata"},
		{name: "not json", method: "POST", path: sess + "/artifacts", body: `title=x`, status: 400, code: CodeValidation},
		{name: "trailing data", method: "POST", path: sess + "/artifacts", body: `{"title":"T","url":"https://a.example/"} {}`, status: 400, code: CodeValidation},
		{name: "empty batch", method: "POST", path: sess + "/artifacts", body: `{"artifacts":[]}`, status: 400, code: CodeValidation, field: "artifacts"},
		{name: "batch extra field", method: "POST", path: sess + "/artifacts", body: `{"artifacts":[{"title":"T","url":"https://a.example/"}],"x":1}`, status: 400, code: CodeValidation, field: "x"},
		{name: "clientId disagrees", method: "POST", path: sess + "/artifacts", headers: map[string]string{ClientIDHeader: "b"}, body: `{"clientId":"a","title":"T","url":"https://a.example/"}`, status: 400, code: CodeValidation, field: "clientId"},
		{name: "clientId malformed", method: "POST", path: sess + "/artifacts", headers: map[string]string{ClientIDHeader: "a b"}, body: `{"title":"T","url":"https://a.example/"}`, status: 400, code: CodeValidation, field: "clientId"},
		{name: "delete absent is idempotent", method: "DELETE", path: sess + "/artifacts/no-such-id", status: 200, check: func(t *testing.T, r reply) {
			if m := decodeMutation(t, r); len(m.Changes) != 0 {
				t.Fatalf("delete absent: %s", r.body)
			}
		}},
		{name: "delete unknown session", method: "DELETE", path: "/session/nope/artifacts/x", status: 404, code: CodeSessionNotFound},
		{name: "delete body unknown field", method: "DELETE", path: sess + "/artifacts/x", body: `{"who":"me"}`, status: 400, code: CodeValidation, field: "who"},
		{name: "get one artifact", method: "GET", path: sess + "/artifacts/" + existing, status: 200, check: func(t *testing.T, r reply) {
			var env ArtifactEnvelope
			if err := json.Unmarshal([]byte(r.body), &env); err != nil || env.V != 1 || env.SessionID != testConv || env.Artifact.ID != existing ||
				env.Artifact.Title != "Existing" || env.Artifact.URL != "https://example.com/existing" {
				t.Fatalf("get one %s (%v)", r.body, err)
			}
		}},
		{name: "get absent artifact", method: "GET", path: sess + "/artifacts/no-such-id", status: 404, code: CodeNotFound},
		{name: "get in unknown session", method: "GET", path: "/session/nope/artifacts/x", status: 404, code: CodeSessionNotFound},
		{name: "put one artifact", method: "PUT", path: sess + "/artifacts/x", status: 405, code: CodeMethodNotAllowed, check: allowIs("GET, DELETE")},
		{name: "events POST", method: "POST", path: sess + "/events", status: 405, code: CodeMethodNotAllowed, check: allowIs("GET")},
		{name: "events unknown session", method: "GET", path: "/session/nope/events", status: 404, code: CodeSessionNotFound},
		{name: "events bad Last-Event-ID", method: "GET", path: sess + "/events", headers: map[string]string{"Last-Event-ID": "x"}, status: 400, code: CodeValidation, field: "Last-Event-ID"},
		{name: "events bad lastEventId", method: "GET", path: sess + "/events?lastEventId=-1", status: 400, code: CodeValidation, field: "lastEventId"},
		{name: "no route", method: "GET", path: "/nope", status: 404, code: CodeNotFound},
		{name: "empty segment", method: "GET", path: "/session//artifacts", status: 404, code: CodeNotFound},
		{name: "no token", method: "GET", path: "/capabilities", headers: map[string]string{"Authorization": "-"}, status: 401, code: CodeUnauthorized},
		{name: "wrong token", method: "GET", path: "/capabilities", headers: map[string]string{"Authorization": "Bearer nope"}, status: 401, code: CodeUnauthorized},
		{name: "not bearer", method: "GET", path: "/capabilities", headers: map[string]string{"Authorization": "Basic " + h.token}, status: 401, code: CodeUnauthorized},
		{name: "foreign host", method: "GET", path: "/capabilities", headers: map[string]string{"Host": "evil.example"}, status: 403, code: CodeForbidden},
		{name: "other port", method: "GET", path: "/capabilities", headers: map[string]string{"Host": "127.0.0.1:1"}, status: 403, code: CodeForbidden},
		{name: "localhost host", method: "GET", path: "/capabilities", headers: map[string]string{"Host": "localhost:" + port(h)}, status: 200},
		{name: "any origin", method: "GET", path: "/capabilities", headers: map[string]string{"Origin": h.hs.URL}, status: 403, code: CodeForbidden},
		{name: "null origin", method: "GET", path: "/capabilities", headers: map[string]string{"Origin": "null"}, status: 403, code: CodeForbidden},
		{name: "cross-site fetch", method: "GET", path: "/capabilities", headers: map[string]string{"Sec-Fetch-Site": "same-site"}, status: 403, code: CodeForbidden},
		{name: "typed-in fetch", method: "GET", path: "/capabilities", headers: map[string]string{"Sec-Fetch-Site": "none"}, status: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(tc.method, tc.path, tc.headers, tc.body)
			if r.status != tc.status {
				t.Fatalf("%s %s -> %d %s, want %d", tc.method, tc.path, r.status, r.body, tc.status)
			}
			if tc.code != "" {
				e := r.errBody(t)
				if e.Code != tc.code || e.Field != tc.field || e.Message == "" {
					t.Fatalf("error %+v, want code %s field %q", e, tc.code, tc.field)
				}
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("content type %q", ct)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func port(h *harness) string { return h.hs.URL[strings.LastIndexByte(h.hs.URL, ':')+1:] }

func allowIs(want string) func(t *testing.T, r reply) {
	return func(t *testing.T, r reply) {
		if got := r.header.Get("Allow"); got != want {
			t.Fatalf("Allow %q, want %q", got, want)
		}
	}
}

func decodeMutation(t *testing.T, r reply) MutationResult {
	t.Helper()
	var m MutationResult
	if err := json.Unmarshal([]byte(r.body), &m); err != nil || m.V != 1 || m.SessionID != testConv || m.Changes == nil {
		t.Fatalf("not a mutation result (%v): %s", err, r.body)
	}
	return m
}

// TestRefusedRequestsChangeNothing sends mutations with a wrong or missing token, a
// foreign Host, a web page's Origin and a cross-site fetch: each is refused and the list
// and change log are exactly as before.
func TestRefusedRequestsChangeNothing(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Rate, o.Burst = 1000, 1000 })
	victim := h.postLink("https://example.com/keep", "Keep", "")
	before := h.state(t)
	attacks := []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", len(h.token))}, 401},
		{"token prefix", map[string]string{"Authorization": "Bearer " + h.token[:10]}, 401},
		{"no token", map[string]string{"Authorization": "-"}, 401},
		{"token in query only", map[string]string{"Authorization": "-"}, 401},
		{"evil host", map[string]string{"Host": "evil.example"}, 403},
		{"evil host with port", map[string]string{"Host": "evil.example:" + port(h)}, 403},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, 403},
		{"null origin", map[string]string{"Origin": "null"}, 403},
		{"cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
	}
	requests := []struct{ method, path, body string }{
		{"POST", "/session/" + testConv + "/artifacts?token=" + h.token, `{"title":"Evil","url":"https://evil.example/"}`},
		{"POST", "/session/" + testConv + "/artifacts", `{"artifacts":[{"title":"Evil","url":"https://evil.example/2"}]}`},
		{"DELETE", "/session/" + testConv + "/artifacts/" + victim, ""},
	}
	for _, a := range attacks {
		for _, rq := range requests {
			t.Run(a.name+" "+rq.method, func(t *testing.T) {
				r := h.call(rq.method, rq.path, a.headers, rq.body)
				if r.status != a.status {
					t.Fatalf("-> %d %s, want %d", r.status, r.body, a.status)
				}
				if after := h.state(t); after != before {
					t.Fatalf("state changed:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	}
}

// TestConcurrentPosts posts from 8 goroutines at once: every POST succeeds and every
// artifact lands.
func TestConcurrentPosts(t *testing.T) {
	h := newHarness(t, nil)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, h.hs.URL+"/session/"+testConv+"/artifacts",
				strings.NewReader(fmt.Sprintf(`{"title":"Link %d","url":"https://example.com/%d"}`, i, i)))
			req.Header.Set("Authorization", "Bearer "+h.token)
			req.Header.Set(ClientIDHeader, "worker-"+strconv.Itoa(i))
			resp, err := h.hs.Client().Do(req)
			if err != nil {
				errs <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), `"created"`) {
				errs <- fmt.Sprintf("%d %s", resp.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	arts, err := h.svc.List(h.ctx, testConv)
	if err != nil || len(arts) != n {
		t.Fatalf("%d artifacts (%v), want %d", len(arts), err, n)
	}
}

// TestRetainingClient: a client-retained artifact can be removed over HTTP only by a
// client that retains it, never by another client or an anonymous request; the removal
// is explicit and repeating it is a no-op.
func TestRetainingClient(t *testing.T) {
	h := newHarness(t, nil)
	id := h.postLink("https://example.com/mine", "Mine", "alice")
	path := "/session/" + testConv + "/artifacts/" + id
	tests := []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		removed bool
	}{
		{"other client", map[string]string{ClientIDHeader: "bob"}, "", 403, false},
		{"anonymous", nil, "", 403, false},
		{"other client in body", nil, `{"clientId":"bob"}`, 403, false},
		{"retaining client in body", nil, `{"clientId":"alice"}`, 200, true},
		{"again", map[string]string{ClientIDHeader: "alice"}, "", 200, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(http.MethodDelete, path, tc.headers, tc.body)
			if r.status != tc.status {
				t.Fatalf("-> %d %s, want %d", r.status, r.body, tc.status)
			}
			if tc.status == 403 {
				if e := r.errBody(t); e.Code != CodeForbidden {
					t.Fatalf("code %s", e.Code)
				}
				return
			}
			m := decodeMutation(t, r)
			if tc.removed != (len(m.Changes) == 1) {
				t.Fatalf("changes %s", r.body)
			}
			if tc.removed && (m.Changes[0].Action != "removed" || m.Changes[0].Reason != "explicit" || m.Changes[0].ArtifactID != id) {
				t.Fatalf("removal %s", r.body)
			}
		})
	}
	// What no client retains (here a tool's artifact) any client may remove.
	changes, err := h.svc.Upsert(h.ctx, testConv, []declared.Input{{Title: "Tool's", URL: "https://example.com/tool", Source: declared.SourceTool, ToolName: "record_artifact"}}, true)
	if err != nil || len(changes) != 1 {
		t.Fatalf("upsert: %v %v", changes, err)
	}
	if m := h.mutation(h.call(http.MethodDelete, "/session/"+testConv+"/artifacts/"+changes[0].ArtifactID, nil, "")); len(m.Changes) != 1 {
		t.Fatalf("anonymous removal of a tool's artifact: %+v", m)
	}
}

// TestRetentionCannotBeBypassed: a client that may not remove another client's artifact
// cannot get there by registering the same URL first: its DELETE then lifts only its own
// retention (200, no change, "released"), the artifact stays listed, and the retaining
// client's DELETE removes it (explicit).
func TestRetentionCannotBeBypassed(t *testing.T) {
	h := newHarness(t, nil)
	const url = "https://example.com/alices"
	id := h.postLink(url, "Alice's", "alice")
	path := "/session/" + testConv + "/artifacts/" + id
	bob := map[string]string{ClientIDHeader: "bob"}
	listed := func() bool {
		arts, err := h.svc.List(h.ctx, testConv)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range arts {
			if a.ID == id {
				return a.Title == "Alice's"
			}
		}
		return false
	}

	if r := h.call(http.MethodDelete, path, bob, ""); r.status != http.StatusForbidden || r.errBody(t).Code != CodeForbidden || !listed() {
		t.Fatalf("bob's DELETE: %d %s; want 403 and Alice's artifact kept", r.status, r.body)
	}
	h.mutation(h.call(http.MethodPost, "/session/"+testConv+"/artifacts", bob, fmt.Sprintf(`{"title":"Bob's","url":%q}`, url)))
	r := h.call(http.MethodDelete, path, bob, "")
	m := decodeMutation(t, r)
	if len(m.Changes) != 0 || !m.Released || !strings.Contains(r.body, `"released":true`) {
		t.Fatalf("bob's DELETE after registering the URL: %s; want no change and released", r.body)
	}
	if !listed() {
		t.Fatal("bob's DELETE removed Alice's artifact")
	}
	if r := h.call(http.MethodDelete, path, bob, ""); r.status != http.StatusForbidden || !listed() {
		t.Fatalf("bob's second DELETE: %d %s; want 403 (bob no longer retains it)", r.status, r.body)
	}
	r = h.call(http.MethodDelete, path, map[string]string{ClientIDHeader: "alice"}, "")
	m = decodeMutation(t, r)
	if m.Released || strings.Contains(r.body, "released") || len(m.Changes) != 1 || m.Changes[0].Action != declared.ActionRemoved ||
		m.Changes[0].Reason != declared.ReasonExplicit || m.Changes[0].ArtifactID != id {
		t.Fatalf("alice's DELETE: %s; want removed (explicit)", r.body)
	}
	if listed() {
		t.Error("still listed after alice's DELETE")
	}
}

// TestClientFloodKeepsTheAgentsArtifacts: the agent recorded 3 links; one POST of 200
// links from a client stores the first 197, drops the last 3 with a "dropped" entry each
// (index, reason quota, message), and removes none of the agent's.
func TestClientFloodKeepsTheAgentsArtifacts(t *testing.T) {
	h := newHarness(t, nil)
	agent := map[string]bool{}
	for i := range 3 {
		chs, err := h.svc.Upsert(h.ctx, testConv, []declared.Input{{Title: fmt.Sprint("Agent ", i), URL: fmt.Sprint("https://example.com/agent/", i),
			Source: declared.SourceTool, ToolName: "record_artifact"}}, true)
		if err != nil || len(chs) != 1 {
			t.Fatalf("record: %v %v", chs, err)
		}
		agent[chs[0].ArtifactID] = true
	}
	var b strings.Builder
	b.WriteString(`{"artifacts":[`)
	for i := range MaxBatch {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"title":"Client %d","url":"https://example.com/client/%d"}`, i, i)
	}
	b.WriteString("]}")
	r := h.call(http.MethodPost, "/session/"+testConv+"/artifacts", map[string]string{ClientIDHeader: "flood"}, b.String())
	m := decodeMutation(t, r)
	if len(m.Changes) != 197 {
		t.Fatalf("%d changes, want 197 created", len(m.Changes))
	}
	for i, c := range m.Changes {
		if c.Action != declared.ActionCreated || c.Artifact == nil || c.Artifact.Title != fmt.Sprint("Client ", i) {
			t.Fatalf("change %d = %s %+v, want created in input order", i, c.Action, c.Artifact)
		}
	}
	var raw struct {
		Dropped []map[string]any `json:"dropped"`
	}
	if err := json.Unmarshal([]byte(r.body), &raw); err != nil || len(raw.Dropped) != 3 {
		t.Fatalf("dropped = %v (%v), want 3 entries", raw.Dropped, err)
	}
	for i, d := range raw.Dropped {
		if d["index"] != float64(197+i) || d["reason"] != declared.DropQuota || d["message"] == "" {
			t.Errorf("dropped[%d] = %v, want index %d, reason quota and a message", i, d, 197+i)
		}
	}
	arts, err := h.svc.List(h.ctx, testConv)
	if err != nil || len(arts) != declared.MaxPerConversation {
		t.Fatalf("%d artifacts (%v), want %d", len(arts), err, declared.MaxPerConversation)
	}
	for _, a := range arts {
		delete(agent, a.ID)
	}
	if len(agent) != 0 {
		t.Errorf("the agent's artifacts %v were evicted by a client's batch", agent)
	}
	// Nothing dropped: no "dropped" key (the answer's shape is unchanged).
	if r := h.call(http.MethodPost, "/session/"+testConv+"/artifacts", nil, `{"title":"One more","url":"https://example.com/one"}`); r.status != http.StatusOK ||
		strings.Contains(r.body, "dropped") {
		t.Errorf("a POST that fits: %d %s", r.status, r.body)
	}
}

// TestEventsOrderWithinBatch: with 200 artifacts stored, a POST evicts one; its changes
// arrive on the stream in the answer's order, created before removed, with increasing ids.
func TestEventsOrderWithinBatch(t *testing.T) {
	h := newHarness(t, nil)
	inputs := make([]declared.Input, declared.MaxPerConversation)
	for i := range inputs {
		inputs[i] = declared.Input{Title: fmt.Sprintf("Old %d", i), URL: fmt.Sprintf("https://example.com/old/%d", i), Source: declared.SourceTool, ToolName: "record_artifact"}
	}
	if _, err := h.svc.Upsert(h.ctx, testConv, inputs, true); err != nil {
		t.Fatal(err)
	}
	s := h.openStream(testConv, "")
	m := h.mutation(h.call(http.MethodPost, "/session/"+testConv+"/artifacts", nil,
		`{"artifacts":[{"title":"New 1","url":"https://example.com/new/1"},{"title":"New 2","url":"https://example.com/new/2"}]}`))
	want := []string{"created", "created", "removed", "removed"}
	if len(m.Changes) != len(want) {
		t.Fatalf("changes %+v", m.Changes)
	}
	var last int64
	for i, w := range want {
		ev := s.next()
		c := ev.event.Data.Change
		if ev.name != "artifact_changed" || ev.event.V != 1 || ev.event.Type != "artifact_changed" || ev.event.Data.SessionID != testConv {
			t.Fatalf("event %d: %+v", i, ev)
		}
		if c.Action != w || c.ArtifactID != m.Changes[i].ArtifactID || c.Artifact == nil || ev.id <= last {
			t.Fatalf("event %d: %s %s id %d (last %d), want %s %s", i, c.Action, c.ArtifactID, ev.id, last, w, m.Changes[i].ArtifactID)
		}
		if w == "removed" && c.Reason != "eviction" {
			t.Fatalf("event %d: reason %q", i, c.Reason)
		}
		last = ev.id
	}
	s.none(200 * time.Millisecond)
}

// TestEventsResume: Last-Event-ID (or ?lastEventId=) replays only the changes after it,
// then live changes follow without duplicates; other conversations' changes never appear.
func TestEventsResume(t *testing.T) {
	h := newHarness(t, nil)
	for i := range 3 {
		h.postLink(fmt.Sprintf("https://example.com/%d", i), fmt.Sprintf("L%d", i), "")
	}
	first, err := h.svc.ChangesSince(h.ctx, testConv, 0, 1)
	if err != nil || len(first) != 1 {
		t.Fatalf("log %v %v", first, err)
	}
	for _, viaQuery := range []bool{false, true} {
		t.Run(fmt.Sprintf("query=%v", viaQuery), func(t *testing.T) {
			var s *stream
			if viaQuery {
				s = h.openStreamQuery(testConv, first[0].Seq)
			} else {
				s = h.openStream(testConv, strconv.FormatInt(first[0].Seq, 10))
			}
			log, err := h.svc.ChangesSince(h.ctx, testConv, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range log[1:] {
				ev := s.next()
				if ev.id != want.Seq || ev.event.Data.Change.ArtifactID != want.ArtifactID {
					t.Fatalf("replayed %d %s, want %d %s", ev.id, ev.event.Data.Change.ArtifactID, want.Seq, want.ArtifactID)
				}
			}
			id := h.postLink("https://example.com/live-"+strconv.FormatBool(viaQuery), "Live", "")
			if ev := s.next(); ev.event.Data.Change.ArtifactID != id || ev.event.Data.Change.Action != "created" {
				t.Fatalf("live %+v", ev)
			}
			s.none(100 * time.Millisecond)
		})
	}
	// A stream of the current end replays nothing.
	s := h.openStream(testConv, strconv.FormatInt(1<<40, 10))
	s.none(100 * time.Millisecond)
}

// openStreamQuery is openStream with ?lastEventId=.
func (h *harness) openStreamQuery(session string, after int64) *stream {
	h.t.Helper()
	return h.openStreamAt("/session/"+session+"/events?lastEventId="+strconv.FormatInt(after, 10), "")
}

// TestLimits: 413 for a body over the cap (announced or streamed), 429 with Retry-After
// past the burst; neither changes anything.
func TestLimits(t *testing.T) {
	t.Run("413", func(t *testing.T) {
		h := newHarness(t, func(o *Options) { o.MaxBody = 4096 })
		before := h.state(t)
		big := `{"title":"Big","url":"https://example.com/","description":"` + strings.Repeat("x", 5000) + `"}`
		r := h.call(http.MethodPost, "/session/"+testConv+"/artifacts", nil, big)
		if r.status != 413 || r.errBody(t).Code != CodePayloadTooLarge {
			t.Fatalf("announced: %d %s", r.status, r.body)
		}
		// Without Content-Length (chunked): MaxBytesReader stops it.
		req, _ := http.NewRequest(http.MethodPost, h.hs.URL+"/session/"+testConv+"/artifacts", io.MultiReader(strings.NewReader(big)))
		req.ContentLength = -1
		req.Header.Set("Authorization", "Bearer "+h.token)
		resp, err := h.hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 413 || !strings.Contains(string(b), CodePayloadTooLarge) {
			t.Fatalf("chunked: %d %s", resp.StatusCode, b)
		}
		if after := h.state(t); after != before {
			t.Fatalf("state changed: %s -> %s", before, after)
		}
		// Just under the cap is fine.
		ok := `{"title":"Fits","url":"https://example.com/fits"}`
		if r := h.call(http.MethodPost, "/session/"+testConv+"/artifacts", nil, ok); r.status != 200 {
			t.Fatalf("small: %d %s", r.status, r.body)
		}
	})
	t.Run("429", func(t *testing.T) {
		h := newHarness(t, func(o *Options) { o.Rate, o.Burst = 0.5, 3 })
		for i := range 3 {
			if r := h.call(http.MethodGet, "/capabilities", nil, ""); r.status != 200 {
				t.Fatalf("request %d: %d", i, r.status)
			}
		}
		before := h.state(t)
		r := h.call(http.MethodPost, "/session/"+testConv+"/artifacts", nil, `{"title":"T","url":"https://example.com/rl"}`)
		if r.status != 429 || r.errBody(t).Code != CodeRateLimited {
			t.Fatalf("-> %d %s", r.status, r.body)
		}
		if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 2 {
			t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
		}
		if after := h.state(t); after != before {
			t.Fatalf("state changed: %s -> %s", before, after)
		}
		// A wrong token is refused as unauthorized, not counted against the real one.
		if r := h.call(http.MethodGet, "/capabilities", map[string]string{"Authorization": "Bearer x"}, ""); r.status != 401 {
			t.Fatalf("wrong token while limited: %d", r.status)
		}
	})
}

// TestLimiter checks the token bucket with a manual clock: burst, refill at the rate,
// the wait it announces.
func TestLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	l := newLimiter(2, 3, func() time.Time { return now })
	for i := range 3 {
		if ok, _ := l.allow("k"); !ok {
			t.Fatalf("burst request %d refused", i)
		}
	}
	ok, wait := l.allow("k")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("4th: %v %v", ok, wait)
	}
	now = now.Add(500 * time.Millisecond)
	if ok, _ := l.allow("k"); !ok {
		t.Fatal("refilled token refused")
	}
	if ok, _ := l.allow("other"); !ok {
		t.Fatal("another key shares the bucket")
	}
	now = now.Add(time.Hour)
	for i := range 3 {
		if ok, _ := l.allow("k"); !ok {
			t.Fatalf("after an hour, request %d refused (burst must cap the bank)", i)
		}
	}
	if ok, _ := l.allow("k"); ok {
		t.Fatal("bank exceeded the burst")
	}
}

// TestHeartbeat: an idle stream gets a comment every heartbeat.
func TestHeartbeat(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Heartbeat = 50 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.hs.URL+"/session/"+testConv+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+h.token)
	resp, err := h.hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 0, 256)
	for !strings.Contains(string(buf), ": ping\n\n") {
		b := make([]byte, 64)
		n, err := resp.Body.Read(b)
		if err != nil {
			t.Fatalf("no heartbeat: %v (read %q)", err, buf)
		}
		buf = append(buf, b[:n]...)
	}
}

// racingDeclared makes a change while the event handler reads the change log, after it
// subscribed: the change is both replayed and published live.
type racingDeclared struct {
	Declared
	during func()
}

func (r racingDeclared) ChangesSince(ctx context.Context, conv string, after int64, limit int) ([]declared.LoggedChange, error) {
	r.during()
	return r.Declared.ChangesSince(ctx, conv, after, limit)
}

// TestEventsNoGapNoDuplicate: a change logged while a resuming stream reads the log
// arrives exactly once (the stream subscribes before reading, and skips live changes it
// already replayed).
func TestEventsNoGapNoDuplicate(t *testing.T) {
	var once sync.Once
	var midErr error
	h := newHarness(t, func(o *Options) {
		inner := o.Declared
		o.Declared = racingDeclared{Declared: inner, during: func() {
			once.Do(func() {
				_, midErr = inner.UpsertReport(context.Background(), testConv, []declared.Input{{Title: "Mid", URL: "https://example.com/mid", Source: declared.SourceTool, ToolName: "record_artifact"}}, true)
			})
		}}
	})
	h.postLink("https://example.com/first", "First", "")
	first, err := h.svc.ChangesSince(h.ctx, testConv, 0, 0)
	if err != nil || len(first) != 1 {
		t.Fatalf("log %v %v", first, err)
	}
	s := h.openStream(testConv, strconv.FormatInt(first[0].Seq, 10))
	if midErr != nil {
		t.Fatal(midErr)
	}
	ev := s.next()
	if ev.event.Data.Change.Artifact == nil || ev.event.Data.Change.Artifact.Title != "Mid" || ev.id <= first[0].Seq {
		t.Fatalf("event %+v", ev)
	}
	s.none(200 * time.Millisecond)
}

// TestStreamsPerTokenAreCapped: a token may hold DefaultMaxStreams event streams open; one
// more is refused with 429 RATE_LIMITED and a message saying why, and changes nothing;
// once a stream is closed its slot is free again. /capabilities announces the cap.
func TestStreamsPerTokenAreCapped(t *testing.T) {
	// A high request rate, so that only the stream cap can refuse.
	h := newHarness(t, func(o *Options) { o.Rate, o.Burst = 1000, 1000 })
	var caps Capabilities
	if r := h.call(http.MethodGet, "/capabilities", nil, ""); r.status != 200 || json.Unmarshal([]byte(r.body), &caps) != nil || caps.Limits.MaxStreams != DefaultMaxStreams {
		t.Fatalf("capabilities: %d %s, want maxStreams %d", r.status, r.body, DefaultMaxStreams)
	}
	streams := make([]*stream, DefaultMaxStreams)
	for i := range streams {
		streams[i] = h.openStream(testConv, "")
	}
	before := h.state(t)
	path := "/session/" + testConv + "/events"
	r := h.call(http.MethodGet, path, nil, "")
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("stream %d: %d %s, want 429", DefaultMaxStreams+1, r.status, r.body)
	}
	if e := r.errBody(t); e.Code != CodeRateLimited || !strings.Contains(e.Message, "too many open event streams") || !strings.Contains(e.Message, strconv.Itoa(DefaultMaxStreams)) {
		t.Errorf("error = %+v, want RATE_LIMITED naming the open streams and the cap", e)
	}
	if after := h.state(t); after != before {
		t.Fatalf("state changed: %s -> %s", before, after)
	}
	// The open streams still work.
	h.postLink("https://example.com/still", "Still", "")
	for _, s := range []*stream{streams[0], streams[DefaultMaxStreams-1]} {
		if ev := s.next(); ev.event.Data.Change.Action != declared.ActionCreated {
			t.Fatalf("event %+v", ev)
		}
	}

	// Closing one frees its slot once the server has seen the stream end (the client's
	// close reaches it a moment later).
	streams[0].close()
	deadline := time.Now().Add(5 * time.Second)
	var again *stream
	for again == nil {
		s, r := h.tryOpenStreamAt(path, "")
		switch {
		case s != nil:
			again = s
		case r.status != http.StatusTooManyRequests:
			t.Fatalf("after closing one: %d %s", r.status, r.body)
		case time.Now().After(deadline):
			t.Fatal("the slot of a closed stream was not freed within 5 s")
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}
	h.postLink("https://example.com/again", "Again", "")
	if ev := again.next(); ev.event.Data.Change.Action != declared.ActionCreated || ev.event.Data.Change.ArtifactID == "" {
		t.Fatalf("event on the new stream %+v", ev)
	}
	// The new stream took the freed slot: the cap holds.
	if r := h.call(http.MethodGet, path, nil, ""); r.status != http.StatusTooManyRequests {
		t.Fatalf("one more after reopening: %d %s, want 429", r.status, r.body)
	}
}

// TestGetRechecksTheFile: GET of one workspace artifact checks its file again at that moment,
// so a file deleted just after the list saw it reads as missing at once (the list would
// keep the cached status until its refresh interval passes).
func TestGetRechecksTheFile(t *testing.T) {
	h := newHarness(t, nil)
	ws := filepath.Join(h.dir, "workspaces", testConv)
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.md"), []byte("# notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.call("POST", "/session/"+testConv+"/artifacts", nil, `{"title":"Notes","workspacePath":"notes.md"}`)
	m := decodeMutation(t, r)
	if len(m.Changes) != 1 || m.Changes[0].Artifact.Status != "available" {
		t.Fatalf("post: %s", r.body)
	}
	id := m.Changes[0].ArtifactID
	if err := os.Remove(filepath.Join(ws, "notes.md")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{"/session/" + testConv + "/artifacts", "available"}, // cached within the refresh interval
		{"/session/" + testConv + "/artifacts/" + id, "missing"},
	} {
		r := h.call("GET", tc.path, nil, "")
		if r.status != 200 || !strings.Contains(r.body, `"status":"`+tc.want+`"`) {
			t.Errorf("GET %s -> %d %s, want status %s", tc.path, r.status, r.body, tc.want)
		}
	}
}

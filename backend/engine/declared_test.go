package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// declaredWorld is an engine with a real declared store, a workspace folder per
// conversation under root and a captured log.
type declaredWorld struct {
	e    *Engine
	db   *store.DB
	rec  *recorder
	srv  modelLog
	svc  *declared.Service
	root string
	log  *lockedBuffer
}

// lockedBuffer is a log destination safe to write from the run goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newDeclaredWorld starts an engine whose runs get the declared store, the workspace
// function and hooks (nil: none), in the given tool-call mode.
func newDeclaredWorld(t *testing.T, mode toolcall.Mode, h llmtest.Handler, hk config.Hooks) *declaredWorld {
	t.Helper()
	w := &declaredWorld{root: t.TempDir(), rec: &recorder{}, log: &lockedBuffer{}}
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w.db = db
	workspace := func(_ context.Context, conv string) (string, error) {
		return filepath.Join(w.root, "workspaces", conv), nil
	}
	w.svc = declared.New(db, declared.Options{Workspace: workspace})
	model := llmtest.NewFake(t, "m", h) // in memory: no declared test is about the wire
	w.srv = model
	w.e, err = New(Config{Store: db, Sink: w.rec.sink, Logger: slog.New(slog.NewTextHandler(w.log, nil)), Deps: func() (Deps, error) {
		return Deps{Model: model, ModelName: "m", Mode: mode, Searcher: fakeSearch{}, Declared: w.svc, Workspace: workspace, Hooks: hk}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.e.Close(context.Background()) })
	return w
}

// storedOf returns the conversation's stored events of type typ.
func storedOf(t *testing.T, db *store.DB, conv string, typ events.Type) []events.Event {
	t.Helper()
	evs, err := db.ListEvents(context.Background(), store.EventQuery{ConversationID: conv})
	if err != nil {
		t.Fatal(err)
	}
	var out []events.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func decode[T any](t *testing.T, ev events.Event) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(ev.Data, &v); err != nil {
		t.Fatalf("%s data %s: %v", ev.Type, ev.Data, err)
	}
	return v
}

// recordCall is the lead's call of record_artifact with params (a JSON object) in mode.
func recordCall(mode toolcall.Mode, params string) llmtest.Reply {
	if mode == toolcall.ModeNative {
		return call("record_artifact", params)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		panic(err)
	}
	var b strings.Builder
	b.WriteString("Recording it.\n<tool_call>\n<name>record_artifact</name>\n<params>\n")
	for k, v := range p {
		s, ok := v.(string)
		if !ok {
			raw, _ := json.Marshal(v)
			s = string(raw)
		}
		b.WriteString("<" + k + "><![CDATA[" + s + "]]></" + k + ">\n")
	}
	b.WriteString("</params>\n</tool_call>")
	return llmtest.Reply{Content: b.String()}
}

// TestRecordArtifact: the lead is offered record_artifact and told when to use it; its
// call with a link declares one artifact with source tool, toolName record_artifact and
// the call's id; the model is told what was recorded; the change is emitted and stored in
// the run's events as artifact_changed "created" with the declared artifact. In xml mode,
// where calls carry no id, the engine gives one.
func TestRecordArtifact(t *testing.T) {
	const params = `{"title":"Global Land Temperature dataset","url":"https://data.example.org/datasets/glt?v=2#files",` +
		`"kind":"link","description":"Monthly land temperatures since 1750.","mimeType":"text/html","metadata":{"resourceType":"dataset","rows":3192}}`
	for _, mode := range []toolcall.Mode{toolcall.ModeNative, toolcall.ModeXML} {
		t.Run(string(mode), func(t *testing.T) {
			w := newDeclaredWorld(t, mode, llmtest.Script(recordCall(mode, params), llmtest.Reply{Content: "Recorded the dataset."}), nil)
			ctx := context.Background()
			res, err := w.e.Ask(ctx, Request{Content: "Find the land temperature dataset"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %+v, %v", res, err)
			}
			reqs := w.srv.Requests()
			if !llmtest.SystemContains(reqs[0], "record_artifact") {
				t.Error("the lead's system prompt does not mention record_artifact")
			}
			if mode == toolcall.ModeNative && !slices.ContainsFunc(reqs[0].Tools, func(d openai.Tool) bool { return d.Function.Name == "record_artifact" }) {
				t.Error("the lead was not offered record_artifact")
			}

			starts := storedOf(t, w.db, res.ConversationID, events.ToolStart)
			if len(starts) != 1 {
				t.Fatalf("tool_start events = %d", len(starts))
			}
			callID := decode[events.DataToolStart](t, starts[0]).CallID
			if callID == "" || (mode == toolcall.ModeNative && callID != "c_record_artifact") {
				t.Fatalf("tool_start call_id = %q", callID)
			}
			done := decode[events.DataToolComplete](t, storedOf(t, w.db, res.ConversationID, events.ToolComplete)[0])
			if !done.Success || done.CallID != callID {
				t.Fatalf("tool_complete = %+v", done)
			}
			var llm struct {
				Recorded bool
				Title    string
				Location string
			}
			if err := json.Unmarshal([]byte(done.Result), &llm); err != nil || !llm.Recorded ||
				llm.Title != "Global Land Temperature dataset" || !strings.HasPrefix(llm.Location, "https://data.example.org/datasets/glt") {
				t.Fatalf("tool result %q (%v): want recorded, title and location", done.Result, err)
			}
			if !strings.Contains(lastToolResult(reqs[1], mode), `"recorded":true`) {
				t.Errorf("the model was not told what was recorded: %+v", reqs[1].Messages[len(reqs[1].Messages)-1])
			}

			list, err := w.svc.List(ctx, res.ConversationID)
			if err != nil || len(list) != 1 {
				t.Fatalf("declared artifacts = %+v, %v; want 1", list, err)
			}
			a := list[0]
			if a.Source != declared.SourceTool || a.ToolName != "record_artifact" || a.ToolCallID != callID ||
				a.Title != "Global Land Temperature dataset" || a.Kind != declared.KindLink || a.Storage != declared.StorageExternalURL ||
				!strings.HasPrefix(a.URL, "https://data.example.org/datasets/glt") || a.Metadata["resourceType"] != "dataset" {
				t.Fatalf("declared artifact = %+v", a)
			}

			changed := storedOf(t, w.db, res.ConversationID, events.ArtifactChanged)
			if len(changed) != 1 {
				t.Fatalf("artifact_changed events = %d, want 1", len(changed))
			}
			d := decode[events.DataArtifactChanged](t, changed[0])
			if d.Action != declared.ActionCreated || d.ArtifactID != a.ID || d.Declared == nil || d.Declared.ID != a.ID ||
				d.Declared.ToolCallID != callID || changed[0].AgentName != "lead_agent" {
				t.Fatalf("artifact_changed = %+v (agent %q)", d, changed[0].AgentName)
			}
			if !slices.ContainsFunc(recorded(w.rec), func(ev events.Event) bool { return ev.Type == events.ArtifactChanged }) {
				t.Error("artifact_changed did not reach the sink")
			}
		})
	}
}

// lastToolResult returns the text of the tool result the model got last.
func lastToolResult(req openai.ChatCompletionRequest, mode toolcall.Mode) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if (mode == toolcall.ModeNative && m.Role == openai.ChatMessageRoleTool) ||
			(mode == toolcall.ModeXML && m.Role == openai.ChatMessageRoleUser && strings.Contains(m.Content, "<tool_result")) {
			return m.Content
		}
	}
	return ""
}

// TestRecordArtifactRefused: bad input is a tool error naming the field and declares
// nothing (strict validation in the declared store): a file: URL, two locations, storage
// published, javascript: in the title or the url, nested metadata, no title.
func TestRecordArtifactRefused(t *testing.T) {
	t.Parallel() // waits on timers and child processes; runs beside the other slow tests
	tests := []struct {
		name, params string
		fields       []string // the error starts with one of these fields and ": "
	}{
		{"file url", `{"title":"Passwords","url":"file:///etc/passwd"}`, []string{"url"}},
		{"two locations", `{"title":"Report","url":"https://example.org/r","workspacePath":"report.pdf"}`, []string{"url", "workspacePath"}},
		{"url and managed id", `{"title":"Report","url":"https://example.org/r","managedId":"m1"}`, []string{"url", "managedId"}},
		{"storage published", `{"title":"Report","url":"https://example.org/r","storage":"published"}`, []string{"storage"}},
		{"javascript in title", `{"title":"javascript:alert(1)","url":"https://example.org/r"}`, []string{"title"}},
		{"javascript url", `{"title":"Click me","url":"javascript:alert(1)"}`, []string{"url"}},
		{"workspace escape", `{"title":"Secrets","workspacePath":"../../etc/passwd"}`, []string{"workspacePath"}},
		{"nested metadata", `{"title":"Data","url":"https://example.org/d","metadata":{"a":{"b":1}}}`, []string{"metadata.a", "metadata"}},
		{"no title", `{"url":"https://example.org/d"}`, []string{"title"}},
		{"title not a string", `{"title":42,"url":"https://example.org/d"}`, []string{"title"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newDeclaredWorld(t, toolcall.ModeNative, llmtest.Script(call("record_artifact", tc.params), llmtest.Reply{Content: "ok"}), nil)
			res, err := w.e.Ask(context.Background(), Request{Content: "q"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %+v, %v (a refused record_artifact must not fail the run)", res, err)
			}
			done := decode[events.DataToolComplete](t, storedOf(t, w.db, res.ConversationID, events.ToolComplete)[0])
			if done.Success || !slices.ContainsFunc(tc.fields, func(f string) bool { return strings.HasPrefix(done.Error, f+": ") }) {
				t.Fatalf("tool_complete = %+v, want an error starting with one of %v", done, tc.fields)
			}
			if got := lastToolResult(w.srv.Requests()[1], toolcall.ModeNative); !strings.Contains(got, done.Error) {
				t.Errorf("the model got %q, want the error %q", got, done.Error)
			}
			if list, err := w.svc.List(context.Background(), res.ConversationID); err != nil || len(list) != 0 {
				t.Fatalf("declared artifacts = %+v, %v; want none", list, err)
			}
			if n := len(storedOf(t, w.db, res.ConversationID, events.ArtifactChanged)); n != 0 {
				t.Fatalf("%d artifact_changed events after a refused call", n)
			}
		})
	}
}

// TestNoDeclaredStoreNoRecordArtifact: without a declared store the lead is not offered
// record_artifact (Deps.Declared nil).
func TestNoDeclaredStoreNoRecordArtifact(t *testing.T) {
	e, _, _, srv := newEngine(t, llmtest.Script(llmtest.Reply{Content: "answer"}))
	if _, err := e.Ask(context.Background(), Request{Content: "q"}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if len(req.Tools) == 0 || slices.ContainsFunc(req.Tools, func(d openai.Tool) bool { return d.Function.Name == "record_artifact" }) {
		t.Fatalf("tools without a declared store = %d, record_artifact offered or no tools at all", len(req.Tools))
	}
}

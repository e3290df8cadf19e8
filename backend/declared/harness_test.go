package declared

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/store"
)

// harness is a Service over a real database in t.TempDir(), one conversation ("conv")
// whose workspace is the default folder <dir>/workspaces/conv, a manual clock and a
// recorder of published changes.
type harness struct {
	t    testing.TB
	ctx  context.Context
	dir  string
	db   *store.DB
	svc  *Service
	conv string
	ws   string // the workspace folder (created)

	mu        sync.Mutex
	now       time.Time
	published []LoggedChange
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "artifactflow.db"))
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	h := &harness{t: t, ctx: ctx, dir: dir, db: db, conv: "conv",
		now: time.Date(2026, 6, 26, 10, 0, 0, 0, time.UTC)}
	if err := db.CreateConversation(ctx, store.Conversation{ID: h.conv, Title: "t"}); err != nil {
		t.Fatalf("CreateConversation: %v", err)
	}
	h.ws = filepath.Join(dir, "workspaces", h.conv)
	if err := os.MkdirAll(h.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	h.svc = New(db, Options{
		Workspace: DefaultWorkspace(db, dir),
		Publish: func(conv string, ch LoggedChange) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if conv == h.conv {
				h.published = append(h.published, ch)
			}
		},
		Now: h.clock,
	})
	return h
}

func (h *harness) clock() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

// advance moves the clock on.
func (h *harness) advance(d time.Duration) {
	h.mu.Lock()
	h.now = h.now.Add(d)
	h.mu.Unlock()
}

// pubs returns a copy of what was published so far.
func (h *harness) pubs() []LoggedChange {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]LoggedChange(nil), h.published...)
}

// upsert runs a strict Upsert and fails the test on error.
func (h *harness) upsert(ins ...Input) []Change {
	h.t.Helper()
	chs, err := h.svc.Upsert(h.ctx, h.conv, ins, true)
	if err != nil {
		h.t.Fatalf("Upsert: %v", err)
	}
	return chs
}

// upsertReport runs UpsertReport and fails the test on error.
func (h *harness) upsertReport(strict bool, ins ...Input) Report {
	h.t.Helper()
	rep, err := h.svc.UpsertReport(h.ctx, h.conv, ins, strict)
	if err != nil {
		h.t.Fatalf("UpsertReport: %v", err)
	}
	return rep
}

// list lists and fails the test on error.
func (h *harness) list() []Artifact {
	h.t.Helper()
	as, err := h.svc.List(h.ctx, h.conv)
	if err != nil {
		h.t.Fatalf("List: %v", err)
	}
	return as
}

// byID finds an artifact of a list.
func byID(as []Artifact, id string) (Artifact, bool) {
	for _, a := range as {
		if a.ID == id {
			return a, true
		}
	}
	return Artifact{}, false
}

// changesSince reads the whole kept log.
func (h *harness) changes() []LoggedChange {
	h.t.Helper()
	lcs, err := h.svc.ChangesSince(h.ctx, h.conv, 0, 0)
	if err != nil {
		h.t.Fatalf("ChangesSince: %v", err)
	}
	return lcs
}

// write creates a file in the workspace (parents included).
func (h *harness) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// link creates a symbolic link at rel (in the workspace) pointing to target.
func (h *harness) link(target, rel string) {
	h.t.Helper()
	p := filepath.Join(h.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		h.t.Fatal(err)
	}
}

// outside creates a file outside the workspace and returns its path.
func (h *harness) outside(name, content string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, "outside", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// link is a tool input registering a URL.
func linkIn(url, title string) Input {
	return Input{Title: title, URL: url, Source: SourceTool, ToolCallID: "call_1", ToolName: "record_artifact"}
}

// wsIn is a tool input registering a workspace path.
func wsIn(path, title string) Input {
	return Input{Title: title, WorkspacePath: path, Source: SourceTool, ToolName: "record_artifact"}
}

// fieldError asserts err is a *FieldError of field (wrapping ErrValidation) and returns it.
func fieldError(t testing.TB, err error, field string) *FieldError {
	t.Helper()
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *FieldError of %q", err, field)
	}
	if !errors.Is(err, ErrValidation) {
		t.Errorf("%v does not wrap ErrValidation", err)
	}
	if fe.Field != field {
		t.Errorf("field = %q (%s), want %q", fe.Field, fe.Message, field)
	}
	return fe
}

// actions renders changes as "action:id[:reason]" for comparisons.
func actions(chs []Change) []string {
	out := make([]string, len(chs))
	for i, c := range chs {
		out[i] = c.Action + ":" + c.ArtifactID
		if c.Reason != "" {
			out[i] += ":" + c.Reason
		}
		if c.Artifact == nil || c.Artifact.ID != c.ArtifactID {
			out[i] += ":BAD-ARTIFACT"
		}
	}
	return out
}

// urlN is the n-th test URL.
func urlN(prefix string, n int) string { return fmt.Sprintf("https://example.com/%s/%d", prefix, n) }

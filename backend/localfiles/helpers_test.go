package localfiles

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/artifact"
	"artifactflow/backend/extract"
	"artifactflow/backend/store"
)

// fixture is a database with one conversation "c1" whose workspace is ws.
type fixture struct {
	t    testing.TB
	db   *store.DB
	ws   string
	ix   *Index
	conv string

	mu   sync.Mutex
	read []string // names given to the extractor, in order
}

// newFixture opens a database in a temporary folder with conversation c1 and an index
// whose extractor is extract.Text (or ext when given), recording every name it reads.
func newFixture(t testing.TB, opts Options) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{t: t, db: db, ws: filepath.Join(dir, "ws"), conv: "c1"}
	if err := os.MkdirAll(f.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateConversation(context.Background(), store.Conversation{ID: f.conv, Title: "t"}); err != nil {
		t.Fatal(err)
	}
	opts.DB = db
	opts.Workspace = func(context.Context, string) (string, error) { return f.ws, nil }
	inner := opts.Extract
	if inner == nil {
		inner = extract.Text
	}
	opts.Extract = func(ctx context.Context, name string, data []byte) (extract.Result, error) {
		f.mu.Lock()
		f.read = append(f.read, name)
		f.mu.Unlock()
		return inner(ctx, name, data)
	}
	ix, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.ix = ix
	return f
}

// write creates file rel (slash path) in the workspace with content and a modification
// time one second later than any earlier write of the same file, so that a rewrite of the
// same size is seen as a change even on coarse file-system clocks.
func (f *fixture) write(rel string, content []byte) {
	f.t.Helper()
	p := filepath.Join(f.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	var old time.Time
	if fi, err := os.Stat(p); err == nil {
		old = fi.ModTime()
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		f.t.Fatal(err)
	}
	if !old.IsZero() {
		next := old.Add(time.Second)
		if err := os.Chtimes(p, next, next); err != nil {
			f.t.Fatal(err)
		}
	}
}

// pass runs an indexing pass and fails the test on error.
func (f *fixture) pass(po PassOptions) Progress {
	f.t.Helper()
	f.mu.Lock()
	f.read = nil
	f.mu.Unlock()
	p, err := f.ix.Pass(context.Background(), f.conv, po)
	if err != nil {
		f.t.Fatalf("pass: %v", err)
	}
	return p
}

// readNames returns the names the extractor read in the last pass, sorted.
func (f *fixture) readNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.read)
	slices.Sort(out)
	return out
}

// paths returns the paths of the hits of query, in order.
func (f *fixture) paths(query string) []string {
	f.t.Helper()
	hits, err := f.ix.Search(context.Background(), f.conv, query, MaxSearchLimit)
	if err != nil {
		f.t.Fatalf("search %q: %v", query, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

// upload stores an uploaded artifact named name with text content in the conversation.
func (f *fixture) upload(name, content string) {
	f.t.Helper()
	m := artifact.NewManager(f.db, f.conv, "")
	if _, err := m.CreateFromUpload(context.Background(), filepath.Join(filepath.Dir(f.ws), "blobs"),
		artifact.Upload{Name: name, Data: []byte(content)}, 0); err != nil {
		f.t.Fatal(err)
	}
}

// symlink makes a symbolic link at rel in the workspace pointing to target, or skips the
// test where links cannot be made.
func (f *fixture) symlink(target, rel string) {
	f.t.Helper()
	p := filepath.Join(f.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		f.t.Skipf("symbolic links unavailable: %v", err)
	}
}

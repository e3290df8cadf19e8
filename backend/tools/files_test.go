package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/localfiles"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
)

// fileIndex indexes a workspace folder holding files (slash path → content) for
// conversation "conv" of db and returns the manager over it.
func fileIndex(t *testing.T, db *store.DB, files map[string]string) (*localfiles.Manager, string) {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	for p, c := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := localfiles.New(localfiles.Options{DB: db, Workspace: func(context.Context, string) (string, error) { return ws, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Pass(context.Background(), "conv", localfiles.PassOptions{}); err != nil {
		t.Fatal(err)
	}
	m := localfiles.NewManager(ix, localfiles.ManagerOptions{})
	t.Cleanup(m.Close)
	return m, ws
}

// TestSearchFilesNumbersFiles: each passage is listed with the file's source number, path
// and line (or PDF page) and its snippet; two passages of one file share its number; the
// files are stored as file sources with their excerpt, not fetched; a later read_file of
// one keeps its number and marks it fetched.
func TestSearchFilesNumbersFiles(t *testing.T) {
	db := openDB(t)
	var long strings.Builder
	for i := range 400 {
		fmt.Fprintf(&long, "filler line %d\n", i)
		if i == 5 || i == 300 {
			long.WriteString("the okapi lives in the forest\n")
		}
	}
	m, _ := fileIndex(t, db, map[string]string{
		"notes/okapi.md": long.String(),
		"zoo.txt":        "An okapi at the zoo.\n",
		"other.txt":      "nothing here\n",
	})
	rec := dbRecorder{db}
	res := SearchFiles{Index: m, Sources: rec}.Execute(callCtx("search_files"), map[string]any{"query": "okapi"})
	if !res.Success {
		t.Fatalf("result = %+v", res)
	}
	list, err := db.Sources(context.Background(), "conv")
	if err != nil || len(list) != 2 {
		t.Fatalf("sources = %+v, %v; want the two files", list, err)
	}
	byPath := map[string]sources.Source{}
	for _, s := range list {
		byPath[s.Location] = s
		if s.Kind != sources.KindFile || s.Fetched || s.MessageID != "msg" || !strings.Contains(s.Excerpt, "okapi") || s.Line == 0 {
			t.Errorf("source = %+v", s)
		}
	}
	okapi, zoo := byPath["notes/okapi.md"], byPath["zoo.txt"]
	if okapi.Title != "okapi.md" || zoo.Title != "zoo.txt" {
		t.Fatalf("titles: %+v / %+v", okapi, zoo)
	}
	for _, want := range []string{
		fmt.Sprintf("[%d] notes/okapi.md (line 7)\n    ", okapi.N),
		fmt.Sprintf("[%d] notes/okapi.md (line 303)\n    ", okapi.N),
		fmt.Sprintf("[%d] zoo.txt (line 1)\n    An okapi at the zoo.", zoo.N),
		"Cite a file by its number",
	} {
		if !strings.Contains(res.Data, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Data)
		}
	}
	if got, _ := res.Metadata[MetaSources].([]sources.Source); len(got) != 2 || res.Metadata[MetaResults] != 3 {
		t.Errorf("metadata = %+v", res.Metadata)
	}

	read := ReadFile{Index: m, Sources: rec}.Execute(callCtx("read_file"), map[string]any{"path": "notes/okapi.md", "offset": 7.0, "limit": "2"})
	want := fmt.Sprintf("Source [%d]: notes/okapi.md\nLines 7-8 of 402\n\nthe okapi lives in the forest\nfiller line 6\n\n[more: call read_file with offset=9 to go on]", okapi.N)
	if !read.Success || read.Data != want {
		t.Fatalf("read_file = %+v\nwant data %q", read, want)
	}
	list, _ = db.Sources(context.Background(), "conv")
	for _, s := range list {
		if s.Location == "notes/okapi.md" && (!s.Fetched || s.N != okapi.N) {
			t.Fatalf("after read_file the source is %+v; want the same number, fetched", s)
		}
	}
}

func TestSearchFilesEdges(t *testing.T) {
	db := openDB(t)
	m, _ := fileIndex(t, db, map[string]string{"a.md": "alpha\n"})
	tests := []struct {
		name   string
		tool   Tool
		ctx    context.Context
		params map[string]any
		ok     bool
		says   string
	}{
		{"no match", SearchFiles{Index: m}, callCtx("search_files"), map[string]any{"query": "zebra"}, true, `No local file contains "zebra"`},
		{"punctuation only", SearchFiles{Index: m}, callCtx("search_files"), map[string]any{"query": "…，。"}, false, "no words"},
		{"missing query", SearchFiles{Index: m}, callCtx("search_files"), map[string]any{}, false, `"query"`},
		{"bad limit", SearchFiles{Index: m}, callCtx("search_files"), map[string]any{"query": "alpha", "limit": 1.5}, false, `"limit"`},
		{"no index", SearchFiles{}, callCtx("search_files"), map[string]any{"query": "alpha"}, false, "not available"},
		{"no call context", SearchFiles{Index: m}, context.Background(), map[string]any{"query": "alpha"}, false, "not available"},
		{"without a recorder", SearchFiles{Index: m}, callCtx("search_files"), map[string]any{"query": "alpha"}, true, "- a.md (line 1)\n    alpha"},
		{"recorder fails", SearchFiles{Index: m, Sources: failingRecorder{}}, callCtx("search_files"), map[string]any{"query": "alpha"}, true, "- a.md (line 1)"},
		{"read outside", ReadFile{Index: m}, callCtx("read_file"), map[string]any{"path": "../etc/passwd"}, false, "not inside the workspace"},
		{"read absolute", ReadFile{Index: m}, callCtx("read_file"), map[string]any{"path": "/etc/passwd"}, false, "relative"},
		{"read missing", ReadFile{Index: m}, callCtx("read_file"), map[string]any{"path": "b.md"}, false, "not in the workspace"},
		{"read past the end", ReadFile{Index: m}, callCtx("read_file"), map[string]any{"path": "a.md", "offset": 9}, true, "The file has 1 lines; line 9 is past its end."},
		{"read without a recorder", ReadFile{Index: m}, callCtx("read_file"), map[string]any{"path": "a.md"}, true, "File: a.md\nLines 1-1 of 1\n\nalpha"},
		{"read no index", ReadFile{}, callCtx("read_file"), map[string]any{"path": "a.md"}, false, "not available"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.tool.Execute(tc.ctx, tc.params)
			text := res.Data
			if !res.Success {
				text = res.Error
			}
			if res.Success != tc.ok || !strings.Contains(text, tc.says) {
				t.Fatalf("result = %+v; want success %v and %q", res, tc.ok, tc.says)
			}
		})
	}
}

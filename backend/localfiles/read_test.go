package localfiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadConfinedToTheWorkspace(t *testing.T) {
	f := newFixture(t, Options{})
	outside := filepath.Join(filepath.Dir(f.ws), "outside.md")
	if err := os.WriteFile(outside, []byte("secret persimmon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.write("notes/a.md", []byte("inside\n"))
	f.write("bin.txt", []byte("x\x00y\x00"))
	f.write("pic.png", []byte("\x89PNG"))
	f.symlink(outside, "notes/escape.md")
	f.pass(PassOptions{})
	tests := []struct {
		path string
		want error
		says string
	}{
		{"../outside.md", ErrOutside, "inside the workspace"},
		{"notes/../../outside.md", ErrOutside, "inside the workspace"},
		{outside, ErrOutside, "relative"},
		{`..\outside.md`, ErrOutside, "inside the workspace"},
		{"notes/escape.md", ErrOutside, "leads outside"},
		{"notes/missing.md", ErrNoFile, "search_files"},
		{"notes", ErrNotText, "folder"},
		{"bin.txt", ErrNotText, "could not be read"},
		{"pic.png", ErrNotText, "file type"},
		{"@uploads/none.md", ErrNoFile, "no upload"},
	}
	for _, tc := range tests {
		ex, err := f.ix.Read(context.Background(), f.conv, tc.path, 0, 0)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("read %q: %v; want %v saying %q", tc.path, err, tc.want, tc.says)
		}
		if strings.Contains(ex.Text, "persimmon") {
			t.Errorf("read %q returned the outside file's text", tc.path)
		}
		if err != nil && strings.Contains(err.Error(), f.ws) {
			t.Errorf("read %q: the error names the host path: %v", tc.path, err)
		}
	}

	// A file indexed, then swapped for a link leading outside, is refused.
	if err := os.Remove(filepath.Join(f.ws, "notes", "a.md")); err != nil {
		t.Fatal(err)
	}
	f.symlink(outside, "notes/a.md")
	if _, err := f.ix.Read(context.Background(), f.conv, "notes/a.md", 0, 0); !errors.Is(err, ErrOutside) {
		t.Fatalf("read of an indexed file swapped for an outside link: %v, want ErrOutside", err)
	}
}

func TestReadByLines(t *testing.T) {
	f := newFixture(t, Options{})
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "line %d of the long file\n", i)
	}
	long := b.String()
	f.write("long.txt", []byte(long))
	f.pass(PassOptions{})

	check := func(name string, ex Excerpt, err error, from, to int, more bool) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ex.FromLine != from || ex.ToLine != to || ex.More != more || ex.TotalLines != 3000 {
			t.Fatalf("%s: lines %d-%d of %d, more %v; want %d-%d, more %v", name, ex.FromLine, ex.ToLine, ex.TotalLines, ex.More, from, to, more)
		}
		var want strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&want, "line %d of the long file\n", i)
		}
		if ex.Text != want.String() {
			t.Fatalf("%s: text does not hold exactly lines %d-%d", name, from, to)
		}
	}
	ex, err := f.ix.Read(context.Background(), f.conv, "long.txt", 0, 0)
	check("default", ex, err, 1, DefaultReadLines, true)
	ex, err = f.ix.Read(context.Background(), f.conv, "long.txt", 1234, 10)
	check("offset 1234", ex, err, 1234, 1243, true)
	ex, err = f.ix.Read(context.Background(), f.conv, "long.txt", 2995, 100)
	check("to the end", ex, err, 2995, 3000, false)
	ex, err = f.ix.Read(context.Background(), f.conv, "long.txt", 5000, 10)
	if err != nil || ex.Text != "" || ex.More || ex.ToLine >= ex.FromLine {
		t.Fatalf("past the end: %+v, %v", ex, err)
	}
	// The byte cap ends a long range early, at a line end.
	ex, err = f.ix.Read(context.Background(), f.conv, "long.txt", 1, MaxReadLines)
	if err != nil || !ex.More || len(ex.Text) > MaxReadBytes || !strings.HasSuffix(ex.Text, "\n") || ex.ToLine >= MaxReadLines {
		t.Fatalf("capped read: lines %d-%d, %d bytes, more %v, %v", ex.FromLine, ex.ToLine, len(ex.Text), ex.More, err)
	}

	// A file changed since it was indexed is read from disk, not from the stale index.
	f.write("long.txt", []byte("rewritten\n"))
	ex, err = f.ix.Read(context.Background(), f.conv, "long.txt", 0, 0)
	if err != nil || ex.Text != "rewritten\n" || ex.TotalLines != 1 {
		t.Fatalf("read after a change: %+v, %v", ex, err)
	}
	// A file not indexed yet is refused until a pass records it.
	f.write("fresh.md", []byte("not yet indexed\n"))
	if _, err = f.ix.Read(context.Background(), f.conv, "./fresh.md", 0, 0); !errors.Is(err, ErrNotIndexedFile) {
		t.Fatalf("read of a new file: %v, want ErrNotIndexedFile", err)
	}
	f.pass(PassOptions{})
	ex, err = f.ix.Read(context.Background(), f.conv, "./fresh.md", 0, 0)
	if err != nil || ex.Path != "fresh.md" || ex.Text != "not yet indexed\n" {
		t.Fatalf("read of a new file after a pass: %+v, %v", ex, err)
	}
}

func TestReadCutsAnOverlongLine(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("min.json", []byte(`{"k":"`+strings.Repeat("v", 3*MaxReadBytes)+`"}`+"\nsecond\n"))
	f.pass(PassOptions{})
	ex, err := f.ix.Read(context.Background(), f.conv, "min.json", 0, 0)
	if err != nil || ex.ToLine != 1 || !ex.More || len(ex.Text) > MaxReadBytes+100 || !strings.HasSuffix(ex.Text, "[line cut]\n") {
		t.Fatalf("overlong line: lines %d-%d, %d bytes, more %v, %v", ex.FromLine, ex.ToLine, len(ex.Text), ex.More, err)
	}
	ex, err = f.ix.Read(context.Background(), f.conv, "min.json", 2, 1)
	if err != nil || ex.Text != "second\n" {
		t.Fatalf("the line after: %+v, %v", ex, err)
	}
}

// TestReadServesOnlyIndexedFiles checks that read_file reads only what a pass indexes:
// hidden files and folders (credentials such as .docker/config.json), dependency folders
// and files no pass recorded are refused, however the path is spelled, while an indexed
// file and an upload still read.
func TestReadServesOnlyIndexedFiles(t *testing.T) {
	f := newFixture(t, Options{})
	secrets := map[string]string{
		".docker/config.json":          `{"auths":{"r":{"auth":"c2VjcmV0LWRvY2tlcg=="}}}`,
		".config/gh/hosts.yml.txt":     "oauth_token: gho_SECRETGH\n",
		".env.md":                      "API_KEY=sk-SECRETENV\n",
		"node_modules/pkg/README.md":   "SECRETDEP in a dependency\n",
		"proj/venv/lib/notes.txt":      "SECRETVENV in a virtual environment\n",
		"proj/__pycache__/cache.json":  `{"SECRETPYC":1}`,
		"notes/.hidden/inner.md":       "SECRETINNER in a hidden folder\n",
		"@uploads/real-folder-file.md": "SECRETUPFOLDER in a real @uploads folder\n",
	}
	for p, content := range secrets {
		f.write(p, []byte(content))
	}
	f.write("notes/plan.md", []byte("the plan\n"))
	f.upload("report.md", "uploaded report\n")
	f.pass(PassOptions{})
	f.write("later.md", []byte("SECRETLATER written after the pass\n"))

	refused := []string{
		".docker/config.json", "./.docker/config.json", `.docker\config.json`,
		"node_modules/../.docker/config.json", "notes/../.docker/config.json",
		".config/gh/hosts.yml.txt", ".env.md",
		"node_modules/pkg/README.md", "proj/venv/lib/notes.txt", "proj/__pycache__/cache.json",
		"Node_Modules/pkg/README.md", "notes/.hidden/inner.md",
		"@uploads", "later.md",
		".docker/missing.json",
	}
	for _, p := range refused {
		ex, err := f.ix.Read(context.Background(), f.conv, p, 0, 0)
		if !errors.Is(err, ErrNotIndexedFile) {
			t.Errorf("read %q: %v; want ErrNotIndexedFile", p, err)
		} else if !strings.Contains(err.Error(), "not an indexed file") {
			t.Errorf("read %q: %v; the error should say the file is not indexed", p, err)
		}
		if strings.Contains(ex.Text, "SECRET") || strings.Contains(ex.Text, "c2VjcmV0") {
			t.Errorf("read %q returned a secret: %q", p, ex.Text)
		}
	}
	// The real top-level @uploads folder is never read: its path names an upload.
	if ex, err := f.ix.Read(context.Background(), f.conv, "a/../@uploads/real-folder-file.md", 0, 0); !errors.Is(err, ErrNoFile) || ex.Text != "" {
		t.Errorf("read of the real @uploads folder's file = %q, %v; want ErrNoFile (no such upload)", ex.Text, err)
	}
	for _, p := range []string{".docker/config.json", "node_modules/pkg/README.md"} {
		if _, err := f.ix.Read(context.Background(), f.conv, p, 0, 0); err == nil ||
			!strings.Contains(err.Error(), "hidden folders and dependency folders are not read") {
			t.Errorf("read %q: %v; want the reason", p, err)
		}
	}

	for p, want := range map[string]string{"notes/plan.md": "the plan\n", "./notes/plan.md": "the plan\n", "@uploads/report.md": "uploaded report\n"} {
		if ex, err := f.ix.Read(context.Background(), f.conv, p, 0, 0); err != nil || ex.Text != want {
			t.Errorf("read %q = %q, %v; want %q", p, ex.Text, err, want)
		}
	}
	// A file new since the last pass reads once a pass has indexed it.
	f.pass(PassOptions{})
	if ex, err := f.ix.Read(context.Background(), f.conv, "later.md", 0, 0); err != nil || !strings.Contains(ex.Text, "written after") {
		t.Errorf("read later.md after a pass = %q, %v", ex.Text, err)
	}
}

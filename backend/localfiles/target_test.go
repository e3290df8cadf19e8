package localfiles

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"artifactflow/backend/store"
)

// linkShape is a symbolic link of a workspace leading where an indexing pass never goes:
// link (a slash path) points to target; read is the path that reaches the hidden file
// through it (link itself, or a file under a linked folder); secret is the hidden file,
// whose text holds word.
type linkShape struct {
	name, link, target, read, secret, word string
}

// hiddenLinkShapes are the shapes a cloned repository or a synced folder can carry.
var hiddenLinkShapes = []linkShape{
	{"file to .env", "env.txt", ".env", "env.txt", ".env", "awssecretalpha"},
	{"folder to .secrets", "pub", ".secrets", "pub/key.md", ".secrets/key.md", "keysecretbravo"},
	{"markdown name to .env", "notes.md", ".env", "notes.md", ".env", "awssecretalpha"},
	{"into .git", "cfg.txt", ".git/config", "cfg.txt", ".git/config", "gitsecretcharlie"},
	{"file into node_modules", "lib.md", "node_modules/pkg/README.md", "lib.md", "node_modules/pkg/README.md", "depsecretdelta"},
	{"folder into node_modules", "deps", "node_modules/pkg", "deps/README.md", "node_modules/pkg/README.md", "depsecretdelta"},
	{"relative from a subfolder", "sub/up.md", "../.env", "sub/up.md", ".env", "awssecretalpha"},
	{"absolute target", "abs.md", "@ABS/.env", "abs.md", ".env", "awssecretalpha"},
	{"link to a link", "chain.md", "env.txt", "chain.md", ".env", "awssecretalpha"},
	{"into a hidden subfolder", "docs.md", "notes/.private/diary.md", "docs.md", "notes/.private/diary.md", "diarysecretecho"},
}

// hiddenFiles are the hidden files the shapes lead to.
var hiddenFiles = map[string]string{
	".env":                       "AWS_SECRET=awssecretalpha\n",
	".secrets/key.md":            "key: keysecretbravo\n",
	".git/config":                "[remote]\n url = https://user:gitsecretcharlie@example.com/r.git\n",
	"node_modules/pkg/README.md": "depsecretdelta\n",
	"notes/.private/diary.md":    "diarysecretecho\n",
}

// makeLink creates shape s's link in f's workspace ("@ABS" stands for the workspace).
func (f *fixture) makeLink(s linkShape) {
	f.t.Helper()
	f.symlink(strings.ReplaceAll(s.target, "@ABS", f.ws), s.link)
}

// TestLinksToHiddenFilesAreNotIndexed: a pass does not follow a link whose target,
// relative to the workspace, is hidden or in a dependency folder; the extractor never
// reads it, the link is listed as skipped with the reason, and links to ordinary files
// and folders inside are still read.
func TestLinksToHiddenFilesAreNotIndexed(t *testing.T) {
	f := newFixture(t, Options{})
	for p, c := range hiddenFiles {
		f.write(p, []byte(c))
	}
	f.write("docs/readme.md", []byte("public words: pomegranate\n"))
	for _, s := range hiddenLinkShapes {
		f.makeLink(s)
	}
	f.symlink("docs/readme.md", "ok.md") // a link inside, to an ordinary file
	f.symlink("docs", "alias")           // and to an ordinary folder (walked once, as docs)
	f.pass(PassOptions{})

	read := f.readNames()
	root, err := f.db.FileRoot(context.Background(), f.conv)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.db.IndexedFiles(context.Background(), root.ID)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]store.IndexedFile{}
	for _, r := range rows {
		byPath[r.Path] = r
	}
	for _, s := range hiddenLinkShapes {
		t.Run(s.name, func(t *testing.T) {
			if r, ok := byPath[s.read]; ok && r.Status == store.FileIndexed {
				t.Errorf("%s (-> %s) is indexed", s.read, s.target)
			}
			r, ok := byPath[s.link]
			if !ok || r.Status != store.FileSkipped || !strings.Contains(r.Reason, "hidden file or folder") {
				t.Errorf("the link %s is recorded as %+v (found %v); want skipped, saying it leads to a hidden file", s.link, r, ok)
			}
			if slices.Contains(read, filepath.Base(s.read)) {
				t.Errorf("the extractor read %s (read: %v)", s.read, read)
			}
		})
	}
	for _, p := range []string{"ok.md", "docs/readme.md"} {
		if r := byPath[p]; r.Status != store.FileIndexed {
			t.Errorf("%s = %+v; an ordinary file behind a link inside must be indexed", p, r)
		}
	}
	if got := f.paths("pomegranate"); !slices.Equal(got, []string{"docs/readme.md", "ok.md"}) {
		t.Errorf("pomegranate in %v", got)
	}
}

// TestHiddenRuleIsRelativeToTheWorkspace: a workspace folder that itself lies in a hidden
// folder (a data directory under ~/.local, say), or is reached through a link, has its
// files indexed and readable, links to them included.
func TestHiddenRuleIsRelativeToTheWorkspace(t *testing.T) {
	f := newFixture(t, Options{})
	real := filepath.Join(filepath.Dir(f.ws), ".local", "share", "ws")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	f.ws = filepath.Join(filepath.Dir(f.ws), "alias-ws")
	if err := os.Symlink(real, f.ws); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	f.write("notes/plan.md", []byte("the plan: quince\n"))
	f.symlink("notes/plan.md", "link.md")
	f.pass(PassOptions{})
	if got := f.paths("quince"); !slices.Equal(got, []string{"link.md", "notes/plan.md"}) {
		t.Fatalf("quince in %v", got)
	}
	for _, p := range []string{"link.md", "notes/plan.md"} {
		if ex, err := f.ix.Read(context.Background(), f.conv, p, 0, 0); err != nil || !strings.Contains(ex.Text, "quince") {
			t.Errorf("read %s = %q, %v", p, ex.Text, err)
		}
	}
}

// TestReadRefusesLinksToHiddenFiles: a file that was indexed and then replaced by a link
// to a hidden file (a pull that brings `notes.md -> .env`) is refused by read_file before
// anything is read through the link, for every link shape; an ordinary link still reads.
func TestReadRefusesLinksToHiddenFiles(t *testing.T) {
	for _, s := range hiddenLinkShapes {
		t.Run(s.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			for p, c := range hiddenFiles {
				f.write(p, []byte(c))
			}
			if s.link == "chain.md" {
				f.symlink(".env", "env.txt")
			}
			f.write(s.read, []byte("an ordinary file\n"))
			f.pass(PassOptions{})
			if err := os.RemoveAll(filepath.Join(f.ws, filepath.FromSlash(s.link))); err != nil {
				t.Fatal(err)
			}
			f.makeLink(s)
			ex, err := f.ix.Read(context.Background(), f.conv, s.read, 0, 0)
			if !errors.Is(err, ErrNotIndexedFile) || !strings.Contains(err.Error(), "hidden file or folder") {
				t.Errorf("read %s (-> %s): %v; want ErrNotIndexedFile saying the link leads to a hidden file", s.read, s.target, err)
			}
			if strings.Contains(ex.Text, s.word) {
				t.Errorf("read %s returned the hidden file's text %q", s.read, ex.Text)
			}
		})
	}
	f := newFixture(t, Options{})
	f.write("docs/a.md", []byte("fig\n"))
	f.symlink("docs/a.md", "ok.md")
	f.pass(PassOptions{})
	if ex, err := f.ix.Read(context.Background(), f.conv, "ok.md", 0, 0); err != nil || ex.Text != "fig\n" {
		t.Errorf("read of a link to an ordinary file = %q, %v", ex.Text, err)
	}
}

// TestSearchHidesLinksToHiddenFiles: passages the index holds for a path that now leads,
// through a link, to a hidden file (an index left by a version that followed such links,
// or a link swapped in since the last pass) are not returned, for every link shape;
// passages of ordinary files and uploads are.
func TestSearchHidesLinksToHiddenFiles(t *testing.T) {
	f := newFixture(t, Options{})
	for p, c := range hiddenFiles {
		f.write(p, []byte(c))
	}
	f.write("docs/readme.md", []byte("public\n"))
	for _, s := range hiddenLinkShapes {
		f.makeLink(s)
	}
	f.upload("up.md", "uploaded\n")
	f.pass(PassOptions{})
	ctx := context.Background()
	root, err := f.db.FileRoot(ctx, f.conv)
	if err != nil {
		t.Fatal(err)
	}
	// The rows an index that followed the links would hold.
	var writes []store.FileWrite
	for _, s := range hiddenLinkShapes {
		text := hiddenFiles[s.secret] + "stalemarker " + strings.ReplaceAll(s.name, " ", "") + "\n"
		chunks, lines := chunkText(text, false)
		writes = append(writes, store.FileWrite{File: store.IndexedFile{Path: s.read, Ext: extOf(s.read), Size: int64(len(text)),
			ModTime: 1, Status: store.FileIndexed, Lines: lines, TextBytes: len(text)}, Chunks: chunks})
	}
	chunks, lines := chunkText("stalemarker in an ordinary file\n", false)
	writes = append(writes, store.FileWrite{File: store.IndexedFile{Path: "docs/readme.md", Ext: "md", Size: 1, ModTime: 1,
		Status: store.FileIndexed, Lines: lines, TextBytes: 1}, Chunks: chunks})
	if err := f.db.PutIndexedFiles(ctx, root.ID, writes); err != nil {
		t.Fatal(err)
	}
	for _, s := range hiddenLinkShapes {
		t.Run(s.name, func(t *testing.T) {
			if got := f.paths(s.word); len(got) != 0 {
				t.Errorf("search %q found %v", s.word, got)
			}
		})
	}
	if got := f.paths("stalemarker"); !slices.Equal(got, []string{"docs/readme.md"}) {
		t.Errorf("stalemarker in %v; want only the ordinary file", got)
	}
	if got := f.paths("uploaded"); !slices.Equal(got, []string{"@uploads/up.md"}) {
		t.Errorf("uploaded in %v", got)
	}
}

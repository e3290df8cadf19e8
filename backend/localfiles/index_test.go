package localfiles

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"artifactflow/backend/extract"
	"artifactflow/backend/store"
	"artifactflow/backend/testdocs"
)

func TestPassIndexesEveryReadableType(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("notes/plan.md", []byte("# Plan\n\nThe word marmalade is in Markdown.\n"))
	f.write("notes/todo.txt", []byte("plain text with quokka inside\n"))
	f.write("data/table.csv", []byte("name,animal\nann,wombat\n"))
	f.write("data/config.json", []byte(`{"creature": "axolotl"}`+"\n"))
	f.write("web/page.html", []byte("<html><head><title>T</title></head><body><article><h1>Heading</h1><p>An HTML page about the narwhal and its long tooth, with enough words to count as the main content of the page.</p></article></body></html>"))
	f.write("papers/paper.pdf", testdocs.BuildPDF("Paper", "First page mentions pangolin.", "Second page mentions okapi."))
	f.write("docs/report.docx", testdocs.DOCX(`<w:p><w:r><w:t>A Word report about the capybara.</w:t></w:r></w:p>`))
	f.write("src/main.go", []byte("package main\n\n// tapir is a comment word.\nfunc main() {}\n"))
	// Not read: other types, hidden and dependency folders, the uploads' virtual folder.
	f.write("image.png", []byte("\x89PNG\r\n\x1a\n zebra"))
	f.write("Makefile", []byte("zebra:\n"))
	f.write(".git/notes.md", []byte("zebra in a hidden folder\n"))
	f.write(".hidden.md", []byte("zebra in a hidden file\n"))
	f.write("node_modules/pkg/readme.md", []byte("zebra in a dependency\n"))
	f.write("@uploads/fake.md", []byte("zebra pretending to be an upload\n"))

	p := f.pass(PassOptions{})
	if p.Phase != PhaseDone || p.Total != 8 || p.Changed != 8 || p.Done != 8 || p.Failed != 0 || p.Skipped != 0 || p.Bytes == 0 {
		t.Fatalf("progress = %+v; want 8 files read, none failed", p)
	}
	for word, want := range map[string]string{
		"marmalade": "notes/plan.md", "quokka": "notes/todo.txt", "wombat": "data/table.csv",
		"axolotl": "data/config.json", "narwhal": "web/page.html", "pangolin": "papers/paper.pdf",
		"okapi": "papers/paper.pdf", "capybara": "docs/report.docx", "tapir": "src/main.go",
	} {
		if got := f.paths(word); len(got) != 1 || got[0] != want {
			t.Errorf("search %q = %v, want [%s]", word, got, want)
		}
	}
	if got := f.paths("zebra"); len(got) != 0 {
		t.Errorf("zebra found in %v: hidden, dependency, unsupported or reserved files were indexed", got)
	}
	// The PDF reader marks pages: a hit on the second page says so.
	if hits, err := f.ix.Search(context.Background(), f.conv, "okapi", 5); err != nil || len(hits) != 1 || hits[0].Page != 2 {
		t.Errorf("okapi hit = %+v, %v; want page 2 of the PDF", hits, err)
	}
	s, err := NewManager(f.ix, ManagerOptions{}).Summary(context.Background(), f.conv)
	if err != nil || s.Files != 8 || s.ByExt["md"] != 1 || s.ByExt["pdf"] != 1 || s.Workspace != f.ws {
		t.Fatalf("summary = %+v, %v", s, err)
	}
}

func TestChineseAndJapaneseQueries(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("zh.md", []byte("我们的数据库系统支持全文检索。\n第二行说明大数据分析。\n"))
	f.write("ja.md", []byte("東京都の天気予報によると、明日は雨です。\nカタカナのデータベースもあります。\n"))
	f.write("mixed.md", []byte("SQLite数据库 is embedded.\n"))
	f.write("en.md", []byte("nothing to see here\n"))
	f.pass(PassOptions{})
	tests := []struct {
		query string
		want  []string // paths, sorted
	}{
		{"数据", []string{"mixed.md", "zh.md"}},  // two characters inside 数据库 and 大数据
		{"数据库", []string{"mixed.md", "zh.md"}}, // three
		{"数据库系统", []string{"zh.md"}},           // five
		{"全文检索", []string{"zh.md"}},
		{"检索", []string{"zh.md"}},
		{"库", []string{"mixed.md", "zh.md"}}, // one character
		{"天気", []string{"ja.md"}},            // Japanese, two characters
		{"天気予報", []string{"ja.md"}},          // four
		{"東京都", []string{"ja.md"}},
		{"データベース", []string{"ja.md"}},       // Katakana
		{"明日 雨", []string{"ja.md"}},         // two terms
		{"SQLite数据库", []string{"mixed.md"}}, // Latin and Han in one term
		{"数系", nil},                         // the characters, but not next to each other
		{"统支持全", []string{"zh.md"}},         // across word boundaries: any substring matches
		{"予報、明日", []string{"ja.md"}},        // CJK punctuation separates terms
	}
	for _, tc := range tests {
		got := f.paths(tc.query)
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v, want %v", tc.query, got, tc.want)
		}
	}
	hits, err := f.ix.Search(context.Background(), f.conv, "大数据", 5)
	if err != nil || len(hits) != 1 || hits[0].Line != 2 || !strings.Contains(hits[0].Snippet, "大数据") {
		t.Fatalf("hit for 大数据 = %+v, %v; want line 2 with the word in the snippet", hits, err)
	}
}

func TestChangedFileIsReadAgainAndDeletedFileLeaves(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("a.md", []byte("the old word is gooseberry\n"))
	f.write("b.md", []byte("b mentions lychee\n"))
	f.write("c.md", []byte("c mentions rambutan\n"))
	if p := f.pass(PassOptions{}); p.Changed != 3 {
		t.Fatalf("first pass: %+v", p)
	}

	// Nothing changed: no file is read.
	p := f.pass(PassOptions{})
	if p.Changed != 0 || p.Done != 3 || len(f.readNames()) != 0 {
		t.Fatalf("second pass read %v (%+v); want nothing", f.readNames(), p)
	}

	f.write("a.md", []byte("the new word is mangosteen\n"))
	if err := os.Remove(filepath.Join(f.ws, "b.md")); err != nil {
		t.Fatal(err)
	}
	p = f.pass(PassOptions{})
	if p.Changed != 1 || p.Removed != 1 || !slices.Equal(f.readNames(), []string{"a.md"}) {
		t.Fatalf("after a change and a delete: read %v, %+v; want a.md read, one removed", f.readNames(), p)
	}
	if got := f.paths("mangosteen"); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("new word: %v", got)
	}
	if got := f.paths("gooseberry"); len(got) != 0 {
		t.Errorf("old word of the changed file still found in %v", got)
	}
	if got := f.paths("lychee"); len(got) != 0 {
		t.Errorf("deleted file still found: %v", got)
	}
	if got := f.paths("rambutan"); !slices.Equal(got, []string{"c.md"}) {
		t.Errorf("unchanged file lost: %v", got)
	}
}

func TestSymbolicLinks(t *testing.T) {
	f := newFixture(t, Options{})
	outside := filepath.Join(filepath.Dir(f.ws), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("the secret word is persimmon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.write("real/inner.md", []byte("inside the workspace: kumquat\n"))
	f.symlink(filepath.Join(outside, "secret.md"), "escape.md")  // a file outside
	f.symlink(outside, "escdir")                                 // a folder outside
	f.symlink("../../outside/secret.md", "real/relative-out.md") // relative, outside
	f.symlink("..", "real/loop")                                 // a loop back to the root
	f.symlink("../real", "real/self")                            // a loop to its own folder
	f.symlink("real/inner.md", "alias.md")                       // a file inside
	f.write(".stash/kept.md", []byte("behind a link into a hidden folder: tamarind\n"))
	f.symlink(".stash", "stash") // a hidden folder inside: not followed either

	done := make(chan Progress, 1)
	go func() { done <- f.pass(PassOptions{}) }()
	var p Progress
	select {
	case p = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the pass did not end: a link loop was followed")
	}
	if got := f.paths("persimmon"); len(got) != 0 {
		t.Fatalf("words of a file outside the workspace were indexed through %v", got)
	}
	if slices.Contains(f.readNames(), "secret.md") {
		t.Fatalf("the file outside was read: %v", f.readNames())
	}
	if got := f.paths("kumquat"); !slices.Equal(got, []string{"alias.md", "real/inner.md"}) {
		t.Errorf("kumquat in %v, want the file and its link inside", got)
	}
	if got := f.paths("tamarind"); len(got) != 0 {
		t.Errorf("tamarind in %v; a link into a hidden folder must not be followed", got)
	}
	un, err := NewManager(f.ix, ManagerOptions{}).Unindexed(context.Background(), f.conv, 0)
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, u := range un {
		if strings.Contains(u.Reason, "outside the workspace") {
			skipped = append(skipped, u.Path)
		}
	}
	if want := []string{"escape.md", "escdir", "real/relative-out.md"}; !slices.Equal(skipped, want) {
		t.Errorf("links reported as leading outside: %v, want %v (progress %+v)", skipped, want, p)
	}
}

func TestBinaryAndOversizedFilesAreSkipped(t *testing.T) {
	f := newFixture(t, Options{MaxFileBytes: 1 << 10})
	f.write("ok.md", []byte("a small file about cassowary\n"))
	f.write("big.md", bytes.Repeat([]byte("cassowary "), 200)) // 2 KB > 1 KB
	f.write("bin.txt", []byte("cassowary\x00\x01\x02\x00 binary"))
	p := f.pass(PassOptions{})
	if p.Skipped != 2 || p.Failed != 0 {
		t.Fatalf("progress = %+v; want 2 skipped", p)
	}
	if slices.Contains(f.readNames(), "big.md") {
		t.Fatal("the oversized file was read")
	}
	if got := f.paths("cassowary"); !slices.Equal(got, []string{"ok.md"}) {
		t.Fatalf("cassowary in %v, want only ok.md", got)
	}
	un, err := NewManager(f.ix, ManagerOptions{}).Unindexed(context.Background(), f.conv, 0)
	if err != nil || len(un) != 2 || un[0].Path != "big.md" || !strings.Contains(un[0].Reason, "1 MB") && !strings.Contains(un[0].Reason, "limit") ||
		un[1].Path != "bin.txt" || un[1].Reason == "" {
		t.Fatalf("unindexed = %+v, %v", un, err)
	}
	// Unchanged skipped files are not read again, unless forced.
	f.pass(PassOptions{})
	if len(f.readNames()) != 0 {
		t.Fatalf("an unchanged skipped file was read again: %v", f.readNames())
	}
	f.pass(PassOptions{Force: true})
	if !slices.Equal(f.readNames(), []string{"bin.txt"}) {
		t.Fatalf("a forced pass read %v, want bin.txt (the oversized file is not read at all)", f.readNames())
	}
}

func TestUploadsAreIndexed(t *testing.T) {
	f := newFixture(t, Options{})
	f.upload("Notes 2024.md", "an uploaded note about the quetzal\n")
	f.write("ws.md", []byte("a workspace file about the quetzal too\n"))
	p := f.pass(PassOptions{})
	if p.Total != 2 {
		t.Fatalf("progress = %+v", p)
	}
	if got := f.paths("quetzal"); !slices.Equal(got, []string{"@uploads/Notes_2024.md", "ws.md"}) && !slices.Equal(got, []string{"ws.md", "@uploads/Notes_2024.md"}) {
		t.Fatalf("quetzal in %v", got)
	}
	ex, err := f.ix.Read(context.Background(), f.conv, "@uploads/Notes_2024.md", 0, 0)
	if err != nil || ex.Title != "Notes 2024.md" || !strings.Contains(ex.Text, "quetzal") {
		t.Fatalf("read the upload: %+v, %v", ex, err)
	}
	if _, err := artifactDelete(f, "Notes_2024.md"); err != nil {
		t.Fatal(err)
	}
	if p := f.pass(PassOptions{}); p.Removed != 1 {
		t.Fatalf("after the upload was deleted: %+v", p)
	}
	if got := f.paths("quetzal"); !slices.Equal(got, []string{"ws.md"}) {
		t.Fatalf("a deleted upload is still found: %v", got)
	}
}

func artifactDelete(f *fixture, id string) (store.Artifact, error) {
	return f.db.DeleteArtifact(context.Background(), f.conv, id)
}

func TestPDFPagesAndLines(t *testing.T) {
	// The PDF reader marks pages with "[Page N]" lines; a stand-in extractor gives such
	// text so pages are tested whatever reader is built in.
	pdfText := "[Page 1]\nIntroduction line.\nSecond line.\n[Page 2]\nThe results mention the gharial.\n[Page 3]\nEnd.\n"
	f := newFixture(t, Options{Extract: func(ctx context.Context, name string, data []byte) (extract.Result, error) {
		if strings.HasSuffix(name, ".pdf") {
			return extract.Result{Text: pdfText, ContentType: "markdown", Readable: true}, nil
		}
		return extract.Text(ctx, name, data)
	}})
	f.write("paper.pdf", []byte("%PDF-stand-in"))
	f.write("notes.md", []byte("line one\nline two\n[Page 9]\nthe gharial on line four\n"))
	f.pass(PassOptions{})
	hits, err := f.ix.Search(context.Background(), f.conv, "gharial", 5)
	if err != nil || len(hits) != 2 {
		t.Fatalf("hits = %+v, %v", hits, err)
	}
	for _, h := range hits {
		switch h.Path {
		case "paper.pdf":
			if h.Page != 2 || h.Line != 5 || strings.Contains(h.Snippet, "[Page") {
				t.Errorf("pdf hit = %+v; want page 2, line 5, no marker in the snippet", h)
			}
		case "notes.md": // markers mean nothing outside PDF text
			if h.Page != 0 || h.Line != 4 {
				t.Errorf("md hit = %+v; want line 4, no page", h)
			}
		}
	}
	ex, err := f.ix.Read(context.Background(), f.conv, "paper.pdf", 5, 2)
	if err != nil || ex.Page != 2 || ex.FromLine != 5 || ex.ToLine != 6 || ex.Text != "The results mention the gharial.\n[Page 3]\n" || !ex.More {
		t.Fatalf("read lines 5-6 = %+v, %v", ex, err)
	}
}

func TestCancelStopsThePass(t *testing.T) {
	started := make(chan struct{}, 100)
	var calls atomic.Int32
	f := newFixture(t, Options{Workers: 2, Extract: func(ctx context.Context, name string, data []byte) (extract.Result, error) {
		calls.Add(1)
		started <- struct{}{}
		<-ctx.Done() // a reader that never finishes on its own
		return extract.Result{}, ctx.Err()
	}})
	for i := range 50 {
		f.write(filepath.Join("d", string(rune('a'+i%26))+string(rune('a'+i/26))+".md"), []byte("text\n"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.ix.Pass(ctx, f.conv, PassOptions{})
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("pass ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pass did not stop after its context was cancelled")
	}
	if n := calls.Load(); n > 4 {
		t.Fatalf("%d files were started after the cancel", n)
	}
}

func TestWorkspaceChangeStartsOver(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("a.md", []byte("first folder: saguaro\n"))
	f.pass(PassOptions{})
	other := filepath.Join(filepath.Dir(f.ws), "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "b.md"), []byte("second folder: ocotillo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.ws = other
	p := f.pass(PassOptions{})
	if p.Workspace != other || p.Total != 1 {
		t.Fatalf("progress = %+v", p)
	}
	if got := f.paths("saguaro"); len(got) != 0 {
		t.Fatalf("the old folder's file is still found: %v", got)
	}
	if got := f.paths("ocotillo"); !slices.Equal(got, []string{"b.md"}) {
		t.Fatalf("ocotillo in %v", got)
	}
}

func TestMissingWorkspaceFolderHasNoFiles(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("a.md", []byte("alpaca\n"))
	f.pass(PassOptions{})
	if err := os.RemoveAll(f.ws); err != nil {
		t.Fatal(err)
	}
	if p := f.pass(PassOptions{}); p.Removed != 1 || p.Total != 0 {
		t.Fatalf("progress = %+v; want the file gone with its folder", p)
	}
	if got := f.paths("alpaca"); len(got) != 0 {
		t.Fatalf("alpaca still found: %v", got)
	}
}

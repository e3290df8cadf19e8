package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// indexed is a FileWrite of one indexed file whose chunks index the given terms.
func indexed(path string, size int64, chunks ...FileChunk) FileWrite {
	lines := 0
	for _, c := range chunks {
		lines += strings.Count(c.Text, "\n")
	}
	return FileWrite{File: IndexedFile{Path: path, Ext: "md", Size: size, ModTime: 7, Status: FileIndexed, Lines: lines}, Chunks: chunks}
}

func chunk(line int, text string) FileChunk { return FileChunk{Line: line, Text: text, Terms: text} }

func searchPaths(t *testing.T, db *DB, root int64, match string) []string {
	t.Helper()
	hits, err := db.SearchFileChunks(context.Background(), root, match, 10)
	if err != nil {
		t.Fatalf("search %s: %v", match, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func TestFileIndexPutSearchReplaceDelete(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c1")
	createConv(t, db, "c2")
	r1, err := db.FileRootOf(ctx, "c1", "/ws/one")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := db.FileRootOf(ctx, "c2", "/ws/two")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := db.FileRootOf(ctx, "c1", "/ws/one"); err != nil || again.ID != r1.ID {
		t.Fatalf("same folder gave root %+v, %v; want the same root %d", again, err, r1.ID)
	}
	if err := db.PutIndexedFiles(ctx, r1.ID, []FileWrite{
		indexed("a.md", 10, chunk(1, "alpha beta\n"), chunk(2, "gamma delta\n")),
		{File: IndexedFile{Path: "big.bin", Ext: "bin", Size: 99, Status: FileSkipped, Reason: "binary"}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutIndexedFiles(ctx, r2.ID, []FileWrite{indexed("b.md", 5, chunk(1, "alpha omega\n"))}); err != nil {
		t.Fatal(err)
	}

	if got := searchPaths(t, db, r1.ID, `"gamma"`); len(got) != 1 || got[0] != "a.md" {
		t.Fatalf("gamma in root 1 = %v, want [a.md]", got)
	}
	// The root column confines a search to its conversation.
	if got := searchPaths(t, db, r2.ID, `"gamma"`); len(got) != 0 {
		t.Fatalf("gamma in root 2 = %v, want none (it is only in root 1)", got)
	}
	if got := searchPaths(t, db, r1.ID, `"omega"`); len(got) != 0 {
		t.Fatalf("omega in root 1 = %v, want none", got)
	}
	// The root token is never matched by the body's terms.
	if got := searchPaths(t, db, r1.ID, `"`+rootToken(r1.ID)+`"`); len(got) != 0 {
		t.Fatalf("the root token matched the body: %v", got)
	}
	hits, err := db.SearchFileChunks(ctx, r1.ID, `"delta"`, 10)
	if err != nil || len(hits) != 1 || hits[0].Line != 2 || hits[0].Text != "gamma delta\n" {
		t.Fatalf("delta hit = %+v, %v; want the second chunk, line 2", hits, err)
	}

	st, err := db.FileIndexStats(ctx, r1.ID)
	if err != nil || st.Indexed != 1 || st.Skipped != 1 || st.Failed != 0 || st.Bytes != 10 || st.ByExt["md"] != 1 {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	un, err := db.UnindexedFiles(ctx, r1.ID, 0)
	if err != nil || len(un) != 1 || un[0].Path != "big.bin" || un[0].Reason != "binary" {
		t.Fatalf("unindexed = %+v, %v", un, err)
	}

	// Replacing a file drops its old chunks from the index.
	if err := db.PutIndexedFiles(ctx, r1.ID, []FileWrite{indexed("a.md", 11, chunk(1, "epsilon\n"))}); err != nil {
		t.Fatal(err)
	}
	if got := searchPaths(t, db, r1.ID, `"gamma"`); len(got) != 0 {
		t.Fatalf("old text still found after the file was replaced: %v", got)
	}
	if got := searchPaths(t, db, r1.ID, `"epsilon"`); len(got) != 1 {
		t.Fatalf("new text not found: %v", got)
	}
	f, err := db.IndexedFile(ctx, r1.ID, "a.md")
	if err != nil || f.Size != 11 || f.Status != FileIndexed {
		t.Fatalf("row after replace = %+v, %v", f, err)
	}

	if err := db.DeleteIndexedFiles(ctx, r1.ID, []string{"a.md", "not-there"}); err != nil {
		t.Fatal(err)
	}
	if got := searchPaths(t, db, r1.ID, `"epsilon"`); len(got) != 0 {
		t.Fatalf("deleted file still found: %v", got)
	}
	if _, err := db.IndexedFile(ctx, r1.ID, "a.md"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted row: %v, want ErrNotFound", err)
	}
	var left int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM file_index_chunks`).Scan(&left); err != nil || left != 1 {
		t.Fatalf("chunks left = %d, %v; want 1 (root 2's)", left, err)
	}
}

func TestFileRootFolderChangeAndConversationDeleteEmptyTheIndex(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c1")
	r, err := db.FileRootOf(ctx, "c1", "/ws/one")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutIndexedFiles(ctx, r.ID, []FileWrite{indexed("a.md", 1, chunk(1, "alpha\n"))}); err != nil {
		t.Fatal(err)
	}
	moved, err := db.FileRootOf(ctx, "c1", "/ws/other")
	if err != nil {
		t.Fatal(err)
	}
	if moved.ID == r.ID || moved.Workspace != "/ws/other" {
		t.Fatalf("root after the folder changed = %+v; want a new root for /ws/other", moved)
	}
	if got := searchPaths(t, db, moved.ID, `"alpha"`); len(got) != 0 {
		t.Fatalf("the old folder's files are still found: %v", got)
	}
	// Writing to the dropped root fails instead of filling an orphan.
	if err := db.PutIndexedFiles(ctx, r.ID, []FileWrite{indexed("x.md", 1, chunk(1, "x\n"))}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("put into a dropped root: %v, want ErrNotFound", err)
	}

	if err := db.PutIndexedFiles(ctx, moved.ID, []FileWrite{indexed("b.md", 1, chunk(1, "beta\n"))}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteConversation(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"file_index_roots", "file_index_files", "file_index_chunks"} {
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s has %d rows after the conversation was deleted (%v)", table, n, err)
		}
	}
	// The contentless index forgot the chunks too (the delete trigger ran through the cascade).
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM file_index_fts WHERE file_index_fts MATCH 'beta'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the index still matches a deleted conversation's text: %d rows (%v)", n, err)
	}
	if _, err := db.FileRootOf(ctx, "nope", "/ws"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("root of an unknown conversation: %v, want ErrNotFound", err)
	}
	if _, err := db.FileRoot(ctx, "c1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("root of a deleted conversation: %v, want ErrNotFound", err)
	}
}

func TestFileChunksByLineRange(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c1")
	r, err := db.FileRootOf(ctx, "c1", "/ws")
	if err != nil {
		t.Fatal(err)
	}
	// Lines 1-3, 4-6, 7-9 in three chunks.
	w := indexed("f.txt", 1, chunk(1, "l1\nl2\nl3\n"), chunk(4, "l4\nl5\nl6\n"), chunk(7, "l7\nl8\nl9\n"))
	if err := db.PutIndexedFiles(ctx, r.ID, []FileWrite{w}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from, to int
		want     []int // chunk start lines
	}{
		{1, 2, []int{1}},
		{2, 5, []int{1, 4}},
		{4, 4, []int{4}},
		{5, 100, []int{4, 7}},
		{8, 9, []int{7}},
		{10, 20, []int{7}}, // past the end: the last chunk (the caller cuts it)
	} {
		cs, err := db.FileChunks(ctx, r.ID, "f.txt", tc.from, tc.to)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, c := range cs {
			got = append(got, c.Line)
		}
		if !equalInts(got, tc.want) {
			t.Errorf("lines %d-%d: chunks %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
	// A line split over chunks: reading it starts at its first piece.
	split := indexed("split.txt", 1, chunk(1, "aaaa"), chunk(1, "bbbb"), chunk(1, "cc\n"), chunk(2, "d\n"))
	if err := db.PutIndexedFiles(ctx, r.ID, []FileWrite{split}); err != nil {
		t.Fatal(err)
	}
	if cs, err := db.FileChunks(ctx, r.ID, "split.txt", 1, 1); err != nil || len(cs) != 3 || cs[0].Text != "aaaa" {
		t.Fatalf("chunks of a split line = %+v, %v; want its three pieces", cs, err)
	}
	if cs, err := db.FileChunks(ctx, r.ID, "split.txt", 2, 2); err != nil || len(cs) != 1 || cs[0].Text != "d\n" {
		t.Fatalf("chunk after a split line = %+v, %v", cs, err)
	}
	if cs, err := db.FileChunks(ctx, r.ID, "missing.txt", 1, 10); err != nil || len(cs) != 0 {
		t.Fatalf("chunks of a missing file = %v, %v", cs, err)
	}
}

func TestPutIndexedFilesRefusesBadInput(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c1")
	r, err := db.FileRootOf(ctx, "c1", "/ws")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []FileWrite{
		{File: IndexedFile{Path: "", Status: FileIndexed}},
		{File: IndexedFile{Path: "a", Status: "weird"}},
	} {
		if err := db.PutIndexedFiles(ctx, r.ID, []FileWrite{indexed("ok.md", 1, chunk(1, "fine\n")), w}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("put %+v: %v, want ErrInvalid", w.File, err)
		}
	}
	if got := searchPaths(t, db, r.ID, `"fine"`); len(got) != 0 {
		t.Fatalf("a refused batch wrote part of itself: %v", got)
	}
	if _, err := db.SearchFileChunks(ctx, r.ID, `"x"`, 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("limit 0: %v, want ErrInvalid", err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"artifactflow/backend/sources"
)

func webSource(url, title string) sources.Source {
	return sources.Source{Kind: sources.KindWeb, Location: url, Title: title, Excerpt: "snippet of " + title, MessageID: "m1"}
}

func TestAddSourceNumbersAreStable(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	createConv(t, db, "other")

	steps := []struct {
		name    string
		conv    string
		src     sources.Source
		wantN   int
		changed bool
	}{
		{"first source is 1", "c", webSource("https://example.com/a", "A"), 1, true},
		{"second is 2", "c", webSource("https://example.org/b?x=1&y=2", "B"), 2, true},
		{"same URL again keeps 1, nothing written", "c", webSource("https://example.com/a", "A again"), 1, false},
		{"trivial variant of the URL is the same source", "c", webSource("http://WWW.Example.com:80/a/#top", "A"), 1, false},
		{"query order and tracking parameters ignored", "c", webSource("https://example.org/b?utm_source=x&y=2&x=1", "B"), 2, false},
		{"another conversation starts at 1", "other", webSource("https://example.org/b?x=1&y=2", "B"), 1, true},
		{"a file is its own source", "c", sources.Source{Kind: sources.KindFile, Location: "notes/a.md", Page: 3}, 3, true},
		{"the same file by another spelling", "c", sources.Source{Kind: sources.KindFile, Location: "./notes//a.md"}, 3, false},
	}
	for _, st := range steps {
		got, changed, err := db.AddSourceChanged(ctx, st.conv, st.src)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got.N != st.wantN || changed != st.changed {
			t.Errorf("%s: n = %d, changed = %v; want %d, %v", st.name, got.N, changed, st.wantN, st.changed)
		}
	}
	list, err := db.Sources(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("sources of c = %+v, want 3", list)
	}
	a := list[0]
	if a.N != 1 || a.Title != "A" || a.Site != "example.com" || a.Location != "https://example.com/a" || a.Fetched ||
		a.MessageID != "m1" || a.AddedAt.IsZero() || a.Excerpt != "snippet of A" {
		t.Errorf("source 1 = %+v", a)
	}
	if f := list[2]; f.Kind != sources.KindFile || f.Location != "notes/a.md" || f.Page != 3 || f.Site != "" {
		t.Errorf("source 3 = %+v", f)
	}
}

func TestAddSourceFetchMergesAndFollowsRedirect(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	if _, err := db.AddSource(ctx, "c", sources.Source{Kind: sources.KindWeb, Location: "https://short.example/x", Title: "Search title", Excerpt: "snippet"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddSource(ctx, "c", webSource("https://taken.example/page", "Taken")); err != nil {
		t.Fatal(err)
	}
	// The fetch of [1] was redirected to a new URL: same number, now fetched, at the final URL.
	got, changed, err := db.AddSourceChanged(ctx, "c", sources.Source{Kind: sources.KindWeb, Location: "https://www.final.example/article",
		Requested: "https://short.example/x", Title: "Page title", Excerpt: "page text", Published: "2025-01-02", Fetched: true, MessageID: "m2"})
	if err != nil {
		t.Fatal(err)
	}
	if !changed || got.N != 1 || !got.Fetched || got.Location != "https://www.final.example/article" || got.Site != "final.example" ||
		got.Title != "Search title" || got.Excerpt != "snippet" || got.Published != "2025-01-02" || got.MessageID != "" {
		t.Errorf("merged fetch = %+v (changed %v)", got, changed)
	}
	// Both names now lead to 1.
	for _, u := range []string{"https://short.example/x", "https://final.example/article"} {
		if s, _ := db.AddSource(ctx, "c", webSource(u, "again")); s.N != 1 {
			t.Errorf("%s → [%d], want [1]", u, s.N)
		}
	}
	// A redirect onto a URL that is already another source keeps the requested number and
	// does not steal the other's location.
	if _, err := db.AddSource(ctx, "c", webSource("https://short.example/y", "Y")); err != nil {
		t.Fatal(err)
	}
	got, err = db.AddSource(ctx, "c", sources.Source{Kind: sources.KindWeb, Location: "https://taken.example/page",
		Requested: "https://short.example/y", Fetched: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.N != 3 || got.Location != "https://short.example/y" || !got.Fetched {
		t.Errorf("redirect onto source 2 = %+v, want [3] fetched at its own URL", got)
	}
	if s, _ := db.AddSource(ctx, "c", webSource("https://taken.example/page", "")); s.N != 2 {
		t.Errorf("taken URL → [%d], want [2]", s.N)
	}
}

func TestAddSourceInvalid(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	for name, tc := range map[string]struct {
		conv string
		src  sources.Source
		want error
	}{
		"no conversation id":   {"", webSource("https://a.example/", "A"), ErrInvalid},
		"no location":          {"c", sources.Source{Kind: sources.KindWeb, Location: "  "}, ErrInvalid},
		"unknown kind":         {"c", sources.Source{Kind: "mail", Location: "x"}, ErrInvalid},
		"unknown conversation": {"nope", webSource("https://a.example/", "A"), ErrNotFound},
	} {
		if _, err := db.AddSource(ctx, tc.conv, tc.src); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}
	if list, err := db.Sources(ctx, "c"); err != nil || len(list) != 0 {
		t.Errorf("after refusals: %v, %v; want an empty list", list, err)
	}
}

// Many writers on two connections pools at once: every URL gets exactly one number, the
// numbers are 1..N without a gap, and the same URL from every writer gets the same one.
func TestAddSourceConcurrent(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	path := filepath.Join(dir, "af.db")
	db1, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db1.Close() })
	db2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db2.Close() })
	createConv(t, db1, "c")

	const writers, urls = 8, 25
	got := make([][]int, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := db1
			if w%2 == 1 {
				db = db2
			}
			got[w] = make([]int, urls)
			for i := range urls {
				u := (i + w*7) % urls // each writer in another order
				s, err := db.AddSource(ctx, "c", webSource(fmt.Sprintf("https://example.com/%d", u), "T"))
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				got[w][u] = s.N
			}
		}()
	}
	wg.Wait()
	list, err := db1.Sources(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != urls {
		t.Fatalf("%d sources, want %d", len(list), urls)
	}
	for i, s := range list {
		if s.N != i+1 {
			t.Fatalf("source %d has number %d: numbers must be 1..%d", i, s.N, urls)
		}
	}
	for w := 1; w < writers; w++ {
		for u := range urls {
			if got[w][u] != got[0][u] {
				t.Errorf("URL %d: writer %d got [%d], writer 0 got [%d]", u, w, got[w][u], got[0][u])
			}
		}
	}
}

func TestSourcesGoWithTheirConversation(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	if _, err := db.AddSource(ctx, "c", webSource("https://a.example/", "A")); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteConversation(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM sources) + (SELECT count(*) FROM source_keys)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("rows left after deleting the conversation: %d, %v", n, err)
	}
}

// BenchmarkAddSource measures recording a search's results: half new URLs, half known
// ones (the upsert's both paths), in a conversation that already holds 500 sources.
func BenchmarkAddSource(b *testing.B) {
	db := openTestDB(b)
	ctx := context.Background()
	createConv(b, db, "c")
	for i := range 500 {
		if _, err := db.AddSource(ctx, "c", webSource(fmt.Sprintf("https://example.com/seed/%d", i), "T")); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		u := fmt.Sprintf("https://example.com/seed/%d", i%500)
		if i%2 == 1 {
			u = fmt.Sprintf("https://example.com/new/%d", i)
		}
		if _, err := db.AddSource(ctx, "c", webSource(u, "T")); err != nil {
			b.Fatal(err)
		}
	}
}

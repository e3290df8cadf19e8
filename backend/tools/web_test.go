package tools

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/sources"
	"artifactflow/backend/store"
	"artifactflow/backend/web"
)

// fakeSearcher answers every query with results, or fails with err.
type fakeSearcher struct {
	results []web.SearchResult
	err     error
}

func (f fakeSearcher) Search(context.Context, string, int) ([]web.SearchResult, error) {
	return f.results, f.err
}

// fakeFetcher returns page for any URL, or fails with err.
type fakeFetcher struct {
	page web.Page
	err  error
}

func (f fakeFetcher) Fetch(context.Context, string) (web.Page, error) { return f.page, f.err }

// dbRecorder records into a real database, like the engine's recorder without events.
type dbRecorder struct{ db *store.DB }

func (r dbRecorder) Record(ctx context.Context, conv string, s sources.Source) (sources.Source, error) {
	return r.db.AddSource(ctx, conv, s)
}

// failingRecorder always fails.
type failingRecorder struct{}

func (failingRecorder) Record(context.Context, string, sources.Source) (sources.Source, error) {
	return sources.Source{}, errors.New("disk full")
}

func openDB(t *testing.T) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateConversation(ctx, store.Conversation{ID: "conv", Title: "t", CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return db
}

func callCtx(tool string) context.Context {
	return WithCall(context.Background(), CallInfo{ConversationID: "conv", MessageID: "msg", CallID: "c1", ToolName: tool, Agent: "search_agent"})
}

// TestWebSearchNumbersResults: each result is listed as "[n] Title" with its URL and
// snippet, the numbers are the conversation's source numbers (a later search showing the
// same page shows the same number), and the sources are stored with title, site, excerpt,
// published date and the message.
func TestWebSearchNumbersResults(t *testing.T) {
	db := openDB(t)
	s := WebSearch{S: fakeSearcher{results: []web.SearchResult{
		{Title: "Moon facts", URL: "https://www.moon.example/facts", Snippet: "The Moon is\n384,400 km away.", PublishedDate: "2024-05-01"},
		{Title: "Tides", URL: "https://tides.example/", Snippet: "Tides follow the Moon."},
	}}, Sources: dbRecorder{db}}
	res := s.Execute(callCtx("web_search"), map[string]any{"query": "moon"})
	if !res.Success {
		t.Fatalf("result = %+v", res)
	}
	want := "[1] Moon facts\n    URL: https://www.moon.example/facts\n    The Moon is 384,400 km away.\n" +
		"[2] Tides\n    URL: https://tides.example/\n    Tides follow the Moon.\n\nCite a result by its number in brackets, e.g. [1]."
	if res.Data != want {
		t.Errorf("data =\n%s\nwant\n%s", res.Data, want)
	}
	if got, _ := res.Metadata[MetaSources].([]sources.Source); len(got) != 2 || got[1].N != 2 {
		t.Errorf("metadata sources = %+v", res.Metadata[MetaSources])
	}

	s.S = fakeSearcher{results: []web.SearchResult{
		{Title: "Eclipses", URL: "https://eclipse.example/a"},
		{Title: "Tides again", URL: "http://tides.example"},
	}}
	res = s.Execute(callCtx("web_search"), map[string]any{"query": "moon 2"})
	if !strings.HasPrefix(res.Data, "[3] Eclipses\n    URL: https://eclipse.example/a\n[2] Tides again\n") {
		t.Errorf("second search =\n%s", res.Data)
	}
	list, err := db.Sources(context.Background(), "conv")
	if err != nil || len(list) != 3 {
		t.Fatalf("sources = %+v, %v", list, err)
	}
	if m := list[0]; m.Title != "Moon facts" || m.Site != "moon.example" || m.Excerpt != "The Moon is 384,400 km away." ||
		m.Published != "2024-05-01" || m.MessageID != "msg" || m.Fetched || m.Kind != sources.KindWeb {
		t.Errorf("source 1 = %+v", m)
	}
}

// TestWebSearchWithoutNumbers: a failing recorder, no recorder or no call context leave
// the search working, its results listed without numbers.
func TestWebSearchWithoutNumbers(t *testing.T) {
	results := []web.SearchResult{{Title: "A", URL: "https://a.example/"}}
	for name, tc := range map[string]struct {
		rec sources.Recorder
		ctx context.Context
	}{
		"recorder fails":  {failingRecorder{}, callCtx("web_search")},
		"no recorder":     {nil, callCtx("web_search")},
		"no call context": {failingRecorder{}, context.Background()},
	} {
		res := WebSearch{S: fakeSearcher{results: results}, Sources: tc.rec}.Execute(tc.ctx, map[string]any{"query": "a"})
		if !res.Success || res.Data != "- A\n    URL: https://a.example/" || res.Metadata[MetaSources] != nil {
			t.Errorf("%s: result = %+v", name, res)
		}
	}
}

// TestWebToolFailuresNameTheirCause: a failed search's MetaFailure is the provider's error
// (which names the provider); a failed fetch's names the URL; an unconfigured search says
// so.
func TestWebToolFailuresNameTheirCause(t *testing.T) {
	res := WebSearch{S: fakeSearcher{err: errors.New("brave search: rate limited (HTTP 429)")}}.Execute(callCtx("web_search"), map[string]any{"query": "x"})
	if res.Success || res.Metadata[MetaFailure] != "brave search: rate limited (HTTP 429)" || !strings.Contains(res.Error, "brave search") {
		t.Errorf("search failure = %+v", res)
	}
	res = WebSearch{}.Execute(callCtx("web_search"), map[string]any{"query": "x"})
	if res.Success || res.Metadata[MetaFailure] != "web search is not configured" {
		t.Errorf("no searcher = %+v", res)
	}
	res = WebFetch{F: fakeFetcher{err: errors.New("connection refused")}}.Execute(callCtx("web_fetch"), map[string]any{"url": " https://down.example/x "})
	if res.Success || res.Metadata[MetaFailure] != "fetch https://down.example/x: connection refused" {
		t.Errorf("fetch failure = %+v", res)
	}
	res = WebFetch{F: fakeFetcher{err: errors.New(`fetch "https://down.example/x": HTTP 404`)}}.Execute(callCtx("web_fetch"), map[string]any{"url": "https://down.example/x"})
	if res.Metadata[MetaFailure] != `fetch "https://down.example/x": HTTP 404` {
		t.Errorf("fetch failure naming its URL = %+v", res.Metadata)
	}
}

// TestWebFetchNumbersPage: a fetched page starts with "Source [n]: URL" and its title; a
// page reached by a redirect keeps the number its requested URL had from a search, now at
// the final URL and marked fetched with an excerpt of its text.
func TestWebFetchNumbersPage(t *testing.T) {
	db := openDB(t)
	ctx := callCtx("web_fetch")
	if _, err := db.AddSource(ctx, "conv", sources.Source{Kind: sources.KindWeb, Location: "https://other.example/", Title: "Other"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddSource(ctx, "conv", sources.Source{Kind: sources.KindWeb, Location: "https://moon.example/old", Title: "Moon (search)"}); err != nil {
		t.Fatal(err)
	}
	body := "[Page 1]\n# The Moon\n\n" + strings.Repeat("The Moon orbits the Earth. ", 30)
	f := WebFetch{F: fakeFetcher{page: web.Page{URL: "https://moon.example/new", Title: "The Moon", Content: body}}, Sources: dbRecorder{db}}
	res := f.Execute(ctx, map[string]any{"url": "https://moon.example/old"})
	if !res.Success || !strings.HasPrefix(res.Data, "Source [2]: https://moon.example/new\nTitle: The Moon\n\n[Page 1]") {
		t.Fatalf("result = %+v", res)
	}
	list, _ := db.Sources(ctx, "conv")
	if len(list) != 2 {
		t.Fatalf("sources = %+v", list)
	}
	m := list[1]
	if !m.Fetched || m.Location != "https://moon.example/new" || !strings.HasPrefix(m.Excerpt, "The Moon The Moon orbits the Earth.") ||
		len([]rune(m.Excerpt)) > sources.ExcerptRunes+1 || !strings.HasSuffix(m.Excerpt, "…") {
		t.Errorf("fetched source = %+v", m)
	}
	// Fetching the final URL again is the same source.
	res = f.Execute(ctx, map[string]any{"url": "https://moon.example/new"})
	if !strings.HasPrefix(res.Data, "Source [2]: ") {
		t.Errorf("refetch = %.60q", res.Data)
	}
	// Without a number the page is still returned.
	f.Sources = failingRecorder{}
	res = f.Execute(ctx, map[string]any{"url": "https://moon.example/new"})
	if !res.Success || !strings.HasPrefix(res.Data, "URL: https://moon.example/new\nTitle: The Moon\n") {
		t.Errorf("unnumbered fetch = %.80q", res.Data)
	}
}

package tools

import (
	"context"
	"fmt"
	"strings"

	"artifactflow/backend/web"
)

// Searcher is what web_search needs; *web.SearXNG satisfies it.
type Searcher interface {
	Search(ctx context.Context, query string, count int) ([]web.SearchResult, error)
}

// Fetcher is what web_fetch needs; *web.Fetcher satisfies it.
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) (web.Page, error)
}

// Limits of the web tools.
const (
	DefaultSearchCount      = 5
	MaxSearchCount          = 20
	DefaultFetchContentRune = 20000
	MaxFetchContentRune     = 100000
)

// MetaResults is the Result.Metadata key holding the number of search results, and
// MetaURL the final URL of a fetched page.
const (
	MetaResults = "results"
	MetaURL     = "url"
)

// WebSearch is the web_search tool (seed 001, search_agent).
type WebSearch struct{ S Searcher }

// Name returns "web_search".
func (WebSearch) Name() string { return "web_search" }

// Description tells the model what the tool does.
func (WebSearch) Description() string {
	return "Search the web. Returns titles, URLs and snippets of the top results."
}

// Params returns query and count.
func (WebSearch) Params() []Param {
	return []Param{
		{Name: "query", Type: "string", Required: true, Description: "Search query"},
		{Name: "count", Type: "integer", Description: fmt.Sprintf("Number of results, 1-%d (default %d)", MaxSearchCount, DefaultSearchCount)},
	}
}

// Execute runs the search and formats the results as a numbered list.
func (t WebSearch) Execute(ctx context.Context, p map[string]any) Result {
	q, err := String(p, "query", true)
	if err != nil {
		return Fail("%v", err)
	}
	n, err := Int(p, "count", DefaultSearchCount)
	if err != nil {
		return Fail("%v", err)
	}
	n = min(max(n, 1), MaxSearchCount)
	if t.S == nil {
		return Fail("web_search is not available: no SearXNG URL is configured (the user can set it in Settings or with --searxng-url); answer from what you know and say so")
	}
	results, err := t.S.Search(ctx, q, n)
	if err != nil {
		return Fail("web_search failed: %v", err)
	}
	var b strings.Builder
	if len(results) == 0 {
		fmt.Fprintf(&b, "No results for %q. Try a broader or differently worded query.", q)
	}
	for i, r := range results {
		fmt.Fprintf(&b, "%d. %s\n   URL: %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	res := OK(strings.TrimRight(b.String(), "\n"))
	res.Metadata = map[string]any{MetaResults: len(results)}
	return res
}

// WebFetch is the web_fetch tool (seed 001, crawl_agent).
type WebFetch struct{ F Fetcher }

// Name returns "web_fetch".
func (WebFetch) Name() string { return "web_fetch" }

// Description tells the model what the tool does.
func (WebFetch) Description() string {
	return "Fetch a web page or PDF by URL and return its main content as Markdown."
}

// Params returns url and max_content_length.
func (WebFetch) Params() []Param {
	return []Param{
		{Name: "url", Type: "string", Required: true, Description: "Absolute http(s) URL"},
		{Name: "max_content_length", Type: "integer", Description: fmt.Sprintf("Maximum characters of content to return (default %d)", DefaultFetchContentRune)},
	}
}

// Execute fetches the page and returns its title, final URL and content, cut to
// max_content_length runes.
func (t WebFetch) Execute(ctx context.Context, p map[string]any) Result {
	u, err := String(p, "url", true)
	if err != nil {
		return Fail("%v", err)
	}
	limit, err := Int(p, "max_content_length", DefaultFetchContentRune)
	if err != nil {
		return Fail("%v", err)
	}
	limit = min(max(limit, 100), MaxFetchContentRune)
	if t.F == nil {
		return Fail("web_fetch is not available in this run")
	}
	page, err := t.F.Fetch(ctx, strings.TrimSpace(u))
	if err != nil {
		return Fail("web_fetch failed: %v", err)
	}
	content, cut := web.Truncate(page.Content, limit)
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", page.URL)
	if page.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", page.Title)
	}
	b.WriteString("\n")
	b.WriteString(content)
	if cut || page.Truncated {
		b.WriteString("\n\n[content truncated]")
	}
	res := OK(b.String())
	res.Metadata = map[string]any{MetaURL: page.URL}
	return res
}

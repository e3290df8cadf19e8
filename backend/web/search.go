package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Search result counts (web_search's count parameter).
const (
	// DefaultSearchCount is the number of results when the count asked for is 0 or less.
	DefaultSearchCount = 5
	// MaxSearchCount is the most results one search returns.
	MaxSearchCount = 20
)

// maxSearchResponse caps how much of a SearXNG answer is read (bytes).
const maxSearchResponse = 8 << 20

// SearchResult is one web search hit. Snippet is the engine's short excerpt; Engine names
// the engine that found it (e.g. "duckduckgo"); PublishedDate is as the engine gave it
// (usually ISO 8601) or "".
type SearchResult struct {
	Title, URL, Snippet, Engine string
	PublishedDate               string
}

// Searcher runs a web search and returns at most count results, best first.
type Searcher interface {
	Search(ctx context.Context, query string, count int) ([]SearchResult, error)
}

// SearXNG searches through a SearXNG instance's JSON API. The instance usually runs on the
// user's own machine, so it is deliberately not subject to the fetcher's private-network
// guard. It is safe for concurrent use.
type SearXNG struct {
	endpoint *url.URL // {base}/search
	client   *http.Client
}

var _ Searcher = (*SearXNG)(nil)

// NewSearXNG returns a client for the SearXNG instance at baseURL, e.g.
// "http://localhost:8888" or "https://example.org/searxng" (a path prefix is kept; a
// trailing "/search" is accepted too). An empty baseURL gives ErrNotConfigured; one that
// is not an absolute http(s) URL gives ErrBadURL. A nil client means a client with a 20 s
// timeout.
func NewSearXNG(baseURL string, client *http.Client) (*SearXNG, error) {
	raw := strings.TrimSpace(baseURL)
	if raw == "" {
		return nil, ErrNotConfigured
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: SearXNG URL %q: %w", ErrBadURL, raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%w: SearXNG URL %q must be an absolute http:// or https:// URL", ErrBadURL, raw)
	}
	u.RawQuery, u.Fragment = "", ""
	if !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/search") {
		u = u.JoinPath("search")
	}
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	return &SearXNG{endpoint: u, client: client}, nil
}

// searxngResponse is the part of SearXNG's format=json answer that is used.
type searxngResponse struct {
	Results []struct {
		Title         string          `json:"title"`
		URL           string          `json:"url"`
		Content       string          `json:"content"`
		Engine        string          `json:"engine"`
		PublishedDate json.RawMessage `json:"publishedDate"` // string or null
	} `json:"results"`
}

// Search sends GET {base}/search?q=query&format=json and returns at most count results
// (count <= 0 means DefaultSearchCount; above MaxSearchCount it is capped), skipping
// results without a URL. Errors: ErrEmptyQuery for a blank query; ErrHTTPStatus for a
// non-200 answer (a 403 says to enable the JSON format in SearXNG's settings.yml); a
// decode error for a body that is not SearXNG JSON; transport errors as they come.
func (s *SearXNG) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, ErrEmptyQuery
	}
	if count <= 0 {
		count = DefaultSearchCount
	}
	count = min(count, MaxSearchCount)

	u := *s.endpoint
	u.RawQuery = url.Values{"q": {q}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("searxng search %q: %w", q, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("searxng search %q at %s: %w", q, s.endpoint, err)
	}
	defer resp.Body.Close()

	switch {
	case resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("searxng search %q at %s: %w %s: the JSON format is probably not enabled; "+
			"add json to search.formats in SearXNG's settings.yml", q, s.endpoint, ErrHTTPStatus, resp.Status)
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, fmt.Errorf("searxng search %q at %s: %w %s: SearXNG's limiter refused the request; "+
			"for a private instance set server.limiter: false in settings.yml", q, s.endpoint, ErrHTTPStatus, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("searxng search %q at %s: %w %s", q, s.endpoint, ErrHTTPStatus, resp.Status)
	}

	var body searxngResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxSearchResponse)).Decode(&body); err != nil {
		return nil, fmt.Errorf("searxng search %q at %s: decode JSON answer (is this a SearXNG instance?): %w", q, s.endpoint, err)
	}
	out := make([]SearchResult, 0, min(count, len(body.Results)))
	for _, r := range body.Results {
		if len(out) == count {
			break
		}
		link := strings.TrimSpace(r.URL)
		if link == "" {
			continue
		}
		res := SearchResult{
			Title:   strings.TrimSpace(r.Title),
			URL:     link,
			Snippet: strings.TrimSpace(r.Content),
			Engine:  r.Engine,
		}
		if res.Title == "" {
			res.Title = link
		}
		_ = json.Unmarshal(r.PublishedDate, &res.PublishedDate) // null or a non-string leaves ""
		out = append(out, res)
	}
	return out, nil
}

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Search result counts (web_search's count parameter).
const (
	// DefaultSearchCount is the number of results when the count asked for is 0 or less.
	DefaultSearchCount = 5
	// MaxSearchCount is the most results one search returns.
	MaxSearchCount = 20
)

// maxSearchResponse caps how much of a search provider's answer is read (bytes).
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
// guard. It shares the other providers' HTTP core (size cap, one retry after a 429). It is
// safe for concurrent use.
type SearXNG struct {
	endpoint *url.URL // {base}/search
	api      *apiClient
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
		return nil, fmt.Errorf("%w: set the SearXNG URL in Settings or pass --searxng-url", ErrNotConfigured)
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
	api, err := newAPIClient(ProviderSearXNG, "", client)
	if err != nil {
		return nil, err
	}
	return &SearXNG{endpoint: u, api: api}, nil
}

// searxngResponse is the part of SearXNG's format=json answer that is used.
type searxngResponse struct {
	Results resultArray[struct {
		Title         string          `json:"title"`
		URL           string          `json:"url"`
		Content       string          `json:"content"`
		Engine        string          `json:"engine"`
		PublishedDate json.RawMessage `json:"publishedDate"` // string or null
	}] `json:"results"` // the first maxDecodedResults only
}

// searxngError gives the settings.yml fix for SearXNG's usual refusals: 403 when the JSON
// format is not enabled, 429 from its bot limiter.
func searxngError(status int, _ []byte) errorInfo {
	switch status {
	case http.StatusForbidden:
		return errorInfo{hint: "the JSON format is probably not enabled; add json to search.formats in SearXNG's settings.yml"}
	case http.StatusTooManyRequests:
		return errorInfo{hint: "SearXNG's limiter refused the request; for a private instance set server.limiter: false in settings.yml"}
	}
	return errorInfo{}
}

// Search sends GET {base}/search?q=query&format=json and returns at most count results
// (count <= 0 means DefaultSearchCount; above MaxSearchCount it is capped), skipping
// results without an http(s) URL and repeated URLs; titles and snippets are reduced to
// plain text. Errors start with "searxng search at <host and path prefix>" (e.g.
// "searxng search at 127.0.0.1:8888: connection refused by 127.0.0.1:8888 (nothing is
// listening there)": the cause comes first and briefly, see netcause.Describe, and neither
// the query nor the request URL is quoted): ErrEmptyQuery for a
// blank query; ErrHTTPStatus for a non-2xx answer (a 403 says to enable the JSON format in
// SearXNG's settings.yml); ErrRateLimited (and ErrHTTPStatus) after a 429 that a retry
// after Retry-After did not cure (it names SearXNG's limiter setting); a decode error for a
// body that is not SearXNG JSON; transport errors as they come.
func (s *SearXNG) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, ErrEmptyQuery
	}
	count = searchCount(count)

	api := *s.api
	api.prefix = "searxng search at " + s.endpoint.Host + strings.TrimSuffix(strings.TrimSuffix("/"+strings.Trim(s.endpoint.Path, "/"), "search"), "/")
	u := *s.endpoint
	u.RawQuery = url.Values{"q": {q}, "format": {"json"}}.Encode()
	resp, err := api.send(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		return req, nil
	}, searxngError)
	if err != nil {
		return nil, err
	}

	var body searxngResponse
	if err := json.Unmarshal(resp.body, &body); err != nil {
		return nil, api.fail(nil, "decode JSON answer (is this a SearXNG instance?): %v", err)
	}
	list := newResultList(ProviderSearXNG, count)
	for _, r := range body.Results {
		var published string
		_ = json.Unmarshal(r.PublishedDate, &published) // null or a non-string leaves ""
		list.addFrom(r.Engine, r.Title, r.URL, r.Content, published)
	}
	return list.out, nil
}

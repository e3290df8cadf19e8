package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// tavilyEndpoint is Tavily's search API (https://docs.tavily.com/api-reference/endpoint/search).
const tavilyEndpoint = "https://api.tavily.com/search"

// tavily searches through Tavily's API, built for LLM agents; it needs an API key.
type tavily struct {
	api      *apiClient
	endpoint string
}

var _ Searcher = (*tavily)(nil)

// newTavily returns the Tavily searcher; base overrides the endpoint.
func newTavily(api *apiClient, base string) (*tavily, error) {
	endpoint, err := providerEndpoint(api.id, base, tavilyEndpoint)
	if err != nil {
		return nil, err
	}
	return &tavily{api: api, endpoint: endpoint}, nil
}

// tavilyRequest is the JSON body of POST /search.
type tavilyRequest struct {
	Query       string `json:"query"`
	MaxResults  int    `json:"max_results"`
	SearchDepth string `json:"search_depth"`
}

// tavilyResponse is the part of Tavily's answer that is used.
type tavilyResponse struct {
	Results resultArray[struct {
		Title         string `json:"title"`
		URL           string `json:"url"`
		Content       string `json:"content"`
		PublishedDate string `json:"published_date"` // only for topic "news"; usually absent
	}] `json:"results"` // the first maxDecodedResults only
}

// Search posts {query, max_results: count, search_depth: "basic"} with "Authorization:
// Bearer <key>" and returns results[].{title, url, content, published_date}. Errors:
// ErrEmptyQuery; the HTTP errors of apiClient.send, quoting Tavily's {"detail":{"error":…}}.
func (t *tavily) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, t.api.fail([]error{ErrEmptyQuery}, "%v", ErrEmptyQuery)
	}
	n := searchCount(count)
	payload, err := json.Marshal(tavilyRequest{Query: q, MaxResults: n, SearchDepth: "basic"})
	if err != nil {
		return nil, t.api.fail([]error{err}, "encode request: %v", err)
	}
	resp, err := t.api.send(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+t.api.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", userAgent)
		return req, nil
	}, func(_ int, body []byte) errorInfo {
		return errorInfo{msg: errorBodyField(body, "detail.error", "detail", "error", "message")}
	})
	if err != nil {
		return nil, err
	}
	var body tavilyResponse
	if err := t.api.decodeJSON(resp.body, &body); err != nil {
		return nil, err
	}
	list := newResultList(ProviderTavily, n)
	for _, r := range body.Results {
		list.add(r.Title, r.URL, r.Content, r.PublishedDate)
	}
	return list.out, nil
}

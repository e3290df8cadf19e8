package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// bochaEndpoint is Bocha's web search API (https://open.bochaai.com, "Web Search API"), the
// search provider the app was first designed around.
const bochaEndpoint = "https://api.bochaai.com/v1/web-search"

// bocha searches through Bocha (博查), a Chinese web search API for AI; it needs an API key.
type bocha struct {
	api      *apiClient
	endpoint string
}

var _ Searcher = (*bocha)(nil)

// newBocha returns the Bocha searcher; base overrides the endpoint.
func newBocha(api *apiClient, base string) (*bocha, error) {
	endpoint, err := providerEndpoint(api.id, base, bochaEndpoint)
	if err != nil {
		return nil, err
	}
	return &bocha{api: api, endpoint: endpoint}, nil
}

// bochaRequest is the JSON body of POST /v1/web-search.
type bochaRequest struct {
	Query     string `json:"query"`
	Count     int    `json:"count"`
	Summary   bool   `json:"summary"`
	Freshness string `json:"freshness"`
}

// bochaCode is Bocha's "code" field, a number on success (200) and a string on errors
// ("401").
type bochaCode int

// UnmarshalJSON accepts 200, "200" and null (0).
func (c *bochaCode) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if s == "" || s == "null" {
		*c = 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return err
	}
	*c = bochaCode(n)
	return nil
}

// bochaResponse is the part of Bocha's answer that is used (Bing-compatible webPages).
type bochaResponse struct {
	Code bochaCode `json:"code"`
	Msg  string    `json:"msg"`
	Data *struct {
		WebPages *struct {
			Value resultArray[struct {
				Name            string `json:"name"`
				URL             string `json:"url"`
				Snippet         string `json:"snippet"`
				Summary         string `json:"summary"`
				SiteName        string `json:"siteName"`
				DatePublished   string `json:"datePublished"`
				DateLastCrawled string `json:"dateLastCrawled"`
			}] `json:"value"` // the first maxDecodedResults only
		} `json:"webPages"`
	} `json:"data"`
}

// Search posts {query, count, summary: true, freshness: "noLimit"} with "Authorization:
// Bearer <key>" and returns data.webPages.value[].{name, url, summary (else snippet),
// datePublished}. Bocha documents that dateLastCrawled is really the publication time in
// Beijing time mislabelled "Z"; it is used, as +08:00, only when datePublished is absent.
// Errors: ErrEmptyQuery; the HTTP errors of apiClient.send quoting Bocha's
// {"code","message"} body; a body whose own code is not 200 (ErrAuth for 401/403,
// ErrRateLimited for 429, else ErrHTTPStatus).
func (b *bocha) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, b.api.fail([]error{ErrEmptyQuery}, "%v", ErrEmptyQuery)
	}
	n := searchCount(count)
	payload, err := json.Marshal(bochaRequest{Query: q, Count: n, Summary: true, Freshness: "noLimit"})
	if err != nil {
		return nil, b.api.fail([]error{err}, "encode request: %v", err)
	}
	resp, err := b.api.send(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.endpoint, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+b.api.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", userAgent)
		return req, nil
	}, bochaError)
	if err != nil {
		return nil, err
	}
	var body bochaResponse
	if err := b.api.decodeJSON(resp.body, &body); err != nil {
		return nil, err
	}
	if body.Code != 0 && body.Code != http.StatusOK {
		inner := &apiResponse{status: int(body.Code), header: resp.header, body: resp.body}
		if inner.status == http.StatusTooManyRequests {
			return nil, b.api.fail([]error{ErrRateLimited}, "rate limited (code 429)%s", b.api.excerpt(inner, bochaError))
		}
		return nil, b.api.statusError(inner, bochaError)
	}
	list := newResultList(ProviderBocha, n)
	if body.Data == nil || body.Data.WebPages == nil {
		return list.out, nil
	}
	for _, r := range body.Data.WebPages.Value {
		snippet := r.Summary
		if strings.TrimSpace(snippet) == "" {
			snippet = r.Snippet
		}
		published := strings.TrimSpace(r.DatePublished)
		if published == "" {
			published = strings.TrimSpace(r.DateLastCrawled)
			if strings.HasSuffix(published, "Z") {
				published = strings.TrimSuffix(published, "Z") + "+08:00"
			}
		}
		list.add(r.Name, r.URL, snippet, published)
	}
	return list.out, nil
}

// bochaError reads Bocha's error body, {"code":"401","message":"Invalid API KEY",
// "log_id":"…"} (testdata/search/bocha_error.json); "msg" is the same field in its
// success envelope.
func bochaError(_ int, body []byte) errorInfo {
	return errorInfo{msg: errorBodyField(body, "message", "msg", "error")}
}

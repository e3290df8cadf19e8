package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// exaEndpoint is Exa's search API (https://exa.ai/docs/reference/search).
const exaEndpoint = "https://api.exa.ai/search"

// exaTextChars is how much page text Exa returns per result (characters), used as the
// snippet.
const exaTextChars = maxSnippetRunes

// exa searches through Exa's neural search API; it needs an API key.
type exa struct {
	api      *apiClient
	endpoint string
}

var _ Searcher = (*exa)(nil)

// newExa returns the Exa searcher; base overrides the endpoint.
func newExa(api *apiClient, base string) (*exa, error) {
	endpoint, err := providerEndpoint(api.id, base, exaEndpoint)
	if err != nil {
		return nil, err
	}
	return &exa{api: api, endpoint: endpoint}, nil
}

// exaRequest is the JSON body of POST /search.
type exaRequest struct {
	Query      string `json:"query"`
	NumResults int    `json:"numResults"`
	Contents   struct {
		Text struct {
			MaxCharacters int `json:"maxCharacters"`
		} `json:"text"`
	} `json:"contents"`
}

// exaResponse is the part of Exa's answer that is used.
type exaResponse struct {
	Results resultArray[struct {
		Title         string              `json:"title"`
		URL           string              `json:"url"`
		PublishedDate string              `json:"publishedDate"`
		Text          string              `json:"text"`
		Highlights    resultArray[string] `json:"highlights"`
	}] `json:"results"` // the first maxDecodedResults only, each with its first maxDecodedResults highlights
}

// Search posts {query, numResults: count, contents: {text: {maxCharacters: 600}}} with
// x-api-key and returns results[].{title, url, publishedDate, highlights (joined) else
// text}. Errors: ErrEmptyQuery; the HTTP errors of apiClient.send quoting Exa's
// {"requestId","error"} body, where a 400 about the x-api-key header counts as ErrAuth.
func (e *exa) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, e.api.fail([]error{ErrEmptyQuery}, "%v", ErrEmptyQuery)
	}
	n := searchCount(count)
	body := exaRequest{Query: q, NumResults: n}
	body.Contents.Text.MaxCharacters = exaTextChars
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, e.api.fail([]error{err}, "encode request: %v", err)
	}
	resp, err := e.api.send(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.endpoint, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("x-api-key", e.api.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", userAgent)
		return req, nil
	}, exaError)
	if err != nil {
		return nil, err
	}
	var answer exaResponse
	if err := e.api.decodeJSON(resp.body, &answer); err != nil {
		return nil, err
	}
	list := newResultList(ProviderExa, n)
	for _, r := range answer.Results {
		snippet := strings.Join(r.Highlights, " … ")
		if strings.TrimSpace(snippet) == "" {
			snippet = r.Text
		}
		list.add(r.Title, r.URL, snippet, r.PublishedDate)
	}
	return list.out, nil
}

// exaError reads Exa's error body, {"requestId":"…","error":"x-api-key header is invalid"}
// (testdata/search/exa_error.json); Exa answers a bad key with 400 or 401, so an error about
// the API key counts as a refused key whatever the status.
func exaError(_ int, body []byte) errorInfo {
	msg := errorBodyField(body, "error", "message", "error.message")
	low := strings.ToLower(msg)
	return errorInfo{msg: msg, auth: strings.Contains(low, "api-key") || strings.Contains(low, "api key")}
}

package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// braveEndpoint is Brave Search's web search API
// (https://api-dashboard.search.brave.com/app/documentation/web-search).
const braveEndpoint = "https://api.search.brave.com/res/v1/web/search"

// brave searches through the Brave Search API; it needs a subscription token (API key).
type brave struct {
	api      *apiClient
	endpoint string
}

var _ Searcher = (*brave)(nil)

// newBrave returns the Brave searcher; base overrides the endpoint.
func newBrave(api *apiClient, base string) (*brave, error) {
	endpoint, err := providerEndpoint(api.id, base, braveEndpoint)
	if err != nil {
		return nil, err
	}
	return &brave{api: api, endpoint: endpoint}, nil
}

// braveResponse is the part of Brave's answer that is used; "web" is absent when there are
// no web results.
type braveResponse struct {
	Web *struct {
		Results resultArray[struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"` // with <strong> around matches
			PageAge     string `json:"page_age"`    // ISO 8601, when Brave dates the page
			Age         string `json:"age"`         // human-readable ("3 days ago"), when dated
		}] `json:"results"` // the first maxDecodedResults only
	} `json:"web"`
}

// Search asks GET ?q=query&count=count with X-Subscription-Token and returns
// web.results[].{title, url, description, page_age (else age)}. Errors: ErrEmptyQuery; the
// HTTP errors of apiClient.send: Brave's error body {"error":{"code","detail"}} is quoted,
// and its 422 SUBSCRIPTION_TOKEN_INVALID (how Brave refuses a bad key) counts as ErrAuth.
func (b *brave) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, b.api.fail([]error{ErrEmptyQuery}, "%v", ErrEmptyQuery)
	}
	n := searchCount(count)
	target := b.endpoint + "?" + url.Values{"q": {q}, "count": {strconv.Itoa(n)}}.Encode()
	resp, err := b.api.send(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Subscription-Token", b.api.key)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", userAgent)
		return req, nil
	}, braveError)
	if err != nil {
		return nil, err
	}
	var body braveResponse
	if err := b.api.decodeJSON(resp.body, &body); err != nil {
		return nil, err
	}
	list := newResultList(ProviderBrave, n)
	if body.Web == nil {
		return list.out, nil
	}
	for _, r := range body.Web.Results {
		published := r.PageAge
		if strings.TrimSpace(published) == "" {
			published = r.Age
		}
		list.add(r.Title, r.URL, r.Description, published)
	}
	return list.out, nil
}

// braveError reads Brave's error body, {"type":"ErrorResponse","error":{"code":
// "SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.",…}}
// (testdata/search/brave_error.json).
func braveError(_ int, body []byte) errorInfo {
	code := errorBodyField(body, "error.code")
	msg := errorBodyField(body, "error.detail", "message")
	if code != "" {
		msg = strings.TrimSpace(msg + " (" + code + ")")
	}
	return errorInfo{msg: msg, auth: strings.HasPrefix(code, "SUBSCRIPTION_TOKEN_")}
}

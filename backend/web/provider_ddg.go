package web

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ddgEndpoint is DuckDuckGo's JavaScript-free results page, which takes the query as a form
// POST and answers with server-rendered HTML.
const ddgEndpoint = "https://html.duckduckgo.com/html/"

// browserUserAgent is sent to DuckDuckGo, whose HTML endpoint refuses unknown agents more
// often than a current desktop browser.
const browserUserAgent = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// maxDDGPage is how much of a DuckDuckGo results page is parsed (bytes): the results come
// first on the page, which is about 25 KiB for ten of them. The parser builds a node per tag
// and per text, up to 60 bytes of memory per byte of page, so eight megabytes of "<p>,"
// would take about 460 MB; the first 512 KiB take at most about 30 MB.
const maxDDGPage = 512 << 10

// duckDuckGo searches through DuckDuckGo's HTML results page: no key and no server needed,
// hence the default provider. It returns at most the first page (about ten results).
type duckDuckGo struct {
	api      *apiClient
	endpoint string
	language string // Accept-Language, or "" for English
}

var _ Searcher = (*duckDuckGo)(nil)

// newDuckDuckGo returns the DuckDuckGo searcher; base overrides the endpoint.
func newDuckDuckGo(api *apiClient, base, language string) (*duckDuckGo, error) {
	endpoint, err := providerEndpoint(api.id, base, ddgEndpoint)
	if err != nil {
		return nil, err
	}
	return &duckDuckGo{api: api, endpoint: endpoint, language: language}, nil
}

// Search posts q=query to the HTML endpoint and returns at most count results from the
// page (count as for every provider: 0 or less means DefaultSearchCount, at most
// MaxSearchCount). Redirect links (//duckduckgo.com/l/?uddg=…) are unwrapped to the target
// URL; ads are skipped. DuckDuckGo's end-of-results and no-results pages give no results
// and no error (see parseDDG). Errors: ErrEmptyQuery; ErrRateLimited when DuckDuckGo serves its bot
// check (the "anomaly" captcha page) instead of results; an error for a page that has
// neither results nor DuckDuckGo's "No results" notice or end-of-results block; the HTTP
// errors of apiClient.send.
func (d *duckDuckGo) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, d.api.fail([]error{ErrEmptyQuery}, "%v", ErrEmptyQuery)
	}
	n := searchCount(count)
	resp, err := d.api.send(ctx, func(ctx context.Context) (*http.Request, error) {
		form := url.Values{"q": {q}, "b": {""}}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("User-Agent", browserUserAgent)
		req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
		lang := "en-US,en;q=0.9"
		if d.language != "" {
			lang = d.language + ",en;q=0.5"
		}
		req.Header.Set("Accept-Language", lang)
		req.Header.Set("Referer", "https://html.duckduckgo.com/")
		return req, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	page := parseDDG(resp.body)
	if page.challenge {
		return nil, d.api.fail([]error{ErrRateLimited},
			"%v: DuckDuckGo answered with its bot check (a captcha page) instead of results; wait a few minutes or choose another provider in Settings → Search", ErrRateLimited)
	}
	if len(page.results) == 0 && !page.noResults && !page.end {
		return nil, d.api.fail(nil, "the answer (HTTP %d) holds no results and no \"No results\" notice: DuckDuckGo may have changed its page or refused the request", resp.status)
	}
	list := newResultList(ProviderDuckDuckGo, n)
	for _, r := range page.results {
		list.add(r.title, r.url, r.snippet, r.date)
	}
	return list.out, nil
}

// ddgPage is what parseDDG finds on a results page.
type ddgPage struct {
	results   []ddgResult
	noResults bool // DuckDuckGo's "No results." notice is present: the page has no hits
	end       bool // DuckDuckGo's end-of-results block (the hand-over to Google) is present
	challenge bool // the page is the bot check (anomaly modal / challenge form)
}

// ddgResult is one organic result; url is already unwrapped from DuckDuckGo's redirect.
type ddgResult struct {
	title, url, snippet, date string
}

// parseDDG reads a page of html.duckduckgo.com/html/: its first maxDDGPage bytes, and the
// first maxDecodedResults results in them. Its shape (see
// testdata/search/duckduckgo.html): each hit is a div with class "result" holding
// a.result__a (title; href often //duckduckgo.com/l/?uddg=<escaped target>),
// .result__snippet and, in .result__extras__url, a span with the date when DuckDuckGo knows
// one; ads carry class "result--ad"; the bot check has a form#challenge-form and elements of
// class "anomaly-modal__…".
//
// A search with no (more) results answers with a block of class "result--no-result" holding
// the "No results." notice (class "no-results") and, beside it, a result-shaped block
// titled "EOF" whose link is the same query on Google. Such a page gives zero results:
// once the notice is present nothing on the page is a hit, and a block linking to a Google
// search page is never one (it is that hand-over; DuckDuckGo does not list search engines'
// result pages as hits), so it is dropped on any page and marks the end of the results;
// organic results beside it are kept.
func parseDDG(body []byte) ddgPage {
	var page ddgPage
	// html.Parse accepts any input, a cut one too; err is for I/O and for elements nested
	// more than 512 deep.
	doc, err := html.Parse(bytes.NewReader(utf8Prefix(body, maxDDGPage)))
	if err != nil {
		return page
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if len(page.results) >= maxDecodedResults {
			return
		}
		if n.Type == html.ElementNode {
			classes := strings.Fields(ddgAttr(n, "class"))
			if ddgAttr(n, "id") == "challenge-form" || ddgHasClassPrefix(classes, "anomaly-modal") {
				page.challenge = true
			}
			if ddgHasClass(classes, "no-results") || ddgHasClass(classes, "result--no-result") {
				page.noResults = true
			}
			if ddgHasClass(classes, "result") && !ddgHasClass(classes, "result--no-result") {
				if !ddgHasClass(classes, "result--ad") {
					if r, ok := ddgHit(n); ok && isGoogleSearch(r.url) {
						page.end = true
					} else if ok {
						page.results = append(page.results, r)
					}
				}
				return // a result holds no further results
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if page.noResults {
		page.results = nil
	}
	return page
}

// isGoogleSearch reports whether target is a Google web search page (host google.<tld> or
// www.google.<tld>, path /search): the link of DuckDuckGo's end-of-results block.
func isGoogleSearch(target string) bool {
	u, err := url.Parse(target)
	if err != nil || strings.TrimSuffix(u.Path, "/") != "/search" {
		return false
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	name, _, ok := strings.Cut(host, ".")
	return ok && name == "google"
}

// ddgHit reads one result block; false when it has no usable link (ads that escaped the
// class check link to duckduckgo.com/y.js and are dropped here).
func ddgHit(n *html.Node) (ddgResult, bool) {
	var r ddgResult
	var link string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			classes := strings.Fields(ddgAttr(n, "class"))
			switch {
			case n.DataAtom == atom.A && ddgHasClass(classes, "result__a") && link == "":
				link = ddgAttr(n, "href")
				r.title = ddgText(n)
				return
			case ddgHasClass(classes, "result__snippet") && r.snippet == "":
				r.snippet = ddgText(n)
				return
			case n.DataAtom == atom.Span && r.date == "" && ddgHasAncestorClass(n, "result__extras__url"):
				r.date = ddgDate(ddgText(n))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	r.url = unwrapDDG(link)
	return r, r.url != ""
}

// unwrapDDG resolves href against duckduckgo.com and returns the target URL: the uddg
// parameter of a /l/ redirect, the link itself when it points elsewhere, or "" for any
// other duckduckgo.com link (ads go through /y.js).
func unwrapDDG(href string) string {
	href = strings.TrimSpace(href)
	if href == "" {
		return ""
	}
	ref, err := url.Parse(href)
	if err != nil {
		return ""
	}
	u := (&url.URL{Scheme: "https", Host: "duckduckgo.com", Path: "/"}).ResolveReference(ref)
	host := strings.ToLower(u.Hostname())
	if host != "duckduckgo.com" && !strings.HasSuffix(host, ".duckduckgo.com") {
		return u.String()
	}
	if strings.TrimSuffix(u.Path, "/") == "/l" {
		return u.Query().Get("uddg")
	}
	return ""
}

// ddgDate returns the ISO date-time DuckDuckGo prints after a result's URL
// ("2024-03-05T00:00:00.0000000" → "2024-03-05T00:00:00"), or "" when the text is not one.
func ddgDate(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\u00a0", " "))
	if len(s) >= 19 {
		if _, err := time.Parse("2006-01-02T15:04:05", s[:19]); err == nil {
			return s[:19]
		}
	}
	if len(s) >= 10 {
		if _, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return s[:10]
		}
	}
	return ""
}

// ddgAttr returns n's attribute key, or "".
func ddgAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// ddgHasClass reports whether classes holds c exactly.
func ddgHasClass(classes []string, c string) bool {
	for _, x := range classes {
		if x == c {
			return true
		}
	}
	return false
}

// ddgHasClassPrefix reports whether a class in classes starts with prefix.
func ddgHasClassPrefix(classes []string, prefix string) bool {
	for _, x := range classes {
		if strings.HasPrefix(x, prefix) {
			return true
		}
	}
	return false
}

// ddgHasAncestorClass reports whether an ancestor of n has class c.
func ddgHasAncestorClass(n *html.Node, c string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && ddgHasClass(strings.Fields(ddgAttr(p, "class")), c) {
			return true
		}
	}
	return false
}

// ddgText returns the text under n with white space collapsed (entities are already
// decoded by the parser; script and style are skipped).
func ddgText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style):
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return oneLine(b.String())
}

package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// wikipediaEndpoint is the MediaWiki Action API of one language's Wikipedia; "{lang}" is
// replaced by the language code.
const wikipediaEndpoint = "https://{lang}.wikipedia.org/w/api.php"

// wikipedia searches Wikipedia's articles through the MediaWiki search API (list=search):
// no key needed. The language is fixed by the setting or follows each query's script.
type wikipedia struct {
	api      *apiClient
	endpoint string // may hold "{lang}"
	language string // "" = from the query
}

var _ Searcher = (*wikipedia)(nil)

// newWikipedia returns the Wikipedia searcher; base overrides the endpoint ("{lang}" in it is
// replaced); language must be a Wikipedia language code ("en", "zh", "zh-yue", "simple") or
// "".
func newWikipedia(api *apiClient, base, language string) (*wikipedia, error) {
	endpoint, err := providerEndpoint(api.id, strings.ReplaceAll(base, "{lang}", "xx"), wikipediaEndpoint)
	if err != nil {
		return nil, err
	}
	if base != "" {
		endpoint = base
	}
	lang := strings.ToLower(strings.TrimSpace(language))
	if lang != "" && !validWikiLanguage(lang) {
		return nil, fmt.Errorf("wikipedia search: language %q is not a Wikipedia language code such as en, de, zh or ja", language)
	}
	return &wikipedia{api: api, endpoint: endpoint, language: lang}, nil
}

// validWikiLanguage reports whether s can be a Wikipedia subdomain: 2 to 20 lower-case
// letters, digits and inner hyphens, starting with a letter.
func validWikiLanguage(s string) bool {
	if len(s) < 2 || len(s) > 20 || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// wikiResponse is the part of action=query&list=search's JSON that is used, and the API's
// error object (sent with HTTP 200).
type wikiResponse struct {
	Error *struct {
		Code string `json:"code"`
		Info string `json:"info"`
	} `json:"error"`
	Query struct {
		Search resultArray[struct {
			Title     string `json:"title"`
			Snippet   string `json:"snippet"`
			Timestamp string `json:"timestamp"`
		}] `json:"search"` // the first maxDecodedResults only
	} `json:"query"`
}

// Search asks {lang}.wikipedia.org/w/api.php?action=query&list=search&srsearch=query&
// srlimit=count&format=json&utf8=1 and returns the articles as results: URL
// https://{lang}.wikipedia.org/wiki/<Title_with_underscores>, the snippet without its
// <span class="searchmatch"> markup, PublishedDate the last edit's timestamp. The language
// is the configured one, else languageForQuery(query). Errors: ErrEmptyQuery; the API's own
// error (e.g. a bad parameter); the HTTP errors of apiClient.send.
func (w *wikipedia) Search(ctx context.Context, query string, count int) ([]SearchResult, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, w.api.fail([]error{ErrEmptyQuery}, "%v", ErrEmptyQuery)
	}
	n := searchCount(count)
	lang := w.language
	if lang == "" {
		lang = languageForQuery(q)
	}
	endpoint := strings.ReplaceAll(w.endpoint, "{lang}", lang)
	resp, err := w.api.send(ctx, func(ctx context.Context) (*http.Request, error) {
		params := url.Values{"action": {"query"}, "list": {"search"}, "srsearch": {q},
			"srlimit": {strconv.Itoa(n)}, "format": {"json"}, "utf8": {"1"}}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"?"+params.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", userAgent)
		req.Header.Set("Accept", "application/json")
		return req, nil
	}, func(_ int, body []byte) errorInfo {
		return errorInfo{msg: errorBodyField(body, "error.info", "httpreason")}
	})
	if err != nil {
		return nil, err
	}
	var body wikiResponse
	if err := w.api.decodeJSON(resp.body, &body); err != nil {
		return nil, err
	}
	if body.Error != nil {
		return nil, w.api.fail(nil, "the API refused the search (%s): %s", body.Error.Code, body.Error.Info)
	}
	list := newResultList(ProviderWikipedia, n)
	for _, r := range body.Query.Search {
		if strings.TrimSpace(r.Title) == "" {
			continue
		}
		list.add(r.Title, wikiArticleURL(lang, r.Title), r.Snippet, r.Timestamp)
	}
	return list.out, nil
}

// wikiArticleURL returns https://{lang}.wikipedia.org/wiki/<title>, spaces as underscores
// and the rest escaped as a URL path ("C++" stays, "What?" becomes "What%3F").
func wikiArticleURL(lang, title string) string {
	u := url.URL{Scheme: "https", Host: lang + ".wikipedia.org", Path: "/wiki/" + strings.ReplaceAll(strings.TrimSpace(title), " ", "_")}
	return u.String()
}

// scriptLanguages maps a writing system to the Wikipedia most likely wanted for a query
// written in it. Scripts shared by several languages get the largest one (Cyrillic → ru,
// Arabic → ar); kana is handled apart (Japanese mixes it with Han).
var scriptLanguages = []struct {
	lang   string
	script *unicode.RangeTable
}{
	{"zh", unicode.Han}, {"ko", unicode.Hangul}, {"ru", unicode.Cyrillic}, {"ar", unicode.Arabic},
	{"el", unicode.Greek}, {"he", unicode.Hebrew}, {"th", unicode.Thai}, {"hi", unicode.Devanagari},
	{"bn", unicode.Bengali}, {"ta", unicode.Tamil}, {"te", unicode.Telugu}, {"kn", unicode.Kannada},
	{"ml", unicode.Malayalam}, {"gu", unicode.Gujarati}, {"pa", unicode.Gurmukhi}, {"ka", unicode.Georgian},
	{"hy", unicode.Armenian}, {"km", unicode.Khmer}, {"lo", unicode.Lao}, {"my", unicode.Myanmar},
	{"si", unicode.Sinhala}, {"am", unicode.Ethiopic},
}

// languageForQuery picks a Wikipedia language from the query's letters: Japanese when it has
// kana and Han plus kana are at least as many as Latin letters; else the language of the
// non-Latin script with the most letters when that count is at least the Latin count
// (Han → zh, Hangul → ko, Cyrillic → ru, Arabic → ar, Greek → el, Hebrew → he, Thai → th,
// Devanagari → hi, …); else "en".
func languageForQuery(q string) string {
	counts := make([]int, len(scriptLanguages))
	latin, kana := 0, 0
	for _, r := range q {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana++
		case unicode.Is(unicode.Latin, r):
			latin++
		default:
			for i, s := range scriptLanguages {
				if unicode.Is(s.script, r) {
					counts[i]++
					break
				}
			}
		}
	}
	if kana > 0 && kana+counts[0] >= latin { // counts[0] is Han
		return "ja"
	}
	best := -1
	for i, c := range counts {
		if c > 0 && (best < 0 || c > counts[best]) {
			best = i
		}
	}
	if best >= 0 && counts[best] >= latin {
		return scriptLanguages[best].lang
	}
	return "en"
}

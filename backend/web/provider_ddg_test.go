package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestParseDDG(t *testing.T) {
	page := parseDDG(fixture(t, "duckduckgo.html"))
	if page.challenge || page.noResults {
		t.Fatalf("page = challenge %v, noResults %v; want a plain results page", page.challenge, page.noResults)
	}
	// 12 result blocks: the ad is skipped; the repeated URL is kept here and dropped by
	// resultList.
	if len(page.results) != 11 {
		t.Fatalf("%d results, want 11", len(page.results))
	}
	for _, r := range page.results {
		if strings.Contains(r.url, "duckduckgo.com") {
			t.Errorf("result %q kept a DuckDuckGo link (ad or unwrapped redirect)", r.url)
		}
		if strings.Contains(r.title, "<") || strings.Contains(r.snippet, "<b>") {
			t.Errorf("markup left in %+v", r)
		}
	}
	if r := page.results[3]; r.url != "https://en.wikipedia.org/wiki/Rust_(programming_language)" {
		t.Errorf("a direct (not redirected) link = %q", r.url)
	}
	if got := page.results[2].date; got != "2023-02-14" && got != "2023-02-14T00:00:00" {
		t.Errorf("date = %q", got)
	}
	if got := page.results[0].date; got != "" {
		t.Errorf("a result without a date span got %q", got)
	}
}

func TestParseDDGSpecialPages(t *testing.T) {
	if p := parseDDG(fixture(t, "duckduckgo_anomaly.html")); !p.challenge || len(p.results) != 0 {
		t.Errorf("anomaly page: %+v, want challenge and no results", p)
	}
	if p := parseDDG(fixture(t, "duckduckgo_noresults.html")); !p.noResults || p.challenge || len(p.results) != 0 {
		t.Errorf("no-results page: %+v", p)
	}
	for _, body := range []string{"", "<html><body><p>Service unavailable</p></body></html>", "\x00\xff<<<>>>"} {
		if p := parseDDG([]byte(body)); p.challenge || p.noResults || len(p.results) != 0 {
			t.Errorf("page %q: %+v, want nothing recognised", body, p)
		}
	}
}

// TestParseDDGRealPages reads results pages that html.duckduckgo.com served to another
// project (testdata/search/README.md): every organic block is a result, with a title, a
// snippet and its target unwrapped from the redirect; the ad is left out; a page with
// results is neither an end-of-results nor a no-results page.
func TestParseDDGRealPages(t *testing.T) {
	for _, tc := range []struct {
		file  string
		n     int
		first ddgResult
	}{
		{file: "duckduckgo_real_openclaw.html", n: 10,
			first: ddgResult{title: "OpenClaw — Personal AI Assistant", url: "https://openclaw.ai/",
				snippet: "OpenClaw The AI that actually does things. Clears your inbox, sends emails, manages your calendar, checks you in for flights. All from WhatsApp, Telegram, or any chat app you already use. New OpenClaw Partners with VirusTotal for Skill Security →"}},
		{file: "duckduckgo_real_openai_news.html", n: 10},
		{file: "duckduckgo_real_weather_jakarta.html", n: 10},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body := fixture(t, tc.file)
			p := parseDDG(body)
			if p.challenge || p.noResults || p.end {
				t.Fatalf("challenge %v, noResults %v, end %v on a page with results", p.challenge, p.noResults, p.end)
			}
			if len(p.results) != tc.n {
				t.Fatalf("%d results, want %d (one per organic block)", len(p.results), tc.n)
			}
			if tc.first.url != "" && p.results[0] != tc.first {
				t.Errorf("first result = %+v\nwant %+v", p.results[0], tc.first)
			}
			targets := map[string]bool{} // every redirect target on the page
			for _, m := range regexp.MustCompile(`uddg=([^&"]+)`).FindAllStringSubmatch(string(body), -1) {
				if u, err := url.QueryUnescape(m[1]); err == nil {
					targets[u] = true
				}
			}
			for _, r := range p.results {
				if r.title == "" || r.snippet == "" || !targets[r.url] {
					t.Errorf("result %+v: want a title, a snippet and a redirect target of the page", r)
				}
			}
		})
	}
}

// TestParseDDGEndOfResults: DuckDuckGo answers a query it has no (more) results for with
// its "No results." block and, beside it, a block titled "EOF" that links to the same
// query on Google. That page holds zero results, and a search on it returns none without
// an error. duckduckgo_eof.html is constructed (not recorded): the chrome of a real page
// with its results replaced by those two blocks; the inline variants place the blocks
// differently, as DuckDuckGo's markup is not known for certain.
func TestParseDDGEndOfResults(t *testing.T) {
	eof := `<div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">` +
		`<h2 class="result__title"><a rel="nofollow" class="result__a" href="http://www.google.com/search?q=openclaw">EOF</a></h2>` +
		`<a class="result__snippet" href="http://www.google.com/search?q=openclaw"></a></div></div>`
	noResults := `<div class="no-results">No  results.</div>`
	for _, tc := range []struct{ name, body string }{
		{"saved page", string(fixture(t, "duckduckgo_eof.html"))},
		{"EOF beside the no-results block", `<div id="links" class="results"><div class="result results_links results_links_deep result--no-result">` + noResults + `</div>` + eof + `</div>`},
		{"EOF inside the no-results block", `<div id="links" class="results"><div class="result results_links results_links_deep result--no-result">` + noResults + eof + `</div></div>`},
		{"EOF link without the result class", `<div class="result result--no-result">` + noResults + `<h2><a class="result__a" href="https://www.google.com/search?q=x&amp;hl=en">EOF</a></h2></div>`},
		{"EOF block alone", `<div id="links" class="results">` + eof + `</div>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseDDG([]byte(tc.body))
			if len(p.results) != 0 || p.challenge || !p.noResults && !p.end {
				t.Errorf("results %+v, challenge %v, noResults %v, end %v; want no results on an end-of-results page", p.results, p.challenge, p.noResults, p.end)
			}
		})
	}

	spec := specFor(t, ProviderDuckDuckGo)
	ps := newProviderServer(t, reply{body: fixture(t, "duckduckgo_eof.html")})
	s, _ := newSpecSearcher(t, spec, ps)
	got, err := s.Search(context.Background(), "openclaw", 10)
	if err != nil || len(got) != 0 {
		t.Errorf("Search on the end-of-results page = %+v, %v; want no results and no error", got, err)
	}
}

// TestParseDDGKeepsResultsBesideEOF: the end-of-results block is dropped, and the organic
// results of a page it ends (a real page with the block appended) are kept.
func TestParseDDGKeepsResultsBesideEOF(t *testing.T) {
	body := strings.Replace(string(fixture(t, "duckduckgo_real_openclaw.html")), `<div class="nav-link">`,
		`<div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">`+
			`<h2 class="result__title"><a rel="nofollow" class="result__a" href="http://www.google.com/search?q=openclaw">EOF</a></h2></div></div><div class="nav-link">`, 1)
	p := parseDDG([]byte(body))
	if !p.end || p.noResults || len(p.results) != 10 {
		t.Fatalf("end %v, noResults %v, %d results; want the end marked and the page's 10 organic results", p.end, p.noResults, len(p.results))
	}
	for _, r := range p.results {
		if strings.Contains(r.url, "google.com") || r.title == "EOF" {
			t.Errorf("the end-of-results block came back as %+v", r)
		}
	}
}

// TestParseDDGSkipsAdsByClass covers an ad whose link is not DuckDuckGo's ad redirect: the
// result--ad class alone must drop it.
func TestParseDDGSkipsAdsByClass(t *testing.T) {
	body := `<div id="links" class="results">
<div class="result results_links results_links_deep result--ad "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="https://ads.example/landing">Sponsored</a></h2>
<a class="result__snippet" href="https://ads.example/landing">Buy now</a></div></div>
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2F&amp;rut=1">The Go <b>Programming</b> Language</a></h2>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2F&amp;rut=1">Go is an open source programming language.</a></div></div>
</div>`
	p := parseDDG([]byte(body))
	want := []ddgResult{{title: "The Go Programming Language", url: "https://go.dev/", snippet: "Go is an open source programming language."}}
	if !reflect.DeepEqual(p.results, want) {
		t.Errorf("results = %+v, want %+v", p.results, want)
	}
}

func TestUnwrapDDG(t *testing.T) {
	tests := []struct{ href, want string }{
		{"//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2F%3Fa%3D1%26b%3D2&rut=abc", "https://go.dev/doc/?a=1&b=2"},
		{"https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2F%E4%B8%AD%E6%96%87&rut=x", "https://example.org/中文"},
		{"/l/?uddg=http%3A%2F%2Fexample.com%2F", "http://example.com/"},
		{"https://example.com/page?x=1", "https://example.com/page?x=1"},
		{"https://duckduckgo.com/y.js?ad_domain=ads.example&u3=https%3A%2F%2Fwww.bing.com%2Faclick", ""},
		{"//duckduckgo.com/?q=related", ""},
		{"https://html.duckduckgo.com/html/?q=x", ""},
		{"//duckduckgo.com/l/?rut=abc", ""},
		{"", ""},
		{"   ", ""},
		{"http://[::1", ""},
	}
	for _, tc := range tests {
		if got := unwrapDDG(tc.href); got != tc.want {
			t.Errorf("unwrapDDG(%q) = %q, want %q", tc.href, got, tc.want)
		}
	}
}

func TestDuckDuckGoCount(t *testing.T) {
	spec := specFor(t, ProviderDuckDuckGo)
	for _, tc := range []struct{ ask, want int }{{0, DefaultSearchCount}, {3, 3}, {10, 10}, {20, 10}, {99, 10}} {
		ps := newProviderServer(t, reply{body: fixture(t, spec.okBody)})
		s, _ := newSpecSearcher(t, spec, ps)
		got, err := s.Search(context.Background(), "rust borrow checker", tc.ask)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want {
			t.Errorf("count %d: %d results, want %d", tc.ask, len(got), tc.want)
		}
	}
}

func TestDuckDuckGoBotCheck(t *testing.T) {
	spec := specFor(t, ProviderDuckDuckGo)
	for _, status := range []int{http.StatusAccepted, http.StatusOK} {
		ps := newProviderServer(t, reply{status: status, body: fixture(t, "duckduckgo_anomaly.html")})
		s, log := newSpecSearcher(t, spec, ps)
		_, err := s.Search(context.Background(), "rust borrow checker", 5)
		if !errors.Is(err, ErrRateLimited) {
			t.Fatalf("status %d: err = %v, want ErrRateLimited", status, err)
		}
		for _, want := range []string{"duckduckgo search: ", "bot check", "Settings"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
		if n, w := len(ps.requests()), log.got(); n != 1 || len(w) != 0 {
			t.Errorf("%d requests, waits %v: the bot check is not retried", n, w)
		}
	}
}

func TestDuckDuckGoLanguageHeader(t *testing.T) {
	ps := newProviderServer(t, reply{body: fixture(t, "duckduckgo.html")})
	s, err := NewSearcher(SearchConfig{BaseURL: ps.url + "/html/", Language: "de", Client: ps.client})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(context.Background(), "x", 1); err != nil {
		t.Fatal(err)
	}
	if got := ps.requests()[0].header.Get("Accept-Language"); !strings.HasPrefix(got, "de,") {
		t.Errorf("Accept-Language = %q, want the configured language first", got)
	}
}

// BenchmarkParseDDG measures reading one saved results page (12 blocks, 25 KB).
func BenchmarkParseDDG(b *testing.B) {
	body := fixture(b, "duckduckgo.html")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if p := parseDDG(body); len(p.results) != 11 {
			b.Fatalf("%d results", len(p.results))
		}
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// slogDefaultForTest sends the default logger, at debug level, to w (guarded by mu) and
// returns the function that restores the previous one.
func slogDefaultForTest(w io.Writer, mu *sync.Mutex) func() {
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(lockedWriter{mu: mu, w: w}, &slog.HandlerOptions{Level: slog.LevelDebug})))
	return func() { slog.SetDefault(prev) }
}

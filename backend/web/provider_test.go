package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// testKey is the API key every keyed provider gets in these tests.
const testKey = "sk-test-KEY-4f9a2c"

// fixture returns testdata/search/name.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "search", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reply is one scripted answer of a providerServer.
type reply struct {
	status int
	header map[string]string
	body   []byte
}

// seenRequest is what a providerServer received.
type seenRequest struct {
	method, path string
	query        url.Values
	header       http.Header
	body         []byte
	at           time.Time
}

// providerServer answers with the scripted replies in order (the last one repeats) and
// records every request.
type providerServer struct {
	url     string
	client  *http.Client
	mu      sync.Mutex
	replies []reply
	seen    []seenRequest
	onReq   func(n int) // called after the n-th request (1-based) is recorded, if set
}

func newProviderServer(t *testing.T, replies ...reply) *providerServer {
	t.Helper()
	ps := &providerServer{replies: replies}
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ps.mu.Lock()
		ps.seen = append(ps.seen, seenRequest{method: r.Method, path: r.URL.Path, query: r.URL.Query(),
			header: r.Header.Clone(), body: body, at: time.Now()})
		n := len(ps.seen)
		rep := ps.replies[min(n, len(ps.replies))-1]
		hook := ps.onReq
		ps.mu.Unlock()
		if hook != nil {
			hook(n)
		}
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		if rep.status == 0 {
			rep.status = http.StatusOK
		}
		w.WriteHeader(rep.status)
		w.Write(rep.body)
	})
	ps.url, ps.client = ts.URL, ts.Client()
	return ps
}

// requests returns a copy of the recorded requests.
func (ps *providerServer) requests() []seenRequest {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]seenRequest(nil), ps.seen...)
}

// providerSpec is, for one provider, where its endpoint lives on the test server, how its
// request must look and what its saved answers hold.
type providerSpec struct {
	id       string
	path     string // endpoint path on the test server ("{lang}" for Wikipedia)
	reqPath  string // the path the request must reach
	okBody   string // testdata file with results
	empty    []byte // an answer with no results
	errBody  string // testdata file with the provider's error envelope ("" = plain text)
	errText  string // what the error message must quote from errBody
	check    func(t *testing.T, r seenRequest, query string, count int)
	want     []SearchResult // the first results of okBody
	wantURLs []string       // every result URL of okBody, in order
}

// jsonBody decodes a request body into a generic map.
func jsonBody(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("request body %q is not JSON: %v", b, err)
	}
	return m
}

// checkJSONBody asserts the request's JSON body equals want (after a JSON round trip).
func checkJSONBody(t *testing.T, r seenRequest, want map[string]any) {
	t.Helper()
	got := jsonBody(t, r.body)
	wb, _ := json.Marshal(want)
	var w map[string]any
	json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(got, w) {
		t.Errorf("request body = %s, want %s", r.body, wb)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
}

// wantHeader asserts header k is v.
func wantHeader(t *testing.T, r seenRequest, k, v string) {
	t.Helper()
	if got := r.header.Get(k); got != v {
		t.Errorf("header %s = %q, want %q", k, got, v)
	}
}

var providerSpecs = []providerSpec{
	{
		id: ProviderDuckDuckGo, path: "/html/", reqPath: "/html/", okBody: "duckduckgo.html",
		empty: nil, // set in init: the no-results page
		check: func(t *testing.T, r seenRequest, query string, count int) {
			if r.method != http.MethodPost {
				t.Errorf("method = %s, want POST", r.method)
			}
			wantHeader(t, r, "Content-Type", "application/x-www-form-urlencoded")
			form, err := url.ParseQuery(string(r.body))
			if err != nil || form.Get("q") != query {
				t.Errorf("form = %q, want q=%q", r.body, query)
			}
			if ua := r.header.Get("User-Agent"); !strings.HasPrefix(ua, "Mozilla/5.0 (") {
				t.Errorf("User-Agent = %q, want a browser's", ua)
			}
			if r.header.Get("Accept-Language") == "" {
				t.Error("no Accept-Language")
			}
		},
		want: []SearchResult{
			{Title: "References and Borrowing - The Rust Programming Language", URL: "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
				Snippet: "The borrow checker enforces these rules at compile time: at any given time, you can have either one mutable reference or any number of immutable references & references must always be valid.",
				Engine:  "duckduckgo"},
			{Title: "MIR borrow check - Rust Compiler Development Guide", URL: "https://rustc-dev-guide.rust-lang.org/borrow_check.html",
				Snippet: `The borrow check is Rust's "secret sauce" – it is tasked with enforcing a number of properties: that all variables are initialized before they are used, that you can't move the same value twice…`,
				Engine:  "duckduckgo", PublishedDate: "2024-11-02T00:00:00"},
		},
		wantURLs: []string{
			"https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
			"https://rustc-dev-guide.rust-lang.org/borrow_check.html",
			"https://blog.logrocket.com/introducing-rust-borrow-checker/",
			"https://en.wikipedia.org/wiki/Rust_(programming_language)",
			"https://stackoverflow.com/questions/47506591/how-does-the-rust-borrow-checker-work",
			"https://users.rust-lang.org/t/fighting-the-borrow-checker/98762",
			"https://www.reddit.com/r/rust/comments/12abcd/polonius_update/",
			"https://smallcultfollowing.com/babysteps/blog/2018/04/27/an-alias-based-formulation-of-the-borrow-checker/",
			"https://github.com/rust-lang/polonius",
			"https://www.youtube.com/watch?v=HwupNf9iCJk",
		},
	},
	{
		id: ProviderWikipedia, path: "/{lang}/w/api.php", reqPath: "/en/w/api.php", okBody: "wikipedia.json",
		empty: []byte(`{"batchcomplete":"","query":{"searchinfo":{"totalhits":0},"search":[]}}`),
		check: func(t *testing.T, r seenRequest, query string, count int) {
			if r.method != http.MethodGet {
				t.Errorf("method = %s, want GET", r.method)
			}
			want := url.Values{"action": {"query"}, "list": {"search"}, "srsearch": {query},
				"srlimit": {fmt.Sprint(count)}, "format": {"json"}, "utf8": {"1"}}
			if !reflect.DeepEqual(r.query, want) {
				t.Errorf("query = %v, want %v", r.query, want)
			}
			if ua := r.header.Get("User-Agent"); !strings.Contains(ua, "ArtifactFlow") {
				t.Errorf("User-Agent = %q, want one naming the app (Wikimedia policy)", ua)
			}
		},
		want: []SearchResult{
			{Title: "Quantum entanglement", URL: "https://en.wikipedia.org/wiki/Quantum_entanglement",
				Snippet: "Quantum entanglement is the phenomenon where the quantum state of each particle in a group cannot be described independently of the state of the others, including when",
				Engine:  "wikipedia", PublishedDate: "2024-05-28T16:39:14Z"},
			{Title: "Einstein–Podolsky–Rosen paradox", URL: "https://en.wikipedia.org/wiki/Einstein%E2%80%93Podolsky%E2%80%93Rosen_paradox",
				Snippet: "The Einstein–Podolsky–Rosen (EPR) paradox is a thought experiment proposed by physicists Albert Einstein, Boris Podolsky and Nathan Rosen which argues that the description of physical reality provided by quantum mechanics is incomplete",
				Engine:  "wikipedia", PublishedDate: "2024-04-11T08:02:51Z"},
			{Title: "Bell test", URL: "https://en.wikipedia.org/wiki/Bell_test",
				Snippet: "A Bell test, also known as Bell inequality test or Bell experiment, is a real-world physics experiment designed to test the theory of quantum mechanics in relation to Albert Einstein's concept of local realism",
				Engine:  "wikipedia", PublishedDate: "2024-05-02T21:17:40Z"},
		},
		wantURLs: []string{
			"https://en.wikipedia.org/wiki/Quantum_entanglement",
			"https://en.wikipedia.org/wiki/Einstein%E2%80%93Podolsky%E2%80%93Rosen_paradox",
			"https://en.wikipedia.org/wiki/Bell_test",
			"https://en.wikipedia.org/wiki/Quantum_teleportation",
			"https://en.wikipedia.org/wiki/Squashed_entanglement",
		},
	},
	{
		id: ProviderSearXNG, path: "/", reqPath: "/search", okBody: "searxng.json",
		empty: []byte(`{"query":"x","number_of_results":0,"results":[],"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}`),
		check: func(t *testing.T, r seenRequest, query string, count int) {
			if r.method != http.MethodGet || r.query.Get("q") != query || r.query.Get("format") != "json" {
				t.Errorf("request = %s %v", r.method, r.query)
			}
		},
		want: []SearchResult{
			{Title: "References and Borrowing - The Rust Programming Language", URL: "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
				Snippet: "The borrow checker enforces these rules at compile time: either one mutable reference or any number of immutable references.", Engine: "duckduckgo"},
			{Title: "MIR borrow check - Rust Compiler Development Guide", URL: "https://rustc-dev-guide.rust-lang.org/borrow_check.html",
				Snippet: `The borrow check is Rust's "secret sauce".`, Engine: "brave", PublishedDate: "2024-11-02T00:00:00"},
		},
		wantURLs: []string{"https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html", "https://rustc-dev-guide.rust-lang.org/borrow_check.html"},
	},
	{
		id: ProviderTavily, path: "/search", reqPath: "/search", okBody: "tavily.json",
		empty:   []byte(`{"query":"x","follow_up_questions":null,"answer":null,"images":[],"results":[],"response_time":0.9}`),
		errBody: "tavily_error.json", errText: "Unauthorized: missing or invalid API key.",
		check: func(t *testing.T, r seenRequest, query string, count int) {
			if r.method != http.MethodPost {
				t.Errorf("method = %s, want POST", r.method)
			}
			wantHeader(t, r, "Authorization", "Bearer "+testKey)
			checkJSONBody(t, r, map[string]any{"query": query, "max_results": count, "search_depth": "basic"})
		},
		want: []SearchResult{
			{Title: "Lionel Messi Facts | Britannica", URL: "https://www.britannica.com/facts/Lionel-Messi",
				Snippet: "Lionel Messi, an Argentine footballer, is widely regarded as one of the greatest football players of his generation. Born in 1987, Messi spent the majority of his career playing for Barcelona, where he won numerous domestic league titles and UEFA Champions League titles.",
				Engine:  "tavily"},
			{Title: "Lionel Messi - Wikipedia", URL: "https://en.wikipedia.org/wiki/Lionel_Messi",
				Snippet: `Lionel Andrés "Leo" Messi (born 24 June 1987) is an Argentine professional footballer who plays as a forward for and captains both Major League Soccer club Inter Miami and the Argentina national team.`,
				Engine:  "tavily"},
			{Title: "Messi wins eighth Ballon d'Or", URL: "https://www.espn.com/soccer/story/_/id/38780042/lionel-messi-wins-eighth-ballon-dor",
				Snippet: "Inter Miami forward Lionel Messi has won the Ballon d'Or for a record eighth time, following his starring role in Argentina's World Cup win.",
				Engine:  "tavily", PublishedDate: "Mon, 30 Oct 2023 21:52:00 GMT"},
		},
		wantURLs: []string{"https://www.britannica.com/facts/Lionel-Messi", "https://en.wikipedia.org/wiki/Lionel_Messi",
			"https://www.espn.com/soccer/story/_/id/38780042/lionel-messi-wins-eighth-ballon-dor"},
	},
	{
		id: ProviderBrave, path: "/res/v1/web/search", reqPath: "/res/v1/web/search", okBody: "brave.json",
		errBody: "brave_ratelimit.json", errText: "Request rate limit exceeded for plan. (RATE_LIMITED)",
		check: func(t *testing.T, r seenRequest, query string, count int) {
			if r.method != http.MethodGet {
				t.Errorf("method = %s, want GET", r.method)
			}
			want := url.Values{"q": {query}, "count": {fmt.Sprint(count)}}
			if !reflect.DeepEqual(r.query, want) {
				t.Errorf("query = %v, want %v", r.query, want)
			}
			wantHeader(t, r, "X-Subscription-Token", testKey)
			wantHeader(t, r, "Accept", "application/json")
		},
		want: []SearchResult{
			{Title: "The New York Times - Breaking News, US News, World News and Videos", URL: "https://www.nytimes.com/",
				Snippet: "Live news, investigations, opinion, photos and video by the journalists of The New York Times from more than 150 countries around the world.",
				Engine:  "brave", PublishedDate: "2024-06-01T04:12:33"},
			{Title: "The New York Times - Wikipedia", URL: "https://en.wikipedia.org/wiki/The_New_York_Times",
				Snippet: `The New York Times (NYT) is an American daily newspaper based in New York City. "All the News That's Fit to Print" has been its motto since 1897.`,
				Engine:  "brave", PublishedDate: "3 days ago"},
			{Title: "The New York Times (@nytimes) · X", URL: "https://x.com/nytimes",
				Snippet: "News tips? Share them here: https://nyti.ms/2FVHq9v", Engine: "brave"},
		},
		wantURLs: []string{"https://www.nytimes.com/", "https://en.wikipedia.org/wiki/The_New_York_Times", "https://x.com/nytimes"},
	},
	{
		id: ProviderBocha, path: "/v1/web-search", reqPath: "/v1/web-search", okBody: "bocha.json",
		empty:   []byte(`{"code":200,"log_id":"0a1b","msg":null,"data":{"_type":"SearchResponse","queryContext":{"originalQuery":"x"},"webPages":{"webSearchUrl":"","totalEstimatedMatches":0,"value":[],"someResultsRemoved":false},"images":null,"videos":null}}`),
		errBody: "bocha_error.json", errText: "Invalid API KEY",
		check: func(t *testing.T, r seenRequest, query string, count int) {
			if r.method != http.MethodPost {
				t.Errorf("method = %s, want POST", r.method)
			}
			wantHeader(t, r, "Authorization", "Bearer "+testKey)
			checkJSONBody(t, r, map[string]any{"query": query, "count": count, "summary": true, "freshness": "noLimit"})
		},
		want: []SearchResult{
			{Title: "阿里巴巴发布2024年ESG报告 持续推进减碳与数字化普惠" /* the ideographic space is white space */, URL: "https://www.alibabagroup.com/document-1752073403914780672",
				Snippet: "阿里巴巴集团发布《2024财年环境、社会和治理（ESG）报告》（下称“报告”），详细分享过去一年在ESG各方面取得的进展。报告显示，阿里巴巴扎实推进减碳举措，全集团自身运营净碳排放和价值链碳排放强度实现“双降”。",
				Engine:  "bocha", PublishedDate: "2024-07-22T08:00:00+08:00"},
			{Title: "186页|阿里巴巴：2024年环境、社会和治理（ESG）报告", URL: "https://m.sohu.com/a/815036254_121819701/?pvid=000115_3w_a",
				Snippet: "阿里巴巴集团的2024年环境、社会和治理（ESG）报告涵盖了公司在可持续发展方面的多项进展和成就。",
				Engine:  "bocha", PublishedDate: "2024-11-07T06:50:00+08:00"}, // dateLastCrawled, read as Beijing time
		},
		wantURLs: []string{"https://www.alibabagroup.com/document-1752073403914780672", "https://m.sohu.com/a/815036254_121819701/?pvid=000115_3w_a",
			"http://tech.cnr.cn/techph/20240722/t20240722_526807992.shtml"},
	},
	{
		id: ProviderExa, path: "/search", reqPath: "/search", okBody: "exa.json",
		empty:   []byte(`{"requestId":"0f0f","resolvedSearchType":"neural","results":[],"searchType":"auto"}`),
		errBody: "exa_error.json", errText: "x-api-key header is invalid",
		check: func(t *testing.T, r seenRequest, query string, count int) {
			if r.method != http.MethodPost {
				t.Errorf("method = %s, want POST", r.method)
			}
			wantHeader(t, r, "x-api-key", testKey)
			checkJSONBody(t, r, map[string]any{"query": query, "numResults": count,
				"contents": map[string]any{"text": map[string]any{"maxCharacters": 600}}})
		},
		want: []SearchResult{
			{Title: "A Comprehensive Overview of Large Language Models", URL: "https://arxiv.org/abs/2307.06435",
				Snippet: "Large Language Models (LLMs) have recently demonstrated remarkable capabilities in natural language processing tasks and beyond. This success of LLMs has led to a large influx of research contributions in this direction.",
				Engine:  "exa", PublishedDate: "2023-07-12T00:00:00.000Z"},
			{Title: "Large language models encode clinical knowledge", URL: "https://www.nature.com/articles/s41586-023-06291-2",
				Snippet: "Med-PaLM exceeds the pass mark on US Medical Licensing Examination-style questions. … Human evaluation reveals key gaps in LLM responses.",
				Engine:  "exa", PublishedDate: "2023-07-12T00:00:00.000Z"},
		},
		wantURLs: []string{"https://arxiv.org/abs/2307.06435", "https://www.nature.com/articles/s41586-023-06291-2"},
	},
}

func init() {
	for i := range providerSpecs {
		switch providerSpecs[i].id {
		case ProviderDuckDuckGo:
			b, err := os.ReadFile(filepath.Join("testdata", "search", "duckduckgo_noresults.html"))
			if err != nil {
				panic(err)
			}
			providerSpecs[i].empty = b
		case ProviderBrave:
			b, err := os.ReadFile(filepath.Join("testdata", "search", "brave_empty.json"))
			if err != nil {
				panic(err)
			}
			providerSpecs[i].empty = b
		}
	}
}

// sleepLog records the waits a searcher asked for instead of sleeping.
type sleepLog struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (l *sleepLog) sleep(ctx context.Context, d time.Duration) error {
	l.mu.Lock()
	l.waits = append(l.waits, d)
	l.mu.Unlock()
	return ctx.Err()
}

func (l *sleepLog) got() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.waits...)
}

// apiOf returns the HTTP core of a searcher built by NewSearcher.
func apiOf(t *testing.T, s Searcher) *apiClient {
	t.Helper()
	switch s := s.(type) {
	case *duckDuckGo:
		return s.api
	case *wikipedia:
		return s.api
	case *SearXNG:
		return s.api
	case *tavily:
		return s.api
	case *brave:
		return s.api
	case *bocha:
		return s.api
	case *exa:
		return s.api
	}
	t.Fatalf("unknown searcher %T", s)
	return nil
}

// newSpecSearcher builds spec's provider against ps, with sleeps recorded (not slept).
func newSpecSearcher(t *testing.T, spec providerSpec, ps *providerServer) (Searcher, *sleepLog) {
	t.Helper()
	s, err := NewSearcher(SearchConfig{Provider: spec.id, APIKey: testKey, BaseURL: ps.url + spec.path, Client: ps.client})
	if err != nil {
		t.Fatal(err)
	}
	log := &sleepLog{}
	apiOf(t, s).sleep = log.sleep
	return s, log
}

// queryFor returns a query for spec (Wikipedia's must stay English for the path check).
func queryFor(spec providerSpec) string {
	if spec.id == ProviderBocha {
		return "阿里巴巴2024年的esg报告"
	}
	return "rust borrow checker"
}

func TestProvidersSuccess(t *testing.T) {
	for _, spec := range providerSpecs {
		t.Run(spec.id, func(t *testing.T) {
			ps := newProviderServer(t, reply{body: fixture(t, spec.okBody)})
			s, _ := newSpecSearcher(t, spec, ps)
			q := queryFor(spec)
			got, err := s.Search(context.Background(), "  "+q+" ", 10)
			if err != nil {
				t.Fatal(err)
			}
			reqs := ps.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if reqs[0].path != spec.reqPath {
				t.Errorf("path = %q, want %q", reqs[0].path, spec.reqPath)
			}
			spec.check(t, reqs[0], q, 10)
			var urls []string
			for _, r := range got {
				urls = append(urls, r.URL)
			}
			if !reflect.DeepEqual(urls, spec.wantURLs) {
				t.Errorf("URLs =\n%q\nwant\n%q", urls, spec.wantURLs)
			}
			for i, w := range spec.want {
				if i >= len(got) {
					break
				}
				if got[i] != w {
					t.Errorf("result %d =\n%+v\nwant\n%+v", i, got[i], w)
				}
			}
		})
	}
}

func TestProvidersCountIsClamped(t *testing.T) {
	for _, spec := range providerSpecs {
		if spec.id == ProviderDuckDuckGo || spec.id == ProviderSearXNG {
			continue // they send no count; TestDuckDuckGoCount covers the cut
		}
		t.Run(spec.id, func(t *testing.T) {
			for _, tc := range []struct{ ask, sent int }{{0, DefaultSearchCount}, {-4, DefaultSearchCount}, {1, 1}, {50, MaxSearchCount}} {
				ps := newProviderServer(t, reply{body: fixture(t, spec.okBody)})
				s, _ := newSpecSearcher(t, spec, ps)
				got, err := s.Search(context.Background(), queryFor(spec), tc.ask)
				if err != nil {
					t.Fatal(err)
				}
				spec.check(t, ps.requests()[0], queryFor(spec), tc.sent)
				if len(got) > tc.sent {
					t.Errorf("count %d: %d results, more than %d", tc.ask, len(got), tc.sent)
				}
			}
		})
	}
}

func TestProvidersEmptyResults(t *testing.T) {
	for _, spec := range providerSpecs {
		t.Run(spec.id, func(t *testing.T) {
			ps := newProviderServer(t, reply{body: spec.empty})
			s, _ := newSpecSearcher(t, spec, ps)
			got, err := s.Search(context.Background(), "qzxvkjwqpl zzyzx flurbotron", 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Errorf("got %d results, want none: %+v", len(got), got)
			}
		})
	}
}

func TestProvidersEmptyQuery(t *testing.T) {
	for _, spec := range providerSpecs {
		t.Run(spec.id, func(t *testing.T) {
			ps := newProviderServer(t, reply{body: fixture(t, spec.okBody)})
			s, _ := newSpecSearcher(t, spec, ps)
			_, err := s.Search(context.Background(), " \t\n", 5)
			if !errors.Is(err, ErrEmptyQuery) {
				t.Errorf("err = %v, want ErrEmptyQuery", err)
			}
			if n := len(ps.requests()); n != 0 {
				t.Errorf("an empty query sent %d requests", n)
			}
		})
	}
}

// TestProvidersErrorBody checks that a failed search wraps ErrHTTPStatus (and not ErrAuth),
// starts with the provider's id and quotes the provider's own message.
func TestProvidersErrorBody(t *testing.T) {
	for _, spec := range providerSpecs {
		t.Run(spec.id, func(t *testing.T) {
			body, text := []byte("upstream exploded\n<b>trace</b> id 42"), "upstream exploded trace id 42"
			if spec.errBody != "" && spec.id != ProviderBocha && spec.id != ProviderExa {
				body, text = fixture(t, spec.errBody), spec.errText
			}
			if spec.id == ProviderBocha {
				body, text = []byte(`{"code":"500","message":"search backend unavailable","log_id":"c66aac17eab1bb7e"}`), "search backend unavailable"
			}
			if spec.id == ProviderExa {
				body, text = []byte(`{"requestId":"77aa","error":"Internal error while searching"}`), "Internal error while searching"
			}
			ps := newProviderServer(t, reply{status: http.StatusInternalServerError, body: body})
			s, _ := newSpecSearcher(t, spec, ps)
			_, err := s.Search(context.Background(), "climate", 5)
			if !errors.Is(err, ErrHTTPStatus) || errors.Is(err, ErrAuth) || errors.Is(err, ErrRateLimited) {
				t.Fatalf("err = %v, want ErrHTTPStatus only", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, spec.id+" search") {
				t.Errorf("error %q does not start with %q", msg, spec.id+" search")
			}
			for _, want := range []string{"500", text} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			if n := len(ps.requests()); n != 1 {
				t.Errorf("%d requests, want 1 (only a 429 is retried)", n)
			}
		})
	}
}

func TestProvidersAuthErrors(t *testing.T) {
	type authCase struct {
		id     string
		status int
		body   []byte
		quote  string
	}
	cases := []authCase{
		{ProviderTavily, http.StatusUnauthorized, fixture(t, "tavily_error.json"), "Unauthorized: missing or invalid API key."},
		{ProviderTavily, http.StatusForbidden, []byte(`{"detail":{"error":"Forbidden"}}`), "Forbidden"},
		{ProviderBrave, http.StatusUnprocessableEntity, fixture(t, "brave_error.json"), "The provided subscription token is invalid. (SUBSCRIPTION_TOKEN_INVALID)"},
		{ProviderBrave, http.StatusUnauthorized, []byte("Unauthorized"), "Unauthorized"},
		{ProviderBocha, http.StatusUnauthorized, fixture(t, "bocha_error.json"), "Invalid API KEY"},
		{ProviderBocha, http.StatusForbidden, []byte(`{"code":"403","message":"You do not have enough money","log_id":"c66a"}`), "You do not have enough money"},
		{ProviderExa, http.StatusBadRequest, fixture(t, "exa_error.json"), "x-api-key header is invalid"},
		{ProviderExa, http.StatusUnauthorized, []byte(`{"requestId":"1","error":"Invalid API key"}`), "Invalid API key"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s_%d", tc.id, tc.status), func(t *testing.T) {
			spec := specFor(t, tc.id)
			ps := newProviderServer(t, reply{status: tc.status, body: tc.body})
			s, _ := newSpecSearcher(t, spec, ps)
			_, err := s.Search(context.Background(), "climate", 5)
			if !errors.Is(err, ErrAuth) || !errors.Is(err, ErrHTTPStatus) {
				t.Fatalf("err = %v, want ErrAuth and ErrHTTPStatus", err)
			}
			info, _ := providerInfo(tc.id)
			for _, want := range []string{tc.id + " search: ", fmt.Sprint(tc.status), tc.quote, "check the " + info.Name + " API key in Settings"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
	// A provider without a key is refused, not "check the key".
	for _, id := range []string{ProviderDuckDuckGo, ProviderWikipedia} {
		t.Run(id+"_403", func(t *testing.T) {
			ps := newProviderServer(t, reply{status: http.StatusForbidden, body: []byte("Forbidden")})
			s, _ := newSpecSearcher(t, specFor(t, id), ps)
			_, err := s.Search(context.Background(), "climate", 5)
			if !errors.Is(err, ErrHTTPStatus) || errors.Is(err, ErrAuth) {
				t.Fatalf("err = %v, want ErrHTTPStatus without ErrAuth", err)
			}
			if strings.Contains(err.Error(), "API key") || !strings.Contains(err.Error(), "refused the request (HTTP 403") {
				t.Errorf("error %q should say the request, not a key, was refused", err)
			}
		})
	}
	// Bocha can also put the refusal in a 200 answer's own code.
	t.Run("bocha_code_in_200", func(t *testing.T) {
		ps := newProviderServer(t, reply{status: http.StatusOK, body: fixture(t, "bocha_error.json")})
		s, _ := newSpecSearcher(t, specFor(t, ProviderBocha), ps)
		_, err := s.Search(context.Background(), "climate", 5)
		if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "Invalid API KEY") {
			t.Fatalf("err = %v, want ErrAuth quoting the body", err)
		}
	})
}

// specFor returns the spec of provider id.
func specFor(t *testing.T, id string) providerSpec {
	t.Helper()
	for _, s := range providerSpecs {
		if s.id == id {
			return s
		}
	}
	t.Fatalf("no spec for %s", id)
	return providerSpec{}
}

// rateLimitBody is a 429 body in the provider's own error format.
func rateLimitBody(id string) []byte {
	switch id {
	case ProviderBrave:
		b, _ := os.ReadFile(filepath.Join("testdata", "search", "brave_ratelimit.json"))
		return b
	case ProviderBocha:
		return []byte(`{"code":"429","message":"You have reached the request limit","log_id":"c66aac17eab1bb7e"}`)
	case ProviderTavily:
		return []byte(`{"detail":{"error":"Rate limit exceeded"}}`)
	}
	return []byte("Too Many Requests")
}

func TestProvidersRetryOnceAfterRetryAfter(t *testing.T) {
	for _, spec := range providerSpecs {
		t.Run(spec.id, func(t *testing.T) {
			ps := newProviderServer(t,
				reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "7"}, body: rateLimitBody(spec.id)},
				reply{body: fixture(t, spec.okBody)})
			s, log := newSpecSearcher(t, spec, ps)
			got, err := s.Search(context.Background(), queryFor(spec), 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(spec.wantURLs) {
				t.Errorf("%d results after the retry, want %d", len(got), len(spec.wantURLs))
			}
			if w := log.got(); !reflect.DeepEqual(w, []time.Duration{7 * time.Second}) {
				t.Errorf("waits = %v, want [7s] (Retry-After)", w)
			}
			reqs := ps.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			spec.check(t, reqs[1], queryFor(spec), 10) // the retry is the same request
		})
	}
}

func TestProvidersRateLimitedTwice(t *testing.T) {
	for _, spec := range providerSpecs {
		t.Run(spec.id, func(t *testing.T) {
			ps := newProviderServer(t, reply{status: http.StatusTooManyRequests, body: rateLimitBody(spec.id)})
			s, log := newSpecSearcher(t, spec, ps)
			_, err := s.Search(context.Background(), "climate", 5)
			if !errors.Is(err, ErrRateLimited) || !errors.Is(err, ErrHTTPStatus) || errors.Is(err, ErrAuth) {
				t.Fatalf("err = %v, want ErrRateLimited and ErrHTTPStatus", err)
			}
			if n := len(ps.requests()); n != 2 {
				t.Errorf("%d requests, want 2 (one retry)", n)
			}
			if w := log.got(); !reflect.DeepEqual(w, []time.Duration{defaultRetryAfter}) {
				t.Errorf("waits = %v, want [%s] (no Retry-After)", w, defaultRetryAfter)
			}
			if !strings.Contains(err.Error(), "429") || !strings.HasPrefix(err.Error(), spec.id+" search") {
				t.Errorf("error %q should name the provider and the status", err)
			}
			if spec.id == ProviderSearXNG && !strings.Contains(err.Error(), "server.limiter") {
				t.Errorf("SearXNG's error %q should name the limiter setting", err)
			}
			if spec.id == ProviderBrave && !strings.Contains(err.Error(), "Request rate limit exceeded for plan") {
				t.Errorf("Brave's error %q should quote Brave's detail", err)
			}
		})
	}
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		wait   time.Duration
		ok     bool
	}{
		{"", defaultRetryAfter, true},
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{" 30 ", 30 * time.Second, true},
		{"31", 31 * time.Second, false},
		{"86400", 86400 * time.Second, false},
		{"99999999999999999", (1 << 31) * time.Second, false},
		{"-5", 0, true},
		{now.Add(12 * time.Second).Format(http.TimeFormat), 12 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{now.Add(2 * time.Hour).Format(http.TimeFormat), 2 * time.Hour, false},
		{"soon", defaultRetryAfter, true},
	}
	a := &apiClient{now: func() time.Time { return now }, maxWait: MaxRetryAfter}
	for _, tc := range tests {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Retry-After", tc.header)
		}
		wait, ok := a.retryAfter(h)
		if wait != tc.wait || ok != tc.ok {
			t.Errorf("Retry-After %q = %v, %v; want %v, %v", tc.header, wait, ok, tc.wait, tc.ok)
		}
	}
}

func TestRetryAfterDateIsHonoured(t *testing.T) {
	spec := specFor(t, ProviderBrave)
	now := time.Now().Truncate(time.Second)
	ps := newProviderServer(t,
		reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": now.Add(5 * time.Second).UTC().Format(http.TimeFormat)}},
		reply{body: fixture(t, spec.okBody)})
	s, log := newSpecSearcher(t, spec, ps)
	apiOf(t, s).now = func() time.Time { return now }
	if _, err := s.Search(context.Background(), "x", 3); err != nil {
		t.Fatal(err)
	}
	if w := log.got(); !reflect.DeepEqual(w, []time.Duration{5 * time.Second}) {
		t.Errorf("waits = %v, want [5s]", w)
	}
}

func TestRetryAfterTooLongFailsAtOnce(t *testing.T) {
	spec := specFor(t, ProviderTavily)
	ps := newProviderServer(t,
		reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "3600"}, body: rateLimitBody(spec.id)},
		reply{body: fixture(t, spec.okBody)})
	s, log := newSpecSearcher(t, spec, ps)
	_, err := s.Search(context.Background(), "x", 3)
	if !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
	if !strings.Contains(err.Error(), "1h0m0s") {
		t.Errorf("error %q should name the asked wait", err)
	}
	if n, w := len(ps.requests()), log.got(); n != 1 || len(w) != 0 {
		t.Errorf("%d requests and waits %v, want 1 request and no wait", n, w)
	}
}

// TestRetryWaitsForReal runs the real clock once: the retry reaches the server no sooner
// than Retry-After (1 s) after the 429.
func TestRetryWaitsForReal(t *testing.T) {
	spec := specFor(t, ProviderBrave)
	ps := newProviderServer(t,
		reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "1"}},
		reply{body: fixture(t, spec.okBody)})
	s, err := NewSearcher(SearchConfig{Provider: spec.id, APIKey: testKey, BaseURL: ps.url + spec.path, Client: ps.client})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(context.Background(), "x", 3); err != nil {
		t.Fatal(err)
	}
	reqs := ps.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if gap := reqs[1].at.Sub(reqs[0].at); gap < time.Second {
		t.Errorf("the retry came %v after the 429, before Retry-After's 1s", gap)
	}
}

func TestRetryWaitStopsWhenCancelled(t *testing.T) {
	spec := specFor(t, ProviderExa)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ps := newProviderServer(t,
		reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "30"}},
		reply{body: fixture(t, spec.okBody)})
	ps.onReq = func(n int) {
		if n == 1 {
			cancel() // the user stops the run while the searcher waits for the retry
		}
	}
	s, err := NewSearcher(SearchConfig{Provider: spec.id, APIKey: testKey, BaseURL: ps.url + spec.path, Client: ps.client})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Search(ctx, "x", 3)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !strings.HasPrefix(err.Error(), "exa search: ") {
		t.Errorf("error %q should name the provider", err)
	}
	if n := len(ps.requests()); n != 1 {
		t.Errorf("%d requests, want 1: a cancelled wait must not retry", n)
	}
}

func TestProvidersMalformedBody(t *testing.T) {
	for _, spec := range providerSpecs {
		t.Run(spec.id, func(t *testing.T) {
			body := []byte(`{"results": [{"title": "cut off`)
			if spec.id == ProviderDuckDuckGo {
				body = []byte("<html><body><h1>Service temporarily unavailable</h1></body></html>")
			}
			ps := newProviderServer(t, reply{body: body})
			s, _ := newSpecSearcher(t, spec, ps)
			_, err := s.Search(context.Background(), "climate", 5)
			if err == nil {
				t.Fatal("want an error for a malformed answer")
			}
			if !strings.HasPrefix(err.Error(), spec.id+" search") {
				t.Errorf("error %q does not name the provider", err)
			}
			if errors.Is(err, ErrHTTPStatus) {
				t.Errorf("error %q is not a status error", err)
			}
		})
	}
}

func TestProvidersBodyCap(t *testing.T) {
	spec := specFor(t, ProviderTavily)
	ps := newProviderServer(t, reply{body: fixture(t, spec.okBody)})
	s, _ := newSpecSearcher(t, spec, ps)
	apiOf(t, s).maxBody = 100
	_, err := s.Search(context.Background(), "x", 3)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v, want the size cap", err)
	}
}

func TestProvidersTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	client := ts.Client()
	client.Timeout = 50 * time.Millisecond
	s, err := NewSearcher(SearchConfig{Provider: ProviderBrave, APIKey: testKey, BaseURL: ts.URL, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Search(context.Background(), "x", 3)
	if !errors.Is(err, ErrTimeout) || !strings.HasPrefix(err.Error(), "brave search: no answer within 50ms") {
		t.Fatalf("err = %v, want ErrTimeout naming the limit", err)
	}
}

func TestDefaultClientHasTimeout(t *testing.T) {
	s, err := NewSearcher(SearchConfig{Provider: ProviderBrave, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if a := apiOf(t, s); a.client.Timeout != DefaultSearchTimeout {
		t.Errorf("default client timeout = %v", a.client.Timeout)
	}
	s, err = NewSearcher(SearchConfig{Provider: ProviderBrave, APIKey: testKey, Client: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	if a := apiOf(t, s); a.perRequest != DefaultSearchTimeout {
		t.Errorf("a client without Timeout gets per-request %v, want %v", a.perRequest, DefaultSearchTimeout)
	}
}

// errorTree returns the messages of err and everything it wraps.
func errorTree(err error) []string {
	if err == nil {
		return nil
	}
	out := []string{err.Error()}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		out = append(out, errorTree(u.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, errorTree(e)...)
		}
	}
	return out
}

// TestAPIKeyNeverInErrorsOrLogs makes each keyed provider fail in every way while the
// server echoes the key back (as a misbehaving proxy might), and checks that neither the
// error, anything it wraps, nor the debug log holds the key.
func TestAPIKeyNeverInErrorsOrLogs(t *testing.T) {
	var logBuf strings.Builder
	var logMu sync.Mutex
	prev := slogDefaultForTest(&logBuf, &logMu)
	defer prev()

	echo := []byte(`{"detail":{"error":"bad key ` + testKey + `"},"message":"bad key ` + testKey + `","error":"bad key ` + testKey + `"}`)
	failures := map[string][]reply{
		"401":      {{status: http.StatusUnauthorized, body: echo}},
		"500":      {{status: http.StatusInternalServerError, body: echo}},
		"429 x2":   {{status: http.StatusTooManyRequests, body: echo}},
		"too long": {{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "999"}, body: echo}},
		"garbage":  {{status: http.StatusOK, body: []byte("not json " + testKey)}},
	}
	for _, spec := range providerSpecs {
		info, _ := providerInfo(spec.id)
		if !info.NeedsKey {
			continue
		}
		for name, replies := range failures {
			t.Run(spec.id+"/"+name, func(t *testing.T) {
				ps := newProviderServer(t, replies...)
				s, _ := newSpecSearcher(t, spec, ps)
				_, err := s.Search(context.Background(), "climate", 5)
				if err == nil {
					t.Fatal("want an error")
				}
				for _, m := range errorTree(err) {
					if strings.Contains(m, testKey) {
						t.Errorf("error holds the key: %q", m)
					}
				}
				if !strings.Contains(err.Error(), redacted) {
					t.Errorf("error %q should show where the key was cut", err)
				}
			})
		}
		t.Run(spec.id+"/transport", func(t *testing.T) {
			ps := newProviderServer(t, reply{})
			s, err := NewSearcher(SearchConfig{Provider: spec.id, APIKey: testKey, BaseURL: ps.url + "/" + testKey + spec.path, Client: ps.client})
			if err != nil {
				t.Fatal(err)
			}
			api := apiOf(t, s)
			api.client = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return nil, fmt.Errorf("proxy said: no route for %s", r.URL)
			})}
			_, err = s.Search(context.Background(), "climate", 5)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, m := range errorTree(err) {
				if strings.Contains(m, testKey) {
					t.Errorf("error holds the key: %q", m)
				}
			}
		})
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logBuf.String(), "retrying once") {
		t.Error("the retry was not logged (the log check below would prove nothing)")
	}
	if strings.Contains(logBuf.String(), testKey) {
		t.Errorf("the log holds the key:\n%s", logBuf.String())
	}
}

// roundTripFunc is an http.RoundTripper from a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

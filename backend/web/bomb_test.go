package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// bombLimit bounds the memory (bytes allocated, runtime.MemStats.TotalAlloc) one search of
// an answer at the 8 MiB size cap may cost: reading the body takes about 16 MiB (io.ReadAll
// doubles its buffer), DuckDuckGo's parse of its first 512 KiB up to about 30 MB more.
// Decoding every element of such an answer took 0.4 to 1.2 GB.
const bombLimit = 80 << 20

// bombBody returns prefix, then real (each followed by a comma), then copies of filler
// separated by commas up to about maxSearchResponse bytes in all, then suffix.
func bombBody(prefix string, real []string, filler, suffix string) []byte {
	var b bytes.Buffer
	b.Grow(maxSearchResponse)
	b.WriteString(prefix)
	for _, r := range real {
		b.WriteString(r)
		b.WriteByte(',')
	}
	room := maxSearchResponse - len(suffix) - len(filler)
	b.WriteString(filler)
	for b.Len()+len(filler)+1 <= room {
		b.WriteByte(',')
		b.WriteString(filler)
	}
	b.WriteString(suffix)
	return b.Bytes()
}

// allocated returns the bytes f allocates (TotalAlloc, all goroutines: the test server's
// included).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestSearchResultsBomb serves every provider an answer of the full 8 MiB size: three real
// results, then millions of empty ones ("{}," for the JSON APIs, "<p>," for DuckDuckGo's
// page). The search must return the three results, and cost a bounded amount of memory
// instead of a struct (or an HTML node) per element.
func TestSearchResultsBomb(t *testing.T) {
	urls := []string{"https://one.example/a", "https://two.example/b", "https://three.example/c"}
	results := func(format string) []string {
		out := make([]string, len(urls))
		for i, u := range urls {
			out[i] = fmt.Sprintf(format, u, i+1)
		}
		return out
	}
	jsonResults := results(`{"title":"Result %[2]d","url":%[1]q,"content":"snippet","description":"snippet","summary":"snippet","text":"snippet"}`)
	wikiTitles := []string{"Alpha", "Beta", "Gamma"}
	cases := []struct {
		name, id string
		body     []byte
		want     []string // result URLs
	}{
		{"searxng", ProviderSearXNG, bombBody(`{"results":[`, jsonResults, `{}`, `]}`), urls},
		{"tavily", ProviderTavily, bombBody(`{"results":[`, jsonResults, `{}`, `]}`), urls},
		{"exa", ProviderExa, bombBody(`{"results":[`, jsonResults, `{}`, `]}`), urls},
		{"exa highlights", ProviderExa, bombBody(`{"results":[{"url":"https://one.example/a","highlights":["first",`, nil, `""`, `]}]}`), urls[:1]},
		{"brave", ProviderBrave, bombBody(`{"web":{"results":[`, jsonResults, `{}`, `]}}`), urls},
		{"bocha", ProviderBocha, bombBody(`{"code":200,"data":{"webPages":{"value":[`, results(`{"name":"Result %[2]d","url":%[1]q,"snippet":"s"}`), `{}`, `]}}}`), urls},
		{"wikipedia", ProviderWikipedia, bombBody(`{"query":{"search":[`, []string{`{"title":"Alpha"}`, `{"title":"Beta"}`, `{"title":"Gamma"}`}, `{}`, `]}}`),
			[]string{wikiArticleURL("en", wikiTitles[0]), wikiArticleURL("en", wikiTitles[1]), wikiArticleURL("en", wikiTitles[2])}},
		{"duckduckgo", ProviderDuckDuckGo, bombBody(`<html><body>`,
			results(`<div class="result"><a class="result__a" href="%[1]s">Result %[2]d</a><a class="result__snippet">snippet</a></div>`), `<p>`, `</body></html>`), urls},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.body) > maxSearchResponse || len(tc.body) < maxSearchResponse-64 {
				t.Fatalf("bomb is %d bytes, want just under %d", len(tc.body), maxSearchResponse)
			}
			spec := specFor(t, tc.id)
			ps := newProviderServer(t, reply{header: map[string]string{"Content-Type": "application/json"}, body: tc.body})
			s, _ := newSpecSearcher(t, spec, ps)
			var got []SearchResult
			var err error
			n := allocated(func() { got, err = s.Search(context.Background(), "english words", 10) })
			if err != nil {
				t.Fatalf("Search: %v", err)
			}
			var gotURLs []string
			for _, r := range got {
				gotURLs = append(gotURLs, r.URL)
			}
			if strings.Join(gotURLs, " ") != strings.Join(tc.want, " ") {
				t.Errorf("result URLs = %q, want %q", gotURLs, tc.want)
			}
			if n > bombLimit {
				t.Errorf("one search of an %d-byte answer allocated %d MB, want at most %d MB", len(tc.body), n>>20, bombLimit>>20)
			}
			t.Logf("allocated %d MB", n>>20)
		})
	}
}

// TestSearchErrorBodyBomb: an error answer of the full 8 MiB size, a JSON object holding
// millions of empty objects, is quoted from its start and costs a bounded amount of memory
// (decoding it into generic values for the provider's error message took hundreds of MB).
func TestSearchErrorBodyBomb(t *testing.T) {
	for _, spec := range providerSpecs {
		t.Run(spec.id, func(t *testing.T) {
			body := bombBody(`{"message":[`, nil, `{}`, `]}`)
			ps := newProviderServer(t, reply{status: http.StatusInternalServerError, body: body})
			s, _ := newSpecSearcher(t, spec, ps)
			var err error
			n := allocated(func() { _, err = s.Search(context.Background(), "english words", 10) })
			if err == nil || !strings.Contains(err.Error(), `{"message":[{},{}`) {
				t.Errorf("err = %.300v, want one quoting the answer's start", err)
			}
			if n > bombLimit {
				t.Errorf("one search of an %d-byte error answer allocated %d MB, want at most %d MB", len(body), n>>20, bombLimit>>20)
			}
		})
	}
}

// TestOneLine: white space runs (any unicode.IsSpace rune) become one space, the ends are
// trimmed, and every other byte is kept as given (invalid UTF-8 included), as
// strings.Join(strings.Fields(s), " ") did.
func TestOneLine(t *testing.T) {
	for _, in := range []string{"", "   ", "a", " a  b\t\nc ", "x\u00a0\u2003y\u0085z", "bad\xffbyte \xc3", "日本  語\u3000です", strings.Repeat("a ", 1000)} {
		want := strings.Join(strings.Fields(in), " ")
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	in := strings.Repeat("a ", 1<<20)
	if n := allocated(func() { oneLine(in) }); n > 4<<20 {
		t.Errorf("oneLine of %d bytes allocated %d bytes, want about the size of its result", len(in), n)
	}
}

// TestQuotedErrorNeverHoldsPartOfTheKey: an error answer longer than the part that is read
// for quoting, mostly white space with the key straddling the cut, is quoted without the
// first characters of the key.
func TestQuotedErrorNeverHoldsPartOfTheKey(t *testing.T) {
	spec := specFor(t, ProviderTavily)
	body := []byte(strings.Repeat(" ", maxQuotedBody-6) + testKey + " tail")
	ps := newProviderServer(t, reply{status: http.StatusInternalServerError, body: body})
	s, _ := newSpecSearcher(t, spec, ps)
	_, err := s.Search(context.Background(), "x", 3)
	if err == nil {
		t.Fatal("want an error")
	}
	if strings.Contains(err.Error(), testKey[:6]) {
		t.Errorf("error %q quotes the start of the key", err)
	}
}

package web

import (
	"artifactflow/backend/testdocs"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// privateOK is a fetcher allowed to reach httptest servers on 127.0.0.1.
func privateOK() *Fetcher { return NewFetcher(FetcherConfig{AllowPrivate: true}) }

const articleParagraphs = `
<p>The lighthouse keepers of the northern coast kept detailed logbooks for more than a century.
Each entry recorded the weather, the passing ships and the state of the lamp, and together they
form one of the longest continuous climate records in the region.</p>
<p>Researchers digitised four thousand pages of these logbooks in 2023. Their findings are
summarised in <a href="guide.html">the digitisation guide</a>, which explains how handwriting
was transcribed and checked by volunteers.</p>
<p>The records show that storms became more frequent after 1950, while the number of foggy days
fell steadily. The authors caution that instruments changed several times over the period.</p>`

// articlePage is a realistic page: navigation, header, the article, a sidebar and a footer.
func articlePage(extra string) string {
	return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Lighthouse logbooks | Coastal News</title></head>
<body>
<header><nav class="menu"><ul>
<li><a href="/">Home</a></li><li><a href="/pricing">Pricing</a></li><li><a href="/login">Sign in</a></li>
</ul></nav></header>
<main><article><h1>Lighthouse logbooks</h1>` + articleParagraphs + extra + `</article></main>
<footer><p>Copyright 2024 Coastal News Ltd. All rights reserved.</p>
<ul><li><a href="/privacy">Privacy policy</a></li><li><a href="/terms">Terms of use</a></li></ul></footer>
</body></html>`
}

func TestFetchArticleExtractsMainContentAsMarkdown(t *testing.T) {
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/news/logbooks.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articlePage(""))
	})
	page, err := privateOK().Fetch(context.Background(), ts.URL+"/news/logbooks.html")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"lighthouse keepers of the northern coast",
		"storms became more frequent after 1950",
		"[the digitisation guide](" + ts.URL + "/news/guide.html)", // relative link made absolute, as Markdown
	}
	for _, w := range want {
		if !strings.Contains(page.Content, w) {
			t.Errorf("content lacks %q:\n%s", w, page.Content)
		}
	}
	for _, boiler := range []string{"Pricing", "Sign in", "Copyright 2024", "Privacy policy", "<p>"} {
		if strings.Contains(page.Content, boiler) {
			t.Errorf("content has boilerplate %q:\n%s", boiler, page.Content)
		}
	}
	if !strings.Contains(page.Title, "Lighthouse logbooks") {
		t.Errorf("title = %q", page.Title)
	}
	if page.URL != ts.URL+"/news/logbooks.html" || page.ContentType != "text/html" || page.Truncated {
		t.Errorf("page = %+v", Page{URL: page.URL, ContentType: page.ContentType, Bytes: page.Bytes, Truncated: page.Truncated})
	}
	if page.Bytes != int64(len(articlePage(""))) {
		t.Errorf("Bytes = %d, want %d", page.Bytes, len(articlePage("")))
	}
}

func TestFetchHonoursBaseHref(t *testing.T) {
	ts := serveBody(t, "text/html", []byte(strings.Replace(articlePage(""),
		"<head>", `<head><base href="https://docs.example.org/v2/">`, 1)))
	page, err := privateOK().Fetch(context.Background(), ts.URL+"/a/b.html")
	if err != nil {
		t.Fatal(err)
	}
	if want := "(https://docs.example.org/v2/guide.html)"; !strings.Contains(page.Content, want) {
		t.Errorf("content lacks link %q:\n%s", want, page.Content)
	}
}

func TestFetchFallsBackToBodyWhenExtractionFindsNothing(t *testing.T) {
	// Only a link-dense list: main-content extraction discards it, the body fallback keeps it.
	body := `<html><head><title>Index</title></head><body><ul>
<li><a href="/one">First report</a></li><li><a href="/two">Second report</a></li></ul></body></html>`
	ts := serveBody(t, "text/html", []byte(body))
	page, err := privateOK().Fetch(context.Background(), ts.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"[First report](" + ts.URL + "/one)", "[Second report](" + ts.URL + "/two)"} {
		if !strings.Contains(page.Content, w) {
			t.Errorf("content lacks %q:\n%s", w, page.Content)
		}
	}
	if page.Title != "Index" {
		t.Errorf("title = %q, want Index", page.Title)
	}
}

func mustEncode(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return b
}

func TestFetchDecodesCharsets(t *testing.T) {
	const (
		zh = "北京的天气预报：今天晴，气温二十五度。"
		ja = "東京の天気予報：今日は晴れ、気温は二十五度です。"
		fr = "Le café de la gare était fermé à Noël; déjà vu, naïve façade."
	)
	page := func(meta, text string) string {
		return "<html><head>" + meta + "<title>T</title></head><body><article><p>" + text + "</p></article></body></html>"
	}
	// An undeclared UTF-8 page whose first 1024 bytes are ASCII must not become Windows-1252.
	asciiPad := "<!-- " + strings.Repeat("padding ", 200) + "-->"
	tests := []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"GBK meta", "text/html", mustEncode(t, simplifiedchinese.GBK, page(`<meta charset="gbk">`, zh)), zh},
		{"GBK header", "text/html; charset=GBK", mustEncode(t, simplifiedchinese.GBK, page("", zh)), zh},
		{"GB2312 http-equiv", "text/html", mustEncode(t, simplifiedchinese.GBK, page(`<meta http-equiv="Content-Type" content="text/html; charset=gb2312">`, zh)), zh},
		{"Shift_JIS meta", "text/html", mustEncode(t, japanese.ShiftJIS, page(`<meta charset="Shift_JIS">`, ja)), ja},
		{"Shift_JIS header", "text/html; charset=shift_jis", mustEncode(t, japanese.ShiftJIS, page("", ja)), ja},
		{"latin1 meta", "text/html", mustEncode(t, charmap.ISO8859_1, page(`<meta charset="iso-8859-1">`, fr)), fr},
		{"latin1 header", "text/html; charset=ISO-8859-1", mustEncode(t, charmap.ISO8859_1, page("", fr)), fr},
		{"undeclared latin1", "text/html", mustEncode(t, charmap.ISO8859_1, page("", fr)), fr},
		{"undeclared UTF-8 after ASCII", "text/html", []byte(page(asciiPad, zh)), zh},
		{"header beats meta", "text/html; charset=shift_jis", mustEncode(t, japanese.ShiftJIS, page(`<meta charset="utf-8">`, ja)), ja},
		{"text/plain GBK header", "text/plain; charset=gbk", mustEncode(t, simplifiedchinese.GBK, zh), zh},
		{"text/plain latin1 header", "text/plain; charset=iso-8859-1", mustEncode(t, charmap.ISO8859_1, fr), fr},
		{"UTF-8 BOM", "text/plain", append([]byte("\xEF\xBB\xBF"), zh...), zh},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := serveBody(t, tc.contentType, tc.body)
			p, err := privateOK().Fetch(context.Background(), ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Content, tc.want) {
				t.Errorf("content = %q, want it to contain %q", p.Content, tc.want)
			}
			if strings.HasPrefix(p.Content, "\uFEFF") {
				t.Errorf("content keeps the byte-order mark")
			}
		})
	}
}

func TestFetchPDF(t *testing.T) {
	doc := testdocs.BuildPDF("Tiny Test PDF", "Hello from page one\nsecond line of page one", "Page two says goodbye")
	ts := serveBody(t, "application/pdf", doc)
	page, err := privateOK().Fetch(context.Background(), ts.URL+"/paper.pdf")
	if err != nil {
		t.Fatal(err)
	}
	want := "[Page 1]\nHello from page one\nsecond line of page one\n\n[Page 2]\nPage two says goodbye"
	if page.Content != want {
		t.Errorf("content = %q, want %q", page.Content, want)
	}
	if page.Title != "Tiny Test PDF" || page.ContentType != "application/pdf" || page.Bytes != int64(len(doc)) {
		t.Errorf("title %q type %q bytes %d", page.Title, page.ContentType, page.Bytes)
	}
}

func TestFetchBrokenPDF(t *testing.T) {
	doc := testdocs.BuildPDF("T", "some text")
	tests := []struct {
		name   string
		cfg    FetcherConfig
		body   []byte
		errHas string
	}{
		{"not a PDF", FetcherConfig{AllowPrivate: true}, []byte("<html>oops</html>"), "broken PDF"},
		{"truncated", FetcherConfig{AllowPrivate: true}, doc[:40], "broken PDF"},
		{"cut by size cap", FetcherConfig{AllowPrivate: true, MaxBytes: int64(len(doc) / 2)}, doc, "size cap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := serveBody(t, "application/pdf", tc.body)
			_, err := NewFetcher(tc.cfg).Fetch(context.Background(), ts.URL+"/x.pdf")
			if err == nil || !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), ts.URL+"/x.pdf") {
				t.Fatalf("err = %v, want one naming the URL and containing %q", err, tc.errHas)
			}
		})
	}
}

func TestFetchTextTypesAsIs(t *testing.T) {
	tests := []struct{ contentType, body string }{
		{"text/plain", "line one\n  indented <b>not html</b>\n"},
		{"text/markdown; charset=utf-8", "# Title\n\n* item [link](http://x)\n"},
		{"application/json", `{"name": "café", "n": [1, 2]}`},
		{"text/csv", "a,b\n1,\"x, y\"\n"},
		{"application/ld+json", `{"@type": "Article"}`},
	}
	for _, tc := range tests {
		t.Run(tc.contentType, func(t *testing.T) {
			ts := serveBody(t, tc.contentType, []byte(tc.body))
			p, err := privateOK().Fetch(context.Background(), ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			if p.Content != tc.body {
				t.Errorf("content = %q, want %q", p.Content, tc.body)
			}
			if want := parseMediaType(tc.contentType); p.ContentType != want {
				t.Errorf("ContentType = %q, want %q", p.ContentType, want)
			}
		})
	}
}

func TestFetchSizeCapTruncates(t *testing.T) {
	body := strings.Repeat("0123456789", 500) // 5000 bytes
	tests := []struct {
		max       int64
		truncated bool
	}{{1000, true}, {4999, true}, {5000, false}, {8000, false}}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			ts := serveBody(t, "text/plain", []byte(body))
			p, err := NewFetcher(FetcherConfig{AllowPrivate: true, MaxBytes: tc.max}).Fetch(context.Background(), ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			wantLen := min(tc.max, int64(len(body)))
			if p.Truncated != tc.truncated || p.Bytes != wantLen || p.Content != body[:wantLen] {
				t.Errorf("Truncated %v Bytes %d len(Content) %d; want %v %d", p.Truncated, p.Bytes, len(p.Content), tc.truncated, wantLen)
			}
		})
	}
}

func TestFetchHTTPStatus(t *testing.T) {
	for _, code := range []int{404, 410, 500, 503} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			ts := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", code) })
			_, err := privateOK().Fetch(context.Background(), ts.URL+"/missing")
			if !errors.Is(err, ErrHTTPStatus) {
				t.Fatalf("err = %v, want ErrHTTPStatus", err)
			}
			if msg := err.Error(); !strings.Contains(msg, fmt.Sprint(code)) || !strings.Contains(msg, ts.URL+"/missing") {
				t.Errorf("error %q should name the code and the URL", msg)
			}
		})
	}
}

func TestFetchUnsupportedContent(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")
	tests := []struct {
		contentType string
		body        []byte
		wantType    string
	}{
		{"image/png", png, "image/png"},
		{"image/svg+xml", []byte("<svg/>"), "image/svg+xml"},
		{"audio/mpeg", []byte("ID3"), "audio/mpeg"},
		{"video/mp4", []byte("\x00\x00\x00\x18ftypmp42"), "video/mp4"},
		{"application/zip", []byte("PK\x03\x04"), "application/zip"},
		{"application/octet-stream", []byte{0, 1, 2, 3}, "application/octet-stream"},
		{"", png, "image/png"}, // no header: sniffed
	}
	for _, tc := range tests {
		t.Run(tc.wantType+"/"+tc.contentType, func(t *testing.T) {
			ts := serveBody(t, tc.contentType, tc.body)
			_, err := privateOK().Fetch(context.Background(), ts.URL)
			if !errors.Is(err, ErrUnsupportedContent) {
				t.Fatalf("err = %v, want ErrUnsupportedContent", err)
			}
			if !strings.Contains(err.Error(), tc.wantType) {
				t.Errorf("error %q does not name %q", err, tc.wantType)
			}
		})
	}
}

func TestFetchSniffsMissingContentType(t *testing.T) {
	ts := serveBody(t, "", []byte(articlePage("")))
	p, err := privateOK().Fetch(context.Background(), ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if p.ContentType != "text/html" || !strings.Contains(p.Content, "lighthouse keepers") {
		t.Errorf("ContentType %q, content %q", p.ContentType, p.Content)
	}
}

func TestFetchFollowsRedirects(t *testing.T) {
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/hop/%d", &n); err == nil && n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "arrived at "+r.URL.Path)
	})
	tests := []struct {
		hops    int
		wantErr bool
	}{{1, false}, {5, false}, {6, true}, {20, true}}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.hops), func(t *testing.T) {
			p, err := privateOK().Fetch(context.Background(), fmt.Sprintf("%s/hop/%d", ts.URL, tc.hops))
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
					t.Fatalf("err = %v, want the redirect limit", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.URL != ts.URL+"/hop/0" || p.Content != "arrived at /hop/0" {
				t.Errorf("URL %q content %q", p.URL, p.Content)
			}
		})
	}
}

func TestFetchHonoursContext(t *testing.T) {
	ts := serveBody(t, "text/plain", []byte("x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := privateOK().Fetch(ctx, ts.URL)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestFetchTimeout: a server that stalls past the fetcher's Timeout, before the headers
// or in the middle of the body, gives ErrTimeout with the limit and advice, promptly;
// the caller's own deadline gives the context's error instead.
func TestFetchTimeout(t *testing.T) {
	const limit = 300 * time.Millisecond
	release := make(chan struct{})
	ts := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("the first part arrives, "))
			w.(http.Flusher).Flush()
		}
		select { // stall until the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before ts.Close, so no handler is left waiting

	tests := []struct {
		name      string
		path      string
		ctxLimit  time.Duration // 0: no deadline of the caller's own
		wantErr   error
		wantInMsg []string
	}{
		{"stalls before the headers", "/slow-headers", 0, ErrTimeout,
			[]string{"/slow-headers", "timed out after 300ms", "try another source"}},
		{"stalls in the body", "/slow-body", 0, ErrTimeout,
			[]string{"/slow-body", "read body: timed out after 300ms", "try another source"}},
		{"caller's deadline comes first", "/slow-headers", 100 * time.Millisecond, context.DeadlineExceeded,
			[]string{"/slow-headers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.ctxLimit > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxLimit)
				defer cancel()
			}
			f := NewFetcher(FetcherConfig{AllowPrivate: true, Timeout: limit})
			start := time.Now()
			_, err := f.Fetch(ctx, ts.URL+tt.path)
			elapsed := time.Since(start)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != ErrTimeout && errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v: the caller's deadline is not the fetcher's timeout", err)
			}
			for _, want := range tt.wantInMsg {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err.Error(), want)
				}
			}
			if elapsed > limit+2*time.Second {
				t.Fatalf("Fetch returned after %v, want soon after %v", elapsed, limit)
			}
		})
	}
}

// TestURLErrorsKeepTheirCause: errors built around a parse error wrap it next to the
// sentinel, so errors.As still finds it.
func TestURLErrorsKeepTheirCause(t *testing.T) {
	_, fetchErr := privateOK().Fetch(context.Background(), "http://[::1")
	_, searxErr := NewSearXNG("http://[::1", nil)
	dialErr := dialControl(func(netip.Addr) bool { return false })(context.Background(), "tcp", "no-port", nil)
	_, parseErr := netip.ParseAddrPort("no-port")
	tests := []struct {
		name     string
		err      error
		sentinel error
		isCause  func(error) bool
	}{
		{"fetch of a malformed URL", fetchErr, ErrBadURL, func(err error) bool { var u *url.Error; return errors.As(err, &u) }},
		{"malformed SearXNG URL", searxErr, ErrBadURL, func(err error) bool { var u *url.Error; return errors.As(err, &u) }},
		{"unparsable dial address", dialErr, ErrBlockedAddress, func(err error) bool {
			multi, ok := err.(interface{ Unwrap() []error })
			if !ok {
				return false
			}
			for _, e := range multi.Unwrap() {
				if e.Error() == parseErr.Error() {
					return true
				}
			}
			return false
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.sentinel) {
				t.Fatalf("err = %v, want %v", tt.err, tt.sentinel)
			}
			if !tt.isCause(tt.err) {
				t.Fatalf("err = %v (%T) does not wrap its cause", tt.err, tt.err)
			}
		})
	}
}

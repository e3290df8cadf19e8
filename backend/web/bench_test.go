package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// bigArticle builds an article page of about size bytes: navigation, a sidebar of links,
// sections of paragraphs with inline links, a table, and a footer.
func bigArticle(size int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>A long report</title></head><body>
<header><nav><ul>`)
	for i := range 30 {
		fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav></header><aside><h3>Related</h3><ul>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<li><a href="/related/%d">Related story number %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></aside><main><article><h1>A long report</h1>`)
	for i := 0; b.Len() < size-2000; i++ {
		if i%8 == 0 {
			fmt.Fprintf(&b, "<h2>Part %d</h2>", i/8+1)
		}
		fmt.Fprintf(&b, `<p>Paragraph %d explains one finding of the study in plain words, with enough detail to
be worth reading: the measurements were repeated %d times, the results were compared with the
<a href="notes/%d.html">published notes</a> and with earlier surveys, and the authors list the
limitations <em>openly</em> so that readers can judge the strength of the evidence themselves.</p>`, i, i%7+2, i)
		if i%40 == 39 {
			b.WriteString("<table><tr><th>Year</th><th>Value</th></tr><tr><td>2020</td><td>1.5</td></tr><tr><td>2021</td><td>1.7</td></tr></table>")
		}
	}
	b.WriteString(`</article></main><footer><p>Copyright 2024 Example Media. All rights reserved.</p></footer></body></html>`)
	return b.String()
}

// BenchmarkFetchArticle200KB measures Fetch of a 200 KB article page from a loopback
// server: HTTP, charset decoding, main-content extraction and Markdown conversion.
func BenchmarkFetchArticle200KB(b *testing.B) {
	page := bigArticle(200 << 10)
	ts := serve(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	})
	f := privateOK()
	ctx := context.Background()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	var out int
	for b.Loop() {
		p, err := f.Fetch(ctx, ts.URL+"/report.html")
		if err != nil {
			b.Fatal(err)
		}
		out = len(p.Content)
	}
	b.ReportMetric(float64(out), "md-bytes")
}

// BenchmarkHTMLToPage200KB measures extraction and conversion alone, without HTTP.
func BenchmarkHTMLToPage200KB(b *testing.B) {
	page := bigArticle(200 << 10)
	final, _ := url.Parse("https://example.com/report.html")
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := htmlToPage(page, final); err != nil {
			b.Fatal(err)
		}
	}
}

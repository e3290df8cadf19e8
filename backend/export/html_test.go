package export

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// htmlDoc is a parsed HTML export.
type htmlDoc struct{ root *html.Node }

func parseHTML(t *testing.T, b []byte) htmlDoc {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse html: %v", err)
	}
	return htmlDoc{root}
}

// all returns every element named tag, in document order.
func (d htmlDoc) all(tag string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(d.root)
	return out
}

// withText returns the first element named tag whose text is text, or nil.
func (d htmlDoc) withText(tag, text string) *html.Node {
	for _, n := range d.all(tag) {
		if textOf(n) == text {
			return n
		}
	}
	return nil
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// hasAncestor reports whether n has an ancestor element named tag.
func hasAncestor(n *html.Node, tag string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == tag {
			return true
		}
	}
	return false
}

func TestHTMLEveryElement(t *testing.T) {
	out, err := HTML(Doc{Title: "Every Element", ContentType: "markdown", Content: everyElement, Version: 3, Exported: fixtureTime})
	if err != nil {
		t.Fatalf("HTML: %v", err)
	}
	d := parseHTML(t, out)

	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"doctype and utf-8", func(t *testing.T) {
			if !bytes.HasPrefix(out, []byte("<!DOCTYPE html>")) {
				t.Errorf("output does not start with <!DOCTYPE html>")
			}
			ok := false
			for _, m := range d.all("meta") {
				if v, _ := attr(m, "charset"); strings.EqualFold(v, "utf-8") {
					ok = true
				}
			}
			if !ok {
				t.Errorf("no <meta charset=utf-8>")
			}
		}},
		{"title", func(t *testing.T) {
			if ts := d.all("title"); len(ts) != 1 || textOf(ts[0]) != "Every Element" {
				t.Errorf("<title> = %v, want one with %q", ts, "Every Element")
			}
		}},
		{"inline css", func(t *testing.T) {
			if s := d.all("style"); len(s) != 1 || !strings.Contains(textOf(s[0]), "@media print") {
				t.Errorf("want one <style> with print rules")
			}
			if len(d.all("link")) != 0 {
				t.Errorf("standalone page must not link stylesheets")
			}
		}},
		{"no script survives", func(t *testing.T) {
			if s := d.all("script"); len(s) != 0 {
				t.Errorf("found %d <script> elements", len(s))
			}
			if bytes.Contains(bytes.ToLower(out), []byte("<script")) {
				t.Errorf("output contains <script")
			}
			if bytes.Contains(out, []byte("alert('xss')")) {
				t.Errorf("raw HTML block content leaked")
			}
		}},
		{"csp forbids scripts", func(t *testing.T) {
			for _, m := range d.all("meta") {
				if v, _ := attr(m, "http-equiv"); v == "Content-Security-Policy" {
					if c, _ := attr(m, "content"); strings.Contains(c, "default-src 'none'") && !strings.Contains(c, "script-src") {
						return
					}
				}
			}
			t.Errorf("no CSP meta with default-src 'none'")
		}},
		{"headings h1-h6", func(t *testing.T) {
			for i, want := range []string{"One", "Two", "Three", "Four", "Five", "Six"} {
				tag := "h" + string(rune('1'+i))
				if d.withText(tag, "Heading "+want) == nil {
					t.Errorf("no <%s>Heading %s</%s>", tag, want, tag)
				}
			}
		}},
		{"title not duplicated when content opens with h1", func(t *testing.T) {
			if n := len(d.all("h1")); n != 1 {
				t.Errorf("%d <h1>, want 1", n)
			}
		}},
		{"inline formatting", func(t *testing.T) {
			for tag, text := range map[string]string{"strong": "bold text", "em": "italic text", "del": "struck text", "code": "inline code"} {
				if d.withText(tag, text) == nil {
					t.Errorf("no <%s>%s</%s>", tag, text, tag)
				}
			}
		}},
		{"escapes and entities resolved", func(t *testing.T) {
			p := d.withText("strong", "bold text").Parent
			if txt := textOf(p); !strings.Contains(txt, "a * literal star & an & entity") {
				t.Errorf("paragraph text %q", txt)
			}
		}},
		{"hard break", func(t *testing.T) {
			if len(d.all("br")) != 1 {
				t.Errorf("want 1 <br>, got %d", len(d.all("br")))
			}
		}},
		{"nested bullets", func(t *testing.T) {
			n := d.withText("li", "deeper bullet")
			if n == nil {
				t.Fatal("no deeper bullet item")
			}
			depth := 0
			for p := n.Parent; p != nil; p = p.Parent {
				if p.Data == "ul" {
					depth++
				}
			}
			if depth != 3 {
				t.Errorf("deeper bullet is in %d <ul>, want 3", depth)
			}
		}},
		{"numbered list keeps start", func(t *testing.T) {
			ols := d.all("ol")
			if len(ols) != 2 {
				t.Fatalf("%d <ol>, want 2", len(ols))
			}
			if v, _ := attr(ols[0], "start"); v != "3" {
				t.Errorf("<ol start=%q>, want 3", v)
			}
			if !hasAncestor(ols[1], "ol") {
				t.Errorf("nested <ol> is not inside the outer list")
			}
		}},
		{"task list", func(t *testing.T) {
			var checked, unchecked int
			for _, in := range d.all("input") {
				if v, _ := attr(in, "type"); v != "checkbox" {
					continue
				}
				if _, dis := attr(in, "disabled"); !dis {
					t.Errorf("checkbox is not disabled")
				}
				if _, ok := attr(in, "checked"); ok {
					checked++
				} else {
					unchecked++
				}
			}
			if checked != 1 || unchecked != 1 {
				t.Errorf("checked=%d unchecked=%d, want 1 and 1", checked, unchecked)
			}
		}},
		{"table with alignment", func(t *testing.T) {
			if n := len(d.all("table")); n != 1 {
				t.Fatalf("%d tables", n)
			}
			ths, tds := d.all("th"), d.all("td")
			if len(ths) != 3 || len(tds) != 6 {
				t.Fatalf("%d th / %d td, want 3 / 6", len(ths), len(tds))
			}
			for i, want := range []string{"left", "center", "right"} {
				if s, _ := attr(ths[i], "style"); !strings.Contains(s, "text-align:"+want) {
					t.Errorf("th %d style %q, want text-align:%s", i, s, want)
				}
			}
			if textOf(tds[4]) != "b2" {
				t.Errorf("td[4] = %q, want b2", textOf(tds[4]))
			}
		}},
		{"code block with language", func(t *testing.T) {
			for _, c := range d.all("code") {
				if cl, _ := attr(c, "class"); cl == "language-go" && c.Parent.Data == "pre" {
					if !strings.Contains(textOf(c), `println("<hi>")`) {
						t.Errorf("code text %q", textOf(c))
					}
					return
				}
			}
			t.Errorf("no <pre><code class=language-go>")
		}},
		{"nested block quote", func(t *testing.T) {
			p := d.withText("p", "nested quote")
			if p == nil || p.Parent.Data != "blockquote" || !hasAncestor(p.Parent, "blockquote") {
				t.Errorf("nested quote is not in two <blockquote>")
			}
		}},
		{"horizontal rule", func(t *testing.T) {
			if len(d.all("hr")) != 1 {
				t.Errorf("want 1 <hr>")
			}
		}},
		{"links have rel noopener noreferrer", func(t *testing.T) {
			want := map[string]bool{"https://example.com/path?q=1&r=2": false, "https://auto.example.org": false, "http://www.bare.example.net": false}
			for _, a := range d.all("a") {
				href, _ := attr(a, "href")
				if rel, _ := attr(a, "rel"); rel != "noopener noreferrer" {
					t.Errorf("<a href=%q rel=%q>", href, rel)
				}
				want[href] = true
			}
			for href, seen := range want {
				if !seen {
					t.Errorf("no link to %s", href)
				}
			}
		}},
		{"image", func(t *testing.T) {
			imgs := d.all("img")
			if len(imgs) != 1 {
				t.Fatalf("%d <img>", len(imgs))
			}
			if alt, _ := attr(imgs[0], "alt"); alt != "Alt of image" {
				t.Errorf("alt = %q", alt)
			}
		}},
		{"CJK text", func(t *testing.T) {
			if d.withText("p", "中文段落：人工智能研究。日本語のテキスト。") == nil {
				t.Errorf("CJK paragraph missing")
			}
		}},
		{"footer with version and export time", func(t *testing.T) {
			f := d.all("footer")
			if len(f) != 1 || textOf(f[0]) != "Version 3 · Exported 2026-03-04 05:06 UTC" {
				t.Errorf("footer = %v", f)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

func TestHTMLCases(t *testing.T) {
	tests := []struct {
		name  string
		doc   Doc
		check func(t *testing.T, d htmlDoc, out []byte)
	}{
		{"non-markdown content is an escaped code block under the title",
			Doc{Title: "page.html", ContentType: "html", Content: "<b onclick=x()>hi</b><script>alert(1)</script>\n"},
			func(t *testing.T, d htmlDoc, out []byte) {
				if len(d.all("script")) != 0 || len(d.all("b")) != 0 {
					t.Errorf("content was rendered as HTML")
				}
				if h := d.all("h1"); len(h) != 1 || textOf(h[0]) != "page.html" {
					t.Errorf("want one <h1>page.html</h1>")
				}
				codes := d.all("code")
				if len(codes) != 1 || codes[0].Parent.Data != "pre" {
					t.Fatalf("want one <pre><code>")
				}
				if got := textOf(codes[0]); got != "<b onclick=x()>hi</b><script>alert(1)</script>" {
					t.Errorf("code text = %q", got)
				}
				if cl, _ := attr(codes[0], "class"); cl != "language-html" {
					t.Errorf("class = %q", cl)
				}
			}},
		{"title shown when content has no h1",
			Doc{Title: "Report", Content: "## Part\n\ntext\n"},
			func(t *testing.T, d htmlDoc, out []byte) {
				if h := d.all("h1"); len(h) != 1 || textOf(h[0]) != "Report" {
					t.Errorf("want <h1>Report</h1>")
				}
			}},
		{"title is escaped and untitled falls back",
			Doc{Title: "", Content: "x"},
			func(t *testing.T, d htmlDoc, out []byte) {
				if textOf(d.all("title")[0]) != "Untitled" || len(d.all("h1")) != 0 {
					t.Errorf("want <title>Untitled</title> and no <h1>")
				}
				if len(d.all("footer")) != 0 {
					t.Errorf("footer without version or time")
				}
			}},
		{"markup in title stays text",
			Doc{Title: "</title><script>alert(1)</script>", Content: "x"},
			func(t *testing.T, d htmlDoc, out []byte) {
				if len(d.all("script")) != 0 {
					t.Errorf("script from title")
				}
				if textOf(d.all("title")[0]) != "</title><script>alert(1)</script>" {
					t.Errorf("title = %q", textOf(d.all("title")[0]))
				}
			}},
		{"dangerous link targets are dropped",
			Doc{Title: "x", Content: "[a](javascript:alert(1)) [b](data:text/html;base64,PHNjcmlwdD4=) [c](vbscript:x)"},
			func(t *testing.T, d htmlDoc, out []byte) {
				for _, a := range d.all("a") {
					if href, _ := attr(a, "href"); href != "" {
						t.Errorf("href %q kept", href)
					}
				}
			}},
		{"event handler attributes in raw html are omitted",
			Doc{Title: "x", Content: "<img src=x onerror=alert(1)>\n\n<iframe src=https://evil.example></iframe>\n\ntext <a href=\"#\" onclick=\"x()\">y</a>"},
			func(t *testing.T, d htmlDoc, out []byte) {
				if len(d.all("iframe")) != 0 || len(d.all("img")) != 0 || bytes.Contains(out, []byte("onerror")) || bytes.Contains(out, []byte("onclick")) {
					t.Errorf("raw HTML survived: %s", out)
				}
			}},
		{"control characters are removed",
			Doc{Title: "a\x00b", Content: "c\x01d\x1be\x7f\r\nf"},
			func(t *testing.T, d htmlDoc, out []byte) {
				if p := d.all("p"); len(p) != 1 || textOf(p[0]) != "cde\nf" {
					t.Errorf("paragraph = %q", textOf(d.all("p")[0]))
				}
				if textOf(d.all("title")[0]) != "ab" {
					t.Errorf("title = %q", textOf(d.all("title")[0]))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := HTML(tt.doc)
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			tt.check(t, parseHTML(t, out), out)
		})
	}
}

package web

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/ledongthuc/pdf"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// mdConverter turns HTML into CommonMark with GFM tables. It is safe for concurrent use.
var mdConverter = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(),
	table.NewTablePlugin(),
))

// decodeText converts a text or HTML body to valid UTF-8. The encoding comes, in order,
// from a byte-order mark, the charset parameter of contentType, a <meta charset> (or
// http-equiv) in the first 1024 bytes (charset.DetermineEncoding), and else UTF-8 when the
// whole body is valid UTF-8 and Windows-1252 otherwise. (charset.NewReader would guess
// Windows-1252 for an undeclared UTF-8 page whose first 1024 bytes are ASCII.)
func decodeText(body []byte, contentType string) string {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && name == "windows-1252" && utf8.Valid(body) {
		enc = encoding.Nop
	}
	s := string(body)
	if enc != encoding.Nop {
		if b, err := enc.NewDecoder().Bytes(body); err == nil {
			s = string(b)
		}
	}
	return strings.ToValidUTF8(strings.TrimPrefix(s, "\uFEFF"), "\uFFFD")
}

// htmlToPage returns the title and the Markdown of the main content of an HTML document
// fetched from final. Links are made absolute against the page's <base href> or final.
// The main content comes from go-trafilatura; when it fails, panics or finds too little
// (see extractMain), the whole <body> is converted instead.
func htmlToPage(text string, final *url.URL) (title, markdown string, err error) {
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return "", "", fmt.Errorf("parse HTML: %w", err)
	}
	linkBase := documentBase(doc, final)
	absolutizeLinks(doc, linkBase)

	res, err := extractMain(doc, linkBase)
	if err == nil {
		title = res.Metadata.Title
		markdown, err = toMarkdown(res.ContentNode, linkBase)
	}
	if err != nil || strings.TrimSpace(markdown) == "" {
		slog.Debug("web: main-content extraction gave nothing, converting the whole body", "url", final.Redacted(), "err", err)
		body := findElement(doc, "body")
		if body == nil {
			body = doc
		}
		if markdown, err = toMarkdown(body, linkBase); err != nil {
			return "", "", err
		}
	}
	if title == "" {
		if t := findElement(doc, "title"); t != nil {
			title = textContent(t)
		}
	}
	return strings.Join(strings.Fields(title), " "), strings.TrimSpace(markdown), nil
}

// minMainText is the main-content length, in runes, below which extraction is judged to
// have failed; it is trafilatura's own threshold for rescuing an extraction.
var minMainText = trafilatura.DefaultConfig().MinExtractedSize

// extractMain runs go-trafilatura on doc (which it does not modify). It fails when the
// library errors, panics on hostile markup, or finds under minMainText runes of text, so
// the caller can fall back to the whole body.
func extractMain(doc *html.Node, pageURL *url.URL) (res *trafilatura.ExtractResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("trafilatura panicked: %v", r)
		}
	}()
	res, err = trafilatura.ExtractDocument(doc, trafilatura.Options{
		OriginalURL:     pageURL,
		IncludeLinks:    true,
		ExcludeComments: true,
		HtmlDateMode:    trafilatura.Disabled, // the date is not used; skipping it saves most of the time
	})
	switch {
	case err != nil:
		return nil, err
	case res.ContentNode == nil:
		return nil, errors.New("no main content found")
	case utf8.RuneCountInString(res.ContentText) < minMainText:
		// trafilatura then falls back to a flat text dump (its "baseline"); the whole
		// body as Markdown keeps more, links included.
		return nil, fmt.Errorf("main content too short (%d characters)", utf8.RuneCountInString(res.ContentText))
	}
	return res, nil
}

// toMarkdown converts n to Markdown, resolving any remaining relative URL against linkBase.
func toMarkdown(n *html.Node, linkBase *url.URL) (string, error) {
	md, err := mdConverter.ConvertNode(n, converter.WithDomain(linkBase.String()))
	if err != nil {
		return "", fmt.Errorf("convert HTML to Markdown: %w", err)
	}
	return string(md), nil
}

// documentBase returns the URL relative links resolve against: the first <base href>,
// resolved against final, when it is http(s); else final.
func documentBase(doc *html.Node, final *url.URL) *url.URL {
	b := findElement(doc, "base")
	if b == nil {
		return final
	}
	href, ok := attr(b, "href")
	if !ok {
		return final
	}
	ref, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return final
	}
	if u := final.ResolveReference(ref); u.Scheme == "http" || u.Scheme == "https" {
		return u
	}
	return final
}

// absolutizeLinks rewrites every <a href> in doc to an absolute URL against linkBase
// (RFC 3986 resolution; go-trafilatura's own joining mishandles "page.html" relative to a
// file path). Unparseable hrefs are left alone.
func absolutizeLinks(doc *html.Node, linkBase *url.URL) {
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "a" {
			continue
		}
		for i, a := range n.Attr {
			if a.Namespace != "" || a.Key != "href" {
				continue
			}
			if ref, err := url.Parse(strings.TrimSpace(a.Val)); err == nil {
				n.Attr[i].Val = linkBase.ResolveReference(ref).String()
			}
		}
	}
}

// findElement returns the first element named tag in n's subtree (n included), or nil.
func findElement(n *html.Node, tag string) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag {
		return n
	}
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d.Data == tag {
			return d
		}
	}
	return nil
}

// attr returns the value of n's attribute key.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// textContent concatenates the text nodes under n.
func textContent(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

// pdfToText extracts the document title (Info /Title) and the text of every page, pages
// separated by a blank line. A PDF that cannot be parsed, has no pages or no text layer
// gives an error; a panic in the parser on a broken file becomes an error too.
func pdfToText(data []byte) (title, text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			title, text, err = "", "", fmt.Errorf("broken PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", "", fmt.Errorf("broken PDF: %w", err)
	}
	n := r.NumPage()
	if n <= 0 {
		return "", "", errors.New("broken PDF: no pages")
	}
	pages := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if err != nil {
			return "", "", fmt.Errorf("broken PDF: page %d: %w", i, err)
		}
		if t = strings.TrimSpace(t); t != "" {
			pages = append(pages, t)
		}
	}
	if len(pages) == 0 {
		return "", "", fmt.Errorf("PDF has %d page(s) but no text layer (scanned images?)", n)
	}
	title = strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
	return title, strings.Join(pages, "\n\n"), nil
}

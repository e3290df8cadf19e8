package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// mdConverter turns HTML into CommonMark with GFM tables. Cells are not padded to their
// column's width: one long cell would otherwise widen every row of its column (a 1 MB
// header over 100,000 rows is 100 GB of spaces). It is safe for concurrent use.
var mdConverter = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(),
	table.NewTablePlugin(table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal)),
))

// Bounds of HTML conversion, for pages and uploads of unknown origin.
const (
	// MaxHTMLBytes is the largest HTML document converted to Markdown, in bytes; a larger
	// one is refused (ErrTooLarge) before it is parsed, whose tree takes about ten times
	// the document's size.
	MaxHTMLBytes = 32 << 20
	// MaxMarkdownBytes caps the Markdown of one document, in bytes; it is cut at a line
	// boundary with a closing line saying so.
	MaxMarkdownBytes = 16 << 20
	// maxSpan is the largest colspan or rowspan kept; browsers allow up to 1000 and
	// 65534, but the converter copies a cell into every slot it spans.
	maxSpan = 64
	// maxTableCells is the most slots (rows times the widest row, spans counted) a table
	// may have and still become a GFM table, which fills every row up to the widest; a
	// larger table becomes one line per row with its cells separated by " | ".
	maxTableCells = 100_000
)

// ErrTooLarge means a document is over a conversion size limit; the message gives it.
var ErrTooLarge = errors.New("document too large to convert")

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
	boundTables(doc)

	var res *trafilatura.ExtractResult
	err = errTooManyElements
	if countElements(doc, maxMainElements+1) <= maxMainElements {
		res, err = extractMain(doc, linkBase)
	}
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
	return strings.Join(strings.Fields(title), " "), capMarkdown(strings.TrimSpace(markdown)), nil
}

// capMarkdown cuts md to at most MaxMarkdownBytes at the last line break before the cap
// (or at a rune boundary when there is none) and adds a line saying so.
func capMarkdown(md string) string {
	if len(md) <= MaxMarkdownBytes {
		return md
	}
	cut := md[:MaxMarkdownBytes]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	} else {
		cut = strings.ToValidUTF8(cut, "")
	}
	return cut + fmt.Sprintf("\n\n[The page's text was cut here: it is over %d MB.]", MaxMarkdownBytes>>20)
}

// boundTables makes every table in doc cheap to convert: colspan and rowspan above
// maxSpan are lowered to it, and a table with more than maxTableCells slots is rewritten
// as one paragraph per row with its cells separated by " | " (see maxTableCells). Nested
// tables are judged on their own.
func boundTables(doc *html.Node) {
	var tables []*html.Node
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "table":
			tables = append(tables, n)
		case "td", "th":
			for i, a := range n.Attr {
				if a.Namespace == "" && (a.Key == "colspan" || a.Key == "rowspan") {
					if v, err := strconv.Atoi(strings.TrimSpace(a.Val)); err != nil || v > maxSpan {
						n.Attr[i].Val = strconv.Itoa(min(max(v, 1), maxSpan))
					}
				}
			}
		}
	}
	for _, t := range tables {
		if tableSlots(t) > maxTableCells {
			flattenTable(t)
		}
	}
}

// tableSlots returns the rows of table t times its widest row, colspans counted, and
// rowspans added as extra rows; rows of nested tables are not t's.
func tableSlots(t *html.Node) int {
	rows, width, extra := 0, 0, 0
	forOwn(t, func(n *html.Node) {
		if n.Data != "tr" {
			return
		}
		rows++
		w := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
				cs, rs := spanOf(c, "colspan"), spanOf(c, "rowspan")
				w += cs
				extra += cs * (rs - 1)
			}
		}
		width = max(width, w)
	})
	return rows*width + extra
}

// spanOf returns cell's colspan or rowspan attribute as boundTables left it, 1 when absent.
func spanOf(cell *html.Node, key string) int {
	if v, ok := attr(cell, key); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 1 {
			return n
		}
	}
	return 1
}

// forOwn calls fn for every element under t (t excluded) that is not inside a nested table.
func forOwn(t *html.Node, fn func(*html.Node)) {
	for c := t.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		fn(c)
		if c.Data != "table" {
			forOwn(c, fn)
		}
	}
}

// flattenTable rewrites table t in place as a <div> of paragraphs, one per row, whose
// cells are separated by " | " (nested tables untouched).
func flattenTable(t *html.Node) {
	var rows []*html.Node
	forOwn(t, func(n *html.Node) {
		switch n.Data {
		case "tr":
			rows = append(rows, n)
		case "thead", "tbody", "tfoot", "caption", "colgroup":
			n.Data, n.DataAtom = "div", atom.Div
		}
	})
	t.Data, t.DataAtom = "div", atom.Div
	for _, r := range rows {
		r.Data, r.DataAtom, r.Attr = "p", atom.P, nil
		first := true
		for c := r.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || (c.Data != "td" && c.Data != "th") {
				continue
			}
			c.Data, c.DataAtom, c.Attr = "span", atom.Span, nil
			if !first {
				r.InsertBefore(&html.Node{Type: html.TextNode, Data: " | "}, c)
			}
			first = false
		}
	}
}

// maxMainElements is the most elements a document may have for main-content extraction;
// go-trafilatura clones and re-queries the tree many times over (about 400 bytes
// allocated per byte of a large page), so a larger document is converted whole. Real
// articles have a few thousand elements; a long encyclopedia page about 30,000.
const maxMainElements = 50_000

// errTooManyElements is why a document over maxMainElements is converted whole.
var errTooManyElements = fmt.Errorf("over %d elements: main-content extraction skipped", maxMainElements)

// countElements returns the number of element nodes in doc, counting no further than
// limit.
func countElements(doc *html.Node, limit int) int {
	n := 0
	for d := range doc.Descendants() {
		if d.Type == html.ElementNode {
			if n++; n >= limit {
				break
			}
		}
	}
	return n
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

package web

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
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
// from:
//
//  1. a byte-order mark, then the charset parameter of contentType (charset.DetermineEncoding);
//  2. UTF-8 when the body has bytes above 0x7F and is valid UTF-8 throughout: a <meta>
//     declaring another encoding is then stale (a page re-encoded when it was saved, say),
//     and text in a legacy multi-byte encoding is practically never valid UTF-8;
//  3. a <meta charset> or <meta http-equiv="Content-Type" content="…; charset=…"> in the
//     document's head (metaCharset: up to <body> or maxMetaScan bytes, not only the first
//     1024 bytes as the WHATWG prescan does; rp.pl declared windows-1250 after 2 KB of
//     script);
//  4. else UTF-8 when the whole body is valid UTF-8 and Windows-1252 otherwise.
//
// (charset.NewReader would guess Windows-1252 for an undeclared UTF-8 page whose first 1024
// bytes are ASCII.) A leading byte-order mark is dropped and invalid sequences become U+FFFD.
func decodeText(body []byte, contentType string) string {
	enc := textEncoding(body, contentType)
	s := string(body)
	if enc != encoding.Nop {
		if b, err := enc.NewDecoder().Bytes(body); err == nil {
			s = string(b)
		}
	}
	return strings.ToValidUTF8(strings.TrimPrefix(s, "\uFEFF"), "\uFFFD")
}

// textEncoding picks body's encoding by decodeText's rules; encoding.Nop means UTF-8.
func textEncoding(body []byte, contentType string) encoding.Encoding {
	if enc, _, certain := charset.DetermineEncoding(body, contentType); certain {
		return enc
	}
	valid := utf8.Valid(body)
	if valid && hasHighBit(body) {
		return encoding.Nop
	}
	if enc := metaCharset(body); enc != nil {
		return enc
	}
	if valid {
		return encoding.Nop
	}
	return charmap.Windows1252 // the WHATWG default for undeclared legacy pages
}

// hasHighBit reports whether b has a byte above 0x7F.
func hasHighBit(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// maxMetaScan is how far into a document metaCharset looks for a <meta> declaring the
// encoding, in bytes. Browsers find such a late declaration while parsing the head and
// reload the page with it; here the head is tokenized up to <body> or this many bytes.
const maxMetaScan = 64 << 10

// metaCharset returns the encoding a <meta> element declares, or nil: the first
// <meta charset="…"> or <meta http-equiv="Content-Type" content="…charset=…"> within
// maxMetaScan bytes that is in the first 1024 bytes (anywhere, as in the WHATWG prescan)
// or before the body starts (<body> or any other element that does not belong in the
// head). A declared UTF-16 means UTF-8, as in the prescan (the bytes were read as ASCII
// to find it); an unknown label is ignored.
func metaCharset(body []byte) encoding.Encoding {
	z := html.NewTokenizer(bytes.NewReader(body[:min(len(body), maxMetaScan)]))
	read := 0 // bytes tokenized so far, the current token included
	inBody := false
	for {
		tt := z.Next()
		read += len(z.Raw())
		switch tt {
		case html.ErrorToken:
			return nil
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		name, hasAttr := z.TagName()
		switch string(name) {
		case "meta":
			if inBody && read > 1024 {
				return nil
			}
		case "html", "head", "title", "script", "style", "link", "base", "noscript", "template":
			continue
		default:
			if inBody = true; read > 1024 {
				return nil // the body has begun
			}
			continue
		}
		var label, httpEquiv, content string
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			switch strings.ToLower(string(k)) {
			case "charset":
				label = string(v)
			case "http-equiv":
				httpEquiv = string(v)
			case "content":
				content = string(v)
			}
		}
		if label == "" && strings.EqualFold(strings.TrimSpace(httpEquiv), "content-type") {
			if _, params, err := mime.ParseMediaType(content); err == nil {
				label = params["charset"]
			}
		}
		if label == "" {
			continue
		}
		enc, encName := charset.Lookup(label)
		if enc == nil {
			continue
		}
		if strings.HasPrefix(encName, "utf-16") {
			return encoding.Nop
		}
		return enc
	}
}

// htmlToPage returns the title and the Markdown of the main content of an HTML document
// fetched from final. Links are made absolute against the page's <base href> or final.
// The main content comes from Readability (codeberg.org/readeck/go-readability/v2, a Go
// port of Mozilla's Readability.js; see extractMain); when it fails, panics or finds too
// little, the whole <body> is converted instead. Images, video, frames and other embedded
// media are left out: their Markdown is only URLs, which the window does not load anyway.
func htmlToPage(text string, final *url.URL) (title, markdown string, err error) {
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return "", "", fmt.Errorf("parse HTML: %w", err)
	}
	linkBase := documentBase(doc, final)
	absolutizeLinks(doc, linkBase)
	boundTables(doc)

	var main *html.Node
	err = errTooManyElements
	if countElements(doc, maxMainElements+1) <= maxMainElements {
		// Readability works on clones; the document itself only loses its scripts,
		// styles and comments and has runs of <br> turned into paragraphs, so it still
		// serves the fallback below.
		title, main, err = extractMain(doc, linkBase)
	}
	if err == nil {
		dropMedia(main)
		markdown, err = toMarkdown(main, linkBase)
	}
	if err != nil || strings.TrimSpace(markdown) == "" {
		slog.Debug("web: main-content extraction gave nothing, converting the whole body", "url", final.Redacted(), "err", err)
		body := findElement(doc, "body")
		if body == nil {
			body = doc
		}
		dropMedia(body)
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

// mediaTags are the elements dropMedia removes.
var mediaTags = map[atom.Atom]bool{
	atom.Img: true, atom.Picture: true, atom.Svg: true, atom.Video: true, atom.Audio: true,
	atom.Iframe: true, atom.Frame: true, atom.Embed: true, atom.Object: true, atom.Canvas: true,
	atom.Map: true,
}

// emptiedTags are the elements dropMedia removes once they hold no text: a link around an
// image would become "[](url)", a table of images rows of empty cells.
var emptiedTags = map[atom.Atom]bool{
	atom.A: true, atom.Table: true, atom.Figure: true, atom.P: true, atom.Li: true,
	atom.Ul: true, atom.Ol: true,
}

// dropMedia removes images, SVG, video, audio, frames, embedded objects, canvases and image
// maps under n, then the links, tables, figures, paragraphs and lists left without text;
// figure captions and all text stay.
func dropMedia(n *html.Node) {
	var drop []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && mediaTags[d.DataAtom] {
			drop = append(drop, d)
		}
	}
	for _, d := range drop {
		if d.Parent != nil {
			d.Parent.RemoveChild(d)
		}
	}
	dropEmpty(n)
}

// dropEmpty removes the emptiedTags elements under n that hold no text other than white
// space, innermost first, and reports whether n itself holds any such text.
func dropEmpty(n *html.Node) (hasText bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch c.Type {
		case html.TextNode:
			hasText = hasText || strings.TrimSpace(c.Data) != ""
		case html.ElementNode:
			if dropEmpty(c) {
				hasText = true
			} else if emptiedTags[c.DataAtom] {
				n.RemoveChild(c)
			}
		}
		c = next
	}
	return hasText
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
// a larger one is converted whole. Readability scores every element and clones the
// document once per attempt (up to four), so its cost grows with the element count. Real
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

// minMainText is the main-content length, in characters (runes, white space runs counted
// as one), below which extraction is judged to have failed and the whole body is used: a
// page that is mostly a list of links (an index, a search page) keeps its links that way.
// 250 is trafilatura's threshold for the same decision.
const minMainText = 250

// extractMain runs Readability on doc, which loses its scripts, styles and comments and
// has runs of <br> made paragraphs (everything else Readability does happens on clones).
// It returns the article's title ("" when Readability finds none) and the element holding
// the main content. It fails when Readability errors, panics on hostile markup, or finds
// under minMainText characters of text, so the caller can fall back to the whole body.
func extractMain(doc *html.Node, pageURL *url.URL) (title string, main *html.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			title, main, err = "", nil, fmt.Errorf("readability panicked: %v", r)
		}
	}()
	p := readability.NewParser()
	p.MaxElemsToParse = maxMainElements
	article, err := p.ParseAndMutate(doc, pageURL)
	switch {
	case err != nil:
		return "", nil, fmt.Errorf("readability: %w", err)
	case article.Node == nil:
		return "", nil, errors.New("readability found no main content")
	}
	if n := textLength(article.Node); n < minMainText {
		return "", nil, fmt.Errorf("main content too short (%d characters)", n)
	}
	return article.Title(), article.Node, nil
}

// textLength returns the characters of n's text, each run of white space counted as one.
func textLength(n *html.Node) int {
	count, space := 0, true
	for d := range n.Descendants() {
		if d.Type != html.TextNode {
			continue
		}
		for _, r := range d.Data {
			if unicode.IsSpace(r) {
				if !space {
					count++
				}
				space = true
				continue
			}
			count++
			space = false
		}
	}
	return count
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
// (RFC 3986 resolution), so that the main content keeps working links wherever it is cut
// from. Unparseable hrefs are left alone.
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

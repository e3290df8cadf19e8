package web

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/ledongthuc/pdf"
)

// HTMLToMarkdown converts an HTML document held in memory (an uploaded .html file, say) to
// Markdown with the same extraction web_fetch uses: the main content found by
// go-trafilatura, or the whole <body> when that finds too little, with GFM tables.
//
// data is decoded to UTF-8 from, in order, a byte-order mark, the charset parameter of
// contentType (e.g. "text/html; charset=gbk"; "" for none), a <meta charset> in the first
// 1024 bytes, else UTF-8 when valid and Windows-1252 otherwise. baseURL, when not "", must
// be an absolute http(s) URL; relative links are resolved against it (or against a
// <base href> in the document). With baseURL "" they are resolved against "/", so
// "other.html" becomes "/other.html" (such links point nowhere outside their site anyway).
//
// It returns the document title (white space collapsed; "" when there is none) and the
// Markdown with surrounding white space trimmed. Errors: a baseURL that is not an absolute
// http(s) URL wraps ErrBadURL; an HTML conversion failure is returned wrapped.
func HTMLToMarkdown(data []byte, contentType, baseURL string) (title, markdown string, err error) {
	base := &url.URL{}
	if baseURL != "" {
		base, err = url.Parse(baseURL)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return "", "", fmt.Errorf("html to markdown: base URL %q: %w: want an absolute http(s) URL", baseURL, ErrBadURL)
		}
	}
	return htmlToPage(decodeText(data, contentType), base)
}

// PDF limits of PDFToText. github.com/ledongthuc/pdf loops forever on some malformed
// files (a page tree whose /Kids contain an ancestor, a /Parent or /Prev chain that
// cycles) and re-reads the file on every object access; these bound its work.
const (
	// pdfReadFactor and pdfReadSlack bound the bytes the parser may read from the file:
	// pdfReadFactor times its size plus pdfReadSlack. The parser reads up to 4 KB per
	// object access; an ordinary document reads about 5 to 30 times its size.
	pdfReadFactor = 48
	pdfReadSlack  = 32 << 20
	// pdfMaxTreeDepth is the deepest page tree walked; real trees are a few levels deep.
	pdfMaxTreeDepth = 64
	// pdfMaxTreeNodes is the most page-tree nodes visited (pages and intermediate nodes).
	pdfMaxTreeNodes = 100_000
)

// errPDFTooComplex is returned by budgetReaderAt once the read budget is spent.
var errPDFTooComplex = errors.New("the PDF is too complex to read (its structure loops or is extremely large)")

// PDFToText extracts the text layer of a PDF held in memory: it returns the document title
// (Info /Title, "" when absent) and the text of every page in page-tree order, pages
// separated by a blank line; pages whose text cannot be read are skipped.
//
// Unlike web_fetch's PDF path it is hardened for files of unknown origin: the page tree is
// walked once with a depth and node limit (so cyclic trees fail instead of looping), and
// the parser may read at most 48 times the file size plus 32 MB, which ends its other
// loops on cyclic references (within about a second for a small file). Errors: the file
// cannot be parsed, has no pages, has no text layer (scanned images), or exceeds a limit;
// a panic inside the parser is returned as an error too.
func PDFToText(data []byte) (title, text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			title, text, err = "", "", fmt.Errorf("broken PDF: %v", r)
		}
	}()
	f := &budgetReaderAt{r: bytes.NewReader(data), left: pdfReadFactor*int64(len(data)) + pdfReadSlack}
	r, err := pdf.NewReader(f, int64(len(data)))
	if err != nil {
		return "", "", fmt.Errorf("broken PDF: %w", err)
	}
	pages, err := pdfPages(r.Trailer().Key("Root").Key("Pages"))
	if err != nil {
		return "", "", err
	}
	if len(pages) == 0 {
		return "", "", errors.New("broken PDF: no pages")
	}
	texts := make([]string, 0, len(pages))
	for i, p := range pages {
		t, err := p.GetPlainText(nil)
		if f.left <= 0 {
			return "", "", errPDFTooComplex
		}
		if err != nil {
			slog.Debug("web: PDF page without readable text", "page", i+1, "err", err)
			continue
		}
		if t = strings.TrimSpace(t); t != "" {
			texts = append(texts, t)
		}
	}
	if len(texts) == 0 {
		return "", "", fmt.Errorf("PDF has %d page(s) but no text layer (scanned images?)", len(pages))
	}
	title = strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
	return title, strings.Join(texts, "\n\n"), nil
}

// pdfPages returns the leaf pages under the page-tree node root in document order,
// visiting at most pdfMaxTreeNodes nodes no deeper than pdfMaxTreeDepth.
func pdfPages(root pdf.Value) ([]pdf.Page, error) {
	type node struct {
		v     pdf.Value
		depth int
	}
	var pages []pdf.Page
	stack := []node{{root, 0}}
	for visited := 0; len(stack) > 0; visited++ {
		if visited == pdfMaxTreeNodes {
			return nil, fmt.Errorf("broken PDF: page tree has more than %d nodes", pdfMaxTreeNodes)
		}
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n.v.Key("Type").Name() {
		case "Page":
			pages = append(pages, pdf.Page{V: n.v})
		case "Pages":
			if n.depth == pdfMaxTreeDepth {
				return nil, fmt.Errorf("broken PDF: page tree deeper than %d levels (it may loop)", pdfMaxTreeDepth)
			}
			kids := n.v.Key("Kids")
			for i := kids.Len() - 1; i >= 0; i-- { // reversed, so the first kid is visited first
				stack = append(stack, node{kids.Index(i), n.depth + 1})
			}
		}
	}
	return pages, nil
}

// budgetReaderAt is an io.ReaderAt over a byte slice that fails with errPDFTooComplex
// once left bytes have been read.
type budgetReaderAt struct {
	r    *bytes.Reader
	left int64
}

// ReadAt reads like bytes.Reader.ReadAt while the budget lasts, then fails with
// errPDFTooComplex.
func (b *budgetReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if b.left <= 0 {
		return 0, errPDFTooComplex
	}
	n, err := b.r.ReadAt(p, off)
	b.left -= int64(n)
	return n, err
}

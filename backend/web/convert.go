package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"

	"artifactflow/backend/sandbox"
)

// HTMLToMarkdown converts an HTML document held in memory (an uploaded .html file, say) to
// Markdown with the same extraction web_fetch uses: the main content found by
// Readability (see htmlToPage), or the whole <body> when that finds too little, with GFM
// tables. Like every conversion of a document of unknown origin it runs in a child process
// (see convertHTML) that ctx or its 30 s deadline kills.
//
// data is decoded to UTF-8 from, in order, a byte-order mark, the charset parameter of
// contentType (e.g. "text/html; charset=gbk"; "" for none), UTF-8 when the bytes are valid
// UTF-8 with some above 0x7F, a <meta charset> in the document's head (see decodeText),
// else UTF-8 when valid and Windows-1252 otherwise. baseURL, when not "", must
// be an absolute http(s) URL; relative links are resolved against it (or against a
// <base href> in the document). With baseURL "" they are resolved against "/", so
// "other.html" becomes "/other.html" (such links point nowhere outside their site anyway).
//
// It returns the document title (white space collapsed; "" when there is none) and the
// Markdown with surrounding white space trimmed. Errors: a baseURL that is not an absolute
// http(s) URL wraps ErrBadURL; a document over MaxHTMLBytes wraps ErrTooLarge; a converter
// that fails, takes too long or needs too much memory gives an error saying so (wrapping
// the sandbox sentinel); ctx's error when ctx ended first.
func HTMLToMarkdown(ctx context.Context, data []byte, contentType, baseURL string) (title, markdown string, err error) {
	base := &url.URL{}
	if baseURL != "" {
		base, err = url.Parse(baseURL)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return "", "", fmt.Errorf("html to markdown: base URL %q: %w: want an absolute http(s) URL", baseURL, ErrBadURL)
		}
	}
	return convertHTML(ctx, data, contentType, base)
}

// Jobs of the child process (backend/sandbox) that converts documents.
const (
	htmlJob = "web.html"
	pdfJob  = "web.pdf"
)

func init() {
	sandbox.Handle(htmlJob, htmlWorker)
	sandbox.Handle(pdfJob, pdfWorker)
}

// htmlLimits bound the child process that converts one HTML document: 30 s, 1 GB of
// memory (a 10 MB page takes about 550 MB), and the Markdown cap plus room for JSON.
var htmlLimits = sandbox.Limits{Timeout: 30 * time.Second, MaxMemory: 1 << 30, MaxOutput: 2*MaxMarkdownBytes + 1<<20}

// docResult is what a converting child process returns.
type docResult struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// htmlRequest heads the input of the HTML job, on a line of its own before the document.
type htmlRequest struct {
	ContentType string `json:"content_type"`
	BaseURL     string `json:"base_url"`
}

// convertHTML decodes and converts body (see HTMLToMarkdown; links resolve against base)
// in a child process under htmlLimits. A body over MaxHTMLBytes is refused before it is
// sent (ErrTooLarge).
func convertHTML(ctx context.Context, body []byte, contentType string, base *url.URL) (title, markdown string, err error) {
	if len(body) > MaxHTMLBytes {
		return "", "", fmt.Errorf("%w: the HTML is %d MB, over the %d MB limit", ErrTooLarge, len(body)>>20, MaxHTMLBytes>>20)
	}
	head, err := json.Marshal(htmlRequest{ContentType: contentType, BaseURL: base.String()})
	if err != nil {
		return "", "", fmt.Errorf("html to markdown: %w", err)
	}
	input := make([]byte, 0, len(head)+1+len(body))
	input = append(append(append(input, head...), '\n'), body...)
	res, err := runConverter(ctx, htmlJob, "the HTML converter", "the page could not be converted", input, htmlLimits)
	return res.Title, res.Text, err
}

// htmlWorker is the HTML sandbox job: an htmlRequest line and the document in, a JSON
// docResult out.
func htmlWorker(input []byte) ([]byte, error) {
	head, body, _ := bytes.Cut(input, []byte("\n"))
	var req htmlRequest
	if err := json.Unmarshal(head, &req); err != nil {
		return nil, fmt.Errorf("html to markdown: bad request: %w", err)
	}
	base, err := url.Parse(req.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("html to markdown: base URL: %w", err)
	}
	title, md, err := htmlToPage(decodeText(body, req.ContentType), base)
	if err != nil {
		return nil, err
	}
	return json.Marshal(docResult{Title: title, Text: md})
}

// runConverter runs a converting job in the sandbox and decodes its docResult. A job
// error comes back as the job's own message; a child that took too long, needed too much
// memory or crashed gives "<failed>: <what> <the sandbox's reason>", wrapping the sandbox
// sentinel; ctx's error when ctx ended first.
func runConverter(ctx context.Context, job, what, failed string, input []byte, lim sandbox.Limits) (docResult, error) {
	out, err := sandbox.Run(ctx, job, input, lim)
	if err != nil {
		var jobErr *sandbox.JobError
		switch {
		case ctx.Err() != nil:
			return docResult{}, fmt.Errorf("%s: %w", failed, ctx.Err())
		case errors.As(err, &jobErr):
			return docResult{}, err
		}
		return docResult{}, fmt.Errorf("%s: %s %w", failed, what, err)
	}
	var res docResult
	if err := json.Unmarshal(out, &res); err != nil {
		return docResult{}, fmt.Errorf("%s: %s gave an unreadable answer: %w", failed, what, err)
	}
	return res, nil
}

// PDF limits. github.com/ledongthuc/pdf trusts the file: it loops forever on some
// malformed files (a page tree whose /Kids contain an ancestor, a /Parent or /Prev chain
// that cycles), re-reads the file on every object access, and sizes slices from counts the
// file declares. PDFToText therefore runs it in a child process (backend/sandbox) under a
// deadline and a memory cap, and inside that process these bound its work.
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
	// PDFMaxPages is the most pages whose text is read; later pages are left out and a
	// closing line says so.
	PDFMaxPages = 5_000
	// PDFMaxText is the most text kept from one PDF, in bytes; the text is cut at a page
	// boundary (or inside a single huge page) and a closing line says so.
	PDFMaxText = 16 << 20
)

// pdfLimits bound the child process that reads one PDF: 30 s, 768 MB of memory, and the
// text cap plus room for the title and the JSON around them.
var pdfLimits = sandbox.Limits{Timeout: 30 * time.Second, MaxMemory: 768 << 20, MaxOutput: 2*PDFMaxText + 1<<20}

// pdfWorker is the PDF sandbox job: the PDF's bytes in, a JSON docResult out.
func pdfWorker(data []byte) ([]byte, error) {
	title, text, err := pdfText(data)
	if err != nil {
		return nil, err
	}
	return json.Marshal(docResult{Title: title, Text: text})
}

// errPDFTooComplex is returned by budgetReaderAt once the read budget is spent.
var errPDFTooComplex = errors.New("the PDF is too complex to read (its structure loops or is extremely large)")

// PDFToText extracts the text layer of a PDF held in memory, the one PDF reader of
// web_fetch and of uploads: it returns the document title (Info /Title, "" when absent)
// and the text of every page in page-tree order, pages separated by a blank line; pages
// whose text cannot be read are skipped.
//
// The file is of unknown origin, so the parser runs in a child process (backend/sandbox)
// that is killed when ctx is done or after 30 s and may hold at most 768 MB; inside it the
// page tree is walked once with a depth and node limit (so cyclic trees fail instead of
// looping), the parser may read at most 48 times the file size plus 32 MB (which ends its
// other loops on cyclic references), at most PDFMaxPages pages are read and at most
// PDFMaxText bytes of text kept. Errors start with "broken PDF" or "PDF": the file cannot
// be parsed, has no pages, has no text layer (scanned images), exceeds a limit, or the
// reader took too long (wraps sandbox.ErrTimeout), needed too much memory
// (sandbox.ErrOutOfMemory) or crashed (sandbox.ErrCrashed); ctx's error when ctx ended
// first.
func PDFToText(ctx context.Context, data []byte) (title, text string, err error) {
	res, err := runConverter(ctx, pdfJob, "the PDF reader", "broken PDF", data, pdfLimits)
	return res.Title, res.Text, err
}

// pdfText is the in-process extraction PDFToText runs in its child: see PDFToText for
// the limits. A panic inside the parser is returned as an error.
func pdfText(data []byte) (title, text string, err error) {
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
	var b strings.Builder
	read, cut := 0, ""
	for i, p := range pages {
		if i == PDFMaxPages {
			cut = fmt.Sprintf("[Only the first %d of %d pages were read.]", PDFMaxPages, len(pages))
			break
		}
		t, err := p.GetPlainText(nil)
		if f.left <= 0 {
			return "", "", errPDFTooComplex
		}
		if err != nil {
			slog.Debug("web: PDF page without readable text", "page", i+1, "err", err)
			continue
		}
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if b.Len()+len(t) > PDFMaxText {
			t, _ = Truncate(t, max(PDFMaxText-b.Len(), 0)/4) // runes of up to 4 bytes
			cut = fmt.Sprintf("[The text was cut at page %d of %d: it is over %d MB.]", i+1, len(pages), PDFMaxText>>20)
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
		read++
		if cut != "" {
			break
		}
	}
	if read == 0 {
		return "", "", fmt.Errorf("PDF has %d page(s) but no text layer (scanned images?)", len(pages))
	}
	if cut != "" {
		b.WriteString("\n\n" + cut)
	}
	title = strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
	return title, b.String(), nil
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

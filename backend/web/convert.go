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

// pdfJob is the sandbox job name of PDF text extraction.
const pdfJob = "web.pdf"

func init() { sandbox.Handle(pdfJob, pdfWorker) }

// pdfResult is what the PDF child process returns.
type pdfResult struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// pdfWorker is the sandbox job: the PDF's bytes in, a JSON pdfResult out.
func pdfWorker(data []byte) ([]byte, error) {
	title, text, err := pdfText(data)
	if err != nil {
		return nil, err
	}
	return json.Marshal(pdfResult{Title: title, Text: text})
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
	out, err := sandbox.Run(ctx, pdfJob, data, pdfLimits)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("read PDF: %w", ctx.Err())
		}
		var jobErr *sandbox.JobError
		if errors.As(err, &jobErr) {
			return "", "", err
		}
		return "", "", fmt.Errorf("broken PDF: the PDF reader %w", unwrapSandbox(err))
	}
	var res pdfResult
	if err := json.Unmarshal(out, &res); err != nil {
		return "", "", fmt.Errorf("broken PDF: the PDF reader's answer is unreadable: %w", err)
	}
	return res.Title, res.Text, nil
}

// unwrapSandbox drops the "sandbox <job>: " prefix of a sandbox error, keeping its chain.
func unwrapSandbox(err error) error {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "sandbox ") {
		return &prefixedError{msg: rest, err: err}
	}
	return err
}

// prefixedError shows msg and unwraps to err.
type prefixedError struct {
	msg string
	err error
}

func (e *prefixedError) Error() string { return e.msg }
func (e *prefixedError) Unwrap() error { return e.err }

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

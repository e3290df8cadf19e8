package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"artifactflow/backend/pdfwasm"
	"artifactflow/backend/sandbox"
)

// The PDF reader is PDFium (the PDF engine of Chromium) compiled to WebAssembly, as
// github.com/klippa-app/go-pdfium ships it, run by the pure-Go wazero runtime: no cgo, so
// the app still cross-builds for Windows and macOS. PDFium decodes the fonts (embedded
// encodings, CID fonts, ToUnicode maps, Type 3) and reports every glyph with its position;
// layoutPage (pdflayout.go) turns the glyphs into reading text. It was chosen by measuring
// candidates against poppler's pdftotext on the corpus in testdata/pdf (see that folder's
// README and docs/ARCHITECTURE.md).

// pdfJob is the job of the child process (backend/sandbox) that reads a PDF.
const pdfJob = "web.pdf"

func init() {
	sandbox.Handle(pdfJob, pdfWorker)
}

// PDF limits, applied inside the child process that reads one PDF.
const (
	// PDFMaxPages is the most pages whose text is read; later pages are left out and a
	// closing line says so.
	PDFMaxPages = 5_000
	// PDFMaxText is the most text kept from one PDF, in bytes; the text is cut at a page
	// boundary (or inside a single huge page) and a closing line says so.
	PDFMaxText = 16 << 20
	// pdfMaxPageGlyphs is the most glyphs read from one page; a page painting more (a
	// hostile file, or a chart of millions of points drawn as text) is cut there.
	pdfMaxPageGlyphs = 200_000
	// pdfWASMMemoryPages caps PDFium's WebAssembly memory, in 64 KB pages (512 MB): a file
	// asking for more fails inside PDFium with an error instead of exhausting the child.
	pdfWASMMemoryPages = 8192
)

// pdfLimits bound the child process that reads one PDF: 30 s, 768 MB of memory (PDFium's
// first compilation in a process without a cache takes about 340 MB, a read from the
// cache about 60 to 90 MB), and the text cap plus room for the title and the JSON around
// them.
var pdfLimits = sandbox.Limits{Timeout: 30 * time.Second, MaxMemory: 768 << 20, MaxOutput: 2*PDFMaxText + 1<<20}

// pdfRequest heads the input of the PDF job, on a line of its own before the file.
type pdfRequest struct {
	// CacheDir holds wazero's compiled PDFium, "" for none. The parent chooses it: the
	// child's environment is cut down (see sandbox) and may not say where the user's cache is.
	CacheDir string `json:"cache_dir"`
}

// pdfCacheDir returns the folder where the compiled PDFium module is kept between child
// processes: "artifactflow/pdfium" under os.UserCacheDir(), or "" when there is none.
// Compiling the module takes about 5 s; loading the compiled code from there about 0.1 to
// 0.3 s. wazero keys the entries by its version and the module's hash and writes them
// atomically, so children running at once and upgrades share the folder safely.
func pdfCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "artifactflow", "pdfium")
}

// PDFToText extracts the text layer of a PDF held in memory, the one PDF reader of
// web_fetch and of uploads. It returns the document title (Info /Title, "" when absent)
// and the text of the pages in page order, each page that has text headed by a line of
// its own "[Page N]" (N from 1) and pages separated by a blank line. The text reads like
// the page: words separated, lines kept, columns read one after another, paragraphs (and
// other blocks) separated by a blank line, ligatures spelt out (ﬁ → fi), accents painted
// as glyphs of their own put on their letters, and words hyphenated at a line end joined.
//
// The file is of unknown origin, so PDFium runs in a child process (backend/sandbox)
// that is killed when ctx is done or after 30 s and may hold at most 768 MB; inside it
// PDFium's WebAssembly memory is capped at 512 MB, at most PDFMaxPages pages and
// pdfMaxPageGlyphs glyphs per page are read, and at most PDFMaxText bytes of text kept.
// Errors start with "broken PDF" or "PDF": the file cannot be parsed ("broken PDF: the
// file is damaged or not a PDF") or is encrypted with a password ("PDF is
// password-protected"), has no pages, has no text layer (scanned images), or the reader took
// too long (wraps sandbox.ErrTimeout), needed too much memory (sandbox.ErrOutOfMemory)
// or crashed (sandbox.ErrCrashed); ctx's error when ctx ended first. A WarmPDFReader in
// progress is stopped first.
func PDFToText(ctx context.Context, data []byte) (title, text string, err error) {
	preemptWarmUp()
	return pdfToText(ctx, data, pdfLimits)
}

// pdfToText is PDFToText with the child's limits.
func pdfToText(ctx context.Context, data []byte, lim sandbox.Limits) (title, text string, err error) {
	head, err := json.Marshal(pdfRequest{CacheDir: pdfCacheDir()})
	if err != nil {
		return "", "", fmt.Errorf("broken PDF: %w", err)
	}
	input := make([]byte, 0, len(head)+1+len(data))
	input = append(append(append(input, head...), '\n'), data...)
	res, err := runConverter(ctx, pdfJob, "the PDF reader", "broken PDF", input, lim)
	return res.Title, res.Text, err
}

// pdfWorker is the PDF sandbox job: a pdfRequest line and the PDF's bytes in, a JSON
// docResult out.
func pdfWorker(input []byte) ([]byte, error) {
	head, data, _ := bytes.Cut(input, []byte("\n"))
	var req pdfRequest
	if err := json.Unmarshal(head, &req); err != nil {
		return nil, fmt.Errorf("broken PDF: bad request: %w", err)
	}
	title, text, err := pdfText(context.Background(), data, req.CacheDir)
	if err != nil {
		return nil, err
	}
	return json.Marshal(docResult{Title: title, Text: text})
}

// newPDFium starts PDFium in this process: the embedded WebAssembly module compiled by
// wazero (through the cache in cacheDir when not ""), with no file system, no output and
// its memory capped at pdfWASMMemoryPages. The caller closes the pool.
func newPDFium(ctx context.Context, cacheDir string) (pdfium.Pool, pdfium.Pdfium, error) {
	features := api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling // go-pdfium's module needs both
	rc := wazero.NewRuntimeConfig().WithCoreFeatures(features).WithMemoryLimitPages(pdfWASMMemoryPages)
	if cacheDir != "" {
		if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
			rc = rc.WithCompilationCache(cache)
		} else {
			slog.Debug("web: no cache for the compiled PDF reader", "dir", cacheDir, "err", err)
		}
	}
	wasm, err := pdfwasm.Module() // InitWithWASM: go-pdfium's uncompressed copy is not linked
	if err != nil {
		return nil, nil, fmt.Errorf("start the PDF reader: %w", err)
	}
	pool, err := webassembly.InitWithWASM(webassembly.Config{
		Context: ctx, MinIdle: 1, MaxIdle: 1, MaxTotal: 1, WASM: wasm,
		RuntimeConfig: rc, FSConfig: wazero.NewFSConfig(), Stdout: io.Discard, Stderr: io.Discard,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("start the PDF reader: %w", err)
	}
	inst, err := pool.GetInstance(30 * time.Second)
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("start the PDF reader: %w", err)
	}
	return pool, inst, nil
}

// pdfText is the extraction PDFToText runs in its child (see PDFToText for the output
// and the limits); cacheDir is where the compiled reader is kept ("" for nowhere). A
// panic inside the reader is returned as an error.
func pdfText(ctx context.Context, data []byte, cacheDir string) (title, text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			title, text, err = "", "", fmt.Errorf("broken PDF: %v", r)
		}
	}()
	if len(data) == 0 {
		return "", "", errors.New("broken PDF: the file is empty")
	}
	pool, p, err := newPDFium(ctx, cacheDir)
	if err != nil && cacheDir != "" {
		// wazero fails the compilation when it cannot write the cache (a full disk, a
		// read-only folder): compile without one.
		slog.Debug("web: PDF reader without its compilation cache", "dir", cacheDir, "err", err)
		pool, p, err = newPDFium(ctx, "")
	}
	if err != nil {
		return "", "", fmt.Errorf("broken PDF: %w", err)
	}
	defer pool.Close()
	doc, err := p.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		return "", "", openError(err)
	}
	defer p.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := p.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return "", "", fmt.Errorf("broken PDF: %w", err)
	}
	if count.PageCount <= 0 {
		return "", "", errors.New("broken PDF: no pages")
	}
	var b strings.Builder
	read, cut := 0, ""
	for i := 0; i < count.PageCount; i++ {
		if i == PDFMaxPages {
			cut = fmt.Sprintf("[Only the first %d of %d pages were read.]", PDFMaxPages, count.PageCount)
			break
		}
		t, err := pdfPageText(p, doc.Document, i)
		if err != nil {
			slog.Debug("web: PDF page without readable text", "page", i+1, "err", err)
			continue
		}
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		mark := fmt.Sprintf("[Page %d]\n", i+1)
		if b.Len()+len(mark)+len(t) > PDFMaxText {
			t, _ = Truncate(t, max(PDFMaxText-b.Len()-len(mark), 0)/4) // runes of up to 4 bytes
			cut = fmt.Sprintf("[The text was cut at page %d of %d: it is over %d MB.]", i+1, count.PageCount, PDFMaxText>>20)
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(mark)
		b.WriteString(t)
		read++
		if cut != "" {
			break
		}
	}
	if read == 0 && cut == "" {
		return "", "", fmt.Errorf("PDF has %d page(s) but no text layer (scanned images?)", count.PageCount)
	}
	if cut != "" {
		b.WriteString("\n\n" + cut)
	}
	if meta, err := p.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: "Title"}); err == nil {
		title = strings.Join(strings.Fields(meta.Value), " ")
	}
	return title, b.String(), nil
}

// openError turns PDFium's refusal to open a document into a message for the user.
func openError(err error) error {
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return fmt.Errorf("PDF is password-protected (encrypted): remove the password (for example, print it to a new PDF) and upload it again (%w)", err)
	case errors.Is(err, pdfiumerrors.ErrSecurity):
		return fmt.Errorf("PDF is encrypted with a method the reader does not support: save it without encryption and upload it again (%w)", err)
	case errors.Is(err, pdfiumerrors.ErrFormat), errors.Is(err, pdfiumerrors.ErrFile):
		return fmt.Errorf("broken PDF: the file is damaged or not a PDF (%w)", err)
	}
	return fmt.Errorf("broken PDF: %w", err)
}

// pdfPageText reads the glyphs of page index (from 0) of doc and lays them out as text.
func pdfPageText(p pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int) (string, error) {
	page, err := p.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return "", err
	}
	defer p.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := p.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return "", err
	}
	defer p.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	glyphs, err := pdfiumGlyphs(p, tp.TextPage)
	if err != nil {
		return "", err
	}
	return layoutPage(glyphs), nil
}

// pdfiumGlyphs returns the glyphs of a text page in painting order, at most
// pdfMaxPageGlyphs. A space or line break PDFium infers (it marks them "generated") is
// kept as a space without a position: layoutPage takes it as a hint that words part.
func pdfiumGlyphs(p pdfium.Pdfium, tp references.FPDF_TEXTPAGE) ([]pdfGlyph, error) {
	count, err := p.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp})
	if err != nil {
		return nil, err
	}
	n := min(count.Count, pdfMaxPageGlyphs)
	glyphs := make([]pdfGlyph, 0, max(n, 0))
	for i := 0; i < n; i++ {
		if gen, err := p.FPDFText_IsGenerated(&requests.FPDFText_IsGenerated{TextPage: tp, Index: i}); err == nil && gen.IsGenerated {
			glyphs = append(glyphs, pdfGlyph{Text: " "})
			continue
		}
		u, err := p.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: i})
		if err != nil {
			return nil, err
		}
		if u.Unicode == 0 || u.Unicode > 0x10ffff {
			continue // a glyph PDFium cannot map to Unicode
		}
		box, err := p.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
		if err != nil {
			return nil, err
		}
		origin, err := p.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: i})
		if err != nil {
			return nil, err
		}
		size, err := p.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp, Index: i})
		if err != nil {
			return nil, err
		}
		m, err := p.FPDFText_GetMatrix(&requests.FPDFText_GetMatrix{TextPage: tp, Index: i})
		if err != nil {
			return nil, err
		}
		a, b, c, d := float64(m.Matrix.A), float64(m.Matrix.B), float64(m.Matrix.C), float64(m.Matrix.D)
		glyphs = append(glyphs, pdfGlyph{
			Text: string(rune(u.Unicode)), X: origin.X, Y: origin.Y,
			Left: float64(box.Rect.Left), Right: float64(box.Rect.Right),
			Bottom: float64(box.Rect.Bottom), Top: float64(box.Rect.Top),
			// The font size PDFium reports leaves out the text and page matrices
			// (Distiller sets "1 Tf" and scales by the matrix): scale it by them.
			Size:  size.FontSize * math.Sqrt(math.Abs(a*d-b*c)),
			Angle: math.Atan2(b, a),
		})
	}
	return glyphs, nil
}

package web

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"artifactflow/backend/testdocs"
)

// pdfCorpus lists the real PDFs of testdata/pdf (see its README for their sources and
// licences).
func pdfCorpus(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "pdf", "*.pdf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDF corpus in testdata/pdf: %v", err)
	}
	return files
}

// pdfWords splits text into the word tokens the agreement figure counts: after Unicode
// NFKC and lower-casing, runs of letters, digits and marks, with each Han, kana or Hangul
// character a token of its own (those scripts put no spaces between words).
func pdfWords(text string) []string {
	text = strings.ToLower(norm.NFKC.String(text))
	var out []string
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
		cjk := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
		if start >= 0 && (!word || cjk) {
			out = append(out, text[start:i])
			start = -1
		}
		switch {
		case cjk:
			out = append(out, string(r))
		case word && start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

// commonWords is the length of the longest common subsequence of a and b: the number of
// a's words found in b in the same order.
func commonWords(a, b []string) int {
	prev, cur := make([]int32, len(b)+1), make([]int32, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return int(prev[len(b)])
}

var pageMarker = regexp.MustCompile(`(?m)^\[Page (\d+)\]$`)

// splitPages splits PDFToText's text at its [Page N] lines into a map from N to the page's
// text.
func splitPages(text string) map[string]string {
	pages := map[string]string{}
	marks := pageMarker.FindAllStringSubmatchIndex(text, -1)
	for i, m := range marks {
		end := len(text)
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		pages[text[m[2]:m[3]]] = text[m[1]:end]
	}
	return pages
}

// TestPDFCorpusAgreesWithPdftotext reads each real PDF of testdata/pdf and compares its
// text, page by page, with poppler's pdftotext (run here when installed; the Debian
// package poppler-utils): at least 95% of pdftotext's words must be found in our text of
// the same page, in the same order (words after NFKC and lower-casing; see pdfWords).
// Summing the per-page figures gives a lower bound of the whole-document figure, and
// checks that the [Page N] markers name the right pages. The per-file figures are logged.
func TestPDFCorpusAgreesWithPdftotext(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (Debian package poppler-utils): no reference to compare the PDF text with")
	}
	for _, file := range pdfCorpus(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := exec.Command("pdftotext", "-enc", "UTF-8", file, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			_, text, err := PDFToText(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			ours := splitPages(text)
			total, found := 0, 0
			for i, page := range strings.Split(strings.TrimSuffix(string(ref), "\f"), "\f") {
				want := pdfWords(page)
				total += len(want)
				found += commonWords(want, pdfWords(ours[strconv.Itoa(i+1)]))
			}
			share := float64(found) / float64(total)
			t.Logf("%s: %.2f%% of pdftotext's %d words found in order", filepath.Base(file), 100*share, total)
			if share < 0.95 {
				t.Errorf("%s: only %.2f%% of pdftotext's words found in order, want at least 95%%", filepath.Base(file), 100*share)
			}
		})
	}
}

// TestPDFToTextPageMarkers checks contract D: each page with text is headed by a line
// "[Page N]" (N from 1, the page's place in the file), a page without text is left out,
// and pages are separated by a blank line.
func TestPDFToTextPageMarkers(t *testing.T) {
	_, text, err := PDFToText(context.Background(), testdocs.BuildPDF("Pages", "first page", "", "third page\nits second line"))
	if err != nil {
		t.Fatal(err)
	}
	want := "[Page 1]\nfirst page\n\n[Page 3]\nthird page\nits second line"
	if text != want {
		t.Errorf("PDFToText = %q, want %q", text, want)
	}
}

// TestPDFToTextCorpusReadable spot-checks what the issue found wrong in real files: words
// glued together ("SharedMIME-infoDatabase") and non-ASCII glyphs garbled, in a file from
// pdfTeX, a German one from Acrobat Distiller whose umlauts are accents painted over
// their letters, a Chinese one from Microsoft Word, and a two-column paper with
// ligatures.
func TestPDFToTextCorpusReadable(t *testing.T) {
	tests := []struct {
		file  string
		wants []string
	}{
		{"shared-mime-info-spec.pdf", []string{"[Page 1]\n", "Shared MIME-info Database", "X Desktop Group"}},
		{"gerdoc.pdf", []string{"Kurzbeschreibung", "für", "Anführungszeichen", "Silbentrennung"}},
		{"bjfu-statement.pdf", []string{"独创性声明", "北京林业大学"}},
		{"dafx-twocolumn.pdf", []string{"[Page 2]\n", "Digital Audio Effects", "[Page 6]\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "pdf", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			_, text, err := PDFToText(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q; it starts %q", w, text[:min(len(text), 400)])
				}
			}
			if strings.ContainsAny(text, "\ufb00\ufb01\ufb02\ufb03\ufb04\ufffd\ufffe") {
				t.Errorf("text keeps a ligature or replacement character")
			}
		})
	}
}

// TestPDFToTextErrors checks the errors of files without readable text and of a
// cancelled call.
func TestPDFToTextErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "broken PDF: the file is empty"},
		{"not a PDF", []byte("not a pdf at all"), "broken PDF"},
		{"scanned (no text)", testdocs.BuildPDF("T", ""), "no text layer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := PDFToText(context.Background(), tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := PDFToText(ctx, testdocs.BuildPDF("T", "x")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// glyphsOf lays text out as glyphs from (x, y): each character size/2 wide, a space a
// glyph of its own (as in PDFs that paint spaces).
func glyphsOf(text string, x, y, size float64) []pdfGlyph {
	var out []pdfGlyph
	for _, r := range text {
		w := size / 2
		out = append(out, pdfGlyph{Text: string(r), X: x, Y: y, Left: x, Right: x + w, Bottom: y - size/4, Top: y + size*3/4, Size: size})
		x += w
	}
	return out
}

// gappedWords lays words out with a gap of gap ems between them and no space glyph (as
// pdfTeX does).
func gappedWords(x, y, size, gap float64, words ...string) []pdfGlyph {
	var out []pdfGlyph
	for _, w := range words {
		g := glyphsOf(w, x, y, size)
		out = append(out, g...)
		x = g[len(g)-1].Right + gap*size
	}
	return out
}

// TestLayoutPage checks the layout rules on glyphs placed by hand.
func TestLayoutPage(t *testing.T) {
	concat := func(parts ...[]pdfGlyph) []pdfGlyph {
		var out []pdfGlyph
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	column := func(x, top float64, lines ...string) []pdfGlyph {
		var out []pdfGlyph
		for i, l := range lines {
			out = append(out, gappedWords(x, top-float64(i)*12, 10, 0.3, strings.Fields(l)...)...)
		}
		return out
	}
	umlaut := glyphsOf("fur", 100, 700, 10)
	accent := pdfGlyph{Text: "\u00a8", X: 105, Y: 700, Left: 105, Right: 110, Bottom: 707, Top: 710, Size: 10}
	superscript := concat(glyphsOf("x", 100, 700, 10), glyphsOf("2", 105, 703, 7), gappedWords(113, 700, 10, 0.3, "next"))
	up := glyphsOf("upward", 0, 0, 10)
	for i := range up { // text running up the page, as on a rotated table
		g := &up[i]
		g.X, g.Y = 300, 100+float64(i)*5
		g.Left, g.Right, g.Bottom, g.Top = 292.5, 302.5, g.Y, g.Y+5
		g.Angle = math.Pi / 2
	}
	fill := "words that fill a column" // with "left one": 230 points wide
	tests := []struct {
		name   string
		glyphs []pdfGlyph
		want   string
	}{
		{"gaps separate words without space glyphs", gappedWords(100, 700, 10, 0.3, "Shared", "MIME-info", "Database"), "Shared MIME-info Database"},
		{"kerning is no gap", gappedWords(100, 700, 10, 0.05, "Da", "ta"), "Data"},
		{"space glyphs separate words", glyphsOf("X Desktop Group", 100, 700, 10), "X Desktop Group"},
		{"two columns read one after the other", concat(
			column(50, 700, "left one", "left two", "left three"),
			column(320, 700, "right one", "right two"),
		), "left one\nleft two\nleft three\n\nright one\nright two"},
		{"a heading across the columns comes first, a footer last", concat(
			column(320, 700, "right one "+fill, "right two "+fill),
			column(50, 700, "left one "+fill, "left two "+fill),
			gappedWords(50, 740, 14, 0.3, "A", "Title", "Across", "Both", "Columns", "Of", "The", "Page", "Here"),
			gappedWords(200, 100, 8, 0.3, "Preprint", "submitted", "to", "a", "journal,", "page", "1"),
		), "A Title Across Both Columns Of The Page Here\n\nleft one " + fill + "\nleft two " + fill +
			"\n\nright one " + fill + "\nright two " + fill + "\n\nPreprint submitted to a journal, page 1"},
		{"a page number over the gutter comes last", concat(
			column(50, 700, "left one "+fill, "left two "+fill),
			column(320, 700, "right one "+fill, "right two "+fill),
			gappedWords(300, 100, 8, 0.3, "7"),
		), "left one " + fill + "\nleft two " + fill + "\n\nright one " + fill + "\nright two " + fill + "\n\n7"},
		{"a running head over the gutter comes first", concat(
			column(50, 700, "left one "+fill, "left two "+fill),
			column(320, 700, "right one "+fill, "right two "+fill),
			gappedWords(296, 740, 8, 0.3, "Head"),
		), "Head\n\nleft one " + fill + "\nleft two " + fill + "\n\nright one " + fill + "\nright two " + fill},
		{"ligatures spelt out", glyphsOf("\ufb01ne \ufb02ow e\ufb03cient", 100, 700, 10), "fine flow efficient"},
		{"an accent painted after its letter composes with it", append(umlaut, accent), "für"},
		{"a word hyphenated at a line end is joined", concat(
			gappedWords(100, 700, 10, 0.3, "the", "inter-"),
			gappedWords(100, 688, 10, 0.3, "action", "ends"),
		), "the interaction ends"},
		{"a superscript stays on its line", superscript, "x2 next"},
		{"text running up the page reads in order", up, "upward"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := layoutPage(tc.glyphs); got != tc.want {
				t.Errorf("layoutPage = %q, want %q", got, tc.want)
			}
		})
	}
}

// BenchmarkPDF reads each corpus file with PDFToText, as web_fetch and uploads do: a
// child process that loads the compiled PDFium from the cache, reads every page and lays
// it out.
func BenchmarkPDF(b *testing.B) {
	for _, file := range pdfCorpus(b) {
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(file), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := PDFToText(context.Background(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPDFInProcess reads each corpus file in this process (PDFium started afresh
// each time, from the compilation cache): the work of the child without the process
// start.
func BenchmarkPDFInProcess(b *testing.B) {
	for _, file := range pdfCorpus(b) {
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(file), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := pdfText(context.Background(), data, pdfCacheDir()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLayoutPage lays out pages of pdfMaxPageGlyphs glyphs: dense text (two columns
// of 10-point lines), and a hostile page whose glyphs sit on thousands of baselines
// 0.01 points apart, which the row and block searches must handle in linear time.
func BenchmarkLayoutPage(b *testing.B) {
	dense := make([]pdfGlyph, 0, pdfMaxPageGlyphs)
	for len(dense) < pdfMaxPageGlyphs {
		line := len(dense) / 100
		x := 50.0 + float64(line%2)*270
		dense = append(dense, gappedWords(x, 800-float64(line/2%70)*11, 10, 0.3, "lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod", "tempor", "incid")...)
	}
	close := make([]pdfGlyph, pdfMaxPageGlyphs)
	for i := range close {
		y := 700 - float64(i/10)*0.01
		x := 50 + float64(i%10)*5
		close[i] = pdfGlyph{Text: "a", X: x, Y: y, Left: x, Right: x + 5, Bottom: y - 2, Top: y + 8, Size: 10}
	}
	for name, glyphs := range map[string][]pdfGlyph{"dense-text": dense[:pdfMaxPageGlyphs], "close-baselines": close} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				layoutPage(glyphs)
			}
		})
	}
}

package extract

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/testdocs"
)

// TestTextHostile reads the uploads that crashed or hung the app: a 32 KB .docx whose
// table has a 100,000-cell first row over 100,000 one-cell rows (filling every row up was
// 10 billion cells), the table pages of backend/web, and the PDFs that declare two billion
// pages or whose /Parent chain loops (PDFium reads the one real page of each). Each gives
// bounded text or a reason, never a crash.
func TestTextHostile(t *testing.T) {
	tests := []struct {
		name         string
		data         []byte
		maxBytes     int
		wantReadable bool
		has          string
	}{
		{"wide.docx", testdocs.WideTableDOCX(), 2 << 20, true, "| h | h | h |"},
		{"padding.html", testdocs.TablePaddingHTML(), len(testdocs.TablePaddingHTML()), true, "HHHH"},
		{"wide.html", testdocs.WideTableHTML(), len(testdocs.WideTableHTML()), true, "c | c"},
		{"count.pdf", testdocs.PDFCountBomb(), 100, true, "[Page 1]\none real page"},
		{"cycle.pdf", testdocs.PDFParentCycle(), 100, true, "[Page 1]\ntext behind a loop"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Text(context.Background(), tc.name, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if res.Readable != tc.wantReadable {
				t.Fatalf("Readable = %v (%s), want %v", res.Readable, res.Reason, tc.wantReadable)
			}
			if len(res.Text) > tc.maxBytes {
				t.Errorf("text is %d bytes, want at most %d", len(res.Text), tc.maxBytes)
			}
			if got := res.Text + res.Reason; !strings.Contains(got, tc.has) {
				t.Errorf("text and reason lack %q: %.300q", tc.has, got)
			}
		})
	}
}

// TestRenderTablePadding checks that short rows are filled up only while the table is
// small: a table past maxPaddedCells fills the header alone, so its size stays linear.
func TestRenderTablePadding(t *testing.T) {
	if got := renderTable([][]string{{"a", "b", "c"}, {"d"}}); got != "| a | b | c |\n| --- | --- | --- |\n| d |  |  |" {
		t.Errorf("small table: %q", got)
	}
	wide := make([]string, maxPaddedCells)
	rows := [][]string{wide, {"x"}}
	got := renderTable(rows)
	if !strings.HasSuffix(got, "\n| x |") {
		t.Errorf("large table: last row %q", got[strings.LastIndexByte(got, '\n'):])
	}
}

// TestTextStops checks that Stop ends the PDF reader of an upload and that the error says
// so (the upload is then not stored as an unreadable file).
func TestTextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Text(ctx, "paper.pdf", testdocs.BuildPDF("T", "text"))
	if err == nil || !strings.Contains(err.Error(), "context canceled") || res.Readable {
		t.Fatalf("Text = %+v, %v; want a context error", res, err)
	}
}

// TestTextRealPDF uploads a real PDF of backend/web's corpus (pdfTeX, 17 pages): its text
// reads like the page, words separated and each page headed by its [Page N] line.
func TestTextRealPDF(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "web", "testdata", "pdf", "shared-mime-info-spec.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Text(context.Background(), "shared-mime-info-spec.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Readable {
		t.Fatalf("not readable: %s", res.Reason)
	}
	for _, want := range []string{"[Page 1]\n", "Shared MIME-info Database", "X Desktop Group", "\n[Page 17]\n"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q; it starts %.300q", want, res.Text)
		}
	}
}

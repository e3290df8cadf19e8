package web

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/sandbox"
	"artifactflow/backend/testdocs"
)

// TestPDFToTextHostile feeds the PDFs that crashed or hung web_fetch's first reader
// (github.com/ledongthuc/pdf): a page tree that declares two billion pages (it sized a
// slice by it: out of memory) and a /Parent chain that cycles (it looped forever). PDFium
// counts the pages it finds and bounds its walk up the /Parent chain, so each ends at once
// with its one real page.
func TestPDFToTextHostile(t *testing.T) {
	tests := []struct {
		name, want, errHas string
		data               []byte
	}{
		{name: "count bomb", data: testdocs.PDFCountBomb(), want: "[Page 1]\none real page"},
		{name: "parent cycle", data: testdocs.PDFParentCycle(), want: "[Page 1]\ntext behind a loop"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, text, err := PDFToText(context.Background(), tc.data)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("PDFToText = %q, %v; want an error saying %q", text, err, tc.errHas)
				}
				return
			}
			if err != nil || text != tc.want {
				t.Fatalf("PDFToText = %q, %v; want %q", text, err, tc.want)
			}
		})
	}
}

// testBlockJob is a converter job that never ends, standing in for a parser caught in a
// loop the in-process bounds do not catch.
const testBlockJob = "web.test-block"

func init() {
	sandbox.Handle(testBlockJob, func([]byte) ([]byte, error) { select {} })
}

// TestConverterDeadlineAndStop checks that a converter runs where it can be abandoned:
// past its deadline it is killed with an error naming the reader and the limit, and the
// caller's Stop ends it at once; and that PDFToText goes through that path (a deadline
// shorter than a child's start fails it).
func TestConverterDeadlineAndStop(t *testing.T) {
	_, err := runConverter(context.Background(), testBlockJob, "the PDF reader", "broken PDF", nil, sandbox.Limits{Timeout: 300 * time.Millisecond})
	if !errors.Is(err, sandbox.ErrTimeout) || !strings.Contains(err.Error(), "broken PDF: the PDF reader took too long and was stopped after 300ms") {
		t.Errorf("past the deadline: err = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err = runConverter(ctx, testBlockJob, "the PDF reader", "broken PDF", nil, sandbox.Limits{Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("after Stop: err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 1200*time.Millisecond {
		t.Errorf("Stop took %v to end the converter", d-200*time.Millisecond)
	}

	saved := pdfLimits
	t.Cleanup(func() { pdfLimits = saved })
	pdfLimits.Timeout = time.Nanosecond
	if _, _, err := PDFToText(context.Background(), testdocs.BuildPDF("T", "text")); !errors.Is(err, sandbox.ErrTimeout) {
		t.Errorf("PDFToText with a 1 ns deadline: err = %v, want sandbox.ErrTimeout", err)
	}
}

// TestFetchHostileTables fetches the table pages whose Markdown exhausted memory (a 1 MB
// header cell over 100,000 rows, a 100,000-cell first row over 100,000 rows, spans of two
// billion): each converts, its Markdown no larger than the page (64 KB for the small spans
// page, whose spans are cut to 64), with the cells kept.
func TestFetchHostileTables(t *testing.T) {
	tests := []struct {
		name     string
		page     []byte
		maxBytes int
		wants    []string
	}{
		{"padding", testdocs.TablePaddingHTML(), len(testdocs.TablePaddingHTML()), []string{"HHHHHHHH", "\na\n", "\nz\n"}},
		{"wide", testdocs.WideTableHTML(), len(testdocs.WideTableHTML()), []string{"c | c | c", "\nr\n"}},
		{"spans", testdocs.SpanTableHTML(), 64 << 10, []string{"| a | b |", "| c | d |"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := serveBody(t, "text/html; charset=utf-8", tc.page)
			page, err := privateOK().Fetch(context.Background(), ts.URL+"/table.html")
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Content) > tc.maxBytes {
				t.Errorf("Markdown is %d bytes for a %d-byte page", len(page.Content), len(tc.page))
			}
			for _, w := range tc.wants {
				if !strings.Contains(page.Content, w) {
					t.Errorf("Markdown lacks %q (starts %q)", w, page.Content[:min(len(page.Content), 300)])
				}
			}
		})
	}
}

// TestBoundTables checks the table rules on small tables: spans above the limit are
// lowered, a table within the cell budget stays a GFM table, a larger one becomes one line
// per row, and a nested table is judged on its own.
func TestBoundTables(t *testing.T) {
	row := func(cells int) string { return "<tr>" + strings.Repeat("<td>v</td>", cells) + "</tr>" }
	tests := []struct {
		name, html    string
		want, notWant string
	}{
		{"small table stays", "<table>" + row(3) + row(3) + "</table>", "|---|---|---|\n| v | v | v |\n| v | v | v |", ""},
		{"span clamped", `<table><tr><th colspan="9999">a</th></tr>` + row(1) + "</table>", "| a |" + strings.Repeat("  |", maxSpan-1) + "\n", ""},
		{"over budget flattened", "<table>" + row(maxTableCells/100+1) + strings.Repeat(row(1), 99) + "</table>", "v | v | v", "|---|"},
		{"nested table judged alone", "<table><tr><td><table>" + row(2) + row(2) + "</table></td></tr>" + strings.Repeat(row(1), 10) + "</table>", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, md, err := HTMLToMarkdown(context.Background(), []byte("<html><body>"+tc.html+"</body></html>"), "text/html", "")
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && !strings.Contains(md, tc.want) {
				t.Errorf("Markdown lacks %q:\n%.400s", tc.want, md)
			}
			if tc.notWant != "" && strings.Contains(md, tc.notWant) {
				t.Errorf("Markdown has %q:\n%.400s", tc.notWant, md)
			}
		})
	}
}

// TestHTMLSizeCaps checks that a document over MaxHTMLBytes is refused before parsing and
// that Markdown over MaxMarkdownBytes is cut at a line with a note.
func TestHTMLSizeCaps(t *testing.T) {
	_, _, err := HTMLToMarkdown(context.Background(), make([]byte, MaxHTMLBytes+1), "text/html; charset=utf-8", "")
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized HTML: err = %v, want ErrTooLarge", err)
	}
	long := strings.Repeat("a line of text\n", MaxMarkdownBytes/15+10)
	got := capMarkdown(long)
	if len(got) > MaxMarkdownBytes+100 || !strings.HasSuffix(got, "[The page's text was cut here: it is over 16 MB.]") || !strings.Contains(got, "a line of text\n\n[The") {
		t.Errorf("capMarkdown: %d bytes, ends %q", len(got), got[len(got)-80:])
	}
}

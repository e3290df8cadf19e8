package web

import (
	"artifactflow/backend/testdocs"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

func TestHTMLToMarkdown(t *testing.T) {
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(`<html><head><meta charset="gbk"><title>研究 报告</title></head><body><h1>结论</h1><p>中文段落。</p></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, html, contentType, base string
		wantTitle                     string
		want                          []string // substrings of the Markdown
		notWant                       string
	}{
		{
			name:        "headings, tables and relative links rooted without a base",
			html:        `<html><head><title> My   Page </title></head><body><h2>Intro</h2><p>See <a href="other.html">the other page</a>.</p><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></body></html>`,
			contentType: "text/html",
			wantTitle:   "My Page",
			want:        []string{"## Intro", "[the other page](/other.html)", "| k | v |", "| a | 1 |"},
		},
		{
			name:    "links resolved against the base URL",
			html:    `<p>See <a href="/doc">doc</a>.</p>`,
			base:    "https://example.org/dir/page.html",
			want:    []string{"[doc](https://example.org/doc)"},
			notWant: "](/doc)",
		},
		{
			name:      "meta charset decodes GBK",
			html:      gbk,
			wantTitle: "研究 报告",
			want:      []string{"# 结论", "中文段落。"},
		},
		{
			name:        "charset parameter wins over meta",
			html:        `<meta charset="gbk"><p>déjà vu</p>`,
			contentType: "text/html; charset=utf-8",
			want:        []string{"déjà vu"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			title, md, err := HTMLToMarkdown(context.Background(), []byte(tc.html), tc.contentType, tc.base)
			if err != nil {
				t.Fatal(err)
			}
			if title != tc.wantTitle {
				t.Errorf("title = %q, want %q", title, tc.wantTitle)
			}
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("markdown lacks %q:\n%s", w, md)
				}
			}
			if tc.notWant != "" && strings.Contains(md, tc.notWant) {
				t.Errorf("markdown has %q:\n%s", tc.notWant, md)
			}
		})
	}
}

func TestHTMLToMarkdownBadBase(t *testing.T) {
	for _, base := range []string{"relative/path", "ftp://example.org/", "http://", "::"} {
		if _, _, err := HTMLToMarkdown(context.Background(), []byte("<p>x</p>"), "", base); !errors.Is(err, ErrBadURL) {
			t.Errorf("base %q: err = %v, want ErrBadURL", base, err)
		}
	}
}

func TestPDFToText(t *testing.T) {
	title, text, err := PDFToText(context.Background(), testdocs.BuildPDF("Upload Test", "first page line", "second page"))
	if err != nil {
		t.Fatal(err)
	}
	if title != "Upload Test" || !strings.Contains(text, "first page line") || !strings.Contains(text, "second page") {
		t.Errorf("PDFToText = %q, %q", title, text)
	}
	for _, bad := range [][]byte{nil, []byte("%PDF-1.4\ngarbage"), []byte("not a pdf at all")} {
		if _, _, err := PDFToText(context.Background(), bad); err == nil {
			t.Errorf("PDFToText(%q) gave no error", bad)
		}
	}
}

// TestPDFToTextStopsOnLoops feeds PDFs that made the first reader,
// github.com/ledongthuc/pdf, loop forever (found by fuzzing backend/extract). Each must end
// at once: PDFium skips a page tree node that contains itself (the file has then no page
// it can read), bounds the walk up a /Parent chain and ignores an xref /Prev that points
// to itself, reading the page's text. A regression shows as the test timing out.
func TestPDFToTextStopsOnLoops(t *testing.T) {
	valid := testdocs.BuildPDF("T", "some text")
	mutate := func(old, new string) []byte {
		if len(old) != len(new) || !bytes.Contains(valid, []byte(old)) {
			t.Fatalf("bad mutation %q -> %q", old, new)
		}
		return bytes.Replace(valid, []byte(old), []byte(new), 1)
	}
	xref := bytes.Index(valid, []byte("\nxref\n")) + 1
	prevLoop := bytes.Replace(valid, []byte("/Info 4 0 R >>"), []byte(fmt.Sprintf("/Info 4 0 R /Prev %d >>", xref)), 1)
	tests := []struct {
		name, want, errHas string
		data               []byte
	}{
		{"kids contain their own node", "", "no text layer", mutate("/Kids [5 0 R]", "/Kids [2 0 R]")},
		{"page is its own parent and has no resources", "[Page 1]\nsome text", "", mutate("/Parent 2 0 R /MediaBox [0 0 612 792] /Resources", "/Parent 5 0 R /MediaBox [0 0 612 792] /Resourcez")},
		{"xref /Prev points to itself", "[Page 1]\nsome text", "", prevLoop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, text, err := PDFToText(context.Background(), tc.data)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("PDFToText = %q, %v; want an error mentioning %q", text, err, tc.errHas)
				}
				return
			}
			if err != nil || text != tc.want {
				t.Fatalf("PDFToText = %q, %v; want %q", text, err, tc.want)
			}
		})
	}
}

// TestPDFToTextManyPages checks that the read budget leaves room for an ordinary
// multi-page document and that pages come out in order.
func TestPDFToTextManyPages(t *testing.T) {
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = fmt.Sprintf("page %d text", i+1)
	}
	_, text, err := PDFToText(context.Background(), testdocs.BuildPDF("Book", texts...))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(text, "\n\n"); len(got) != 300 || got[0] != "[Page 1]\npage 1 text" || got[299] != "[Page 300]\npage 300 text" {
		t.Fatalf("got %d pages: first %q", len(got), got[0])
	}
}

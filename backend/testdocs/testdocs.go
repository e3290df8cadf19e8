// Package testdocs generates documents for tests: small valid PDFs and DOCX files, and the
// hostile inputs the extractors must survive (a PDF that declares two billion pages, one
// whose page tree cycles, tables whose Markdown padding would need gigabytes). Only tests
// import it; each generator is deterministic and needs no files.
package testdocs

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
)

// PDF writes a PDF whose objects are objs (object i+1 is objs[i], a stream's dictionary
// and data included), with an exact xref table and a trailer naming object 1 as /Root and
// object 4 as /Info when there are at least four objects.
func PDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	info := ""
	if len(objs) >= 4 {
		info = " /Info 4 0 R"
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, info, xref)
	return b.Bytes()
}

// textPDF is the object list of BuildPDF with the page tree node's /Count given.
func textPDF(title, count string, pageTexts ...string) []string {
	kids := make([]string, len(pageTexts))
	for i := range pageTexts {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %s >>", strings.Join(kids, " "), count),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Title (%s) >>", title),
	}
	for i, text := range pageTexts {
		var content strings.Builder
		content.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for _, line := range strings.Split(text, "\n") {
			fmt.Fprintf(&content, "(%s) Tj T*\n", line)
		}
		content.WriteString("ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 6+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()))
	}
	return objs
}

// BuildPDF writes a minimal valid PDF: one page per text (lines split at "\n"), each shown
// with a WinAnsi Helvetica font, and an Info dictionary with the title.
func BuildPDF(title string, pageTexts ...string) []byte {
	return PDF(textPDF(title, fmt.Sprint(len(pageTexts)), pageTexts...)...)
}

// PDFCountBomb is a valid one-page PDF of about 600 bytes whose page tree declares
// /Count 2000000000: a reader that sizes a slice by the declared count asks for tens of
// gigabytes.
func PDFCountBomb() []byte {
	return PDF(textPDF("Count bomb", "2000000000", "one real page")...)
}

// PDFParentCycle is a PDF of about 650 bytes whose only page has no /Resources and whose
// /Parent chain cycles (page -> tree node -> page): a reader looking up the inherited
// /Resources walks the chain forever.
func PDFParentCycle() []byte {
	objs := textPDF("Parent cycle", "1", "text behind a loop")
	objs[1] = "<< /Type /Pages /Kids [5 0 R] /Count 1 /Parent 5 0 R >>"
	objs[4] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R >>"
	return PDF(objs...)
}

// TablePaddingHTML is an HTML page of about 2.9 MB: a table whose header cell holds
// headerBytes (1 MB) of text and whose 100,000 body rows hold one character each. A
// converter that pads every cell to its column's width writes about 100 GB.
func TablePaddingHTML() []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><title>Padding</title></head><body><h1>Readings</h1><table><tr><th>")
	b.WriteString(strings.Repeat("H", 1<<20))
	b.WriteString("</th></tr>")
	for i := 0; i < 100_000; i++ {
		fmt.Fprintf(&b, "<tr><td>%c</td></tr>", 'a'+i%26)
	}
	b.WriteString("</table></body></html>")
	return b.Bytes()
}

// BigTableHTML is an HTML page of about size bytes: a table with a 1 MB header cell and
// two-cell rows up to size (the 10 MB version took 21.6 s and 2.7 GB to convert).
func BigTableHTML(size int) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><body><table><tr><th>")
	b.WriteString(strings.Repeat("H", 1<<20))
	b.WriteString("</th></tr>")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<tr><td>%d</td><td>x</td></tr>", i)
	}
	b.WriteString("</table></body></html>")
	return b.Bytes()
}

// WideTableHTML is an HTML page whose first row has 100,000 cells and whose 100,000 other
// rows have one: a converter that fills every row up to the widest writes 10 billion cells.
func WideTableHTML() []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><body><table><tr>")
	for i := 0; i < 100_000; i++ {
		b.WriteString("<td>c</td>")
	}
	b.WriteString("</tr>")
	for i := 0; i < 100_000; i++ {
		b.WriteString("<tr><td>r</td></tr>")
	}
	b.WriteString("</table></body></html>")
	return b.Bytes()
}

// SpanTableHTML is a small HTML page whose cells declare colspan and rowspan of two
// billion: a converter that mirrors a cell over its span makes billions of copies.
func SpanTableHTML() []byte {
	return []byte(`<!doctype html><html><body><p>Spans</p><table>
<tr><th>a</th><th colspan="2000000000">b</th></tr>
<tr><td rowspan="2000000000">c</td><td>d</td></tr>
<tr><td colspan="70000" rowspan="70000">e</td></tr>
</table></body></html>`)
}

// DOCX writes a minimal DOCX whose body is the given WordprocessingML (the content of
// w:body without the closing w:sectPr).
func DOCX(body string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body + `<w:sectPr/></w:body></w:document>`},
	} {
		w, err := zw.Create(f[0])
		if err == nil {
			_, err = w.Write([]byte(f[1]))
		}
		if err != nil {
			panic(err) // writing to memory does not fail
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// WideTableDOCX is a DOCX of about 14 KB compressed: a table whose first row has 100,000
// cells and whose 100,000 other rows have one. Padding every row to the widest writes
// 10 billion cells.
func WideTableDOCX() []byte {
	var b strings.Builder
	b.WriteString("<w:tbl><w:tr>")
	for i := 0; i < 100_000; i++ {
		b.WriteString("<w:tc><w:p><w:r><w:t>h</w:t></w:r></w:p></w:tc>")
	}
	b.WriteString("</w:tr>")
	for i := 0; i < 100_000; i++ {
		b.WriteString("<w:tr><w:tc><w:p><w:r><w:t>r</w:t></w:r></w:p></w:tc></w:tr>")
	}
	b.WriteString("</w:tbl>")
	return DOCX(b.String())
}

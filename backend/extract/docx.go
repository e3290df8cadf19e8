package extract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html/charset"
)

// MaxDOCXXMLBytes is the largest uncompressed word/document.xml read from a DOCX, in
// bytes: a guard against zip bombs. archive/zip fails a read that goes past the size an
// entry declares, so checking the declared size bounds what is inflated.
const MaxDOCXXMLBytes = 50 << 20

// MaxDOCXEntries is the most parts (ZIP entries) a DOCX may have; a Word document has a
// few dozen plus one per embedded image. Only word/document.xml is ever inflated, so
// MaxDOCXXMLBytes also bounds the total inflated.
const MaxDOCXEntries = 10_000

// Namespaces of WordprocessingML (transitional and strict) and markup compatibility.
const (
	nsW       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsMC      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// docxToMarkdown returns the body of a DOCX as Markdown: paragraphs separated by blank
// lines, Heading1..Heading6 (and Title) styles as # .. ######, numbered or bulleted
// paragraphs as "- " items indented two spaces per level, tables as GFM tables (first row
// as header, merged cells padded), the text of hyperlinks, tabs and line breaks. Deleted
// revisions, field codes and the fallback copies of text boxes are left out.
func docxToMarkdown(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // entry names are never used as paths here
		return "", fmt.Errorf("not a valid DOCX (ZIP) file: %w", err)
	}
	if len(zr.File) > MaxDOCXEntries {
		return "", fmt.Errorf("it has %d parts, over the limit of %d", len(zr.File), MaxDOCXEntries)
	}
	var doc *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			doc = f
			break
		}
	}
	if doc == nil {
		return "", errors.New("word/document.xml is missing")
	}
	if doc.UncompressedSize64 > MaxDOCXXMLBytes {
		return "", fmt.Errorf("its text part is %d MB uncompressed, over the %d MB limit", doc.UncompressedSize64>>20, MaxDOCXXMLBytes>>20)
	}
	rc, err := doc.Open()
	if err != nil {
		return "", fmt.Errorf("open word/document.xml: %w", err)
	}
	defer rc.Close()
	md, err := documentXMLToMarkdown(rc)
	if errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) {
		// archive/zip fails a read past the declared size: a header that understates it
		// (a zip bomb hiding from the check above) ends here.
		return "", fmt.Errorf("word/document.xml is damaged (it inflates to more than the %d bytes it declares, or fails its checksum): %w", doc.UncompressedSize64, err)
	}
	return md, err
}

// frameKind is the kind of an open container element while walking document.xml.
type frameKind int

const (
	framePara frameKind = iota
	frameTable
	frameRow
	frameCell
)

// frame is one open w:p, w:tbl, w:tr or w:tc.
type frame struct {
	kind frameKind
	// paragraph
	text    strings.Builder
	heading int  // 1-6, 0 for none
	list    bool // has w:numPr with a numId other than 0
	level   int  // list level (w:ilvl)
	// cell: its paragraphs; span: w:gridSpan
	parts []string
	span  int
	// row: its cells; table: its rows
	cells []string
	rows  [][]string
}

// block is one top-level piece of the Markdown output.
type block struct {
	text string
	list bool
}

// docWalker turns the token stream of document.xml into Markdown blocks.
type docWalker struct {
	stack  []*frame
	blocks []block
	inRun  int  // depth of open w:r
	inText bool // inside w:t
}

func documentXMLToMarkdown(r io.Reader) (string, error) {
	d := xml.NewDecoder(r)
	d.CharsetReader = charset.NewReaderLabel
	w := &docWalker{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("word/document.xml: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := w.start(d, t); err != nil {
				return "", fmt.Errorf("word/document.xml: %w", err)
			}
		case xml.EndElement:
			w.end(t)
		case xml.CharData:
			if w.inText {
				if p := w.top(framePara); p != nil {
					p.text.Write(t)
				}
			}
		}
	}
	var b strings.Builder
	for i, bl := range w.blocks {
		if i > 0 {
			if bl.list && w.blocks[i-1].list {
				b.WriteString("\n")
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(bl.text)
	}
	return b.String(), nil
}

func isW(n xml.Name) bool { return n.Space == nsW || n.Space == nsWStrict }

// val returns the w:val attribute.
func val(e xml.StartElement) string {
	for _, a := range e.Attr {
		if a.Name.Local == "val" {
			return a.Value
		}
	}
	return ""
}

func (w *docWalker) start(d *xml.Decoder, e xml.StartElement) error {
	if e.Name.Space == nsMC && e.Name.Local == "Fallback" {
		return d.Skip() // the same content as mc:Choice, for older readers
	}
	if !isW(e.Name) {
		return nil
	}
	switch e.Name.Local {
	case "delText", "instrText", "delInstrText":
		return d.Skip()
	case "p":
		w.stack = append(w.stack, &frame{kind: framePara})
	case "tbl":
		w.stack = append(w.stack, &frame{kind: frameTable})
	case "tr":
		w.stack = append(w.stack, &frame{kind: frameRow})
	case "tc":
		w.stack = append(w.stack, &frame{kind: frameCell, span: 1})
	case "r":
		w.inRun++
	case "t":
		w.inText = true
	case "tab", "ptab":
		w.inline("\t")
	case "br", "cr":
		w.inline("\n")
	case "noBreakHyphen":
		w.inline("-")
	case "pStyle":
		if p := w.top(framePara); p != nil {
			p.heading = headingLevel(val(e))
		}
	case "numId":
		if p := w.top(framePara); p != nil {
			p.list = val(e) != "0" // numId 0 removes numbering
		}
	case "ilvl":
		if p := w.top(framePara); p != nil {
			p.level, _ = strconv.Atoi(val(e))
			p.level = min(max(p.level, 0), 8)
		}
	case "gridSpan":
		if c := w.top(frameCell); c != nil {
			if n, err := strconv.Atoi(val(e)); err == nil && n > 1 {
				c.span = min(n, 64)
			}
		}
	}
	return nil
}

// inline adds s to the open paragraph when inside a run (w:tab also defines tab stops
// in paragraph properties, which are not text).
func (w *docWalker) inline(s string) {
	if w.inRun == 0 {
		return
	}
	if p := w.top(framePara); p != nil {
		p.text.WriteString(s)
	}
}

func (w *docWalker) end(e xml.EndElement) {
	if !isW(e.Name) {
		return
	}
	switch e.Name.Local {
	case "r":
		w.inRun = max(w.inRun-1, 0)
	case "t":
		w.inText = false
	case "p", "tbl", "tr", "tc":
		if len(w.stack) == 0 { // cannot happen with a well-formed document; never panic
			return
		}
		f := w.pop()
		switch f.kind {
		case framePara:
			w.deliver(f.render(), f.list)
		case frameCell:
			cell := strings.Join(f.parts, " ")
			if row := w.top(frameRow); row != nil {
				row.cells = append(row.cells, cell)
				for i := 1; i < f.span; i++ {
					row.cells = append(row.cells, "")
				}
			} else {
				w.deliver(cell, false)
			}
		case frameRow:
			if len(f.cells) == 0 {
				return
			}
			if t := w.top(frameTable); t != nil {
				t.rows = append(t.rows, f.cells)
			} else {
				w.deliver(strings.Join(f.cells, " "), false)
			}
		case frameTable:
			if w.top(framePara) != nil || w.top(frameCell) != nil { // nested: flatten into the text around it
				var cells []string
				for _, row := range f.rows {
					cells = append(cells, row...)
				}
				w.deliver(strings.Join(cells, " "), false)
			} else {
				w.deliver(renderTable(f.rows), false)
			}
		}
	}
}

// top returns the innermost open frame of kind k if no paragraph or cell lies between it
// and the top of the stack (so text goes to the container it belongs to), else nil.
func (w *docWalker) top(k frameKind) *frame {
	for i := len(w.stack) - 1; i >= 0; i-- {
		f := w.stack[i]
		if f.kind == k {
			return f
		}
		if f.kind == framePara || f.kind == frameCell {
			return nil
		}
	}
	return nil
}

func (w *docWalker) pop() *frame {
	f := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	return f
}

// deliver hands finished text to the innermost open paragraph (a text box inside it) or
// cell, or makes it a top-level block.
func (w *docWalker) deliver(text string, list bool) {
	if text == "" {
		return
	}
	for i := len(w.stack) - 1; i >= 0; i-- {
		switch f := w.stack[i]; f.kind {
		case framePara:
			if f.text.Len() > 0 {
				f.text.WriteString(" ")
			}
			f.text.WriteString(text)
			return
		case frameCell:
			f.parts = append(f.parts, text)
			return
		}
	}
	w.blocks = append(w.blocks, block{text, list})
}

// render returns the paragraph as one Markdown line (or lines, for line breaks).
func (f *frame) render() string {
	text := strings.TrimSpace(f.text.String())
	switch {
	case text == "":
		return ""
	case f.heading > 0:
		return strings.Repeat("#", f.heading) + " " + strings.Join(strings.Fields(text), " ")
	case f.list:
		return strings.Repeat("  ", f.level) + "- " + text
	}
	return text
}

// headingLevel maps a paragraph style id to a heading level: "Heading1".."Heading6" (any
// case, optional space) and "Title" (1); 0 otherwise.
func headingLevel(style string) int {
	s := strings.ToLower(strings.ReplaceAll(style, " ", ""))
	if s == "title" {
		return 1
	}
	if n, ok := strings.CutPrefix(s, "heading"); ok && len(n) == 1 && n[0] >= '1' && n[0] <= '6' {
		return int(n[0] - '0')
	}
	return 0
}

// maxPaddedCells is the most cells (rows times the widest row) a table may have for its
// short rows to be filled up with empty cells.
const maxPaddedCells = 100_000

// renderTable writes rows as a GFM table, the first row as header, every row filled up to
// the widest with empty cells. Past maxPaddedCells only the header row is filled: GFM
// gives a shorter body row empty cells anyway, and filling every row costs rows times the
// width (a 100,000-cell first row over 100,000 one-cell rows would be 10 billion cells),
// so the output stays linear in the cells given.
func renderTable(rows [][]string) string {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		return ""
	}
	cell := strings.NewReplacer("|", `\|`, "\n", " ", "\t", " ")
	var b strings.Builder
	for i, r := range rows {
		n := len(r)
		if i == 0 || len(rows)*width <= maxPaddedCells {
			n = width
		}
		b.WriteString("|")
		for j := 0; j < n; j++ {
			c := ""
			if j < len(r) {
				c = strings.TrimSpace(cell.Replace(r[j]))
			}
			b.WriteString(" " + c + " |")
		}
		if i == 0 {
			b.WriteString("\n|" + strings.Repeat(" --- |", width))
		}
		if i < len(rows)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

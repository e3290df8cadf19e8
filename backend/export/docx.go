package export

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// DOCX returns d as a Word document (Office Open XML, transitional) that Word
// and LibreOffice open. It is written directly with archive/zip: the parts are
// [Content_Types].xml, _rels/.rels, docProps/core.xml (title, revision =
// Version, modified = Exported), word/document.xml, word/styles.xml,
// word/numbering.xml, word/settings.xml and word/_rels/document.xml.rels.
//
// The goldmark GFM AST is mapped to WordprocessingML (TeX math keeps its
// source: inline in the VerbatimChar style between $ or $$, display formulas
// as SourceCode paragraphs, for Word has no TeX reader and the source is what
// the reader can paste into Word's equation editor, which accepts LaTeX):
//   - the title → a "Title" paragraph (same rule as HTML, see parse);
//   - headings → Word's built-in "heading 1".."heading 6" styles (Heading1..6,
//     with outline levels, so the navigation pane lists them);
//   - bold / italic / strikethrough → w:b / w:i / w:strike; inline code → the
//     "VerbatimChar" character style (monospace, shaded);
//   - bullet and ordered lists → w:numPr (numbering.xml, 9 levels, each list
//     restarts at its Markdown start number), nested lists → deeper w:ilvl;
//     task items → "☐ " / "☑ " instead of a bullet;
//   - tables → w:tbl with borders, a repeating bold shaded header row and the
//     GFM column alignment;
//   - code blocks → one "SourceCode" paragraph (monospace, shaded, tabs and
//     line breaks kept); block quotes → "Quote" paragraphs indented per depth;
//     thematic breaks → a paragraph with a bottom border;
//   - links to http, https and mailto URLs → w:hyperlink with an external
//     relationship, styled "Hyperlink" (blue, underlined); other targets keep
//     only their text; images → their alt text in italics plus the URL (no
//     download);
//   - raw HTML is omitted, as in the HTML export.
//
// Text is cleaned first (see cleanText) and XML-escaped, so any model output
// yields a well-formed file. The error is non-nil only if writing the zip
// fails, which it does not for an in-memory buffer; it is wrapped with context.
func DOCX(d Doc) ([]byte, error) {
	p := parse(d)
	w := &docxWriter{src: p.src, relIDs: map[string]string{}}
	w.body.Grow(len(p.src) * 8) // measured: document.xml is 2-9x the Markdown
	if p.showTitle {
		w.body.WriteString(`<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr>`)
		w.run(p.title, runFmt{})
		w.body.WriteString(`</w:p>`)
	}
	w.blocks(p.root, blockCtx{list: -1})

	var out bytes.Buffer
	out.Grow(len(p.src)/2 + 8192)
	zw := zip.NewWriter(&out)
	modified := d.Exported
	if modified.IsZero() {
		modified = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	parts := []struct {
		name string
		data [][]byte // written in sequence
	}{
		{"[Content_Types].xml", [][]byte{[]byte(contentTypesXML)}},
		{"_rels/.rels", [][]byte{[]byte(packageRelsXML)}},
		{"docProps/core.xml", [][]byte{corePropsXML(p.title, d.Version, d.Exported)}},
		{"word/document.xml", [][]byte{[]byte(documentStart), w.body.Bytes(), []byte(documentEnd)}},
		{"word/styles.xml", [][]byte{[]byte(stylesXML)}},
		{"word/numbering.xml", [][]byte{w.numberingXML()}},
		{"word/settings.xml", [][]byte{[]byte(settingsXML)}},
		{"word/_rels/document.xml.rels", [][]byte{w.documentRelsXML()}},
	}
	for _, part := range parts {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: part.name, Method: zip.Deflate, Modified: modified})
		if err != nil {
			return nil, fmt.Errorf("export: docx: add %s: %w", part.name, err)
		}
		for _, data := range part.data {
			if _, err := f.Write(data); err != nil {
				return nil, fmt.Errorf("export: docx: write %s: %w", part.name, err)
			}
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("export: docx: close zip: %w", err)
	}
	return out.Bytes(), nil
}

// Layout in twentieths of a point (twips).
const (
	indentStep   = 720  // per list level and per quote level (0.5 in)
	hangingWidth = 360  // room for the bullet or number
	textWidth    = 9026 // A4 (11906) minus two 1-inch margins
)

// maxListLevel is the deepest w:ilvl Word supports; deeper lists are clamped.
const maxListLevel = 8

// Abstract numbering definitions in numbering.xml.
const (
	bulletAbstract  = 0
	orderedAbstract = 1
)

// docxWriter accumulates word/document.xml's body and what the other parts
// need to reference from it.
type docxWriter struct {
	src    []byte
	body   bytes.Buffer
	links  []string          // hyperlink targets; links[i] has relationship id rId(i+firstLinkRel)
	relIDs map[string]string // target → relationship id
	nums   []numInstance     // nums[i] is w:numId i+1

	// lastRunEnd is body.Len() right after the last </w:r>, lastFmt that
	// run's formatting: a run that follows directly with the same formatting
	// is merged into it (goldmark splits text into many nodes).
	lastRunEnd int
	lastFmt    runFmt
}

// numInstance is one w:num: a list using an abstract definition, restarted
// at start on level.
type numInstance struct{ abstract, level, start int }

// firstLinkRel is the first relationship id for hyperlinks; rId1 and rId2 are
// styles.xml and numbering.xml, rId3 settings.xml.
const firstLinkRel = 4

// blockCtx is where a block sits: its list level (-1 outside lists) and its
// block-quote depth.
type blockCtx struct {
	list, quote int
}

// indent is the left indent of non-numbered paragraphs in ctx.
func (c blockCtx) indent() int {
	n := c.quote * indentStep
	if c.list >= 0 {
		n += (c.list + 1) * indentStep
	}
	return n
}

// pProps are the paragraph properties this writer uses.
type pProps struct {
	style          string
	numID, ilvl    int // numID 0 = not numbered
	left, hanging  int // indent in twips; 0 = inherit
	jc             string
	compact, hrule bool // compact: 40 twips before/after (table cells); hrule: bottom border
}

func (w *docxWriter) blocks(parent ast.Node, ctx blockCtx) {
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		w.block(c, ctx)
	}
}

func (w *docxWriter) block(n ast.Node, ctx blockCtx) {
	switch n := n.(type) {
	case *ast.Heading:
		w.paragraph(n, pProps{style: "Heading" + strconv.Itoa(min(max(n.Level, 1), 6))})
	case *ast.Paragraph, *ast.TextBlock:
		pp := pProps{left: ctx.indent()}
		if ctx.quote > 0 {
			pp.style = "Quote"
		}
		w.paragraph(n, pp)
	case *ast.List:
		w.list(n, ctx)
	case *ast.Blockquote:
		ctx.quote++
		w.blocks(n, ctx)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		w.codeBlock(n, ctx)
	case *ast.ThematicBreak:
		w.writeParagraph(pProps{hrule: true}, nil)
	case *east.Table:
		w.table(n)
	case *ast.HTMLBlock:
		// Raw HTML is omitted, as in the HTML export.
	case *mathBlock:
		// A display formula: its TeX source as a code paragraph (see DOCX).
		w.writeParagraph(pProps{style: "SourceCode", left: ctx.indent()}, func() { w.run(cleanText(n.math.TeX), runFmt{}) })
	default:
		w.blocks(n, ctx)
	}
}

// paragraph writes n's inline children as one paragraph.
func (w *docxWriter) paragraph(n ast.Node, pp pProps) {
	w.writeParagraph(pp, func() { w.inlines(n, runFmt{}, false) })
}

// writeParagraph writes <w:p> with properties pp and content from fill (nil =
// empty paragraph).
func (w *docxWriter) writeParagraph(pp pProps, fill func()) {
	b := &w.body
	b.WriteString(`<w:p>`)
	w.writePPr(pp)
	if fill != nil {
		fill()
	}
	b.WriteString(`</w:p>`)
}

// writePPr writes w:pPr, children in the order the schema requires.
func (w *docxWriter) writePPr(pp pProps) {
	if pp == (pProps{}) {
		return
	}
	b := &w.body
	b.WriteString(`<w:pPr>`)
	if pp.style != "" {
		fmt.Fprintf(b, `<w:pStyle w:val="%s"/>`, pp.style)
	}
	if pp.numID > 0 {
		fmt.Fprintf(b, `<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr>`, pp.ilvl, pp.numID)
	}
	if pp.hrule {
		b.WriteString(`<w:pBdr><w:bottom w:val="single" w:sz="6" w:space="1" w:color="BFBFBF"/></w:pBdr>`)
	}
	if pp.compact {
		b.WriteString(`<w:spacing w:before="40" w:after="40"/>`)
	}
	if pp.left > 0 {
		fmt.Fprintf(b, `<w:ind w:left="%d" w:hanging="%d"/>`, pp.left, pp.hanging)
	}
	if pp.jc != "" {
		fmt.Fprintf(b, `<w:jc w:val="%s"/>`, pp.jc)
	}
	b.WriteString(`</w:pPr>`)
}

// list writes each item of l; the first paragraph of an item carries the
// item's number or bullet, further blocks are indented under it.
func (w *docxWriter) list(l *ast.List, ctx blockCtx) {
	level := min(ctx.list+1, maxListLevel)
	inst := numInstance{abstract: bulletAbstract, level: level, start: 1}
	if l.IsOrdered() {
		inst.abstract, inst.start = orderedAbstract, max(l.Start, 0)
	}
	w.nums = append(w.nums, inst)
	numID := len(w.nums)
	inner := blockCtx{list: level, quote: ctx.quote}
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		first := item.FirstChild()
		pp := pProps{style: "ListParagraph", numID: numID, ilvl: level}
		if ctx.quote > 0 { // the quote's indent adds to the numbering's
			pp.left, pp.hanging = inner.indent(), hangingWidth
		}
		if first != nil && first.FirstChild() != nil && first.FirstChild().Kind() == east.KindTaskCheckBox {
			// A task item shows its check box instead of a bullet.
			pp.numID, pp.left, pp.hanging = 0, inner.indent(), hangingWidth
		}
		switch first.(type) {
		case *ast.Paragraph, *ast.TextBlock:
			w.paragraph(first, pp)
			first = first.NextSibling()
		default: // empty item, or one that opens with a nested list or code
			w.writeParagraph(pp, nil)
		}
		for c := first; c != nil; c = c.NextSibling() {
			w.block(c, inner)
		}
	}
}

// codeBlock writes a fenced or indented code block as one SourceCode
// paragraph; lines are separated by w:br so the shading stays continuous.
func (w *docxWriter) codeBlock(n ast.Node, ctx blockCtx) {
	var code strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		code.Write(seg.Value(w.src))
	}
	w.writeParagraph(pProps{style: "SourceCode", left: ctx.indent()}, func() {
		w.run(strings.TrimSuffix(code.String(), "\n"), runFmt{})
	})
}

// table writes a GFM table: equal column widths across the text width, the
// header row repeated on each page, cells aligned as the delimiter row says.
func (w *docxWriter) table(t *east.Table) {
	cols := len(t.Alignments)
	if cols == 0 {
		return
	}
	colWidth := textWidth / cols
	b := &w.body
	b.WriteString(`<w:tbl><w:tblPr><w:tblW w:w="5000" w:type="pct"/><w:tblBorders>`)
	for _, side := range []string{"top", "left", "bottom", "right", "insideH", "insideV"} {
		fmt.Fprintf(b, `<w:%s w:val="single" w:sz="4" w:space="0" w:color="A6A6A6"/>`, side)
	}
	b.WriteString(`</w:tblBorders><w:tblCellMar><w:left w:w="100" w:type="dxa"/><w:right w:w="100" w:type="dxa"/></w:tblCellMar>`)
	b.WriteString(`<w:tblLook w:val="0420" w:firstRow="1" w:lastRow="0" w:firstColumn="0" w:lastColumn="0" w:noHBand="1" w:noVBand="1"/></w:tblPr><w:tblGrid>`)
	for range cols {
		fmt.Fprintf(b, `<w:gridCol w:w="%d"/>`, colWidth)
	}
	b.WriteString(`</w:tblGrid>`)
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		header := row.Kind() == east.KindTableHeader
		b.WriteString(`<w:tr>`)
		if header {
			b.WriteString(`<w:trPr><w:tblHeader/></w:trPr>`)
		}
		cell := row.FirstChild()
		for i := range cols {
			b.WriteString(`<w:tc><w:tcPr>`)
			fmt.Fprintf(b, `<w:tcW w:w="%d" w:type="dxa"/>`, colWidth)
			if header {
				b.WriteString(`<w:shd w:val="clear" w:color="auto" w:fill="F2F2F2"/>`)
			}
			b.WriteString(`</w:tcPr>`)
			pp := pProps{compact: true, jc: cellAlign(t.Alignments[i])}
			if c, ok := cell.(*east.TableCell); ok {
				pp.jc = cellAlign(c.Alignment)
				w.writeParagraph(pp, func() { w.inlines(c, runFmt{bold: header}, false) })
				cell = cell.NextSibling()
			} else { // a short row: pad with empty cells
				w.writeParagraph(pp, nil)
			}
			b.WriteString(`</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
	// Two adjacent w:tbl would merge into one table, so separate them; and end
	// the document with a paragraph rather than a table, as Word does.
	if next := t.NextSibling(); next == nil || next.Kind() == east.KindTable {
		w.writeParagraph(pProps{}, nil)
	}
}

// cellAlign maps a GFM column alignment to w:jc ("" = inherit, left).
func cellAlign(a east.Alignment) string {
	switch a {
	case east.AlignCenter:
		return "center"
	case east.AlignRight:
		return "right"
	}
	return ""
}

// runFmt is the character formatting of a run.
type runFmt struct {
	bold, italic, strike bool
	style                string // character style: "Hyperlink", "VerbatimChar" or ""
}

func (w *docxWriter) inlines(parent ast.Node, f runFmt, inLink bool) {
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		w.inline(c, f, inLink)
	}
}

func (w *docxWriter) inline(n ast.Node, f runFmt, inLink bool) {
	switch n := n.(type) {
	case *ast.Text:
		value := n.Value(w.src)
		if !n.IsRaw() {
			value = resolveText(value)
		}
		w.run(string(value), f)
		switch {
		case n.HardLineBreak():
			w.run("\n", f)
		case n.SoftLineBreak() && !eastAsianBreak(value, n.NextSibling(), w.src):
			w.run(" ", f)
		}
	case *ast.String:
		w.run(string(n.Value), f)
	case *ast.CodeSpan:
		var code strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				v := t.Value(w.src)
				if bytes.HasSuffix(v, []byte("\n")) {
					v = append(v[:len(v)-1:len(v)-1], ' ')
				}
				code.Write(v)
			}
		}
		if !inLink {
			f.style = "VerbatimChar"
		}
		w.run(code.String(), f)
	case *ast.Emphasis:
		if n.Level >= 2 {
			f.bold = true
		} else {
			f.italic = true
		}
		w.inlines(n, f, inLink)
	case *east.Strikethrough:
		f.strike = true
		w.inlines(n, f, inLink)
	case *ast.Link:
		w.hyperlink(string(resolveText(n.Destination)), f, inLink, func(f runFmt) { w.inlines(n, f, true) })
	case *ast.AutoLink:
		target := string(n.URL(w.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(target), "mailto:") {
			target = "mailto:" + target
		}
		label := string(n.Label(w.src))
		w.hyperlink(target, f, inLink, func(f runFmt) { w.run(label, f) })
	case *ast.Image:
		// No download: the alt text in italics, then "(image: URL)".
		alt := f
		alt.italic = true
		w.inlines(n, alt, inLink)
		prefix := "(image: "
		if n.HasChildren() {
			prefix = " " + prefix
		}
		w.run(prefix, f)
		dest := string(resolveText(n.Destination))
		w.hyperlink(dest, f, inLink, func(f runFmt) { w.run(dest, f) })
		w.run(")", f)
	case *east.TaskCheckBox:
		box := "☐ "
		if n.IsChecked {
			box = "☑ "
		}
		w.run(box, runFmt{})
	case *mathNode:
		// TeX source in the code character style, delimiters included so the
		// reader sees it is math ($…$ or $$…$$).
		if !inLink {
			f.style = "VerbatimChar"
		}
		delim := "$"
		if n.Display {
			delim = "$$"
		}
		w.run(cleanText(delim+n.TeX+delim), f)
	case *ast.RawHTML:
		// Omitted, as in the HTML export.
	default:
		w.inlines(n, f, inLink)
	}
}

// hyperlink writes content as a w:hyperlink to target when target is an
// absolute http, https or mailto URL and no link is already open (Word does
// not nest hyperlinks); otherwise it writes content unlinked.
func (w *docxWriter) hyperlink(target string, f runFmt, inLink bool, content func(runFmt)) {
	u, err := url.Parse(strings.TrimSpace(target))
	if inLink || err != nil || !(u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "mailto") ||
		u.Scheme != "mailto" && u.Host == "" {
		content(f)
		return
	}
	href := u.String()
	id, ok := w.relIDs[href]
	if !ok {
		id = "rId" + strconv.Itoa(firstLinkRel+len(w.links))
		w.links = append(w.links, href)
		w.relIDs[href] = id
	}
	fmt.Fprintf(&w.body, `<w:hyperlink r:id="%s" w:history="1">`, id)
	f.style = "Hyperlink"
	content(f)
	w.body.WriteString(`</w:hyperlink>`)
}

// run writes s as a w:r with formatting f, merged into the previous run when
// that one ends right here with the same formatting; '\n' becomes w:br and
// '\t' w:tab. s must already be clean (see cleanText); it is XML-escaped here.
func (w *docxWriter) run(s string, f runFmt) {
	if s == "" {
		return
	}
	b := &w.body
	if b.Len() > 0 && b.Len() == w.lastRunEnd && f == w.lastFmt {
		b.Truncate(b.Len() - len(`</w:r>`))
	} else {
		w.openRun(f)
	}
	for s != "" {
		i := strings.IndexAny(s, "\n\t")
		text := s
		if i >= 0 {
			text = s[:i]
		}
		if text != "" {
			if bytes.HasSuffix(b.Bytes(), []byte(`</w:t>`)) { // continue the run's last w:t
				b.Truncate(b.Len() - len(`</w:t>`))
			} else {
				b.WriteString(`<w:t xml:space="preserve">`)
			}
			_ = xml.EscapeText(b, []byte(text)) // bytes.Buffer writes never fail
			b.WriteString(`</w:t>`)
		}
		if i < 0 {
			break
		}
		if s[i] == '\n' {
			b.WriteString(`<w:br/>`)
		} else {
			b.WriteString(`<w:tab/>`)
		}
		s = s[i+1:]
	}
	b.WriteString(`</w:r>`)
	w.lastRunEnd, w.lastFmt = b.Len(), f
}

// openRun writes <w:r> and its properties, in schema order.
func (w *docxWriter) openRun(f runFmt) {
	b := &w.body
	b.WriteString(`<w:r>`)
	if f == (runFmt{}) {
		return
	}
	b.WriteString(`<w:rPr>`)
	if f.style != "" {
		fmt.Fprintf(b, `<w:rStyle w:val="%s"/>`, f.style)
	}
	if f.bold {
		b.WriteString(`<w:b/><w:bCs/>`)
	}
	if f.italic {
		b.WriteString(`<w:i/><w:iCs/>`)
	}
	if f.strike {
		b.WriteString(`<w:strike/>`)
	}
	b.WriteString(`</w:rPr>`)
}

// resolveText applies what CommonMark does to literal text: backslash escapes,
// numeric character references and HTML entity names. Character references
// can name characters XML forbids, so the result is cleaned again.
func resolveText(v []byte) []byte {
	v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
	return []byte(cleanText(string(v)))
}

// eastAsianBreak reports whether a soft line break between value and the next
// text node joins two East Asian characters, where no space belongs (the same
// rule the CJK extension applies to the HTML export).
func eastAsianBreak(value []byte, next ast.Node, src []byte) bool {
	t, ok := next.(*ast.Text)
	if !ok || len(value) == 0 {
		return false
	}
	last, _ := utf8.DecodeLastRune(value)
	first, _ := utf8.DecodeRune(t.Value(src))
	return isEastAsianWide(last) && isEastAsianWide(first)
}

// isEastAsianWide reports whether r is a Han, kana or full-width character
// or CJK punctuation (Hangul is written with spaces and is excluded).
func isEastAsianWide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

// documentStart and documentEnd wrap the body into word/document.xml, with
// one A4 section with 1-inch margins.
const (
	documentStart = xml.Header + `<w:document xmlns:w="` + nsW + `" xmlns:r="` + nsR + `"><w:body>`
	documentEnd   = `<w:sectPr><w:pgSz w:w="11906" w:h="16838"/>` +
		`<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/>` +
		`</w:sectPr></w:body></w:document>`
)

// documentRelsXML lists styles, numbering, settings and one external
// relationship per distinct hyperlink target.
func (w *docxWriter) documentRelsXML() []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rId1" Type="` + nsR + `/styles" Target="styles.xml"/>` +
		`<Relationship Id="rId2" Type="` + nsR + `/numbering" Target="numbering.xml"/>` +
		`<Relationship Id="rId3" Type="` + nsR + `/settings" Target="settings.xml"/>`)
	for i, target := range w.links {
		fmt.Fprintf(&b, `<Relationship Id="rId%d" Type="%s/hyperlink" Target="`, firstLinkRel+i, nsR)
		_ = xml.EscapeText(&b, []byte(target))
		b.WriteString(`" TargetMode="External"/>`)
	}
	b.WriteString(`</Relationships>`)
	return b.Bytes()
}

// numberingXML writes the bullet and ordered abstract definitions and one
// w:num per Markdown list, restarting at the list's start number.
func (w *docxWriter) numberingXML() []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<w:numbering xmlns:w="` + nsW + `">`)
	bullets := []string{"•", "◦", "▪"}
	formats := []struct{ fmt, suffix string }{{"decimal", "."}, {"lowerLetter", ")"}, {"lowerRoman", "."}}
	for _, abstract := range []int{bulletAbstract, orderedAbstract} {
		fmt.Fprintf(&b, `<w:abstractNum w:abstractNumId="%d"><w:multiLevelType w:val="hybridMultilevel"/>`, abstract)
		for lvl := 0; lvl <= maxListLevel; lvl++ {
			numFmt, text := "bullet", bullets[lvl%len(bullets)]
			if abstract == orderedAbstract {
				f := formats[lvl%len(formats)]
				numFmt, text = f.fmt, "%"+strconv.Itoa(lvl+1)+f.suffix
			}
			fmt.Fprintf(&b, `<w:lvl w:ilvl="%d"><w:start w:val="1"/><w:numFmt w:val="%s"/><w:lvlText w:val="%s"/>`+
				`<w:lvlJc w:val="left"/><w:pPr><w:ind w:left="%d" w:hanging="%d"/></w:pPr></w:lvl>`,
				lvl, numFmt, text, (lvl+1)*indentStep, hangingWidth)
		}
		b.WriteString(`</w:abstractNum>`)
	}
	for i, n := range w.nums {
		fmt.Fprintf(&b, `<w:num w:numId="%d"><w:abstractNumId w:val="%d"/>`+
			`<w:lvlOverride w:ilvl="%d"><w:startOverride w:val="%d"/></w:lvlOverride></w:num>`,
			i+1, n.abstract, n.level, n.start)
	}
	b.WriteString(`</w:numbering>`)
	return b.Bytes()
}

// corePropsXML writes docProps/core.xml: the title, the artifact version as
// cp:revision (when > 0) and the export time as dcterms:modified (when set).
func corePropsXML(title string, version int, exported time.Time) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"` +
		` xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"` +
		` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>`)
	_ = xml.EscapeText(&b, []byte(title))
	b.WriteString(`</dc:title>`)
	if version > 0 {
		fmt.Fprintf(&b, `<cp:revision>%d</cp:revision>`, version)
	}
	if !exported.IsZero() {
		fmt.Fprintf(&b, `<dcterms:modified xsi:type="dcterms:W3CDTF">%s</dcterms:modified>`,
			exported.UTC().Format(time.RFC3339))
	}
	b.WriteString(`</cp:coreProperties>`)
	return b.Bytes()
}

package export

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// xnode is a generic XML element, enough to query the DOCX parts.
type xnode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []xnode    `xml:",any"`
	Text    string     `xml:",chardata"`
}

// attr returns the value of the attribute with local name local.
func (n *xnode) attr(local string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// all returns n's descendants (and n) with local name local, in order.
func (n *xnode) all(local string) []*xnode {
	var out []*xnode
	var walk func(*xnode)
	walk = func(n *xnode) {
		if n.XMLName.Local == local {
			out = append(out, n)
		}
		for i := range n.Nodes {
			walk(&n.Nodes[i])
		}
	}
	walk(n)
	return out
}

// first returns the first descendant with local name local, or nil.
func (n *xnode) first(local string) *xnode {
	if all := n.all(local); len(all) > 0 {
		return all[0]
	}
	return nil
}

// text is the visible text of a WordprocessingML fragment: w:t content,
// "\t" for w:tab and "\n" for w:br.
func (n *xnode) text() string {
	var b strings.Builder
	var walk func(*xnode)
	walk = func(n *xnode) {
		switch n.XMLName.Local {
		case "t":
			b.WriteString(n.Text)
		case "tab":
			b.WriteByte('\t')
		case "br":
			b.WriteByte('\n')
		}
		for i := range n.Nodes {
			walk(&n.Nodes[i])
		}
	}
	walk(n)
	return b.String()
}

// val returns the w:val of the first descendant named local ("" if none).
func (n *xnode) val(local string) string {
	if c := n.first(local); c != nil {
		return c.attr("val")
	}
	return ""
}

// docxParts is an opened DOCX: every part's bytes and the parsed XML parts.
type docxParts struct {
	files              map[string][]byte
	document, styles   *xnode
	numbering, core    *xnode
	rels               map[string]*xnode // document.xml.rels by Id
	paragraphsByText   map[string]*xnode
	paragraphsInOrder  []*xnode
	hyperlinksByTarget map[string][]*xnode
}

var requiredParts = []string{
	"[Content_Types].xml", "_rels/.rels", "docProps/core.xml", "word/document.xml",
	"word/styles.xml", "word/numbering.xml", "word/_rels/document.xml.rels",
}

// openDOCX unzips data, checks that every required part exists and that
// every .xml/.rels part is well-formed XML, and indexes the main parts.
func openDOCX(t *testing.T, data []byte) *docxParts {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("open zip: %v", err)
	}
	p := &docxParts{files: map[string][]byte{}, rels: map[string]*xnode{},
		paragraphsByText: map[string]*xnode{}, hyperlinksByTarget: map[string][]*xnode{}}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("open %s: %v", f.Name, err)
		}
		b, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatalf("read %s: %v", f.Name, err)
		}
		p.files[f.Name] = b
		if strings.HasSuffix(f.Name, ".xml") || strings.HasSuffix(f.Name, ".rels") {
			wellFormed(t, f.Name, b)
		}
	}
	for _, name := range requiredParts {
		if _, ok := p.files[name]; !ok {
			t.Fatalf("missing part %s", name)
		}
	}
	p.document = parseXML(t, "word/document.xml", p.files["word/document.xml"])
	p.styles = parseXML(t, "word/styles.xml", p.files["word/styles.xml"])
	p.numbering = parseXML(t, "word/numbering.xml", p.files["word/numbering.xml"])
	p.core = parseXML(t, "docProps/core.xml", p.files["docProps/core.xml"])
	for _, r := range parseXML(t, "rels", p.files["word/_rels/document.xml.rels"]).all("Relationship") {
		p.rels[r.attr("Id")] = r
	}
	for _, para := range p.document.all("p") {
		p.paragraphsInOrder = append(p.paragraphsInOrder, para)
		p.paragraphsByText[para.text()] = para
	}
	for _, h := range p.document.all("hyperlink") {
		rel := p.rels[h.attr("id")]
		if rel == nil {
			t.Fatalf("w:hyperlink r:id=%q has no relationship", h.attr("id"))
		}
		p.hyperlinksByTarget[rel.attr("Target")] = append(p.hyperlinksByTarget[rel.attr("Target")], h)
	}
	return p
}

// wellFormed decodes every token of b, failing on any XML error.
func wellFormed(t *testing.T, name string, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed: %v", name, err)
		}
	}
}

func parseXML(t *testing.T, name string, b []byte) *xnode {
	t.Helper()
	var n xnode
	if err := xml.Unmarshal(b, &n); err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return &n
}

// para returns the paragraph whose text is exactly text.
func (p *docxParts) para(t *testing.T, text string) *xnode {
	t.Helper()
	n := p.paragraphsByText[text]
	if n == nil {
		t.Fatalf("no paragraph with text %q", text)
	}
	return n
}

// style returns the style with id id from styles.xml.
func (p *docxParts) style(t *testing.T, id string) *xnode {
	t.Helper()
	for _, s := range p.styles.all("style") {
		if s.attr("styleId") == id {
			return s
		}
	}
	t.Fatalf("no style %q", id)
	return nil
}

// runWithText returns the w:r in n whose text is text.
func runWithText(t *testing.T, n *xnode, text string) *xnode {
	t.Helper()
	for _, r := range n.all("r") {
		if r.text() == text {
			return r
		}
	}
	t.Fatalf("no run %q in %q", text, n.text())
	return nil
}

// num returns the w:num with numId id from numbering.xml.
func (p *docxParts) num(t *testing.T, id string) *xnode {
	t.Helper()
	for _, n := range p.numbering.all("num") {
		if n.attr("numId") == id {
			return n
		}
	}
	t.Fatalf("no w:num %s", id)
	return nil
}

var monospaceFonts = []string{"Consolas", "Courier New", "Menlo", "DejaVu Sans Mono", "Liberation Mono"}

func TestDOCXEveryElement(t *testing.T) {
	data, err := DOCX(Doc{Title: "Every Element", ContentType: "markdown", Content: everyElement, Version: 3, Exported: fixtureTime})
	if err != nil {
		t.Fatalf("DOCX: %v", err)
	}
	p := openDOCX(t, data)

	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"content types cover every part", func(t *testing.T) {
			ct := string(p.files["[Content_Types].xml"])
			for _, part := range []string{"/word/document.xml", "/word/styles.xml", "/word/numbering.xml", "/docProps/core.xml"} {
				if !strings.Contains(ct, `PartName="`+part+`"`) {
					t.Errorf("[Content_Types].xml lacks %s", part)
				}
			}
		}},
		{"core properties", func(t *testing.T) {
			if got := p.core.first("title").Text; got != "Every Element" {
				t.Errorf("dc:title = %q", got)
			}
			if got := p.core.first("revision").Text; got != "3" {
				t.Errorf("cp:revision = %q", got)
			}
			if got := p.core.first("modified").Text; got != "2026-03-04T05:06:07Z" {
				t.Errorf("dcterms:modified = %q", got)
			}
		}},
		{"headings use Heading1..6 with outline levels", func(t *testing.T) {
			for i, want := range []string{"One", "Two", "Three", "Four", "Five", "Six"} {
				id := "Heading" + string(rune('1'+i))
				if got := p.para(t, "Heading "+want).val("pStyle"); got != id {
					t.Errorf("Heading %s has style %q, want %s", want, got, id)
				}
				s := p.style(t, id)
				if s.val("name") != "heading "+string(rune('1'+i)) || s.val("outlineLvl") != string(rune('0'+i)) {
					t.Errorf("style %s: name %q outlineLvl %q", id, s.val("name"), s.val("outlineLvl"))
				}
			}
		}},
		{"title not duplicated when content opens with h1", func(t *testing.T) {
			for _, para := range p.paragraphsInOrder {
				if para.val("pStyle") == "Title" {
					t.Errorf("Title paragraph %q although content opens with a heading 1", para.text())
				}
			}
		}},
		{"bold italic strike and inline code runs", func(t *testing.T) {
			para := p.para(t, "Plain bold text and italic text and struck text and inline code with a * literal star & an & entity. Soft break here, hard break after this\nnext line.")
			if runWithText(t, para, "bold text").first("b") == nil {
				t.Errorf("bold run lacks w:b")
			}
			if runWithText(t, para, "italic text").first("i") == nil {
				t.Errorf("italic run lacks w:i")
			}
			if runWithText(t, para, "struck text").first("strike") == nil {
				t.Errorf("struck run lacks w:strike")
			}
			if got := runWithText(t, para, "inline code").val("rStyle"); got != "VerbatimChar" {
				t.Errorf("inline code rStyle = %q", got)
			}
			if f := p.style(t, "VerbatimChar").first("rFonts").attr("ascii"); !slices.Contains(monospaceFonts, f) {
				t.Errorf("VerbatimChar font %q is not monospace", f)
			}
		}},
		{"nested bullets carry numPr with ilvl", func(t *testing.T) {
			for text, ilvl := range map[string]string{"bullet one": "0", "nested bullet": "1", "deeper bullet": "2", "bullet two": "0"} {
				para := p.para(t, text)
				np := para.first("numPr")
				if np == nil {
					t.Fatalf("%q has no w:numPr", text)
				}
				if got := np.val("ilvl"); got != ilvl {
					t.Errorf("%q ilvl = %s, want %s", text, got, ilvl)
				}
				if got := p.num(t, np.val("numId")).val("abstractNumId"); got != "0" {
					t.Errorf("%q uses abstractNum %s, want the bullet definition 0", text, got)
				}
			}
			if p.para(t, "bullet one").val("numId") != p.para(t, "bullet two").val("numId") {
				t.Errorf("items of one list use different w:numId")
			}
		}},
		{"numbered list restarts at its start and nests", func(t *testing.T) {
			third := p.para(t, "third")
			n := p.num(t, third.val("numId"))
			if n.val("abstractNumId") != "1" || n.val("startOverride") != "3" {
				t.Errorf("third: abstractNum %s startOverride %s, want 1 and 3", n.val("abstractNumId"), n.val("startOverride"))
			}
			nested := p.para(t, "nested numbered")
			if nested.val("ilvl") != "1" || p.num(t, nested.val("numId")).val("abstractNumId") != "1" {
				t.Errorf("nested numbered: ilvl %s", nested.val("ilvl"))
			}
			var ordered *xnode
			for _, a := range p.numbering.all("abstractNum") {
				if a.attr("abstractNumId") == "1" {
					ordered = a
				}
			}
			if ordered == nil || ordered.val("numFmt") != "decimal" || len(ordered.all("lvl")) != 9 {
				t.Errorf("ordered abstractNum missing or not 9-level decimal")
			}
		}},
		{"task items show check boxes", func(t *testing.T) {
			for _, text := range []string{"☐ open task", "☑ done task"} {
				if p.para(t, text).first("numPr") != nil {
					t.Errorf("%q has a bullet as well as a check box", text)
				}
			}
		}},
		{"table rows cells header and alignment", func(t *testing.T) {
			tbls := p.document.all("tbl")
			if len(tbls) != 1 {
				t.Fatalf("%d tables", len(tbls))
			}
			tbl := tbls[0]
			if b := tbl.first("tblBorders"); b == nil || b.val("insideH") != "single" || b.val("top") != "single" {
				t.Errorf("table lacks single borders")
			}
			if n := len(tbl.all("gridCol")); n != 3 {
				t.Errorf("%d gridCol", n)
			}
			want := [][]string{{"Left", "Center", "Right"}, {"a1", "b1", "c1"}, {"a2", "b2", "c2"}}
			rows := tbl.all("tr")
			if len(rows) != len(want) {
				t.Fatalf("%d rows, want %d", len(rows), len(want))
			}
			for i, row := range rows {
				cells := row.all("tc")
				if len(cells) != 3 {
					t.Fatalf("row %d has %d cells", i, len(cells))
				}
				for j, c := range cells {
					if c.text() != want[i][j] {
						t.Errorf("cell %d,%d = %q, want %q", i, j, c.text(), want[i][j])
					}
				}
				if (row.first("tblHeader") != nil) != (i == 0) {
					t.Errorf("row %d tblHeader wrong", i)
				}
				if got := cells[1].val("jc") + "," + cells[2].val("jc"); got != "center,right" {
					t.Errorf("row %d alignment %s", i, got)
				}
			}
			if rows[0].first("b") == nil {
				t.Errorf("header row is not bold")
			}
		}},
		{"code block is a monospace shaded paragraph", func(t *testing.T) {
			para := p.para(t, "func main() {\n\tprintln(\"<hi>\")\n}")
			if got := para.val("pStyle"); got != "SourceCode" {
				t.Fatalf("code paragraph style %q", got)
			}
			s := p.style(t, "SourceCode")
			if f := s.first("rFonts").attr("ascii"); !slices.Contains(monospaceFonts, f) {
				t.Errorf("SourceCode font %q is not monospace", f)
			}
			if s.first("shd") == nil || s.first("shd").attr("fill") == "" {
				t.Errorf("SourceCode is not shaded")
			}
		}},
		{"block quotes are indented by depth", func(t *testing.T) {
			for text, left := range map[string]string{"Quoted wisdom": "720", "nested quote": "1440"} {
				para := p.para(t, text)
				if para.val("pStyle") != "Quote" || para.first("ind").attr("left") != left {
					t.Errorf("%q: style %q indent %q, want Quote %s", text, para.val("pStyle"), para.first("ind").attr("left"), left)
				}
			}
		}},
		{"horizontal rule", func(t *testing.T) {
			n := 0
			for _, para := range p.paragraphsInOrder {
				if b := para.first("pBdr"); b != nil && b.first("bottom") != nil && para.text() == "" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d rule paragraphs, want 1", n)
			}
		}},
		{"hyperlinks resolve to their URLs", func(t *testing.T) {
			for target, text := range map[string]string{
				"https://example.com/path?q=1&r=2": "link to example",
				"https://auto.example.org":         "https://auto.example.org",
				"http://www.bare.example.net":      "www.bare.example.net",
				"https://img.example.com/pic.png":  "https://img.example.com/pic.png",
			} {
				hs := p.hyperlinksByTarget[target]
				if len(hs) != 1 {
					t.Errorf("%d hyperlinks to %s, want 1", len(hs), target)
					continue
				}
				h := hs[0]
				if h.text() != text {
					t.Errorf("hyperlink to %s has text %q, want %q", target, h.text(), text)
				}
				if h.val("rStyle") != "Hyperlink" {
					t.Errorf("hyperlink to %s is not styled Hyperlink", target)
				}
				if rel := p.rels[h.attr("id")]; rel.attr("TargetMode") != "External" || !strings.HasSuffix(rel.attr("Type"), "/hyperlink") {
					t.Errorf("relationship %s: %v", h.attr("id"), rel.Attrs)
				}
			}
			hl := p.style(t, "Hyperlink")
			if hl.val("color") == "" || hl.val("u") != "single" {
				t.Errorf("Hyperlink style is not coloured and underlined")
			}
		}},
		{"image is alt text plus URL", func(t *testing.T) {
			para := p.para(t, "Alt of image (image: https://img.example.com/pic.png)")
			if runWithText(t, para, "Alt of image").first("i") == nil {
				t.Errorf("alt text is not italic")
			}
			if _, ok := p.files["word/media/"]; ok || len(p.files) != len(requiredParts)+1 {
				t.Errorf("unexpected parts: %d files", len(p.files))
			}
		}},
		{"CJK text", func(t *testing.T) {
			p.para(t, "中文段落：人工智能研究。日本語のテキスト。")
		}},
		{"raw HTML is omitted", func(t *testing.T) {
			doc := string(p.files["word/document.xml"])
			if strings.Contains(doc, "script") || strings.Contains(doc, "alert('xss')") {
				t.Errorf("raw HTML leaked into document.xml")
			}
			p.para(t, "Inline alert(2) raw.")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

func TestDOCXCases(t *testing.T) {
	tests := []struct {
		name  string
		doc   Doc
		check func(t *testing.T, p *docxParts)
	}{
		{"non-markdown content is one code paragraph under a Title",
			Doc{Title: "main.py", ContentType: "python", Content: "def f():\n\treturn '<&>'\n"},
			func(t *testing.T, p *docxParts) {
				if got := p.paragraphsInOrder[0]; got.val("pStyle") != "Heading1" || got.text() != "main.py" {
					t.Errorf("first paragraph %q style %q", got.text(), got.val("pStyle"))
				}
				if got := p.para(t, "def f():\n\treturn '<&>'").val("pStyle"); got != "SourceCode" {
					t.Errorf("code style %q", got)
				}
			}},
		{"title paragraph when content has no heading 1",
			Doc{Title: "Report <2025>", Content: "## Part\n\nbody\n"},
			func(t *testing.T, p *docxParts) {
				if got := p.paragraphsInOrder[0]; got.val("pStyle") != "Title" || got.text() != "Report <2025>" {
					t.Errorf("first paragraph %q style %q", got.text(), got.val("pStyle"))
				}
				if p.core.first("title").Text != "Report <2025>" {
					t.Errorf("core title %q", p.core.first("title").Text)
				}
			}},
		{"only http https and mailto become hyperlinks",
			Doc{Title: "x", Content: "[a](javascript:alert(1)) [b](file:///etc/passwd) [c](/relative) [d](mailto:x@example.com) <y@example.org>"},
			func(t *testing.T, p *docxParts) {
				got := make([]string, 0, len(p.hyperlinksByTarget))
				for target := range p.hyperlinksByTarget {
					got = append(got, target)
				}
				slices.Sort(got)
				if want := []string{"mailto:x@example.com", "mailto:y@example.org"}; !slices.Equal(got, want) {
					t.Errorf("hyperlink targets %v, want %v", got, want)
				}
				p.para(t, "a b c d y@example.org")
			}},
		{"repeated URL reuses one relationship",
			Doc{Title: "x", Content: "[a](https://a.example) [b](https://a.example)"},
			func(t *testing.T, p *docxParts) {
				if hs := p.hyperlinksByTarget["https://a.example"]; len(hs) != 2 || hs[0].attr("id") != hs[1].attr("id") {
					t.Errorf("want two hyperlinks sharing one r:id")
				}
			}},
		{"separate lists restart numbering",
			Doc{Title: "x", Content: "1. a\n2. b\n\npara\n\n1. c\n"},
			func(t *testing.T, p *docxParts) {
				a, c := p.para(t, "a"), p.para(t, "c")
				if a.val("numId") == c.val("numId") {
					t.Errorf("two lists share w:numId %s", a.val("numId"))
				}
				if p.num(t, c.val("numId")).val("startOverride") != "1" {
					t.Errorf("second list does not restart at 1")
				}
			}},
		{"loose list item keeps later paragraphs indented",
			Doc{Title: "x", Content: "- first\n\n  second\n\n  ```\n  code\n  ```\n"},
			func(t *testing.T, p *docxParts) {
				if p.para(t, "first").first("numPr") == nil {
					t.Errorf("first paragraph not numbered")
				}
				for _, text := range []string{"second", "code"} {
					para := p.para(t, text)
					if para.first("numPr") != nil || para.first("ind").attr("left") != "720" {
						t.Errorf("%q is numbered or not indented", text)
					}
				}
			}},
		{"list item opening with a nested list and empty item",
			Doc{Title: "x", Content: "- - inner\n-\n"},
			func(t *testing.T, p *docxParts) {
				if p.para(t, "inner").val("ilvl") != "1" {
					t.Errorf("inner ilvl %s", p.para(t, "inner").val("ilvl"))
				}
				n := 0
				for _, para := range p.paragraphsInOrder {
					if para.first("numPr") != nil && para.text() == "" && para.val("ilvl") == "0" {
						n++
					}
				}
				if n != 2 {
					t.Errorf("%d empty bulleted paragraphs, want 2", n)
				}
			}},
		{"ragged table rows are padded",
			Doc{Title: "x", Content: "| a | b | c |\n|---|---|---|\n| 1 |\n| 1 | 2 | 3 | 4 |\n"},
			func(t *testing.T, p *docxParts) {
				for i, row := range p.document.all("tr") {
					if n := len(row.all("tc")); n != 3 {
						t.Errorf("row %d has %d cells", i, n)
					}
					for _, tc := range row.all("tc") {
						if tc.first("p") == nil {
							t.Errorf("row %d has a cell without a paragraph", i)
						}
					}
				}
			}},
		{"deep nesting is clamped to level 8",
			Doc{Title: "x", Content: buildNestedList("", 12)},
			func(t *testing.T, p *docxParts) {
				if got := p.para(t, "level 11").val("ilvl"); got != "8" {
					t.Errorf("ilvl %s, want 8", got)
				}
			}},
		{"lists inside quotes add the quote indent",
			Doc{Title: "x", Content: buildNestedList("> > ", 2)},
			func(t *testing.T, p *docxParts) {
				for text, left := range map[string]string{"level 0": "2160", "level 1": "2880"} {
					para := p.para(t, text)
					if para.first("numPr") == nil || para.first("ind").attr("left") != left {
						t.Errorf("%q: indent %q, want %s and numbered", text, para.first("ind").attr("left"), left)
					}
				}
			}},
		{"CJK soft line break adds no space, Latin one does",
			Doc{Title: "x", Content: "中文\n文本\n\nab\ncd\n"},
			func(t *testing.T, p *docxParts) {
				p.para(t, "中文文本")
				p.para(t, "ab cd")
			}},
		{"empty document",
			Doc{},
			func(t *testing.T, p *docxParts) {
				if len(p.paragraphsInOrder) != 0 || p.core.first("title").Text != "" || p.core.first("revision") != nil {
					t.Errorf("empty doc produced content")
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := DOCX(tt.doc)
			if err != nil {
				t.Fatalf("DOCX: %v", err)
			}
			tt.check(t, openDOCX(t, data))
		})
	}
}

// buildNestedList returns a bullet list nested depth deep ("level 0" ..
// "level depth-1"), every line prefixed with prefix.
func buildNestedList(prefix string, depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(prefix + strings.Repeat("  ", i) + "- level " + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

func TestDOCXInvalidCharacters(t *testing.T) {
	tests := []struct {
		name, title, content, wantText string
	}{
		{"C0 controls", "t\x01", "a\x00b\x01c\x08d\x0be\x0cf\x1bg", "abcdefg"},
		{"DEL and C1", "t", "a\x7fb\u0085c", "abc"},
		{"noncharacters", "t", "a\uFFFEb\uFFFF", "ab"},
		{"invalid UTF-8", "t\xff", "a\xc3\x28b", "a\uFFFD(b"},
		{"character references to controls", "t", "a&#1;b&#x0;c&#x1B;d", "ab\uFFFDcd"},
		{"control in code span", "t", "`a\x02b`", "ab"},
		{"control in link URL", "t", "[x](https://e.example/\x03p)", "x"},
		{"CR line endings", "t", "a\rb", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := DOCX(Doc{Title: tt.title, Content: tt.content})
			if err != nil {
				t.Fatalf("DOCX: %v", err)
			}
			p := openDOCX(t, data) // fails unless every part is well-formed
			p.para(t, tt.wantText)
		})
	}
	t.Run("control characters in a fenced non-markdown block", func(t *testing.T) {
		data, err := DOCX(Doc{Title: "x\x00", ContentType: "text/plain", Content: "bell\x07 esc\x1b[0m"})
		if err != nil {
			t.Fatalf("DOCX: %v", err)
		}
		p := openDOCX(t, data)
		p.para(t, "bell esc[0m")
		if p.core.first("title").Text != "x" {
			t.Errorf("title %q", p.core.first("title").Text)
		}
	})
}

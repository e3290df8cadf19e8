package export

import (
	"strings"
	"testing"

	"artifactflow/backend/sources"
)

// citedSources is the source list of a report citing [1], [2], a file [3] and an
// unknown [9].
var citedSources = []sources.Source{
	{N: 1, Kind: sources.KindWeb, Location: "https://moon.example/a", Title: "Moon <A>", Site: "moon.example", Published: "2024-05-01"},
	{N: 2, Kind: sources.KindWeb, Location: "https://tides.example/b?x=1&y=2", Title: "Tides", Site: "tides.example"},
	{N: 3, Kind: sources.KindFile, Location: "notes/moon.pdf", Page: 2},
	{N: 4, Kind: sources.KindWeb, Location: "https://never.example/", Title: "Not cited"},
}

const citingReport = "# Moon\n\nIt is far [1]. Tides follow it [2, 3]; see also [9].\n\n`code [4]`\n"

const wantReferences = "\n\n## References\n\n" +
	"- [1] [Moon \\<A\\>](<https://moon.example/a>) · moon.example · 2024-05-01\n" +
	"- [2] [Tides](<https://tides.example/b?x=1&y=2>) · tides.example\n" +
	"- [3] notes/moon.pdf (p. 2)\n"

func TestMarkdownReferences(t *testing.T) {
	tests := []struct {
		name string
		doc  Doc
		want string
	}{
		{"cited sources are listed in citation order", Doc{Content: citingReport, Sources: citedSources},
			strings.TrimRight(citingReport, "\n") + wantReferences},
		{"no sources: byte for byte", Doc{Content: citingReport}, citingReport},
		{"nothing resolves: no list", Doc{Content: "See [9].\n", Sources: citedSources}, "See [9].\n"},
		{"the managed Sources section stands in for the list",
			Doc{Content: "It is far [1].\n\n<!-- sources -->\n## Sources\n\n- [1] x\n", Sources: citedSources},
			"It is far [1].\n\n<!-- sources -->\n## Sources\n\n- [1] x\n"},
		{"code is not a report", Doc{Title: "c", ContentType: "python", Content: "a[1]\n", Sources: citedSources},
			"# c\n\n```python\na[1]\n```\n"},
	}
	for _, tc := range tests {
		if got := string(Markdown(tc.doc)); got != tc.want {
			t.Errorf("%s: Markdown() =\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// chineseReport is a Chinese report citing [1] and a file [3], without the managed
// section, and chineseReferences the list an export adds to it, under a Chinese heading.
const (
	chineseReport     = "# 月球\n\n月球与地球的平均距离约为 384,400 公里 [1]，潮汐随之变化 [3]。\n"
	chineseReferences = "\n\n## 参考来源\n\n- [1] [Moon \\<A\\>](<https://moon.example/a>) · moon.example · 2024-05-01\n- [3] notes/moon.pdf (p. 2)\n"
)

// TestChineseReferencesHeading: the reference list an export adds to a Chinese report is
// headed in Chinese in Markdown, HTML and Word, like the Sources section the engine keeps
// (whose heading, "## 来源", an export keeps as written).
func TestChineseReferencesHeading(t *testing.T) {
	doc := Doc{Title: "月球", Content: chineseReport, Sources: citedSources}
	if got, want := string(Markdown(doc)), strings.TrimRight(chineseReport, "\n")+chineseReferences; got != want {
		t.Errorf("Markdown() =\n%s\nwant\n%s", got, want)
	}
	b, err := HTML(doc)
	if err != nil {
		t.Fatal(err)
	}
	if html := string(b); !strings.Contains(html, "<h2>参考来源</h2>") || strings.Contains(html, "References") {
		t.Errorf("HTML of a Chinese report lacks the Chinese heading:\n%s", html)
	}
	b, err = DOCX(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := openDOCX(t, b)
	p.para(t, "参考来源")
	p.para(t, "[3] notes/moon.pdf (p. 2)")
	managed := Doc{Title: "月球", Content: "月球很远 [1]。\n\n<!-- sources -->\n## 来源\n\n- [1] x\n", Sources: citedSources}
	if b, err = DOCX(managed); err != nil {
		t.Fatal(err)
	}
	openDOCX(t, b).para(t, "来源")
	if got := string(Markdown(Doc{Content: "Chapter on 月球 and the tides [1].\n", Sources: citedSources})); !strings.Contains(got, "\n## References\n") {
		t.Errorf("an English report with a few Han characters got\n%s", got)
	}
}

func TestHTMLCitationLinks(t *testing.T) {
	b, err := HTML(Doc{Title: "Moon", Content: citingReport, Sources: citedSources})
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{
		`<a href="https://moon.example/a" rel="noopener noreferrer">[1]</a>`,
		`<a href="https://tides.example/b?x=1&amp;y=2" rel="noopener noreferrer">[2]</a>[3]; see also [9].`,
		`<code>code [4]</code>`,
		`<h2>References</h2>`,
		`<li>[1] <a href="https://moon.example/a" rel="noopener noreferrer">Moon &lt;A&gt;</a> · moon.example · 2024-05-01</li>`,
		`<li>[3] notes/moon.pdf (p. 2)</li>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %s\n%s", want, html)
		}
	}
	if strings.Contains(html, "never.example") || strings.Contains(html, `[9]</a>`) {
		t.Error("HTML links an uncited or unknown source")
	}
}

func TestDOCXCitationHyperlinks(t *testing.T) {
	b, err := DOCX(Doc{Title: "Moon", Content: citingReport, Sources: citedSources})
	if err != nil {
		t.Fatal(err)
	}
	p := openDOCX(t, b)
	for target, texts := range map[string][]string{
		"https://moon.example/a":          {"[1]", "Moon <A>"},
		"https://tides.example/b?x=1&y=2": {"[2]", "Tides"},
	} {
		links := p.hyperlinksByTarget[target]
		if len(links) != len(texts) {
			t.Fatalf("%s: %d hyperlinks, want %d (%v)", target, len(links), len(texts), texts)
		}
		for i, h := range links {
			if got := h.text(); got != texts[i] {
				t.Errorf("%s: hyperlink %d says %q, want %q", target, i, got, texts[i])
			}
		}
	}
	if len(p.hyperlinksByTarget) != 2 {
		t.Errorf("hyperlink targets = %d, want 2", len(p.hyperlinksByTarget))
	}
	p.para(t, "References")
	p.para(t, "[3] notes/moon.pdf (p. 2)")
	p.para(t, "It is far [1]. Tides follow it [2][3]; see also [9].")
}

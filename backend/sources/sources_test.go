package sources

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestCited reads the shared cases of testdata/citations.json, which the window's tests
// (frontend/src/sources/citations.test.ts) read too, so both sides find the same citations.
func TestCited(t *testing.T) {
	raw, err := os.ReadFile("testdata/citations.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []struct {
			Name, Text string
			Cited      []int
		}
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Cases) < 30 {
		t.Fatalf("%d shared cases, want the whole table", len(table.Cases))
	}
	for _, tc := range table.Cases {
		if got := Cited(tc.Text); !slices.Equal(got, tc.Cited) {
			t.Errorf("%s: Cited(%q) = %v, want %v", tc.Name, tc.Text, got, tc.Cited)
		}
	}
	// The window renders Markdown; this side only reads it. By decision an indented block
	// is not code here (in a model's Markdown it is far more often a nested list).
	if got := Cited("- item\n\n    nested [1]"); !slices.Equal(got, []int{1}) {
		t.Errorf("indented text: Cited = %v, want [1]", got)
	}
}

func TestCitationsOffsets(t *testing.T) {
	text := "é [1, 2] and `[3]` then [4-5]."
	got := Citations(text)
	if len(got) != 2 {
		t.Fatalf("citations = %+v", got)
	}
	if text[got[0].Start:got[0].End] != "[1, 2]" || text[got[1].Start:got[1].End] != "[4-5]" ||
		!slices.Equal(got[1].Numbers, []int{4, 5}) {
		t.Errorf("citations = %+v", got)
	}
	multi := "line one\n```\n[9]\n```\nline [7]\r\nend [8]"
	for _, c := range Citations(multi) {
		if s := multi[c.Start:c.End]; s != "[7]" && s != "[8]" {
			t.Errorf("span %q", s)
		}
	}
}

func TestKey(t *testing.T) {
	same := [][]string{
		{"https://example.com/a", "http://example.com/a", "https://WWW.Example.COM/a/", "https://example.com:443/a#frag",
			"https://example.com/a?utm_source=x&fbclid=y"},
		{"https://example.com/?b=2&a=1", "https://example.com?a=1&b=2"},
		{"https://example.com/%7Euser", "https://example.com/~user"},
	}
	for _, group := range same {
		for _, u := range group[1:] {
			if Key(KindWeb, u) != Key(KindWeb, group[0]) {
				t.Errorf("Key(%q) = %q, want %q", u, Key(KindWeb, u), Key(KindWeb, group[0]))
			}
		}
	}
	different := [][2]string{
		{"https://example.com/a", "https://example.com/b"},
		{"https://example.com/a?x=1", "https://example.com/a?x=2"},
		{"https://example.com/A", "https://example.com/a"},
		{"https://a.example.com/", "https://b.example.com/"},
		{"https://example.com:8080/", "https://example.com/"},
	}
	for _, d := range different {
		if Key(KindWeb, d[0]) == Key(KindWeb, d[1]) {
			t.Errorf("Key(%q) == Key(%q)", d[0], d[1])
		}
	}
	if Key(KindFile, "./docs//a.md") != Key(KindFile, "docs/a.md") || Key(KindFile, `docs\a.md`) != "file:docs/a.md" {
		t.Errorf("file keys: %q %q", Key(KindFile, "./docs//a.md"), Key(KindFile, `docs\a.md`))
	}
	if Key(KindFile, "a.md") == Key(KindWeb, "a.md") {
		t.Error("a file and a web location share a key")
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		s    Source
		want string
	}{
		{Source{N: 1, Kind: KindWeb, Location: "https://www.a.example/x y", Title: "A *bold* [title]", Site: "", Published: "2024-01-02"},
			`[1] [A \*bold\* \[title\]](<https://www.a.example/x%20y>) · a.example · 2024-01-02`},
		{Source{N: 2, Kind: KindWeb, Location: "https://b.example/", Site: "b.example"}, "[2] [https://b.example/](<https://b.example/>) · b.example"},
		{Source{N: 3, Kind: KindWeb, Location: "javascript:alert(1)", Title: "Bad"}, "[3] Bad"},
		{Source{N: 4, Kind: KindFile, Location: "docs/report_1.pdf", Page: 3}, `[4] docs/report\_1.pdf (p. 3)`},
		{Source{N: 5, Kind: KindFile, Location: "src/main.go", Line: 12}, "[5] src/main.go (line 12)"},
		{Source{N: 6, Kind: KindWeb, Location: "https://c.example/a>b", Title: "C\nnext line"}, "[6] [C next line](<https://c.example/a%3Eb>) · c.example"},
	}
	for _, tc := range tests {
		if got := Line(tc.s); got != tc.want {
			t.Errorf("Line(%+v) =\n%s\nwant\n%s", tc.s, got, tc.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	if got := Excerpt("[Page 1]\n# Title\n\n- item one\n  text   here\n"); got != "Title item one text here" {
		t.Errorf("Excerpt = %q", got)
	}
	long := strings.Repeat("word ", 200)
	got := Excerpt(long)
	if r := []rune(got); len(r) > ExcerptRunes+1 || !strings.HasSuffix(got, "…") || strings.Contains(got, "wo…") {
		t.Errorf("long excerpt = %q (%d runes)", got, len(r))
	}
	cjk := strings.Repeat("月球是地球唯一的天然卫星", 40)
	if r := []rune(Excerpt(cjk)); len(r) != ExcerptRunes+1 {
		t.Errorf("CJK excerpt has %d runes, want %d", len(r), ExcerptRunes+1)
	}
}

func TestSite(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.Example.com:8443/x": "example.com",
		"http://sub.example.org":         "sub.example.org",
		"not a url":                      "",
		"https://www2.example.com/":      "www2.example.com",
	} {
		if got := Site(in); got != want {
			t.Errorf("Site(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitSection(t *testing.T) {
	sec := SectionMarker + "\n## Sources\n\n- [1] x\n"
	tests := []struct{ in, body, section string }{
		{"Report [1].\n\n" + sec, "Report [1].\n\n", sec},
		{"Report.\n", "Report.\n", ""},
		{"A\n  " + SectionMarker + "  \nold\n" + sec, "A\n  " + SectionMarker + "  \nold\n", sec},
		{"````\n```\n" + SectionMarker + "\n````\nText\n", "````\n```\n" + SectionMarker + "\n````\nText\n", ""},
		{"Text " + SectionMarker + "\n", "Text " + SectionMarker + "\n", ""},
		// Text after the section is body, moved before it; the section ends at its first
		// line that is not the heading, a blank line or a source line.
		{"Report [1].\n\n" + sec + "\n## Later\n\nMore [2].\n", "Report [1].\n\n## Later\n\nMore [2].\n\n", sec},
		{"Report [1].\n\n" + sec + "More [2].", "Report [1].\n\nMore [2].\n\n", sec},
		{"Report [1].\n\n" + sec + "- [2] not the engine's? it is\n1. item\n", "Report [1].\n\n1. item\n\n", sec + "- [2] not the engine's? it is\n"},
		{sec + "More [2].\r\n", "More [2].\n\n", sec},
		{"A\n" + sec + "```\n" + SectionMarker + "\n```\n", "A\n\n```\n" + SectionMarker + "\n```\n\n", sec},
		// No marker (a model dropped it): a trailing heading with only source lines is the section.
		{"Report [1].\n\n## Sources\n\n- [1] x\n- [2] y\n\n", "Report [1].\n\n", "## Sources\n\n- [1] x\n- [2] y\n\n"},
		{"Report.\n\n## Sources\n\nMy own notes.\n", "Report.\n\n## Sources\n\nMy own notes.\n", ""},
		{"## Sources\n\n- [1] x\n\nMore.\n", "## Sources\n\n- [1] x\n\nMore.\n", ""},
		{"```\n## Sources\n- [1] x\n```\n", "```\n## Sources\n- [1] x\n```\n", ""},
		{"Text\n\n## Sources\n- [01] x\n", "Text\n\n## Sources\n- [01] x\n", ""},
	}
	for _, tc := range tests {
		body, section := SplitSection(tc.in)
		if body != tc.body || section != tc.section {
			t.Errorf("SplitSection(%q) = %q, %q; want %q, %q", tc.in, body, section, tc.body, tc.section)
		}
	}
}

// BenchmarkCited reads the citations of a 100 KB report with code blocks.
func BenchmarkCited(b *testing.B) {
	para := "The Moon is 384,400 km away [1], and tides follow it [2, 3]. See `a[4]` and [5-7].\n\n```\nx[8]\n```\n\n"
	text := strings.Repeat(para, 100_000/len(para))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if len(Cited(text)) != 6 {
			b.Fatal("wrong citations")
		}
	}
}

// TestSectionHeadingFor: the Sources heading follows the report's language.
func TestSectionHeadingFor(t *testing.T) {
	for body, want := range map[string]string{
		"The Moon is 384,400 km away [1].":                                   SectionHeading,
		"月球与地球的平均距离约为 384,400 公里 [1]。":                                       SectionHeadingChinese,
		"根据 NASA 的 Lunar Reconnaissance Orbiter 数据，月球表面温差很大 [1]。":            SectionHeadingChinese,
		"A note on 月球 (the Moon) in the classical texts, and its tides [2].": SectionHeading,
		"": SectionHeading,
	} {
		if got := SectionHeadingFor(body); got != want {
			t.Errorf("SectionHeadingFor(%q) = %q, want %q", body, got, want)
		}
	}
}

package web

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// corpusPage is one saved page of testdata/pages (see its README.md): <name>.html, the
// page as saved; <name>.expected.txt, its main text as chosen by hand.
type corpusPage struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	URL         string   `json:"url"`
	ContentType string   `json:"content_type"` // as a server would send it: no charset for the <meta>-only pages
	Title       string   `json:"title"`        // a part of the title htmlToPage must return
	MinF1       float64  `json:"min_f1"`       // the least token F1 against the expected text
	Must        []string `json:"must"`         // phrases of the main text that must be kept
	MustNot     []string `json:"must_not"`     // boilerplate of the page that must be left out
	Leaks       []string `json:"leaks"`        // boilerplate Readability is known to keep (logged only; see README)
}

// loadCorpus reads testdata/pages/pages.json and each page's files.
func loadCorpus(t testing.TB) (pages []corpusPage, src, expected map[string][]byte) {
	t.Helper()
	dir := filepath.Join("testdata", "pages")
	b, err := os.ReadFile(filepath.Join(dir, "pages.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pages); err != nil {
		t.Fatalf("pages.json: %v", err)
	}
	src, expected = map[string][]byte{}, map[string][]byte{}
	for _, p := range pages {
		if src[p.Name], err = os.ReadFile(filepath.Join(dir, p.Name+".html")); err != nil {
			t.Fatal(err)
		}
		if expected[p.Name], err = os.ReadFile(filepath.Join(dir, p.Name+".expected.txt")); err != nil {
			t.Fatal(err)
		}
	}
	return pages, src, expected
}

// mdLinkTarget matches the target of a Markdown link or image, "](url)" or
// `](url "title")`.
var mdLinkTarget = regexp.MustCompile(`\]\([^)\s]*(?:\s+"[^"]*")?\)`)

// mdPlain reduces Markdown to its words: link targets, emphasis, heading, quote and table
// marks and backslash escapes removed, white space collapsed. Phrases are compared in
// this form.
func mdPlain(md string) string {
	s := mdLinkTarget.ReplaceAllString(md, "]")
	s = strings.NewReplacer(`\`, "", "*", "", "_", "", "`", "", "#", "", ">", "", "|", "", "[", "", "]", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// tokens splits s into lower-case words (letters, digits and marks); each Han, kana or
// Hangul character is a token of its own, as CJK text has no spaces.
func tokens(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// tokenF1 returns the bag-of-words precision, recall and F1 of got against want.
func tokenF1(got, want []string) (precision, recall, f1 float64) {
	left := map[string]int{}
	for _, w := range want {
		left[w]++
	}
	common := 0
	for _, g := range got {
		if left[g] > 0 {
			left[g]--
			common++
		}
	}
	if len(got) == 0 || len(want) == 0 || common == 0 {
		return 0, 0, 0
	}
	precision, recall = float64(common)/float64(len(got)), float64(common)/float64(len(want))
	return precision, recall, 2 * precision * recall / (precision + recall)
}

func TestTokenF1(t *testing.T) {
	tests := []struct {
		got, want string
		f1        float64
	}{
		{"the cat sat", "the cat sat", 1},
		{"The cat, sat!", "the cat sat", 1},
		{"the cat", "the cat sat on the mat", 2 * 1 * (2.0 / 6) / (1 + 2.0/6)},
		{"dog", "cat", 0},
		{"", "cat", 0},
		{"北京天气", "北京的天气", 2 * 1 * 0.8 / 1.8},
	}
	for _, tc := range tests {
		if _, _, f1 := tokenF1(tokens(tc.got), tokens(tc.want)); f1 < tc.f1-1e-9 || f1 > tc.f1+1e-9 {
			t.Errorf("tokenF1(%q, %q) = %.4f, want %.4f", tc.got, tc.want, f1, tc.f1)
		}
	}
	if got := mdPlain("A [link](https://x.org/a_b \"t\") and **bold** \\*x\\* | c |"); got != "A link and bold x c" {
		t.Errorf("mdPlain = %q", got)
	}
}

// TestExtractCorpus converts each saved real page of testdata/pages as web_fetch does
// (decodeText with the page's Content-Type, then htmlToPage) and checks the main text:
// token F1 against the hand-chosen expected text at least the page's min_f1 (set from
// the measurement in the README with a margin), every "must" phrase kept, every
// "must_not" boilerplate phrase left out (each of which the whole page does contain, so
// the check can fail), and the title.
func TestExtractCorpus(t *testing.T) {
	pages, src, expected := loadCorpus(t)
	if len(pages) < 12 {
		t.Fatalf("corpus has %d pages, want at least 12", len(pages))
	}
	for _, p := range pages {
		t.Run(p.Name, func(t *testing.T) {
			u, err := url.Parse(p.URL)
			if err != nil {
				t.Fatal(err)
			}
			text := decodeText(src[p.Name], p.ContentType)
			title, md, err := htmlToPage(text, u)
			if err != nil {
				t.Fatal(err)
			}
			plain := mdPlain(md)
			prec, rec, f1 := tokenF1(tokens(plain), tokens(string(expected[p.Name])))
			t.Logf("%-24s P %.3f R %.3f F1 %.3f (min %.2f), %d bytes of Markdown, title %q", p.Name, prec, rec, f1, p.MinF1, len(md), title)
			if p.MinF1 <= 0 || f1 < p.MinF1 {
				t.Errorf("token F1 %.3f (precision %.3f, recall %.3f), want at least %.2f\n%.600s", f1, prec, rec, p.MinF1, md)
			}
			for _, m := range p.Must {
				if !strings.Contains(plain, mdPlain(m)) {
					t.Errorf("main text lacks %q", m)
				}
			}
			whole := bodyPlain(t, text, u)
			for _, m := range p.MustNot {
				if !strings.Contains(whole, mdPlain(m)) {
					t.Errorf("boilerplate %q is not on the page at all: the check could not fail", m)
				}
				if strings.Contains(plain, mdPlain(m)) {
					t.Errorf("main text has boilerplate %q", m)
				}
			}
			for _, m := range p.Leaks {
				if strings.Contains(plain, mdPlain(m)) {
					t.Logf("known leak still there: %q", m)
				}
			}
			if p.Title == "" || !strings.Contains(title, p.Title) {
				t.Errorf("title = %q, want it to contain %q", title, p.Title)
			}
		})
	}
}

// bodyPlain returns the whole <body> of text as mdPlain text.
func bodyPlain(t *testing.T, text string, u *url.URL) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	md, err := toMarkdown(findElement(doc, "body"), u)
	if err != nil {
		t.Fatal(err)
	}
	return mdPlain(md)
}

// BenchmarkExtract measures htmlToPage (parsing, main-content extraction, Markdown) on
// each page of the corpus; decoding is done once outside the loop.
func BenchmarkExtract(b *testing.B) {
	pages, src, _ := loadCorpus(b)
	for _, p := range pages {
		b.Run(p.Name, func(b *testing.B) {
			u, _ := url.Parse(p.URL)
			text := decodeText(src[p.Name], p.ContentType)
			b.SetBytes(int64(len(src[p.Name])))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := htmlToPage(text, u); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecodeTextEncodings covers the order of decodeText's rules on the cases the fetch
// test does not: a <meta> past the first 1024 bytes, a stale <meta> on a UTF-8 body, a
// 7-bit encoding that only its <meta> names, and labels the <meta> scan must ignore.
func TestDecodeTextEncodings(t *testing.T) {
	const (
		pl = "Nie ma miejsca na kłótnie. Ciężar dyskusji przeniesie się teraz."
		zh = "北京的天气预报：今天晴，气温二十五度。"
		ja = "東京の天気予報：今日は晴れです。"
	)
	script := "<script>" + strings.Repeat("var a = 1;\n", 200) + "</script>"
	page := func(head, text string) string {
		return "<!doctype html><html><head>" + head + "<title>T</title></head><body><p>" + text + "</p></body></html>"
	}
	tests := []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"windows-1250 meta after 2 KB of script", "text/html",
			mustEncode(t, charmap.Windows1250, page(script+`<meta http-equiv="Content-Type" content="text/html; charset=Windows-1250">`, pl)), pl},
		{"meta charset after 2 KB", "text/html",
			mustEncode(t, simplifiedchinese.GBK, page(script+`<meta charset="gbk">`, zh)), zh},
		{"stale GB2312 meta on a UTF-8 page", "text/html",
			[]byte(page(`<meta http-equiv="Content-Type" content="text/html; charset=gb2312">`, zh)), zh},
		{"header beats everything", "text/html; charset=windows-1250",
			mustEncode(t, charmap.Windows1250, page(`<meta charset="utf-8">`, pl)), pl},
		{"ISO-2022-JP (7-bit) named only by its meta", "text/html",
			mustEncode(t, japanese.ISO2022JP, page(`<meta charset="iso-2022-jp">`, ja)), ja},
		{"meta in the body is not the page's", "text/html",
			mustEncode(t, charmap.ISO8859_1, "<html><head><title>T</title></head><body><p>"+strings.Repeat("x", 2000)+`</p><meta charset="shift_jis"><p>déjà vu</p></body></html>`), "déjà vu"},
		{"meta after a body element within 1024 bytes, as the WHATWG prescan finds it", "text/html",
			mustEncode(t, charmap.Windows1250, `<div>x</div><meta charset="windows-1250"><p>`+pl+"</p>"), pl},
		{"unknown label ignored", "text/html",
			mustEncode(t, charmap.Windows1252, page(script+`<meta charset="no-such-charset">`, "naïve façade")), "naïve façade"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := decodeText(tc.body, tc.contentType); !strings.Contains(got, tc.want) {
				t.Errorf("decodeText gives %.300q, want it to contain %q", got, tc.want)
			}
		})
	}
}

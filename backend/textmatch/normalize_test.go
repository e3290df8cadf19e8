package textmatch

import (
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func testBudget() *budget {
	return &budget{ctx: context.Background(), deadline: time.Now().Add(time.Hour)}
}

func TestNormalizeGroups(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		text   string
		groups []string // original text of each group, in order
	}{
		{"ascii unchanged", "ab", "ab", []string{"a", "b"}},
		{"roman numeral expands into one group", "第Ⅳ章", "第IV章", []string{"第", "Ⅳ", "章"}},
		{"ligature expands into one group", "ﬁx", "fix", []string{"ﬁ", "x"}},
		{"combining mark contracts into one group", "e\u0301!", "é!", []string{"e\u0301", "!"}},
		{"jamo contract into one syllable", nfd("한글"), "한글", []string{nfd("한"), nfd("글")}},
		{"smart quotes and dashes", "“a”—b", "\"a\"-b", []string{"“", "a", "”", "—", "b"}},
		{"double prime becomes a double quote", "5″", "5\"", []string{"5", "″"}},
		{"nfkc output translated again", "a\uFE31b", "a-b", []string{"a", "\uFE31", "b"}},
		{"trailing blanks removed", "a \t\r\nb  ", "a\nb", []string{"a", "\n", "b"}},
		{"blank inside a line kept", "a  b", "a  b", []string{"a", " ", " ", "b"}},
		{"space between cjk and latin removed", "用 Go 写", "用Go写", []string{"用", "G", "o", "写"}},
		{"space between cjk and digit removed", "第 3 章", "第3章", []string{"第", "3", "章"}},
		{"space between cjk characters kept", "中 文", "中 文", []string{"中", " ", "文"}},
		{"tab between cjk and latin kept", "中\tA", "中\tA", []string{"中", "\t", "A"}},
		{"ideographic space then latin removed", "中\u3000A", "中A", []string{"中", "A"}},
		{"invalid byte passes through", "a\xffb", "a\xffb", []string{"a", "\xff", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := normalize(testBudget(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if n.text != tt.text {
				t.Errorf("text = %q, want %q", n.text, tt.text)
			}
			var groups []string
			for i := range n.text {
				if i == 0 || n.group[i] != n.group[i-1] {
					sp := n.groupsSpan(n.group[i], n.group[i])
					groups = append(groups, tt.in[sp.start:sp.end])
				}
			}
			if strings.Join(groups, "|") != strings.Join(tt.groups, "|") {
				t.Errorf("groups = %q, want %q", groups, tt.groups)
			}
			checkNormalized(t, tt.in, n)
		})
	}
}

func TestNormalizedAligned(t *testing.T) {
	n, err := normalize(testBudget(), "第Ⅳ章")
	if err != nil {
		t.Fatal(err)
	}
	// text "第IV章": bytes 第 [0,3), I [3,4), V [4,5), 章 [5,8).
	tests := []struct {
		s, e int
		want bool
	}{
		{0, 3, true}, {0, 5, true}, {3, 5, true}, {0, 8, true},
		{0, 4, false}, {3, 4, false}, {4, 5, false}, {4, 8, false},
	}
	for _, tt := range tests {
		if got := n.aligned(tt.s, tt.e); got != tt.want {
			t.Errorf("aligned(%d, %d) = %v, want %v", tt.s, tt.e, got, tt.want)
		}
	}
	if got := n.original(3, 5); got != (span{3, 6}) {
		t.Errorf("original(3, 5) = %v, want {3 6}", got)
	}
}

// referenceNormalize is Layer 1's normalization chain written plainly, without span
// tracking: translate, whole-string NFKC, translate again, strip line ends, fold CJK–Latin
// spaces.
func referenceNormalize(s string) string {
	s = strings.Map(translateRune, s)
	s = norm.NFKC.String(s)
	s = strings.Map(translateRune, s)
	s = lineEnd.ReplaceAllString(s, "$1")
	for {
		next := cjkLatin.ReplaceAllString(s, "$1$2")
		next = latinCJK.ReplaceAllString(next, "$1$2")
		if next == s {
			return s
		}
		s = next
	}
}

var (
	lineEnd  = regexp.MustCompile(`[ \t\r]+(\n|$)`)
	cjkLatin = regexp.MustCompile(`(\p{Han}|\p{Hiragana}|\p{Katakana}|\p{Hangul}|ー) +(\p{Latin}|[0-9])`)
	latinCJK = regexp.MustCompile(`(\p{Latin}|[0-9]) +(\p{Han}|\p{Hiragana}|\p{Katakana}|\p{Hangul}|ー)`)
)

// normalizeCorpus mixes the cases normalization must handle.
var normalizeCorpus = []string{
	"", " ", "\n", "a \n", "第Ⅳ章 总结", "ﬁle ½ ㎏ ㍻", "Cafe\u0301 naïve", nfd("한국어 문서입니다"),
	"가\u11a8", "“quoted” ‘single’ 5′10″ — – −", "Hello\u00a0world\u3000中文\u2003x",
	"使用 Python 编写 3 个 脚本", "東京タワーは 333 メートル", "データー ABC", "line  \t\r\nnext\t",
	"a\u0323\u0301 ạ́", "¨´", "\uFE31\uFE32\uFF02\uFF07", "ＡＢＣ　１２３", "x" + strings.Repeat("\u0301", 40),
}

func TestNormalizeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := append([]string(nil), normalizeCorpus...)
	for range 2000 {
		inputs = append(inputs, randomText(rng, 12))
	}
	for _, in := range inputs {
		n, err := normalize(testBudget(), in)
		if err != nil {
			t.Fatal(err)
		}
		// strings.Map in the reference turns each invalid byte into U+FFFD.
		if want := referenceNormalize(in); perByteFFFD(n.text) != want {
			t.Fatalf("normalize(%q) = %q, want %q", in, n.text, want)
		}
		checkNormalized(t, in, n)
	}
}

// perByteFFFD replaces every invalid byte of s with U+FFFD.
func perByteFFFD(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// checkNormalized checks the span-map invariants of n for the original s: one group per
// byte, groups contiguous and in order, and group bounds ascending from 0 to len(s), each
// group non-empty and, for valid UTF-8, on character boundaries.
func checkNormalized(t *testing.T, s string, n *normalized) {
	t.Helper()
	if len(n.group) != len(n.text) {
		t.Fatalf("%q: %d groups for %d bytes", s, len(n.group), len(n.text))
	}
	for i := 1; i < len(n.group); i++ {
		if n.group[i] < n.group[i-1] {
			t.Fatalf("%q: groups out of order at byte %d", s, i)
		}
	}
	if n.bounds[0] != 0 || int(n.bounds[len(n.bounds)-1]) != len(s) {
		t.Fatalf("%q: bounds %v do not cover [0, %d)", s, n.bounds, len(s))
	}
	for g := 1; g < len(n.bounds); g++ {
		if n.bounds[g] <= n.bounds[g-1] {
			t.Fatalf("%q: group %d is empty or reversed: bounds %v", s, g-1, n.bounds)
		}
		if b := int(n.bounds[g]); utf8.ValidString(s) && b < len(s) && !utf8.RuneStart(s[b]) {
			t.Fatalf("%q: bound %d cuts a character", s, b)
		}
	}
}

// randomText returns up to n pieces drawn from characters that exercise normalization.
func randomText(rng *rand.Rand, n int) string {
	pieces := []string{
		"a", "b", "I", "V", "1", " ", " ", "\t", "\n", "\r\n", "中", "文", "タ", "ー", "한", "\u1100", "\u1161", "\u11a8",
		"Ⅳ", "ﬁ", "½", "e", "\u0301", "\u0323", "“", "”", "‘", "—", "\u00a0", "\u3000", "″", "Ａ", "\xff",
	}
	var b strings.Builder
	for range rng.IntN(n + 1) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// FuzzNormalize checks normalize against the plain reference chain and the span-map
// invariants. Run with: go test ./backend/textmatch/ -run '^$' -fuzz FuzzNormalize
func FuzzNormalize(f *testing.F) {
	for _, s := range normalizeCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := normalize(testBudget(), s)
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceNormalize(s); perByteFFFD(n.text) != want {
			t.Fatalf("normalize(%q) = %q, want %q", s, n.text, want)
		}
		checkNormalized(t, s, n)
	})
}

// TestLayer1CodePoints checks every dash and special space that Layer 1 maps to ASCII:
// each normalizes to the ASCII character, an old_str typed with the ASCII character
// replaces the text written with the code point, and the other way round.
func TestLayer1CodePoints(t *testing.T) {
	tests := []struct {
		name string
		cp   string
		want string // literal: what the code point normalizes to
	}{
		{"U+2012 figure dash", "\u2012", "-"},
		{"U+2013 en dash", "\u2013", "-"},
		{"U+2014 em dash", "\u2014", "-"},
		{"U+2015 horizontal bar", "\u2015", "-"},
		{"U+2212 minus sign", "\u2212", "-"},
		{"U+FE58 small em dash", "\uFE58", "-"},
		{"U+FE63 small hyphen-minus", "\uFE63", "-"},
		{"U+FF0D fullwidth hyphen-minus", "\uFF0D", "-"},
		{"U+00A0 no-break space", "\u00A0", " "},
		{"U+2000 en quad", "\u2000", " "},
		{"U+2001 em quad", "\u2001", " "},
		{"U+2002 en space", "\u2002", " "},
		{"U+2003 em space", "\u2003", " "},
		{"U+2004 three-per-em space", "\u2004", " "},
		{"U+2005 four-per-em space", "\u2005", " "},
		{"U+2006 six-per-em space", "\u2006", " "},
		{"U+2007 figure space", "\u2007", " "},
		{"U+2008 punctuation space", "\u2008", " "},
		{"U+2009 thin space", "\u2009", " "},
		{"U+200A hair space", "\u200A", " "},
		{"U+202F narrow no-break space", "\u202F", " "},
		{"U+205F medium mathematical space", "\u205F", " "},
		{"U+3000 ideographic space", "\u3000", " "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := normalize(testBudget(), "a"+tt.cp+"b")
			if err != nil {
				t.Fatal(err)
			}
			if want := "a" + tt.want + "b"; n.text != want {
				t.Fatalf("normalize(%q) = %q, want %q", "a"+tt.cp+"b", n.text, want)
			}
			if g := n.groupsSpan(n.group[1], n.group[1]); g != (span{1, 1 + len(tt.cp)}) {
				t.Errorf("the normalized character maps to original bytes %v, want [1, %d)", g, 1+len(tt.cp))
			}

			content := "x 2019" + tt.cp + "2020 y"
			res, err := Replace(context.Background(), content, "2019"+tt.want+"2020", "Z")
			if err != nil {
				t.Fatalf("ASCII old_str against the code point: %v", err)
			}
			if res.Layer != 1 || res.Content != "x Z y" || res.Matched != "2019"+tt.cp+"2020" {
				t.Errorf("got layer %d, %q replacing %q; want layer 1, %q", res.Layer, res.Content, res.Matched, "x Z y")
			}

			content = "x 2019" + tt.want + "2020 y"
			res, err = Replace(context.Background(), content, "2019"+tt.cp+"2020", "Z")
			if err != nil {
				t.Fatalf("code point old_str against ASCII: %v", err)
			}
			if res.Layer != 1 || res.Content != "x Z y" || res.Matched != "2019"+tt.want+"2020" {
				t.Errorf("got layer %d, %q replacing %q; want layer 1, %q", res.Layer, res.Content, res.Matched, "x Z y")
			}
		})
	}
}

// TestTranslateLeads checks the premise of translate's search: every rune translateRune
// changes starts with one of translateLeads and becomes ASCII, and no lead can continue a
// rune (it is 0xC0 or more).
func TestTranslateLeads(t *testing.T) {
	changed := 0
	for r := rune(0); r <= utf8.MaxRune; r++ {
		tr := translateRune(r)
		if tr == r {
			continue
		}
		changed++
		if lead := string(r)[0]; !slices.Contains(translateLeads[:], lead) || tr >= utf8.RuneSelf {
			t.Fatalf("translateRune(%U) = %U: lead byte %#x not searched, or not ASCII", r, tr, lead)
		}
	}
	for _, c := range translateLeads {
		if c < 0xC0 {
			t.Fatalf("lead %#x can continue a rune", c)
		}
	}
	if changed == 0 {
		t.Fatal("translateRune changes nothing")
	}
}

// TestSwarBelow checks swarBelow against a byte-by-byte comparison for every byte value
// in every lane, next to random neighbours, for several bounds.
func TestSwarBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	for _, n := range []byte{0, 1, '!', 0x7F, 0x80} {
		for lane := range 8 {
			for b := range 256 {
				v := rng.Uint64()&^(0xFF<<(8*lane)) | uint64(b)<<(8*lane)
				var want uint64
				for l := range 8 {
					if byte(v>>(8*l)) < n {
						want |= 0x80 << (8 * l)
					}
				}
				if got := swarBelow(v, n); got != want {
					t.Fatalf("swarBelow(%#016x, %#x) = %#016x; want %#016x", v, n, got, want)
				}
			}
		}
	}
}

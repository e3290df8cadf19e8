package textmatch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The oracles: normalize, translate and stripBlanks as they were before the ASCII fast path (commit
// 9e9c9bd), kept verbatim so the differential tests below can check that the fast path
// changes no text, group or bound. Replace's answer for Layers 1 and 2 depends on the
// content only through normalize's result, so equal results mean equal answers.

// oracleNormalize is normalize without the ASCII fast path.
func oracleNormalize(b *budget, s string) (*normalized, error) {
	if len(s) > math.MaxInt32 {
		return nil, fmt.Errorf("text of %d bytes is too large to normalize", len(s))
	}
	t, shifts := oracleTranslate(s)
	out := make([]byte, 0, len(t)+len(t)/16)
	group := make([]int32, 0, cap(out))
	bounds := make([]int32, 1, utf8.RuneCountInString(t)+1) // a group consumes at least one rune
	var it norm.Iter
	it.InitString(norm.NFKC, t)
	cur := shiftCursor{shifts: shifts}
	groupStart := 0 // offset in t where the group being built begins
	for n := 1; !it.Done(); n++ {
		if n%4096 == 0 {
			if err := b.check(); err != nil {
				return nil, err
			}
		}
		out = appendTranslated(out, it.Next())
		pos := it.Pos()
		if pos == groupStart {
			// Output that consumed no input yet (norm.Iter returns an expansion such as
			// Ⅳ → "IV" piecewise): it belongs to the group that consumes input next.
			continue
		}
		g := int32(len(bounds) - 1)
		bounds = append(bounds, int32(cur.orig(pos)))
		for len(group) < len(out) {
			group = append(group, g)
		}
		groupStart = pos
	}
	// norm.Iter always consumes input with the last output; anything left over could not
	// be mapped to the original and is dropped.
	out = out[:len(group)]
	out, group = oracleStripBlanks(out, group)
	return &normalized{text: string(out), group: group, bounds: bounds}, nil
}

// oracleStripBlanks is stripBlanks as it was, one byte at a time.
func oracleStripBlanks(out []byte, group []int32) ([]byte, []int32) {
	w := 0
	for i := 0; i < len(out); {
		if !isBlank(out[i]) {
			out[w], group[w] = out[i], group[i]
			w++
			i++
			continue
		}
		j, onlySpaces := i, true
		for ; j < len(out) && isBlank(out[j]); j++ {
			onlySpaces = onlySpaces && out[j] == ' '
		}
		drop := j == len(out) || out[j] == '\n'
		if !drop && onlySpaces && w > 0 {
			prev, _ := utf8.DecodeLastRune(out[:w])
			next, _ := utf8.DecodeRune(out[j:])
			drop = isCJK(prev) && isLatinOrDigit(next) || isLatinOrDigit(prev) && isCJK(next)
		}
		if !drop {
			copy(out[w:], out[i:j])
			copy(group[w:], group[i:j])
			w += j - i
		}
		i = j
	}
	return out[:w], group[:w]
}

// oracleTranslate is translate without the ASCII fast path.
func oracleTranslate(s string) (t string, shifts []shift) {
	var buf []byte // nil until the first change
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		tr := translateRune(r)
		if tr == r {
			if buf != nil {
				buf = append(buf, s[i:i+size]...)
			}
			i += size
			continue
		}
		if buf == nil {
			buf = make([]byte, i, len(s))
			copy(buf, s[:i])
		}
		buf = utf8.AppendRune(buf, tr)
		i += size
		shifts = append(shifts, shift{at: len(buf), delta: i - len(buf)})
	}
	if buf == nil {
		return s, nil
	}
	return string(buf), shifts
}

// oracleAlphabet mixes what normalize treats specially: ASCII (letters, digits, blanks,
// CR, LF), combining marks after ASCII letters, smart quotes and dashes, special spaces,
// CJK next to Latin, NFKC expansions (Ⅳ, ﬁ, ½, ㎏), Hangul jamo that compose, a long run
// of non-starters, and an invalid byte.
var oracleAlphabet = []string{
	"a", "b", "e", "I", "V", "0", "9", " ", " ", "  ", "\t", "\r", "\n", "\r\n", ".", "\"", "'",
	"\u0301", "\u0308", "\u0338", "<", "\u0323", "\u0345", "“", "”", "‘", "’", "—", "–", "\u00a0", "\u3000", "\u2009",
	"中", "文", "使用", "\u9fff", "\ua000", "\u4dff", "\uf900", "\u3099", "か", "。", "ー", "한", "\u1100", "\u1161", "\u11a8", "Ⅳ", "ﬁ", "½", "㎏", "é", "\ufe31",
	"\xff", "\xe4\xb8", strings.Repeat("\u0301", 35),
}

// oracleInput returns a random string of up to n pieces of oracleAlphabet.
func oracleInput(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range rng.IntN(n + 1) {
		b.WriteString(oracleAlphabet[rng.IntN(len(oracleAlphabet))])
	}
	return b.String()
}

// checkNormalizeOracle fails t unless normalize and oracleNormalize agree on s. It
// releases normalize's slices filled with garbage, so the next call reuses them.
func checkNormalizeOracle(t *testing.T, s string) {
	t.Helper()
	got, err := normalize(testBudget(), s)
	if err != nil {
		t.Fatalf("normalize(%q): %v", s, err)
	}
	want, err := oracleNormalize(testBudget(), s)
	if err != nil {
		t.Fatalf("oracleNormalize(%q): %v", s, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("normalize(%q) = %+v\noracle gives %+v", s, got, want)
	}
	// Hand the slices back dirty, so that the next normalize reuses garbage.
	for _, sl := range [][]int32{got.group, got.bounds} {
		sl = sl[:cap(sl)]
		for i := range sl {
			sl[i] = -7
		}
	}
	got.release()
	gt, gs := translate(s)
	wt, ws := oracleTranslate(s)
	if gt != wt || !reflect.DeepEqual(gs, ws) {
		t.Fatalf("translate(%q) = %q, %v; oracle gives %q, %v", s, gt, gs, wt, ws)
	}
}

// TestNormalizeMatchesOracle compares normalize with the oracle on fixed edge cases (an
// ASCII byte before a combining mark, before the end, before an invalid byte) and on
// 20,000 random strings of the alphabet above.
func TestNormalizeMatchesOracle(t *testing.T) {
	for _, s := range []string{
		"", "a", "ab", "e\u0301", "ae\u0301b", "a\xff", "\xffa", "abc\u1100\u1161", "x  \r\n", "使用 Python 编写",
		"I\u0301Ⅳx", "a" + strings.Repeat("\u0301", 40) + "b", strings.Repeat("abc ", 2000) + "é",
	} {
		checkNormalizeOracle(t, s)
	}
	rng := rand.New(rand.NewPCG(11, 3))
	for range 20000 {
		checkNormalizeOracle(t, oracleInput(rng, 40))
	}
}

// TestInertRunes checks the premise of normalize's fast path for every rune inertRune
// accepts: NFKC does not change it and it never combines with what precedes it (a
// boundary before it, so a segment ends before every inert rune, and norm.Iter returns an
// inert rune followed by another alone), and translateRune leaves it alone. Some ASCII
// combines with a following mark ('<' + U+0338 → '≮'), hence inertAt's look at the next rune.
func TestInertRunes(t *testing.T) {
	n := 0
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !inertRune(r) {
			continue
		}
		n++
		p := norm.NFKC.Properties([]byte(string(r)))
		if !p.BoundaryBefore() || len(p.Decomposition()) != 0 || p.CCC() != 0 || translateRune(r) != r {
			t.Fatalf("%U is not inert: boundary before %v, decomposition %q, ccc %d, translated %q",
				r, p.BoundaryBefore(), p.Decomposition(), p.CCC(), translateRune(r))
		}
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if got, want := cjkAt(string(r), 0), r >= 0x4E00 && r <= 0x9FFF; got != want {
			t.Fatalf("cjkAt(%U) = %v", r, got)
		}
	}
	for _, s := range []string{"\xe4\xb8", "\xe4\xb7\xbf", "\xe9\xbf", "\xe9\xbf\x7f", "\xea\x80\x80"} {
		if cjkAt(s, 0) {
			t.Fatalf("cjkAt(%q) = true", s)
		}
	}
	if n != 128+0x9FFF-0x4E00+1 {
		t.Fatalf("%d inert runes", n)
	}
}

// FuzzNormalizeMatchesOracle is the differential test on arbitrary bytes.
// Run with: go test ./backend/textmatch/ -run '^$' -fuzz FuzzNormalizeMatchesOracle
func FuzzNormalizeMatchesOracle(f *testing.F) {
	for _, s := range []string{"", "ae\u0301b", "He said “hello” — twice  \r\nok", "第Ⅳ章 总结", "a\xffb", "使用 Python 编写"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 10000 {
			t.Skip("keep each input fast")
		}
		checkNormalizeOracle(t, s)
	})
}

// TestBandedScoresMatchFull compares the banded forward pass with the full one (the
// oracle: the pass Layer 2 ran before the cut-off) on random patterns of 1 to 300 code
// points (up to five 64-bit blocks) over texts of a small alphabet, so that matches at
// every distance occur: every distance of at most k must be equal, every larger one
// reported as k + 1.
func TestBandedScoresMatchFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	alphabet := []rune("abcd 中文")
	randRunes := func(n int) []rune {
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return r
	}
	for i := range 3000 {
		m := 1 + rng.IntN(300)
		p := randRunes(m)
		text := randRunes(rng.IntN(600))
		if rng.IntN(2) == 0 && len(text) > m {
			// Plant a near copy of the pattern so that small distances occur.
			at := rng.IntN(len(text) - m)
			copy(text[at:], p)
			for range rng.IntN(m/4 + 1) {
				text[at+rng.IntN(m)] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		mt := newMatcher(p)
		full, err := mt.scores(testBudget(), text, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{maxDistance(m), 0, m / 2, m} {
			got, err := mt.bandedScores(testBudget(), text, k)
			if err != nil {
				t.Fatal(err)
			}
			for j := range full {
				want := min(full[j], int32(k+1))
				if got[j] != want {
					t.Fatalf("case %d, m %d, k %d, column %d: banded %d, full %d", i, m, k, j, got[j], full[j])
				}
			}
		}
	}
}

// oracleFuzzyFind is fuzzyFind with a single search banded at k, as Layer 2 ran before the
// narrow first pass.
func oracleFuzzyFind(b *budget, nc *normalized, old string) (*fuzzyOutcome, error) {
	p := []rune(old)
	f := newFuzzyText(nc)
	fwd := newMatcher(p)
	slices.Reverse(p)
	f.rev = newMatcher(p)
	f.m = len(p)
	out, _, err := f.search(b, fwd, maxDistance(f.m), maxDistance(f.m))
	return out, err
}

// TestFuzzyFindMatchesOneBand compares fuzzyFind with the single-search oracle on random
// texts and old_str of 220 to 400 code points (k above firstBand), with near copies
// planted zero to three times at 0 to 35% edits, so that the narrow pass decides some
// cases (unique, ambiguous, capped) and hands others to the full one.
func TestFuzzyFindMatchesOneBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	words := []string{"the ", "data ", "model ", "研究", "数据", "\n", "x", "Ⅳ"}
	randText := func(n int) string {
		var sb strings.Builder
		for utf8.RuneCountInString(sb.String()) < n {
			sb.WriteString(words[rng.IntN(len(words))])
		}
		return sb.String()
	}
	mutate := func(s string, edits int) string {
		r := []rune(s)
		for range edits {
			i := rng.IntN(len(r))
			switch rng.IntN(3) {
			case 0:
				r[i] = '#'
			case 1:
				r = append(r[:i], r[i+1:]...)
			default:
				r = append(r[:i], append([]rune{'@'}, r[i:]...)...)
			}
		}
		return string(r)
	}
	decided := map[bool]int{}
	for i := range 300 {
		old := randText(220 + rng.IntN(180))
		var sb strings.Builder
		for range rng.IntN(4) {
			sb.WriteString(randText(rng.IntN(800)))
			sb.WriteString(mutate(old, rng.IntN(len([]rune(old))*35/100+1)))
		}
		sb.WriteString(randText(rng.IntN(800)))
		nc, err := normalize(testBudget(), sb.String())
		if err != nil {
			t.Fatal(err)
		}
		no, err := normalize(testBudget(), old)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fuzzyFind(testBudget(), nc, no.text)
		if err != nil {
			t.Fatal(err)
		}
		want, err := oracleFuzzyFind(testBudget(), nc, no.text)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: fuzzyFind %+v\noracle %+v", i, got, want)
		}
		decided[len(want.best) > 0 && want.best[0].dist <= firstBand]++
	}
	if decided[true] == 0 || decided[false] == 0 {
		t.Fatalf("cases decided by the narrow pass: %v; want both kinds", decided)
	}
}

// TestNewFuzzyTextMatchesDecoding compares newFuzzyText with decoding by range (invalid
// bytes become U+FFFD) on 3,000 random normalized strings of the oracle alphabet, each
// built after releasing the previous one's slices filled with garbage.
func TestNewFuzzyTextMatchesDecoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for range 3000 {
		nc, err := normalize(testBudget(), oracleInput(rng, 60))
		if err != nil {
			t.Fatal(err)
		}
		var wantT []rune
		var wantGroup []int32
		for i, r := range nc.text {
			wantT = append(wantT, r)
			wantGroup = append(wantGroup, nc.group[i])
		}
		f := newFuzzyText(nc)
		if !slices.Equal(f.t, wantT) || !slices.Equal(f.group, wantGroup) {
			t.Fatalf("newFuzzyText(%q) = %q, %v; want %q, %v", nc.text, f.t, f.group, wantT, wantGroup)
		}
		for _, sl := range [][]int32{f.t, f.group} {
			sl = sl[:cap(sl)]
			for i := range sl {
				sl[i] = -7
			}
		}
		f.release()
	}
}

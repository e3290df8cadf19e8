package textmatch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWindowedScoresMatchBanded compares the filtered forward pass with the banded one
// (its oracle) on random patterns of 16 to 400 code points over texts of up to 12,000, with
// near copies of the pattern planted zero to three times at up to k + 2 edits
// (substitutions, insertions, deletions), for piece counts from k + 1 to m: every
// column must be equal. Alphabets of 4 and 26 letters give both many and few piece
// occurrences; the test also checks that the windows were used (not the fallback over
// the whole text) in a third of the cases, and in half of those with a match within k.
func TestWindowedScoresMatchBanded(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 8))
	randRunes := func(alphabet []rune, n int) []rune {
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return r
	}
	alphabets := [][]rune{[]rune("abcd"), []rune("abcdefghijklmnopqrstuvwxyz"), []rune("abcdefghij 中文数据研究")}
	windowed, found := 0, 0 // cases where the windows were used and found a match within k
	const cases = 1500
	for i := range cases {
		alphabet := alphabets[rng.IntN(len(alphabets))]
		m := 16 + rng.IntN(385)
		p := randRunes(alphabet, m)
		k := rng.IntN(m/8 + 1) // mostly few enough edits for pieces of 4 or more
		if rng.IntN(4) == 0 {
			k = rng.IntN(m / 2)
		}
		var text []rune
		for range rng.IntN(4) {
			text = append(text, randRunes(alphabet, rng.IntN(3000))...)
			c := slices.Clone(p)
			for range rng.IntN(k + 3) {
				at := rng.IntN(len(c))
				switch rng.IntN(3) {
				case 0:
					c[at] = alphabet[rng.IntN(len(alphabet))]
				case 1:
					c = slices.Delete(c, at, at+1)
				default:
					c = slices.Insert(c, at, alphabet[rng.IntN(len(alphabet))])
				}
			}
			text = append(text, c...)
		}
		text = append(text, randRunes(alphabet, rng.IntN(3000))...)
		mt := newMatcher(p)
		want, err := mt.bandedScores(testBudget(), text, k)
		if err != nil {
			t.Fatal(err)
		}
		pieces := k + 1 + rng.IntN(max(m/4-k, 1))
		if rng.IntN(4) == 0 {
			pieces = k + 1 + rng.IntN(m-k)
		}
		if _, ok, err := mt.filterWindows(testBudget(), text, k, pieces); err != nil {
			t.Fatal(err)
		} else if ok {
			windowed++
			if slices.ContainsFunc(want, func(d int32) bool { return int(d) <= k }) {
				found++
			}
		}
		got, err := mt.windowedScores(testBudget(), text, k, pieces)
		if err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("case %d: m %d, k %d, %d pieces, n %d, column %d: windowed %d, banded %d",
					i, m, k, pieces, len(text), j, got[j], want[j])
			}
		}
		if got, err := mt.filteredScores(testBudget(), text, k); err != nil || !slices.Equal(got, want) {
			t.Fatalf("case %d: filteredScores differs from bandedScores (err %v)", i, err)
		}
	}
	if windowed < cases/3 || found < cases/6 {
		t.Fatalf("windows used in %d of %d cases, %d with a match within k; want a third and a sixth", windowed, cases, found)
	}
}

// TestWindowedScoresEdges plants, at every offset within two buckets of diagonals, a copy
// of the pattern that reaches a window's edge: k code points inserted into the first piece
// (the match starts k before its first intact piece's diagonal) or into the last one (it
// ends m + k after it), with pieces = k + 1 so that every other piece must count. Every
// column must equal the banded pass's.
func TestWindowedScoresEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	alphabet := []rune("abcdefghijklmnopqrstuvwxyz")
	randRunes := func(n int) []rune {
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return r
	}
	const m, k = 120, 9
	p := randRunes(m)
	mt := newMatcher(p)
	q := m / (k + 1)
	for _, first := range []bool{true, false} {
		c := slices.Clone(p)
		// Inside the last piece, or the first, far enough from the pattern's end that
		// leaving the rest out (q − 1 deletions) costs more than the k insertions.
		at := m - q + 1
		if first {
			at = q - 1
		}
		c = slices.Insert(c, at, []rune("##########")[:k]...)
		for off := range 2 * (2*k + 1) {
			text := slices.Concat(randRunes(500+off), c, randRunes(500))
			want, err := mt.bandedScores(testBudget(), text, k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(want, k) {
				t.Fatalf("first %v, offset %d: no match at distance %d", first, off, k)
			}
			if _, ok, err := mt.filterWindows(testBudget(), text, k, k+1); err != nil || !ok {
				t.Fatalf("first %v, offset %d: windows not used (err %v)", first, off, err)
			}
			got, err := mt.windowedScores(testBudget(), text, k, k+1)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("first %v, offset %d: windowed %v\nbanded %v", first, off, got, want)
			}
		}
	}
}

// FuzzWindowedScoresMatchBanded is the differential test of the filter on arbitrary
// patterns and texts: the text is the pattern's runes mixed into text, so near copies
// occur, and k and the piece count are taken within their bounds.
// Run with: go test ./backend/textmatch/ -run '^$' -fuzz FuzzWindowedScoresMatchBanded
func FuzzWindowedScoresMatchBanded(f *testing.F) {
	f.Add("abcdefghijklmnopqrstuvwxyz0123456789", "xx abcdefghijklmnopqrstuvwxyz0123456789 yy", uint8(3), uint8(5))
	f.Add("研究数据分析方法结果报告样本市场", "研究数据分折方法结果报告样本市场增长", uint8(2), uint8(0))
	f.Add("aaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", uint8(1), uint8(9))
	f.Fuzz(func(t *testing.T, pattern, text string, kSeed, piecesSeed uint8) {
		p, tx := []rune(pattern), []rune(text)
		if len(p) == 0 || len(p) > 300 || len(tx) > 3000 {
			t.Skip("keep each input fast")
		}
		m := len(p)
		k := int(kSeed) % m // k < m, so that k + 1 ≤ pieces ≤ m is possible
		pieces := k + 1 + int(piecesSeed)%(m-k)
		mt := newMatcher(p)
		want, err := mt.bandedScores(testBudget(), tx, k)
		if err != nil {
			t.Fatal(err)
		}
		got, err := mt.windowedScores(testBudget(), tx, k, pieces)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("m %d, k %d, %d pieces: windowed %v\nbanded %v", m, k, pieces, got, want)
		}
	})
}

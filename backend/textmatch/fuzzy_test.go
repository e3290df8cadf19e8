package textmatch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// dpScores is the textbook dynamic program (Sellers 1980) that matcher.scores computes
// bit-parallel: d[j] is the edit distance between p and the best substring of t ending
// at j (anchored false) or t[:j] (anchored true).
func dpScores(p, t []rune, anchored bool) []int32 {
	col := make([]int, len(p)+1)
	for i := range col {
		col[i] = i
	}
	d := []int32{int32(len(p))}
	for j, c := range t {
		diag := col[0]
		if anchored {
			col[0] = j + 1
		}
		for i := 1; i <= len(p); i++ {
			sub := diag
			if p[i-1] != c {
				sub++
			}
			diag = col[i]
			col[i] = min(sub, col[i]+1, col[i-1]+1)
		}
		d = append(d, int32(col[len(p)]))
	}
	return d
}

// editDistance is the Levenshtein distance between a and b in code points.
func editDistance(a, b []rune) int {
	d := dpScores(a, b, true)
	return int(d[len(d)-1])
}

func randomRunes(rng *rand.Rand, n int, alphabet []rune) []rune {
	out := make([]rune, n)
	for i := range out {
		out[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return out
}

func TestMatcherScoresAgreeWithDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("abc中文") // small, so that near matches are frequent
	for _, m := range []int{1, 2, 5, 63, 64, 65, 127, 128, 129, 200} {
		for range 20 {
			p := randomRunes(rng, m, alphabet)
			text := randomRunes(rng, rng.IntN(300), append(alphabet, 'z'))
			for _, anchored := range []bool{false, true} {
				got, err := newMatcher(p).scores(testBudget(), text, anchored)
				if err != nil {
					t.Fatal(err)
				}
				if want := dpScores(p, text, anchored); !slices.Equal(got, want) {
					t.Fatalf("m=%d anchored=%v: scores differ from DP\n got %v\nwant %v", m, anchored, got, want)
				}
			}
		}
	}
}

func TestMaxDistance(t *testing.T) {
	tests := []struct{ m, want int }{
		{1, 0}, {3, 0}, {4, 1}, {10, 3}, {16, 4}, {17, 5}, {20, 6}, {100, 30}, {10000, 3000},
	}
	for _, tt := range tests {
		k := maxDistance(tt.m)
		if k != tt.want {
			t.Errorf("maxDistance(%d) = %d, want %d", tt.m, k, tt.want)
		}
		if seed := max(5, int(float64(tt.m)*0.3)); k > seed {
			t.Errorf("maxDistance(%d) = %d exceeds the seed's max_l_dist %d", tt.m, k, seed)
		}
		if sim := 1 - float64(k)/float64(tt.m); sim < MinSimilarity-1e-9 {
			t.Errorf("maxDistance(%d) = %d allows similarity %v", tt.m, k, sim)
		}
		if sim := 1 - float64(k+1)/float64(tt.m); sim >= MinSimilarity {
			t.Errorf("maxDistance(%d) = %d refuses similarity %v", tt.m, k, sim)
		}
	}
}

// TestFuzzyFindAgreesWithBruteForce checks Layer 2 against trying every substring whose
// ends are group boundaries: same best distance, and every reported match really has it.
func TestFuzzyFindAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "b", "c", "I", "V", "Ⅳ", "ﬁ", "f", "i", "中"}
	matched, refused := 0, 0
	for iter := range 3000 {
		var content, old []rune
		for range rng.IntN(25) {
			content = append(content, []rune(pieces[rng.IntN(len(pieces))])...)
		}
		if rng.IntN(4) > 0 && len(content) >= 4 {
			// Mostly a piece of the content with up to two random edits, so that matches,
			// ties and near misses are common.
			s := rng.IntN(len(content) - 3)
			old = slices.Clone(content[s : s+4+rng.IntN(len(content)-s-3)])
			for range rng.IntN(3) {
				i := rng.IntN(len(old))
				switch r := []rune(pieces[rng.IntN(len(pieces))])[0]; rng.IntN(3) {
				case 0:
					old[i] = r
				case 1:
					old = slices.Insert(old, i, r)
				default:
					old = slices.Delete(old, i, i+1)
				}
			}
		} else {
			for range 4 + rng.IntN(8) {
				old = append(old, []rune(pieces[rng.IntN(len(pieces))])...)
			}
		}
		if len(old) == 0 {
			continue
		}
		nc, err := normalize(testBudget(), string(content))
		if err != nil {
			t.Fatal(err)
		}
		no, err := normalize(testBudget(), string(old))
		if err != nil {
			t.Fatal(err)
		}
		out, err := fuzzyFind(testBudget(), nc, no.text)
		if err != nil {
			t.Fatal(err)
		}

		f := newFuzzyText(nc)
		p := []rune(no.text)
		k := maxDistance(len(p))
		want := k + 1
		for s := 0; s <= len(f.t); s++ {
			for e := s; e <= len(f.t); e++ {
				if f.boundary(s) && f.boundary(e) {
					want = min(want, editDistance(p, f.t[s:e]))
				}
			}
		}
		if want > k {
			refused++
			if len(out.best) != 0 {
				t.Fatalf("#%d %q in %q: found %+v, want no match", iter, no.text, nc.text, out.best)
			}
			continue
		}
		if len(out.best) == 0 {
			t.Fatalf("#%d %q in %q: no match, want distance %d", iter, no.text, nc.text, want)
		}
		for _, mt := range out.best {
			if !f.boundary(mt.start) || !f.boundary(mt.end) {
				t.Fatalf("#%d: match %+v cuts a group", iter, mt)
			}
			if mt.dist != want || editDistance(p, f.t[mt.start:mt.end]) != want {
				t.Fatalf("#%d %q in %q: match %+v (%q), want distance %d",
					iter, no.text, nc.text, mt, string(f.t[mt.start:mt.end]), want)
			}
		}
		matched++
	}
	if matched < 1000 || refused < 300 {
		t.Fatalf("only %d matched and %d refused cases; the generator no longer covers both", matched, refused)
	}
	t.Logf("%d matched, %d refused", matched, refused)
}

func TestDisjoint(t *testing.T) {
	m := func(s, e int) fuzzyMatch { return fuzzyMatch{start: s, end: e} }
	tests := []struct {
		name string
		in   []fuzzyMatch
		want int
	}{
		{"one", []fuzzyMatch{m(0, 5)}, 1},
		{"overlapping", []fuzzyMatch{m(0, 5), m(3, 8)}, 1},
		{"touching do not overlap", []fuzzyMatch{m(0, 5), m(5, 8)}, 2},
		{"chain with disjoint ends", []fuzzyMatch{m(0, 4), m(3, 7), m(6, 9)}, 2},
		{"apart", []fuzzyMatch{m(10, 14), m(0, 4), m(20, 24)}, 3},
	}
	for _, tt := range tests {
		if got := disjoint(tt.in); len(got) != tt.want {
			t.Errorf("%s: disjoint = %v, want %d matches", tt.name, got, tt.want)
		}
	}
}

func TestTruncateRunes(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "ab…"}, {"中文字符", 3, "中文…"}, {"", 3, ""},
	}
	for _, tt := range tests {
		if got := truncateRunes(tt.in, tt.n); got != tt.want {
			t.Errorf("truncateRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

package textmatch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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
		if bound := max(5, int(float64(tt.m)*0.3)); k > bound {
			t.Errorf("maxDistance(%d) = %d exceeds max(5, 30%% of the length) = %d", tt.m, k, bound)
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
		nc := mustNormalize(t, string(content))
		no := mustNormalize(t, string(old))
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

// exhaustiveFind is step 2 of fuzzyFind without deferring and without stopping early:
// every end whose lower bound is within k is anchored, and every match at the best
// distance is kept. It is the reference for TestFuzzyFindAgreesWithExhaustiveSearch.
func exhaustiveFind(t *testing.T, nc *normalized, old string) *fuzzyOutcome {
	t.Helper()
	p := []rune(old)
	m, k := len(p), maxDistance(len(p))
	f := newFuzzyText(nc)
	c, err := newMatcher(p).scores(testBudget(), f.t, false)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(p)
	f.rev, f.m = newMatcher(p), m
	out := &fuzzyOutcome{m: m}
	bestDist := k + 1
	closestEnd := -1
	for e := 1; e <= len(f.t); e++ {
		if !f.boundary(e) {
			continue
		}
		if closestEnd < 0 || c[e] < c[closestEnd] {
			closestEnd = e
		}
		if int(c[e]) > k {
			continue
		}
		mt, err := f.anchor(testBudget(), e, m+k)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case mt.dist > k:
		case mt.dist < bestDist:
			bestDist = mt.dist
			out.best = append(out.best[:0], mt)
		case mt.dist == bestDist:
			out.best = append(out.best, mt)
		}
	}
	if len(out.best) == 0 && closestEnd >= 0 {
		if mt, err := f.anchor(testBudget(), closestEnd, 2*m); err == nil && mt.dist < m {
			out.closest = &mt
		}
	}
	return out
}

// TestFuzzyFindAgreesWithExhaustiveSearch checks that deferring ends and stopping at
// maxFuzzyPlaces change nothing but the count of a large ambiguity: on repetitive random
// texts, where ties and many equally good places are common, Replace's answer equals the
// one computed from every match, except that an ambiguity of maxFuzzyPlaces or more places
// is reported as "maxFuzzyPlaces or more".
func TestFuzzyFindAgreesWithExhaustiveSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	units := []string{"ab", "abc", "the data ", "x\n", "中文", "Ⅳ"}
	counts := map[string]int{}
	for iter := range 1500 {
		var sb strings.Builder
		unit := units[rng.IntN(len(units))]
		for range 1 + rng.IntN(60) {
			if rng.IntN(8) == 0 {
				sb.WriteString(units[rng.IntN(len(units))])
			} else {
				sb.WriteString(unit)
			}
		}
		content := []rune(sb.String())
		if len(content) < 6 {
			continue
		}
		s := rng.IntN(len(content) - 5)
		old := slices.Clone(content[s : s+5+rng.IntN(min(len(content)-s-5, 40)+1)])
		for range 1 + rng.IntN(3) {
			old[rng.IntN(len(old))] = []rune("#bd中V\n")[rng.IntN(6)]
		}
		nc := mustNormalize(t, string(content))
		no := mustNormalize(t, string(old))
		if no.text == "" || len(indexAll(nc.text, no.text, nc.aligned)) > 0 {
			continue // Layer 1 decides these
		}
		got, err := fuzzyFind(testBudget(), nc, no.text)
		if err != nil {
			t.Fatal(err)
		}
		gotRes, gotErr := got.resolve(string(content), "NEW")
		wantRes, wantErr := exhaustiveFind(t, nc, no.text).resolve(string(content), "NEW")

		var gotME, wantME *MatchError
		errors.As(gotErr, &gotME)
		errors.As(wantErr, &wantME)
		switch {
		case wantME != nil && wantME.Kind == ErrAmbiguous && wantME.Count >= maxFuzzyPlaces:
			counts["many places"]++
			if gotME == nil || gotME.Kind != ErrAmbiguous || !gotME.AtLeast || gotME.Count < 2 || gotME.Count > maxFuzzyPlaces {
				t.Fatalf("#%d %q in %q: got %v, want ambiguity with %d places reported as 2 to %d or more",
					iter, no.text, nc.text, gotErr, wantME.Count, maxFuzzyPlaces)
			}
			if got.closest != nil || len(gotME.Lines) == 0 || !slices.IsSorted(gotME.Lines) {
				t.Fatalf("#%d: lines %v, want ascending", iter, gotME.Lines)
			}
		case gotME != nil && gotME.AtLeast:
			// Stopped early with a lower bound: the full search finds an ambiguity with at
			// least as many places, at the same similarity.
			counts["few places"]++
			if wantME == nil || wantME.Kind != ErrAmbiguous || wantME.Count < gotME.Count || wantME.Similarity != gotME.Similarity {
				t.Fatalf("#%d %q in %q: got %v, want %v", iter, no.text, nc.text, gotErr, wantErr)
			}
		default:
			switch {
			case wantME == nil:
				counts["replaced"]++
			case wantME.Kind == ErrAmbiguous:
				counts["few places"]++
			default:
				counts["not found"]++
			}
			if gotRes != wantRes || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("#%d %q in %q:\n got %+v, %v\nwant %+v, %v", iter, no.text, nc.text, gotRes, gotErr, wantRes, wantErr)
			}
		}
	}
	for _, kind := range []string{"many places", "few places", "replaced", "not found"} {
		if counts[kind] < 20 {
			t.Fatalf("only %d cases of %q (%v); the generator no longer covers it", counts[kind], kind, counts)
		}
	}
	t.Logf("%v", counts)
}

// mustNormalize runs Layer 1's normalization of s with the test budget, failing the test on
// an error.
func mustNormalize(t *testing.T, s string) *normalized {
	t.Helper()
	n, err := normalize(testBudget(), s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

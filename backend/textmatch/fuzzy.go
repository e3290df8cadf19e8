package textmatch

import (
	"slices"
	"unicode/utf8"
)

// This file is Layer 2 of update_artifact's matching: approximate substring matching by
// Levenshtein distance in code points on the normalized texts.
//
// Let t be the normalized content (n code points) and p the normalized old_str (m). A
// match is t[s:e] with s and e on normalization-group boundaries, so that mapping it back
// never cuts an original character sequence such as "Ⅳ" (normalized "IV") in two. Its
// distance is the edit distance between p and t[s:e].
//
//  1. A forward pass (Myers' bit-parallel algorithm in Hyyrö's blocked form; Sellers'
//     semi-global recurrence, O(n·⌈m/64⌉) word operations) gives for every end e the
//     smallest distance C[e] of any t[s:e], s unrestricted. C[e] is a lower bound of the
//     distance with s restricted to boundaries, and equal to it unless the best start
//     falls inside a group. Only C[e] ≤ k matters, so a filter (filter.go) first finds
//     where such matches can lie, from exact occurrences of pieces of the pattern, and
//     the pass runs only there when that is a small part of the text; C[e] ≤ k is the same.
//  2. Ends on boundaries are taken in increasing order of C[e]. For each, a backward pass
//     (the reversed pattern over the reversed text, anchored at e) gives the distance of
//     every t[s:e] within reach; the best boundary start s is kept. Ends are taken until
//     C[e] exceeds the best distance found, so every match at the best distance is seen.
//  3. Matches at the best distance form the result: if two of them do not overlap, old_str
//     is ambiguous; otherwise the one whose length is closest to m (then the shorter,
//     then the leftmost) is replaced.
//
// Repetitive content ("the data " 23,000 times) puts tens of thousands of ends in the
// best bucket, and anchoring every one of them would exhaust SearchBudget. Once the
// bucket being processed is the best distance found (no end left can do better), step 2
// defers every end that lies too close after the last match found in that bucket to start
// a non-overlapping one (closer than m − k code points), and stops as soon as
// maxFuzzyPlaces pairwise non-overlapping matches exist: the verdict is then an ambiguity
// whatever the rest holds. At the end of the bucket, if two non-overlapping matches are
// known the deferred ends are skipped (they can only add places: an ambiguity all the
// same, its count a lower bound); otherwise they are anchored, so a unique match, and the
// choice among overlapping ones, is the same as without deferring.

// fuzzyMatch is a match t[start:end] (code-point indexes of the normalized content) at
// edit distance dist, and the original byte span it maps to.
type fuzzyMatch struct {
	start, end, dist int
	orig             span
}

// maxFuzzyPlaces is how many pairwise non-overlapping equally good matches Layer 2 looks
// for before it stops with an ambiguity error: one more than an error lists, so that the
// message can say "or more".
const maxFuzzyPlaces = maxListedLines + 1

// anchorsPerCheck is how many backward passes Layer 2 runs between budget checks; a
// backward pass over fewer than 1024 code points never checks on its own.
const anchorsPerCheck = 16

// fuzzyOutcome is what Layer 2 found.
type fuzzyOutcome struct {
	m      int          // code points in the normalized old_str
	best   []fuzzyMatch // every acceptable match at the smallest distance (all of them unless capped)
	capped bool         // the search stopped once best held maxFuzzyPlaces non-overlapping matches
	// partial: the search stopped with fewer, skipping deferred ends once two
	// non-overlapping matches at the best distance were known; the place count is a lower bound.
	partial bool
	closest *fuzzyMatch // when best is empty: the nearest text, or nil if none
}

// maxDistance is the largest distance Layer 2 accepts for a pattern of m code points. Two
// limits apply: max_l_dist = max(5, int(m × 0.3)) and similarity ≥ 0.70, that is 1 − d/m ≥
// 0.70 ⇔ 10·d ≤ 3·m ⇔ d ≤ ⌊3m/10⌋. The second is never looser than the first (⌊3m/10⌋ ≤
// max(5, ⌊3m/10⌋)), so it alone decides; TestMaxDistance checks both.
func maxDistance(m int) int {
	return m * 3 / 10
}

// firstBand is the distance bound of fuzzyFind's first, narrow forward pass.
const firstBand = 63

// fuzzyFind runs Layer 2 for the normalized old_str old (non-empty) in nc.
//
// The forward pass costs O(n·⌈kb/64⌉) for a band kb, and k = ⌊0.3·m⌋ makes it deep for a
// long old_str, while a model's old_str usually differs from the text by a few edits. So
// when k > firstBand, fuzzyFind first searches with the band firstBand: step 2 only ever
// looks at ends whose C[e] is at most the best distance found, so if that search ends
// with a best distance of at most firstBand (or with the cap reached), it has seen
// exactly the ends the full search would have, in the same order, and its outcome is the
// full search's. Otherwise the full search runs.
func fuzzyFind(b *budget, nc *normalized, old string) (*fuzzyOutcome, error) {
	p := []rune(old)
	m := len(p)
	f := newFuzzyText(nc)
	defer f.release() // the outcome holds offsets only
	fwd := newMatcher(p)
	slices.Reverse(p)
	f.rev = newMatcher(p)
	f.m = m
	k := maxDistance(m)
	if k > firstBand {
		out, done, err := f.search(b, fwd, firstBand, k)
		if err != nil || done {
			return out, err
		}
	}
	out, _, err := f.search(b, fwd, k, k)
	return out, err
}

// search runs steps 1 and 2 of fuzzyFind with the forward pass banded at kb ≤ k, k being
// the largest acceptable distance. With kb < k it reports done only when the outcome is
// the one of a search with kb = k; with kb = k it always is, and search also finds the
// closest text when nothing is acceptable.
func (f *fuzzyText) search(b *budget, fwd *matcher, kb, k int) (*fuzzyOutcome, bool, error) {
	n, m := len(f.t), f.m
	c, err := fwd.filteredScores(b, f.t, kb)
	if err != nil {
		return nil, false, err
	}
	buckets := make([][]int, kb+1)
	closestEnd := -1 // used only when kb = k
	for e := 1; e <= n; e++ {
		d := int(c[e])
		if d > kb && kb < k || !f.boundary(e) {
			continue
		}
		if d <= kb {
			buckets[d] = append(buckets[d], e)
		}
		if closestEnd < 0 || c[e] < c[closestEnd] {
			closestEnd = e
		}
	}

	out := &fuzzyOutcome{m: m}
	s := &fuzzySearch{f: f, b: b, out: out, k: k, reach: m + k, bestDist: k + 1}
	for lower := 0; lower <= kb && lower <= s.bestDist && !out.capped; lower++ {
		if err := s.bucket(lower, buckets[lower], max(m-k, 1)); err != nil {
			return nil, false, err
		}
	}
	if kb < k {
		return out, out.capped || s.bestDist <= kb, nil
	}
	if len(out.best) == 0 && closestEnd >= 0 {
		if int(c[closestEnd]) > k {
			// No end within k: the closest text, for the error, needs the exact distances.
			if c, err = fwd.scores(b, f.t, false); err != nil {
				return nil, false, err
			}
			closestEnd = -1
			for e := 1; e <= n; e++ {
				if f.boundary(e) && (closestEnd < 0 || c[e] < c[closestEnd]) {
					closestEnd = e
				}
			}
		}
		mt, err := f.anchor(b, closestEnd, 2*m)
		if err != nil {
			return nil, false, err
		}
		if mt.dist < m {
			out.closest = &mt
		}
	}
	return out, true, nil
}

// fuzzySearch is the state of step 2 of fuzzyFind: anchoring ends bucket by bucket.
type fuzzySearch struct {
	f        *fuzzyText
	b        *budget
	out      *fuzzyOutcome
	k        int // the largest acceptable distance
	reach    int // m + k: the longest acceptable match
	bestDist int // distance of out.best; k + 1 while it is empty
	anchors  int // backward passes run, for budget checks
	apart    int // non-overlapping matches in out.best when last counted
}

// bucket anchors the ends of buckets[lower], in increasing order, keeping the matches at
// the best distance in s.out.best. While lower equals the best distance found, ends that
// lie less than gap code points after the last match found in this bucket are deferred,
// and the search stops once s.out.best holds maxFuzzyPlaces non-overlapping matches.
func (s *fuzzySearch) bucket(lower int, ends []int, gap int) error {
	var deferred []int
	frontier := -1 // end of the last match at the best distance found in this bucket
	for _, e := range ends {
		if s.bestDist == lower && frontier >= 0 && e < frontier+gap {
			deferred = append(deferred, e)
			continue
		}
		found, err := s.anchor(lower, e)
		if err != nil || s.out.capped {
			return err
		}
		if found {
			frontier = e
		}
	}
	if len(deferred) > 0 && s.bestDist == lower && len(disjoint(s.out.best)) >= 2 {
		// A deferred end can only add places at this same, best distance: the verdict is
		// already an ambiguity, and anchoring them all may exhaust the budget.
		s.out.capped, s.out.partial = true, true
		return nil
	}
	for _, e := range deferred {
		if _, err := s.anchor(lower, e); err != nil || s.out.capped {
			return err
		}
	}
	return nil
}

// anchor runs the backward pass from end e of bucket lower, updates the best matches, and
// reports whether the match ending at e is at the best distance. It sets s.out.capped when
// lower is the best distance and maxFuzzyPlaces non-overlapping matches are known.
func (s *fuzzySearch) anchor(lower, e int) (bool, error) {
	if s.anchors++; s.anchors%anchorsPerCheck == 0 {
		if err := s.b.check(); err != nil {
			return false, err
		}
	}
	mt, err := s.f.anchor(s.b, e, s.reach)
	if err != nil {
		return false, err
	}
	out := s.out
	switch {
	case mt.dist > s.bestDist || mt.dist > s.k:
		// Worse than the best so far, or beyond k: the best start within the groups is
		// too far from the unrestricted one.
		return false, nil
	case mt.dist < s.bestDist:
		s.bestDist = mt.dist
		out.best = append(out.best[:0], mt)
		s.apart = 1
	default:
		out.best = append(out.best, mt)
	}
	// Counting is O(b log b) for b matches; past a few dozen, count every 16th.
	if n := len(out.best); s.bestDist == lower && n > s.apart && (n < 64 || n%16 == 0) {
		s.apart = len(disjoint(out.best))
		out.capped = s.apart >= maxFuzzyPlaces
	}
	return true, nil
}

// resolve turns the outcome into Replace's answer for content and newStr.
func (o *fuzzyOutcome) resolve(content, newStr string) (Result, error) {
	if len(o.best) == 0 {
		e := &MatchError{Kind: ErrNotFound, Layer: 2}
		if o.closest != nil {
			e.Candidate = truncateRunes(content[o.closest.orig.start:o.closest.orig.end], maxCandidateRunes)
			e.Lines = lineNumbers(content, []int{o.closest.orig.start})
			e.Similarity = o.similarity(o.closest.dist)
		}
		return Result{}, e
	}
	sim := o.similarity(o.best[0].dist)
	if apart := disjoint(o.best); len(apart) > 1 {
		// Count is at most maxFuzzyPlaces, which the message renders as "or more": the
		// search may have stopped there, and the error lists fewer lines anyway.
		apart = apart[:min(len(apart), maxFuzzyPlaces)]
		starts := make([]int, len(apart))
		for i, mt := range apart {
			starts[i] = mt.orig.start
		}
		return Result{}, &MatchError{
			Kind:       ErrAmbiguous,
			Layer:      2,
			Count:      len(apart),
			AtLeast:    o.partial || len(apart) >= maxFuzzyPlaces,
			Lines:      lineNumbers(content, starts[:min(len(starts), maxListedLines)]),
			Candidate:  truncateRunes(content[apart[0].orig.start:apart[0].orig.end], maxCandidateRunes),
			Similarity: sim,
		}
	}
	choice := o.best[0]
	for _, mt := range o.best[1:] {
		if o.preferred(mt, choice) {
			choice = mt
		}
	}
	return result(content, newStr, choice.orig, 2, sim), nil
}

// similarity is 1 − dist/m.
func (o *fuzzyOutcome) similarity(dist int) float64 {
	return 1 - float64(dist)/float64(o.m)
}

// preferred reports whether a beats b among overlapping matches at the same distance: the
// length closer to m wins (a typo is more likely than a missing or extra character at the
// edge), then the shorter (it touches less text), then the leftmost.
func (o *fuzzyOutcome) preferred(a, b fuzzyMatch) bool {
	la, lb := a.end-a.start, b.end-b.start
	if da, db := abs(la-o.m), abs(lb-o.m); da != db {
		return da < db
	}
	if la != lb {
		return la < lb
	}
	return a.start < b.start
}

// disjoint returns a largest set of pairwise non-overlapping matches from ms, ordered by
// position (greedy by end, which is optimal for intervals; of two with the same end the
// shorter). Two or more means ambiguity.
func disjoint(ms []fuzzyMatch) []fuzzyMatch {
	byEnd := slices.Clone(ms)
	slices.SortFunc(byEnd, func(a, b fuzzyMatch) int {
		if a.end != b.end {
			return a.end - b.end
		}
		return b.start - a.start // the shorter first, so the result does not depend on the order of ms
	})
	var out []fuzzyMatch
	for _, mt := range byEnd {
		if len(out) == 0 || mt.start >= out[len(out)-1].end {
			out = append(out, mt)
		}
	}
	return out
}

// fuzzyText is the normalized content as code points, with the group of each, and the
// state of the backward passes.
type fuzzyText struct {
	nc    *normalized
	t     []rune
	group []int32 // group[i] is the normalization group of t[i]
	rev   *matcher
	m     int
	win   []rune // reusable buffer for the reversed text of a backward pass
}

// newFuzzyText decodes nc.text; an invalid byte becomes one U+FFFD code point. Its
// slices come from int32Pool (see release).
func newFuzzyText(nc *normalized) *fuzzyText {
	text := nc.text
	t := getInt32s(len(text))[:len(text)] // room for a code point per byte
	group := getInt32s(len(text))[:len(text)]
	n := 0
	for i := 0; i < len(text); n++ {
		if c := text[i]; c < utf8.RuneSelf {
			t[n], group[n] = rune(c), nc.group[i]
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		t[n], group[n] = r, nc.group[i]
		i += size
	}
	return &fuzzyText{nc: nc, t: t[:n], group: group[:n]}
}

// release hands f's slices back for reuse; f must not be used afterwards.
func (f *fuzzyText) release() {
	t, group := f.t[:0], f.group[:0]
	int32Pool.Put(&t)
	int32Pool.Put(&group)
	f.t, f.group = nil, nil
}

// boundary reports whether code-point index i (0 ≤ i ≤ len(t)) is a group boundary.
func (f *fuzzyText) boundary(i int) bool {
	return i == 0 || i == len(f.t) || f.group[i-1] != f.group[i]
}

// anchor returns the best match ending at the boundary e and starting at a boundary at
// most reach code points before it: smallest distance, then length closest to m, then
// shortest. The empty match (distance m) is the fallback.
func (f *fuzzyText) anchor(b *budget, e, reach int) (fuzzyMatch, error) {
	l := min(e, reach)
	f.win = f.win[:0]
	for i := e - 1; i >= e-l; i-- {
		f.win = append(f.win, f.t[i])
	}
	d, err := f.rev.scores(b, f.win, true)
	if err != nil {
		return fuzzyMatch{}, err
	}
	bestLen, bestDist := 0, int(d[0])
	for n := 1; n <= l; n++ {
		if !f.boundary(e - n) {
			continue
		}
		dist := int(d[n])
		if dist < bestDist || dist == bestDist && abs(n-f.m) < abs(bestLen-f.m) {
			bestLen, bestDist = n, dist
		}
	}
	mt := fuzzyMatch{start: e - bestLen, end: e, dist: bestDist}
	if bestLen > 0 {
		mt.orig = f.nc.groupsSpan(f.group[mt.start], f.group[e-1])
	}
	return mt, nil
}

// matcher holds a pattern prepared for Myers' bit-parallel edit-distance algorithm.
type matcher struct {
	pat     []rune // the pattern (a copy)
	m       int
	blocks  int      // ⌈m/64⌉ 64-bit words per column
	peq     []uint64 // peq[sym*blocks+w]: bit i set where pattern[w*64+i] is sym
	ascii   [utf8.RuneSelf]int32
	other   map[rune]int32 // symbols of non-ASCII runes; symbol 0 is "not in the pattern"
	lastRow uint           // bit of the pattern's last row in the last word
}

// newMatcher prepares the non-empty pattern p.
func newMatcher(p []rune) *matcher {
	blocks := (len(p) + 63) / 64
	mt := &matcher{pat: slices.Clone(p), m: len(p), blocks: blocks, peq: make([]uint64, blocks), other: map[rune]int32{}}
	for i, r := range p {
		sym := mt.symbol(r)
		if sym == 0 {
			sym = int32(len(mt.peq) / blocks)
			mt.peq = append(mt.peq, make([]uint64, blocks)...)
			if r < utf8.RuneSelf {
				mt.ascii[r] = sym
			} else {
				mt.other[r] = sym
			}
		}
		mt.peq[int(sym)*blocks+i/64] |= 1 << (i % 64)
	}
	mt.lastRow = uint((len(p) - 1) % 64)
	return mt
}

// symbol returns the pattern symbol of r, 0 if r is not in the pattern.
func (mt *matcher) symbol(r rune) int32 {
	if r >= 0 && r < utf8.RuneSelf {
		return mt.ascii[r]
	}
	return mt.other[r]
}

// scores returns d with d[j], for j = 0..len(text), the edit distance between the pattern
// and: the best substring of text ending at j when anchored is false (Sellers'
// recurrence, the match may start anywhere), or text[:j] when anchored is true. It checks
// b every 1024 columns.
func (mt *matcher) scores(b *budget, text []rune, anchored bool) ([]int32, error) {
	blocks := mt.blocks
	pv := make([]uint64, blocks) // vertical +1 deltas; column 0 is 0, 1, 2, …, m
	mv := make([]uint64, blocks) // vertical −1 deltas
	for i := range pv {
		pv[i] = ^uint64(0)
	}
	top := 0 // horizontal delta of row 0: 0 when searching, +1 when anchored
	if anchored {
		top = 1
	}
	d := make([]int32, len(text)+1)
	score := mt.m
	d[0] = int32(score)
	for j, r := range text {
		if j%1024 == 1023 {
			if err := b.check(); err != nil {
				return nil, err
			}
		}
		eqs := mt.peq[int(mt.symbol(r))*blocks:][:blocks]
		h := top
		last := blocks - 1
		for w, eq := range eqs[:last] {
			pv[w], mv[w], h = step(pv[w], mv[w], eq, h, 63)
		}
		pv[last], mv[last], h = step(pv[last], mv[last], eqs[last], h, mt.lastRow)
		score += h
		d[j+1] = int32(score)
	}
	return d, nil
}

// bandedScores is scores with anchored false, computing only the blocks that can hold a
// distance of at most k (Ukkonen's cut-off in the blocked form of Hyyrö 2003, as in
// edlib's semi-global search): d[j] is exact when it is at most k, and k + 1 otherwise.
// O(n·⌈k/64⌉) word operations on typical text instead of O(n·⌈m/64⌉). It checks b every
// 1024 columns.
func (mt *matcher) bandedScores(b *budget, text []rune, k int) ([]int32, error) {
	blocks := mt.blocks
	pv := make([]uint64, blocks)
	mv := make([]uint64, blocks)
	score := make([]int, blocks) // value of the block's bottom row (row lastRow in the last block)
	rows := func(w int) int {    // rows in block w
		if w == blocks-1 {
			return int(mt.lastRow) + 1
		}
		return 64
	}
	out := func(w int) uint {
		if w == blocks-1 {
			return mt.lastRow
		}
		return 63
	}
	last := min((k+64)/64, blocks) - 1 // ⌈(k+1)/64⌉ − 1: the last block in the band
	for w := 0; w <= last; w++ {
		pv[w] = ^uint64(0)
		score[w] = w*64 + rows(w)
	}
	d := make([]int32, len(text)+1)
	d[0] = int32(min(mt.m, k+1))
	for j, r := range text {
		if j%1024 == 1023 {
			if err := b.check(); err != nil {
				return nil, err
			}
		}
		eqs := mt.peq[int(mt.symbol(r))*blocks:][:blocks]
		h := 0
		for w := 0; w <= last; w++ {
			// step, written out: the compiler does not inline it, and this loop is Layer
			// 2's hot spot (TestBandedScoresMatchFull checks it against scores).
			o := uint(63)
			if w == blocks-1 {
				o = mt.lastRow
			}
			p, q, eq := pv[w], mv[w], eqs[w]
			neg := uint64(h) >> 63
			pos := uint64((h + 1) >> 1)
			xv := eq | q
			eq |= neg
			xh := (((eq & p) + p) ^ p) | eq
			ph := q | ^(xh | p)
			mh := p & xh
			h = int((ph>>o)&1) - int((mh>>o)&1)
			ph = ph<<1 | pos
			mh = mh<<1 | neg
			pv[w], mv[w] = mh|^(xv|ph), ph&xv
			score[w] += h
		}
		if last < blocks-1 && score[last]-h <= k && (eqs[last+1]&1 != 0 || h < 0) {
			// The band grows by one block, entering as a column of +1 steps.
			last++
			pv[last], mv[last] = ^uint64(0), 0
			var nh int
			pv[last], mv[last], nh = step(pv[last], mv[last], eqs[last], h, out(last))
			score[last] = score[last-1] - h + rows(last) + nh
		}
		for last > 0 && score[last] >= k+64 {
			last--
		}
		if last == blocks-1 && score[last] <= k {
			d[j+1] = int32(score[last])
		} else {
			d[j+1] = int32(k + 1)
		}
	}
	return d, nil
}

// step advances one 64-row block of the dynamic-programming column by one text character
// (Myers 1999 in Hyyrö's formulation; edlib's calculateBlock). pv and mv are the block's
// vertical +1 and −1 deltas, eq the pattern positions equal to the character, and h ∈
// {−1, 0, +1} the horizontal delta entering the block's top row. It returns the new deltas
// and the horizontal delta leaving row out (0..63) of the block.
func step(pv, mv, eq uint64, h int, out uint) (uint64, uint64, int) {
	neg := uint64(h) >> 63      // 1 when h = −1
	pos := uint64((h + 1) >> 1) // 1 when h = +1
	xv := eq | mv
	eq |= neg
	xh := (((eq & pv) + pv) ^ pv) | eq
	ph := mv | ^(xh | pv)
	mh := pv & xh
	hout := int((ph>>out)&1) - int((mh>>out)&1)
	ph = ph<<1 | pos
	mh = mh<<1 | neg
	return mh | ^(xv | ph), ph & xv, hout
}

// truncateRunes returns s cut to at most n runes, the last being "…" when cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n-1; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

package textmatch

import (
	"slices"
)

// This file is the filter in front of Layer 2's forward pass. Cut the pattern (m code
// points) into P disjoint pieces of q code points. One edit breaks at most one piece, so
// a match within distance k < P leaves at least P − k pieces intact, each found exactly
// in the text. An intact piece at pattern offset off found at text position pos lies on
// the diagonal δ = pos − off, and a match starting at a has every intact piece's δ within
// [a − k, a + k]: its intact pieces' diagonals are at most 2k apart.
//
// filterWindows finds the pieces' exact occurrences with a rolling hash and counts them
// by diagonal in buckets of 2k + 1; only where two adjacent buckets hold P − k
// occurrences or more can a match within k start, and the banded pass runs only on the
// windows around those places (overlapping windows merged). The result is exactly
// bandedScores': an end within distance k has the start of its best match inside its
// window (so the window's pass, which may start anywhere in the window, finds the same
// distance), and every other end reads k + 1 either way.

// minPieceRunes is the shortest piece filteredScores searches for: shorter pieces occur
// so often in prose that the windows would cover most of the text.
const minPieceRunes = 8

// filteredScores returns exactly what bandedScores(b, text, k) returns: d[j] is the
// distance of the best match ending at j when it is at most k, and k + 1 otherwise
// (d[0] is min(m, k + 1)). When the pattern holds more than k pieces of minPieceRunes and
// the text is long enough for windows to pay off, it computes the distances only in the
// windows described above; otherwise, or when the windows would cover more than half the
// text, it runs bandedScores on all of it. It checks b as bandedScores does and returns
// its error (ErrTimeout or the context's).
func (mt *matcher) filteredScores(b *budget, text []rune, k int) ([]int32, error) {
	pieces := min(mt.m/minPieceRunes, 4*(k+1))
	if pieces <= k || len(text) < 4*(mt.m+3*k) {
		return mt.bandedScores(b, text, k)
	}
	return mt.windowedScores(b, text, k, pieces)
}

// window is a range of text code points: the forward pass reads text[start:end], and the
// ends it reports, start+1 through end, are those of matches starting at start or later.
type window struct{ start, end int }

// windowedScores is filteredScores with the number of pieces given: k < pieces ≤ m.
func (mt *matcher) windowedScores(b *budget, text []rune, k, pieces int) ([]int32, error) {
	wins, ok, err := mt.filterWindows(b, text, k, pieces)
	if err != nil {
		return nil, err
	}
	if !ok {
		return mt.bandedScores(b, text, k)
	}
	d := make([]int32, len(text)+1)
	for j := range d {
		d[j] = int32(k + 1)
	}
	d[0] = int32(min(mt.m, k+1))
	for _, w := range wins {
		if err := b.check(); err != nil {
			return nil, err
		}
		wd, err := mt.bandedScores(b, text[w.start:w.end], k)
		if err != nil {
			return nil, err
		}
		copy(d[w.start+1:w.end+1], wd[1:])
	}
	return d, nil
}

// filterWindows returns the windows of text, ascending and disjoint, such that every
// match within distance k starts and ends within one of them (k < pieces ≤ m), or ok false when they would cover more
// than half the text or the pieces occur more than len(text)/2 times (a pass over all of
// the text is then cheaper). Piece i (0 ≤ i < pieces) is pattern[off_i : off_i+q] with
// q = ⌊m/pieces⌋ and off_i = ⌊i·m/pieces⌋, so the pieces are disjoint. It checks b every
// 65,536 code points.
func (mt *matcher) filterWindows(b *budget, text []rune, k, pieces int) (wins []window, ok bool, err error) {
	m, n := mt.m, len(text)
	q := m / pieces
	if n < q {
		return nil, true, nil // no piece fits: no match within k
	}

	// Hash table of the pieces' hashes: open addressing, at most a quarter full.
	const base = 0x100000001B3
	var top uint64 = 1 // base^(q−1)
	for range q - 1 {
		top *= base
	}
	hash := func(r []rune) uint64 {
		var h uint64
		for _, c := range r {
			h = h*base + uint64(c)
		}
		return h
	}
	bits := 2
	for 1<<bits < 4*pieces {
		bits++
	}
	type slot struct {
		h   uint64
		off int32 // piece offset in the pattern + 1; 0 marks an empty slot
	}
	table := make([]slot, 1<<bits)
	mask := len(table) - 1
	const mix = 0x9E3779B97F4A7C15
	at := func(h uint64) int { return int((h * mix) >> (64 - bits)) }
	for i := range pieces {
		off := i * m / pieces
		h := hash(mt.pat[off : off+q])
		s := at(h)
		for table[s].off != 0 {
			s = (s + 1) & mask
		}
		table[s] = slot{h: h, off: int32(off + 1)}
	}

	// Count the exact occurrences by diagonal, in buckets of w = 2k + 1 diagonals (bucket
	// 0 holds δ = −m): a set of diagonals at most 2k apart lies in two adjacent buckets.
	// seen is a prefilter of the table: bit x set when a piece's hash has top 16 bits
	// (after mixing) x.
	w := 2*k + 1
	counts := make([]int32, (n+m)/w+2)
	var seen [1 << 10]uint64
	for _, sl := range table {
		if sl.off != 0 {
			x := (sl.h * mix) >> 48
			seen[x>>6] |= 1 << (x & 63)
		}
	}
	hits := 0
	h := hash(text[:q])
	for pos := 0; ; pos++ {
		if pos%(1<<16) == 1<<16-1 {
			if err := b.check(); err != nil {
				return nil, false, err
			}
		}
		if x := (h * mix) >> 48; seen[x>>6]&(1<<(x&63)) != 0 {
			for s := at(h); table[s].off != 0; s = (s + 1) & mask {
				if off := int(table[s].off) - 1; table[s].h == h && slices.Equal(text[pos:pos+q], mt.pat[off:off+q]) {
					counts[(pos-off+m)/w]++
					hits++
				}
			}
			if hits > n/2 {
				return nil, false, nil
			}
		}
		if pos+q == n {
			break
		}
		h = (h-uint64(text[pos])*top)*base + uint64(text[pos+q])
	}

	// Windows around every two adjacent buckets c, c + 1 holding pieces − k occurrences or
	// more, merged. The intact pieces of a match starting at a and ending at e have their
	// smallest diagonal δ in some bucket c, so lo = c·w − m ≤ δ < lo + w; its prefix up to
	// that piece has at most k more code points in the text than in the pattern, and so
	// has its suffix from there: a ≥ δ − k ≥ lo − k and e ≤ δ + m + k ≤ lo + w − 1 + m + k.
	// Past half the text, one pass over all of it is cheaper.
	need := int32(pieces - k)
	covered := 0
	for c := 0; c+1 < len(counts); c++ {
		if counts[c]+counts[c+1] < need {
			continue
		}
		lo := c*w - m
		// Ends up to win.end are computed (see windowedScores), so it is e's bound itself.
		win := window{min(max(lo-k, 0), n), min(max(lo+w-1+m+k, 0), n)}
		if l := len(wins) - 1; l >= 0 && win.start <= wins[l].end {
			covered += win.end - wins[l].end
			wins[l].end = win.end
			continue
		}
		wins = append(wins, win)
		covered += win.end - win.start
	}
	return wins, covered <= n/2, nil
}

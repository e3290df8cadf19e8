package tokens

import (
	"sync"
	"unicode"
)

// Segmenting. tiktoken-go splits a text into pieces with its pre-tokenizer regular
// expression and byte-pair-merges each piece in time quadratic in the piece's length: one
// unbroken run of 100k letters took 11 s, 10 MB never finished. Counts are therefore taken
// segment by segment:
//
//   - A text is cut only at boundaries (see boundary) where both pre-tokenizers in use,
//     cl100k_base and o200k_base, always end a piece whatever precedes or follows, so
//     counting the two sides separately gives exactly the count of the whole: a space or
//     tab after a non-space, the end of a run of letters, the end of a run of digits.
//   - Segments hold at most maxSegment bytes, so the caller can check for cancellation
//     between them.
//   - A stretch of more than maxRun bytes with no boundary (a run of one letter, of '[',
//     of CJK characters without punctuation, of white space) is cut hard every maxRun
//     bytes, at a rune boundary. No piece then exceeds maxRun bytes, and the merge costs
//     O(maxRun) per byte: hostile runs count as fast as prose.
//
// Error bound: only hard cuts change a count. Each splits one piece in two, and each half
// is merged on its own; over the hostile inputs of the tests (runs of a letter, '[', CJK,
// white space, digits, mixed case, combining marks, random letters) a cut changed the
// count by at most 2 tokens, almost always +1 or 0. Hard cuts fall at most once per
// maxRun bytes and only inside stretches that have no boundary for maxRun bytes, which
// ordinary prose, code and JSON do not have: their counts are exact. The worst case,
// 2 tokens per 256 bytes, is far below the margin of a compaction threshold.
const (
	// maxRun is the longest stretch, in bytes, handed to the encoder with no boundary
	// in it. 256 keeps the worst case (all pieces this long) at the speed of prose:
	// one letter repeated counted at 0.3 s per MB in pieces of 256 bytes, 0.95 s in
	// pieces of 1 KB, 2.8 s in pieces of 4 KB.
	maxRun = 256
	// maxSegment is the most bytes, cut at a boundary, handed to the encoder at once:
	// 5 to 10 ms of work between two checks of the context. Smaller segments cost
	// ordinary text a few percent more in calls to the encoder.
	maxSegment = 16 << 10
)

// maxDefer is how many bytes past maxRun a hard cut may wait for a place that does not
// split a character or a line break (see softCut).
const maxDefer = 32

// softCut reports whether a hard cut between prev and cur keeps characters whole: cur is
// no combining mark or joiner and the cut does not split "\r\n".
func softCut(prev, cur rune, cc uint8) bool {
	return cc != classMark && cur != '\u200d' && prev != '\u200d' && (prev != '\r' || cur != '\n')
}

// Character classes as the pre-tokenizers' regular expressions (dlclark/regexp2) see
// them: \s is unicode.IsSpace, \p{L} unicode.IsLetter, \p{N} unicode.IsNumber, \p{M}
// unicode.IsMark.
const (
	classOther uint8 = iota // punctuation, symbols, controls other than white space
	classSpace
	classLetter
	classNumber
	classMark
)

// bmpClass holds the class of every rune of the Basic Multilingual Plane (64 KB, built on
// first use in about a millisecond): classifying each rune through the unicode tables
// cost a tenth of the count of Chinese text.
var bmpClass = sync.OnceValue(func() *[1 << 16]uint8 {
	var t [1 << 16]uint8
	for r := range rune(len(t)) {
		t[r] = classify(r)
	}
	return &t
})

func classify(r rune) uint8 {
	switch {
	case unicode.IsSpace(r):
		return classSpace
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsMark(r):
		return classMark
	}
	return classOther
}

// classIn returns the class of r, looked up in t (bmpClass) when r is in the BMP.
func classIn(t *[1 << 16]uint8, r rune) uint8 {
	if r < 1<<16 {
		return t[r]
	}
	return classify(r)
}

// boundary reports whether every piece of the cl100k_base and o200k_base pre-tokenizers
// ends between a rune of class pc and the rune cur of class cc, in any text where the one
// follows the other. Why each case
// holds, alternative by alternative of the two patterns:
//
//   - After white space, never: `\s+(?!\S)` looks ahead, and white space runs merge.
//   - A letter, then anything but a letter, a mark or an apostrophe: letter pieces
//     (`\p{L}+`; o200k's letter and mark classes with an optional 's, 't, 're, 've,
//     'm, 'll, 'd) cannot take cur.
//   - A digit, then a non-digit: digits only ever form `\p{N}{1,3}` pieces.
//   - Anything else (punctuation, a symbol, a mark), then a space or a tab: the piece
//     holding prev (punctuation with `[\r\n]*` or `[\r\n/]*` after it, or a letter
//     piece) cannot take a space or a tab.
//
// No alternative looks behind, and none that starts before the boundary looks past cur,
// so the pieces after it are those of the text that starts there.
func boundary(pc uint8, cur rune, cc uint8) bool {
	switch pc {
	case classSpace:
		return false
	case classLetter:
		return cc != classLetter && cc != classMark && cur != '\''
	case classNumber:
		return cc != classNumber
	}
	return cur == ' ' || cur == '\t'
}

// segments calls f with consecutive substrings of s that together make s, stopping early
// when f returns false. Each ends at a boundary or at a hard cut, holds at most maxSeg
// bytes plus one rune, and has no stretch without a boundary longer than maxRun bytes
// (maxRun+maxDefer before a combining mark, a joiner or the "\n" of "\r\n") plus one
// rune. Invalid UTF-8 is stepped over byte by byte, as the encoder's []rune conversion
// does, so the runes of the segments are those of s.
func segments(s string, maxSeg, maxRun int, f func(seg string) bool) {
	t := bmpClass()
	start, last := 0, 0 // last: the latest boundary or cut, >= start
	prev, pc := rune(-1), classOther
	for i, r := range s {
		cc := classIn(t, r)
		if i > start {
			if boundary(pc, r, cc) {
				last = i
			}
			switch {
			case i-last >= maxRun && (softCut(prev, r, cc) || i-last >= maxRun+maxDefer):
				// No boundary for maxRun bytes: cut hard, if possible not inside a
				// character (before a combining mark or a joiner) or a line break.
				if !f(s[start:i]) {
					return
				}
				start, last = i, i
			case i-start >= maxSeg && last > start:
				if !f(s[start:last]) {
					return
				}
				start = last
			}
		}
		prev, pc = r, cc
	}
	if start < len(s) {
		f(s[start:])
	}
}

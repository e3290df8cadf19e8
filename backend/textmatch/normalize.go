package textmatch

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// span is a half-open byte range [start, end) of the original text.
type span struct{ start, end int }

// normalized is a text in matching form with a map back to the original: byte b of text was
// produced by normalization group group[b], and group g came from the original bytes
// [bounds[g], bounds[g+1]). Groups tile the original in order, each non-empty; the bytes of
// one group are contiguous in text. A group whose output normalization deleted entirely
// (trailing blanks, CJK–Latin spaces) has no bytes in text.
type normalized struct {
	text   string
	group  []int32
	bounds []int32 // len(bounds) = number of groups + 1; normalize caps the text at MaxInt32 bytes
}

// normalize puts s in matching form and records where every normalized byte came from.
// The steps (Layer 1's normalization chain) are, in order:
//
//  1. translateRune on every rune (smart quotes, primes, dashes, special spaces → ASCII);
//  2. NFKC over the whole string, run segment by segment with norm.Iter so that each
//     segment's output maps to that segment's input span (one normalization group);
//     translateRune is applied again to the output, because NFKC turns a few
//     compatibility characters into ones the table translates (U+FE31 → U+2014);
//  3. blanks (space, tab, CR) at the end of every line and of the text are removed, so
//     CRLF line ends match LF ones;
//  4. runs of spaces between a CJK character and a Latin letter or ASCII digit, in
//     either order, are removed ("使用 Python 编写" → "使用Python编写").
//
// Invalid UTF-8 bytes pass through unchanged, each as its own character. normalize
// checks b periodically and returns its error (ErrTimeout or the context's).
func normalize(b *budget, s string) (*normalized, error) {
	if len(s) > math.MaxInt32 {
		return nil, fmt.Errorf("text of %d bytes is too large to normalize", len(s))
	}
	t, shifts := translate(s)
	out := getBytes(len(t) + len(t)/16)
	group := getInt32s(cap(out))
	bounds := append(getInt32s(len(t)+1), 0) // a group consumes at least one byte
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
		if len(group) == len(out) && inertAt(t, groupStart) > 0 {
			// Fast path: norm.Iter would return this rune alone and unchanged, and
			// translateRune leaves it alone; copy the run of such runes directly and resume
			// the iterator after it.
			var err error
			if out, group, bounds, groupStart, err = appendInertRun(b, t, groupStart, out, group, bounds, &cur); err != nil {
				return nil, err
			}
			if groupStart == len(t) {
				break
			}
			if _, err := it.Seek(int64(groupStart), 0); err != nil {
				return nil, fmt.Errorf("normalize: %w", err)
			}
			continue
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
	out, group = stripBlanks(out, group)
	n := &normalized{text: string(out), group: group, bounds: bounds}
	out = out[:0]
	bytePool.Put(&out)
	return n, nil
}

// bytePool and int32Pool keep normalize's slices (*[]byte, *[]int32) for reuse: a 1 MB
// content needs about 9 MB of them, and clearing fresh ones costs more than filling them.
// normalize puts its byte buffer back itself; the owner of a normalized puts back the
// rest with release.
var bytePool, int32Pool sync.Pool

// poisonPooled, set only by tests, makes getBytes and getInt32s fill a reused slice with
// garbage, so that a slice handed back while still in use corrupts its user at once.
var poisonPooled bool

// getBytes returns an empty slice with room for n bytes, from bytePool if it has one.
func getBytes(n int) []byte {
	if p, ok := bytePool.Get().(*[]byte); ok && cap(*p) >= n {
		if poisonPooled {
			full := (*p)[:cap(*p)]
			for i := range full {
				full[i] = 0xFF
			}
		}
		return (*p)[:0]
	}
	return make([]byte, 0, n)
}

// getInt32s returns an empty slice with room for n int32s, from int32Pool if it has one.
func getInt32s(n int) []int32 {
	if p, ok := int32Pool.Get().(*[]int32); ok && cap(*p) >= n {
		if poisonPooled {
			full := (*p)[:cap(*p)]
			for i := range full {
				full[i] = -7
			}
		}
		return (*p)[:0]
	}
	return make([]int32, 0, n)
}

// release hands n's slices back for reuse; n must not be used afterwards.
func (n *normalized) release() {
	group, bounds := n.group[:0], n.bounds[:0]
	int32Pool.Put(&group)
	int32Pool.Put(&bounds)
	n.group, n.bounds = nil, nil
}

// inertRune reports whether normalize copies r as it is, alone in its group, whatever
// surrounds it: r is ASCII or a CJK Unified Ideograph (U+4E00–U+9FFF), which NFKC leaves
// unchanged and never combines with what precedes it (a boundary before it; see
// TestInertRunes) and translateRune leaves alone.
func inertRune(r rune) bool {
	return r < utf8.RuneSelf || r >= 0x4E00 && r <= 0x9FFF
}

// inertAt returns the size of the rune at the segment start p of t if norm.Iter would
// return that rune alone and unchanged: it is inert and so is the rune after it, or t
// ends after it. It returns 0 otherwise.
func inertAt(t string, p int) int {
	if p >= len(t) {
		return 0
	}
	size := 1
	if c := t[p]; c >= utf8.RuneSelf {
		var r rune
		r, size = utf8.DecodeRuneInString(t[p:])
		if !inertRune(r) {
			return 0
		}
	}
	q := p + size
	if q == len(t) || t[q] < utf8.RuneSelf {
		return size
	}
	if r, _ := utf8.DecodeRuneInString(t[q:]); inertRune(r) {
		return size
	}
	return 0
}

// cjkAt reports whether t[p:] starts with the UTF-8 encoding of a CJK Unified Ideograph
// U+4E00–U+9FFF (E4 B8 80 through E9 BF BF).
func cjkAt(t string, p int) bool {
	if p+2 >= len(t) {
		return false
	}
	c0, c1, c2 := t[p], t[p+1], t[p+2]
	return c0 >= 0xE4 && c0 <= 0xE9 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 && (c0 != 0xE4 || c1 >= 0xB8)
}

// appendInertRun appends, from offset p of t on, every rune for which inertAt holds, each
// as its own normalization group, and returns the slices and the offset after the run.
// ASCII is copied a run at a time. It checks b every 4096 runes or so.
func appendInertRun(b *budget, t string, p int, out []byte, group, bounds []int32, cur *shiftCursor) ([]byte, []int32, []int32, int, error) {
	for n := 1; ; n++ {
		if n%4096 == 0 {
			if err := b.check(); err != nil {
				return nil, nil, nil, 0, err
			}
		}
		if t[p] < utf8.RuneSelf {
			// Every byte of an ASCII run but the last is inert; the last is when the run
			// ends the text or an inert rune follows.
			q, lim := p+1, min(len(t), p+4096)
			for q+8 <= lim && load64(t, q)&swarHigh == 0 {
				q += 8
			}
			for q < lim && t[q] < utf8.RuneSelf {
				q++
			}
			end := q - 1
			if inertAt(t, end) > 0 {
				end = q
			}
			out = append(out, t[p:end]...)
			g := int32(len(bounds) - 1)
			group, bounds = slices.Grow(group, end-p), slices.Grow(bounds, end-p)
			gs := group[len(group) : len(group)+end-p]
			bs := bounds[len(bounds) : len(bounds)+end-p]
			for i := range gs {
				gs[i] = g + int32(i)
			}
			if cur.next == len(cur.shifts) || cur.shifts[cur.next].at > end {
				// No shift within the run: one delta for all of it.
				for i := range bs {
					bs[i] = int32(p + i + 1 + cur.delta)
				}
			} else {
				for i := range bs {
					bs[i] = int32(cur.orig(p + i + 1))
				}
			}
			group = group[:len(group)+end-p]
			bounds = bounds[:len(bounds)+end-p]
			p = end
		} else if cjkAt(t, p) {
			// A run of CJK ideographs, three bytes each: all but the last are inert; the
			// last is when the run ends the text or an inert rune follows.
			q := p + 3
			for q-p < 3*4096 && cjkAt(t, q) {
				q += 3
			}
			end := q - 3
			if inertAt(t, end) > 0 {
				end = q
			}
			out = append(out, t[p:end]...)
			g := int32(len(bounds) - 1)
			for i := p; i < end; i += 3 {
				group = append(group, g, g, g)
				g++
				bounds = append(bounds, int32(cur.orig(i+3)))
			}
			p = end
		} else {
			size := inertAt(t, p)
			if size == 0 {
				return out, group, bounds, p, nil
			}
			g := int32(len(bounds) - 1)
			for range size {
				group = append(group, g)
			}
			out = append(out, t[p:p+size]...)
			p += size
			bounds = append(bounds, int32(cur.orig(p)))
		}
		if p == len(t) || inertAt(t, p) == 0 {
			return out, group, bounds, p, nil
		}
	}
}

// aligned reports whether the byte range [s, e) of n.text starts and ends on group
// boundaries, that is, it contains every group it touches in full.
func (n *normalized) aligned(s, e int) bool {
	return (s == 0 || n.group[s-1] != n.group[s]) && (e == len(n.group) || n.group[e] != n.group[e-1])
}

// original maps the aligned byte range [s, e) of n.text (s < e) to the original bytes
// from the start of its first group to the end of its last.
func (n *normalized) original(s, e int) span {
	return n.groupsSpan(n.group[s], n.group[e-1])
}

// groupsSpan returns the original bytes of groups first through last.
func (n *normalized) groupsSpan(first, last int32) span {
	return span{int(n.bounds[first]), int(n.bounds[last+1])}
}

// translateRune is step 1 of normalize: a one-to-one translation of look-alike characters
// to ASCII. Beyond the usual quotes, dashes and spaces it maps the primes ′ → ' and ″ → "
// (models type 5'10" for 5′10″; NFKC alone would give ′′), and the hyphens U+2010, U+2011
// → '-'.
func translateRune(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032': // ‘ ’ ‚ ‛ ′
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033': // “ ” „ ‟ ″
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\uFE58', '\uFE63', '\uFF0D':
		return '-'
	case '\u00A0', '\u202F', '\u205F', '\u3000':
		return ' '
	}
	if r >= '\u2000' && r <= '\u200A' {
		return ' '
	}
	return r
}

// shift records that from translated offset at on (up to the next shift), the original
// offset is the translated offset plus delta.
type shift struct{ at, delta int }

// translateLeads are the first bytes of the UTF-8 encodings of every rune translateRune
// changes (U+00A0; U+2000–U+2212; U+3000; U+FE58–U+FF0D). No other byte starts one, and
// none of them continues a rune, so translate only decodes at these bytes.
var translateLeads = [...]byte{0xC2, 0xE2, 0xE3, 0xEF}

// translate applies translateRune to s. shifts describe how offsets of the result map to
// offsets of s; it is empty when nothing changed, and then t == s. It finds the places to
// look at with strings.IndexByte, one search per lead byte, and copies what lies between
// them at once.
func translate(s string) (t string, shifts []shift) {
	var next [len(translateLeads)]int // next occurrence of each lead byte, len(s) if none
	for l, c := range translateLeads {
		next[l] = indexByteFrom(s, 0, c)
	}
	var b strings.Builder // empty until the first change
	copied := 0           // s[:copied] is in b
	for {
		i := min(next[0], next[1], next[2], next[3])
		if i == len(s) {
			break
		}
		for l, c := range translateLeads {
			if next[l] == i {
				next[l] = indexByteFrom(s, i+1, c)
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		tr := translateRune(r)
		if tr == r {
			continue
		}
		if b.Cap() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[copied:i])
		b.WriteByte(byte(tr)) // every translation is ASCII
		copied = i + size
		shifts = append(shifts, shift{at: b.Len(), delta: copied - b.Len()})
	}
	if shifts == nil {
		return s, nil
	}
	b.WriteString(s[copied:])
	return b.String(), shifts
}

// indexByteFrom returns the offset of the first c in s at or after from, or len(s).
func indexByteFrom(s string, from int, c byte) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return len(s)
}

// shiftCursor maps translated offsets to original ones for offsets given in
// non-decreasing order.
type shiftCursor struct {
	shifts []shift
	next   int // index of the first shift not yet applied
	delta  int
}

// orig returns the original offset of translated offset t, which must be a character
// boundary of the translated text and not less than the previous argument.
func (c *shiftCursor) orig(t int) int {
	for c.next < len(c.shifts) && c.shifts[c.next].at <= t {
		c.delta = c.shifts[c.next].delta
		c.next++
	}
	return t + c.delta
}

// appendTranslated appends seg to out with translateRune applied to each rune; invalid
// bytes are copied as they are.
func appendTranslated(out, seg []byte) []byte {
	for i := 0; i < len(seg); {
		if c := seg[i]; c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(seg[i:])
		if tr := translateRune(r); tr != r {
			out = utf8.AppendRune(out, tr)
		} else {
			out = append(out, seg[i:i+size]...)
		}
		i += size
	}
	return out
}

// isBlank reports whether c is a blank that line-end stripping removes.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// stripBlanks performs steps 3 and 4 of normalize on out in place, keeping group in step
// with out, and returns the shortened slices. Only a blank run that ends the text, ends
// before '\n', or touches a non-ASCII byte can be removed; nextStripCandidate finds those
// eight bytes at a time, and everything in between is kept as it is.
func stripBlanks(out []byte, group []int32) ([]byte, []int32) {
	w, r := 0, 0 // out[:w] is the result for out[:r]
	for {
		i, j := nextStripCandidate(out, r)
		if i < 0 {
			break
		}
		if w != r {
			copy(out[w:], out[r:i])
			copy(group[w:], group[r:i])
		}
		w += i - r
		onlySpaces := true
		for _, c := range out[i:j] {
			onlySpaces = onlySpaces && c == ' '
		}
		drop := j == len(out) || out[j] == '\n'
		// Only a space run next to a non-ASCII rune can lie between CJK and Latin.
		if !drop && onlySpaces && w > 0 && (out[w-1] >= utf8.RuneSelf || out[j] >= utf8.RuneSelf) {
			prev, _ := utf8.DecodeLastRune(out[:w])
			next, _ := utf8.DecodeRune(out[j:])
			drop = isCJK(prev) && isLatinOrDigit(next) || isLatinOrDigit(prev) && isCJK(next)
		}
		if !drop {
			copy(out[w:], out[i:j])
			copy(group[w:], group[i:j])
			w += j - i
		}
		r = j
	}
	if w != r {
		copy(out[w:], out[r:])
		copy(group[w:], group[r:])
	}
	w += len(out) - r
	return out[:w], group[:w]
}

// SWAR constants: a byte of ones, and the high bit and the low seven bits of every byte.
const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
	swarLow  = 0x7F7F7F7F7F7F7F7F
)

// swarBelow returns the high bit of every byte of v that is less than n (n ≤ 0x80):
// adding 0x80 − n to its low seven bits sets the high bit exactly when they are n or
// more, and no sum carries into the next byte.
func swarBelow(v uint64, n byte) uint64 {
	return ^((v&swarLow + swarOnes*uint64(0x80-n)) | v) & swarHigh
}

// load64 returns the eight bytes of s from i on as a little-endian word.
func load64(s string, i int) uint64 {
	w := s[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// nextStripCandidate returns the first maximal blank run out[i:j] with from ≤ i that
// ends the text, ends before '\n' or a non-ASCII byte, or follows a non-ASCII byte;
// i = -1 when there is none. from must not be inside a blank run. Eight bytes at a time,
// it looks for a byte below '!' (blanks, '\n' and other control bytes) followed by one
// below '!' or non-ASCII, or a non-ASCII byte followed by one below '!', and checks
// those few places exactly.
func nextStripCandidate(out []byte, from int) (i, j int) {
	x := from
	for ; x+9 <= len(out); x += 8 {
		v := binary.LittleEndian.Uint64(out[x:])
		v1 := v>>8 | uint64(out[x+8])<<56 // the next byte of every byte of v
		low, low1 := swarBelow(v, '!'), swarBelow(v1, '!')
		for c := low&(low1|v1&swarHigh) | v&swarHigh&low1; c != 0; c &= c - 1 {
			if y := x + bits.TrailingZeros64(c)/8; stripCandidateAt(out, y) {
				return stripRun(out, y)
			}
		}
	}
	for ; x < len(out); x++ {
		if stripCandidateAt(out, x) {
			return stripRun(out, x)
		}
	}
	return -1, -1
}

// stripCandidateAt reports whether out[x] is a blank that ends the text or comes before
// '\n' or a non-ASCII byte, or a non-ASCII byte before a blank.
func stripCandidateAt(out []byte, x int) bool {
	c := out[x]
	return isBlank(c) && (x+1 == len(out) || out[x+1] == '\n' || out[x+1] >= utf8.RuneSelf) ||
		c >= utf8.RuneSelf && x+1 < len(out) && isBlank(out[x+1])
}

// stripRun returns the maximal blank run that ends at x + 1 when out[x] is blank, or
// starts at x + 1 when it is not.
func stripRun(out []byte, x int) (i, j int) {
	if isBlank(out[x]) {
		i = x
		for i > 0 && isBlank(out[i-1]) {
			i--
		}
		return i, x + 1
	}
	j = x + 1
	for j < len(out) && isBlank(out[j]) {
		j++
	}
	return x + 1, j
}

// isCJK reports whether r is a Han, Hiragana, Katakana or Hangul character, or the
// prolonged sound mark ー (U+30FC, script Common) that only occurs in Japanese.
func isCJK(r rune) bool {
	return r >= 0x1100 && (r == 'ー' || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul))
}

// isLatinOrDigit reports whether r is a Latin letter or an ASCII digit.
func isLatinOrDigit(r rune) bool {
	return r >= '0' && r <= '9' || unicode.Is(unicode.Latin, r)
}

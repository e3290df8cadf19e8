package web

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// pdfGlyph is one character the PDF paints, as the reader reports it: its text (usually
// one rune), its origin on the baseline, its advance box and its font size, all in page
// space (points, y up), and the angle of its baseline.
type pdfGlyph struct {
	Text string
	// X, Y is the origin of the glyph on its baseline.
	X, Y float64
	// Left, Right, Bottom, Top bound the glyph's advance box (the "loose" box: the
	// advance width times the font's ascent and descent), in page space.
	Left, Right, Bottom, Top float64
	// Size is the font size in points (the em), 0 when unknown.
	Size float64
	// Angle is the baseline's direction, radians counter-clockwise from the x axis.
	Angle float64
}

// Layout thresholds, in ems of the font size. They follow poppler's TextOutputDev, the
// reference the corpus test compares with, where it has a figure.
const (
	// wordGap: a gap between two glyphs wider than this starts a new word (poppler's
	// minWordBreakSpace).
	wordGap = 0.1
	// spaceGap: after a space character (one the PDF paints, or one the reader infers),
	// a gap wider than this starts a new word.
	spaceGap = 0.02
	// wordOverlap: a glyph starting this far left of the previous one's right edge
	// starts a new word (the pen went back: another line or a column).
	wordOverlap = 0.5
	// baseShift: a glyph whose baseline is this far from the word's starts a new word,
	// and words this far apart vertically are on different lines.
	baseShift = 0.5
	// columnGap: words on one baseline further apart than this are in different
	// columns (or table cells) and start separate lines.
	columnGap = 1.0
	// lineSpacing: a line joins the block above it when the baselines are at most this
	// far apart (in ems of the larger font).
	lineSpacing = 1.7
	// sizeRatio: a line joins a block only when their font sizes differ by at most this
	// factor.
	sizeRatio = 1.3
	// maxOpen bounds the rows and blocks a word or line is tried against (the most recent
	// ones, nearest to it), so that a page of glyphs on thousands of close baselines takes
	// linear time.
	maxOpen = 64
	// maxOrderBlocks bounds the blocks ordered by the column rules on one page; a page
	// with more (a chart of scattered labels) is read top to bottom, left to right.
	maxOrderBlocks = 400
)

// layoutWord is a run of glyphs without a gap, in an upright frame (x right, y up).
type layoutWord struct {
	text           strings.Builder
	x0, x1         float64 // left and right edge
	base           float64 // baseline
	size           float64 // largest font size in the word
	lastX0, lastX1 float64 // left and right edge of the last glyph
	spaceBefore    bool    // a space or a gap separates the word from the one painted before it
}

// layoutLine is a run of words on one baseline, within one column.
type layoutLine struct {
	words    []*layoutWord
	x0, x1   float64
	base     float64
	size     float64
	top, bot float64 // base + size, base - size/3: the line's box for ordering
}

// layoutBlock is a run of lines of one column set close together: a paragraph or part
// of one.
type layoutBlock struct {
	lines            []*layoutLine
	x0, x1, top, bot float64
	size             float64
	order, preds     int
	after            []int
}

// layoutPage turns a page's glyphs into reading text: words separated by spaces, lines
// by "\n", blocks (paragraphs, column pieces) by a blank line, blocks in reading order
// (columns one after another), ligatures spelt out, accents painted as separate glyphs
// put on their letters, and words hyphenated across lines joined. Glyphs are grouped by
// the direction of their baseline (quarter turns); the direction with the most glyphs
// comes first.
func layoutPage(glyphs []pdfGlyph) string {
	var groups [4][]pdfGlyph
	for _, g := range glyphs {
		q := int(math.Round(g.Angle/(math.Pi/2))) % 4
		if q < 0 {
			q += 4
		}
		groups[q] = append(groups[q], upright(g, q))
	}
	order := []int{0, 1, 2, 3}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(groups[b]), len(groups[a])) })
	var parts []string
	for _, q := range order {
		if len(groups[q]) == 0 {
			continue
		}
		if t := layoutUpright(groups[q]); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// upright turns g by q quarter turns clockwise, so that its baseline runs left to right.
func upright(g pdfGlyph, q int) pdfGlyph {
	rot := func(x, y float64) (float64, float64) {
		switch q {
		case 1:
			return y, -x
		case 2:
			return -x, -y
		case 3:
			return -y, x
		}
		return x, y
	}
	if q == 0 {
		return g
	}
	x0, y0 := rot(g.Left, g.Bottom)
	x1, y1 := rot(g.Right, g.Top)
	g.X, g.Y = rot(g.X, g.Y)
	g.Left, g.Right = min(x0, x1), max(x0, x1)
	g.Bottom, g.Top = min(y0, y1), max(y0, y1)
	return g
}

// layoutUpright lays out glyphs whose baselines run left to right.
func layoutUpright(glyphs []pdfGlyph) string {
	glyphs = mergeAccents(glyphs)
	words := buildWords(glyphs)
	lines := buildLines(words)
	blocks := buildBlocks(lines)
	orderBlocks(blocks)
	var b strings.Builder
	for i, blk := range blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		writeBlock(&b, blk)
	}
	return b.String()
}

// glyphSize is g's font size, or its box height when the size is unknown.
func glyphSize(g pdfGlyph) float64 {
	if g.Size > 0 {
		return g.Size
	}
	if h := g.Top - g.Bottom; h > 0 {
		return h
	}
	return 10
}

// spacingAccents maps the spacing forms of accents that TeX and older producers paint
// as glyphs of their own to the combining marks they stand for.
var spacingAccents = map[rune]rune{
	'\u00a8': '\u0308', // diaeresis
	'\u00b4': '\u0301', // acute
	'`':      '\u0300', // grave
	'^':      '\u0302', // circumflex
	'\u02c6': '\u0302', // modifier circumflex
	'\u02dc': '\u0303', // small tilde
	'~':      '\u0303', // tilde
	'\u00af': '\u0304', // macron
	'\u02c9': '\u0304', // modifier macron
	'\u02d8': '\u0306', // breve
	'\u02d9': '\u0307', // dot above
	'\u02da': '\u030a', // ring above
	'\u00b8': '\u0327', // cedilla
	'\u02db': '\u0328', // ogonek
	'\u02c7': '\u030c', // caron
	'\u02dd': '\u030b', // double acute
}

// accentMark returns the combining mark g stands for when g is an accent painted on its
// own (a spacing accent or a lone combining mark).
func accentMark(g pdfGlyph) (rune, bool) {
	r, n := utf8.DecodeRuneInString(g.Text)
	if n == 0 || n != len(g.Text) {
		return 0, false
	}
	if m, ok := spacingAccents[r]; ok {
		return m, true
	}
	if unicode.Is(unicode.Mn, r) {
		return r, true
	}
	return 0, false
}

// mergeAccents puts each accent painted as a glyph of its own on the letter it sits on
// (the letter on about the same baseline whose box holds the accent's centre, wherever
// the producer painted it in the content), composing the pair (u + ¨ → ü) as poppler
// does. An accent over no letter stays a glyph of its own.
func mergeAccents(glyphs []pdfGlyph) []pdfGlyph {
	var accents, letters []int
	for i, g := range glyphs {
		if _, ok := accentMark(g); ok {
			accents = append(accents, i)
		} else if g.Text != "" && strings.TrimSpace(g.Text) != "" {
			letters = append(letters, i)
		}
	}
	if len(accents) == 0 {
		return glyphs
	}
	slices.SortFunc(letters, func(a, b int) int { return cmp.Compare(glyphs[a].Left, glyphs[b].Left) })
	marks := make(map[int][]rune) // letter index -> marks to add
	drop := make(map[int]bool)
	for _, ai := range accents {
		g := glyphs[ai]
		mark, _ := accentMark(g)
		size := glyphSize(g)
		centre := (g.Left + g.Right) / 2
		// Letters whose left edge is left of the centre, nearest first.
		end, _ := slices.BinarySearchFunc(letters, centre+0.1*size, func(li int, x float64) int { return cmp.Compare(glyphs[li].Left, x) })
		best, bestDist := -1, math.Inf(1)
		for k, seen := end-1, 0; k >= 0 && seen < 256; k, seen = k-1, seen+1 {
			h := glyphs[letters[k]]
			if h.Left < centre-3*size {
				break
			}
			hs := glyphSize(h)
			if centre < h.Left-0.1*hs || centre > h.Right+0.1*hs || math.Abs(h.Y-g.Y) > 0.8*max(hs, size) {
				continue
			}
			if d := math.Abs((h.Left+h.Right)/2-centre) + math.Abs(h.Y-g.Y); d < bestDist {
				best, bestDist = letters[k], d
			}
		}
		if best >= 0 {
			marks[best] = append(marks[best], mark)
			drop[ai] = true
		}
	}
	out := make([]pdfGlyph, 0, len(glyphs)-len(drop))
	for i, g := range glyphs {
		if drop[i] {
			continue
		}
		if m := marks[i]; m != nil {
			g.Text = norm.NFC.String(g.Text + string(m))
		}
		out = append(out, g)
	}
	return out
}

// buildWords groups glyphs, in painting order, into words: a word ends at a space, a
// gap wider than wordGap ems, a step back, or a change of baseline.
func buildWords(glyphs []pdfGlyph) []*layoutWord {
	var words []*layoutWord
	var w *layoutWord
	space := true
	for _, g := range glyphs {
		text := cleanGlyphText(g.Text)
		if text == "" {
			continue
		}
		if strings.TrimSpace(text) == "" {
			space = true
			continue
		}
		size := glyphSize(g)
		if w != nil && g.Left == w.lastX0 && g.Right == w.lastX1 {
			w.text.WriteString(text) // a ligature pdfium spells out: its letters share one box
			continue
		}
		if w != nil {
			em := max(w.size, size)
			gap := g.Left - w.lastX1
			switch {
			case gap > wordGap*em || (space && gap > spaceGap*em):
				w, space = nil, true
			case gap < -wordOverlap*em || math.Abs(g.Y-w.base) > baseShift*min(w.size, size):
				w = nil
			default:
				space = false
			}
		}
		if w == nil {
			w = &layoutWord{x0: g.Left, x1: g.Right, base: g.Y, size: size, spaceBefore: space}
			words = append(words, w)
			space = false
		}
		w.text.WriteString(text)
		w.x0, w.x1 = min(w.x0, g.Left), max(w.x1, g.Right)
		w.lastX0, w.lastX1 = g.Left, g.Right
		if size > w.size {
			w.size, w.base = size, g.Y
		}
	}
	return words
}

// cleanGlyphText spells out ligatures (ﬁ → fi) and drops control characters and
// noncharacters; a soft hyphen or pdfium's hyphen marker becomes "-".
func cleanGlyphText(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0xfb00 && r <= 0xfb06) || r == 0xfffe || r == 0xffff || r == 0xad || r == 0xfffd {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r == 0xad || r == 0xfffe || r == 0x02:
			b.WriteByte('-')
		case r >= 0xfb00 && r <= 0xfb06:
			b.WriteString(norm.NFKC.String(string(r)))
		case r < 0x20 || r == 0x7f || r == 0xffff || r == 0xfffd:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// buildLines groups words into lines: words on one baseline (within baseShift ems of
// the line's largest font, so sub- and superscripts stay on their line), split where a
// gap wider than columnGap ems separates columns.
func buildLines(words []*layoutWord) []*layoutLine {
	sorted := slices.Clone(words)
	slices.SortStableFunc(sorted, func(a, b *layoutWord) int { return cmp.Compare(b.base, a.base) })
	// Rows: words whose baselines are close to the row's main baseline (that of its
	// largest word). A word off that baseline (a sub- or superscript, a ruby annotation,
	// a line of another column set at another height) joins the row only where it
	// overlaps none of its words.
	type row struct {
		words      []*layoutWord
		base, size float64
	}
	var rows []*row
	open := 0 // rows before this index are too far above to take more words
	for _, w := range sorted {
		for open < len(rows) && rows[open].base-w.base > baseShift*max(rows[open].size, w.size) {
			open++
		}
		var best *row
		for _, r := range rows[max(open, len(rows)-maxOpen):] {
			if r.base-w.base > baseShift*max(r.size, w.size) {
				continue
			}
			if math.Abs(r.base-w.base) > 0.15*max(r.size, w.size) && collides(r.words, w) {
				continue
			}
			best = r
			break
		}
		if best == nil {
			best = &row{base: w.base, size: w.size}
			rows = append(rows, best)
		}
		best.words = append(best.words, w)
		if w.size > best.size {
			best.base, best.size = w.base, w.size
		}
	}
	var lines []*layoutLine
	for _, r := range rows {
		row := r.words
		slices.SortStableFunc(row, func(a, b *layoutWord) int { return cmp.Compare(a.x0, b.x0) })
		var l *layoutLine
		for _, w := range row {
			if l != nil && w.x0-l.x1 > columnGap*max(l.size, w.size) {
				l = nil
			}
			if l == nil {
				l = &layoutLine{x0: w.x0, x1: w.x1, base: w.base, size: w.size}
				lines = append(lines, l)
			}
			l.words = append(l.words, w)
			l.x1 = max(l.x1, w.x1)
			if w.size > l.size {
				l.size, l.base = w.size, w.base
			}
		}
	}
	for _, l := range lines {
		l.top, l.bot = l.base+l.size*0.8, l.base-l.size*0.25
	}
	return lines
}

// collides reports whether w overlaps any of words horizontally (checking at most the
// last 512).
func collides(words []*layoutWord, w *layoutWord) bool {
	for _, o := range words[max(0, len(words)-512):] {
		if min(o.x1, w.x1)-max(o.x0, w.x0) > 0.1*min(o.size, w.size) {
			return true
		}
	}
	return false
}

// buildBlocks groups lines, top to bottom, into blocks: a line joins the block whose last
// line is just above it (baselines at most lineSpacing ems apart), overlaps it
// horizontally and has a similar font size.
func buildBlocks(lines []*layoutLine) []*layoutBlock {
	slices.SortStableFunc(lines, func(a, b *layoutLine) int {
		if c := cmp.Compare(b.base, a.base); c != 0 {
			return c
		}
		return cmp.Compare(a.x0, b.x0)
	})
	var blocks []*layoutBlock
	open := []*layoutBlock{} // blocks that may still grow, i.e. whose last line is near
	for _, l := range lines {
		var best *layoutBlock
		bestDist := math.Inf(1)
		kept := open[:0]
		for _, blk := range open {
			last := blk.lines[len(blk.lines)-1]
			dist := last.base - l.base
			if dist > lineSpacing*max(last.size, l.size)*1.5 {
				continue // too far above to take any later line
			}
			kept = append(kept, blk)
			if dist <= 0.1*l.size || dist > lineSpacing*max(last.size, l.size) {
				continue
			}
			if max(last.size, l.size) > sizeRatio*min(last.size, l.size) {
				continue
			}
			if min(blk.x1, l.x1)-max(blk.x0, l.x0) <= 0 {
				continue
			}
			if dist < bestDist {
				best, bestDist = blk, dist
			}
		}
		open = kept[max(0, len(kept)-maxOpen):]
		if best == nil {
			best = &layoutBlock{x0: l.x0, x1: l.x1, top: l.top, bot: l.bot, size: l.size}
			blocks = append(blocks, best)
			open = append(open, best)
		}
		best.lines = append(best.lines, l)
		best.x0, best.x1 = min(best.x0, l.x0), max(best.x1, l.x1)
		best.top, best.bot = max(best.top, l.top), min(best.bot, l.bot)
		best.size = max(best.size, l.size)
	}
	return blocks
}

// orderBlocks sorts blocks into reading order by the two rules of Breuel's layout
// analysis that poppler's pdftotext also follows: a block comes before another that it
// overlaps horizontally and is above; and before one that lies wholly to its right
// unless a third block between them vertically spans both (a heading or a figure across
// the columns). Blocks are then taken in that partial order, the highest (then the
// leftmost) first among those free to go; a block above all others comes first and one
// below all others last. Pages with over maxOrderBlocks blocks are read top to bottom,
// left to right.
func orderBlocks(blocks []*layoutBlock) {
	byPosition := func(a, b *layoutBlock) int {
		if c := cmp.Compare(b.top, a.top); c != 0 {
			return c
		}
		return cmp.Compare(a.x0, b.x0)
	}
	slices.SortStableFunc(blocks, byPosition)
	n := len(blocks)
	if n < 2 || n > maxOrderBlocks {
		return
	}
	xOverlap := func(a, b *layoutBlock) bool { return min(a.x1, b.x1)-max(a.x0, b.x0) > 0 }
	// A block above all the others (a running head) comes first and one below all the
	// others (a page number) last, even when it sits over the gutter between two columns
	// and overlaps neither.
	rank := make([]int, n) // 0 above all others, 1 among them, 2 below all others
	for i, a := range blocks {
		a.order, a.preds, a.after = i, 0, nil
		othersTop, othersBot := math.Inf(-1), math.Inf(1)
		for j, b := range blocks {
			if i != j {
				othersTop, othersBot = max(othersTop, b.top), min(othersBot, b.bot)
			}
		}
		switch {
		case a.bot >= othersTop:
			rank[i] = 0
		case a.top <= othersBot:
			rank[i] = 2
		default:
			rank[i] = 1
		}
	}
	for i, a := range blocks {
		for j, b := range blocks {
			if i == j {
				continue
			}
			before := false
			switch {
			case rank[i] != rank[j]:
				before = rank[i] < rank[j]
			case xOverlap(a, b):
				before = a.top > b.top || (a.top == b.top && i < j)
			case a.x1 <= b.x0:
				before = true
				upper, lower := a, b
				if b.top > a.top {
					upper, lower = b, a
				}
				for k, c := range blocks {
					if k == i || k == j {
						continue
					}
					if c.top <= upper.bot+0.01 && c.bot >= lower.top-0.01 && c.top > lower.top && xOverlap(c, a) && xOverlap(c, b) {
						before = false
						break
					}
				}
			}
			if before {
				a.after = append(a.after, j)
				blocks[j].preds++
			}
		}
	}
	placed := make([]bool, n)
	out := make([]*layoutBlock, 0, n)
	for len(out) < n {
		pick := -1
		for i, blk := range blocks { // blocks are in position order: the first free one
			if !placed[i] && blk.preds == 0 {
				pick = i
				break
			}
		}
		if pick < 0 { // a cycle: take the highest remaining block
			for i := range blocks {
				if !placed[i] {
					pick = i
					break
				}
			}
		}
		placed[pick] = true
		out = append(out, blocks[pick])
		for _, j := range blocks[pick].after {
			blocks[j].preds--
		}
	}
	copy(blocks, out)
}

// writeBlock writes blk's lines, top to bottom, joining a word hyphenated at the end of
// a line with its rest on the next.
func writeBlock(b *strings.Builder, blk *layoutBlock) {
	var line []byte // the output line being written: lines joined at a hyphen grow it
	for i, l := range blk.lines {
		if i > 0 {
			r, _ := utf8.DecodeLastRune(bytes.TrimSuffix(line, []byte("-")))
			if bytes.HasSuffix(line, []byte("-")) && unicode.IsLetter(r) && startsLower(l) {
				line = line[:len(line)-1]
			} else {
				b.Write(line)
				b.WriteByte('\n')
				line = line[:0]
			}
		}
		for j, w := range l.words {
			if j > 0 && (w.spaceBefore || w.x0-l.words[j-1].x1 > wordGap*w.size) {
				line = append(line, ' ')
			}
			line = append(line, w.text.String()...)
		}
	}
	b.Write(line)
}

// startsLower reports whether l's first word starts with a lower-case letter.
func startsLower(l *layoutLine) bool {
	if len(l.words) == 0 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(l.words[0].text.String())
	return unicode.IsLower(r)
}

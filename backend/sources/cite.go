package sources

import (
	"iter"
	"strings"
	"unicode/utf8"
)

// Citation is one bracket group of source numbers in a text: text[Start:End] is the
// group, "[1]", "[1, 2]" or "[3-5]" (see Citations), and Numbers its numbers in written
// order (a range expanded).
type Citation struct {
	Start, End int
	Numbers    []int
}

// Limits of what Citations reads as a citation.
const (
	// MaxNumber is the largest source number read; a bigger one ("[20250]") is not a
	// citation.
	MaxNumber = 9999
	// MaxRange is the largest span of a range: "[3-5]" is 3, 4 and 5, "[1-500]" is no
	// citation.
	MaxRange = 50
)

// Cited returns the source numbers text cites, each once, in order of first use.
// See Citations for what counts as a citation.
func Cited(text string) []int {
	var out []int
	seen := map[int]bool{}
	for _, c := range Citations(text) {
		for _, n := range c.Numbers {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// Citations returns the citation groups of a Markdown text, in order.
//
// A citation is "[" numbers "]" where numbers are one or more items separated by ",",
// ";", "，" or "、", an item being a number from 1 to MaxNumber written without a leading
// zero, or a range "a-b" (hyphen or en dash, a < b, b - a ≤ MaxRange). Spaces (U+0020
// only) are allowed after "[", before "]", and around separators and dashes: "[ 1 ]",
// "[1 , 2]" and "[3 - 5]" are citations.
//
// What the window renders as something else is not a citation, by decision: anything
// inside a fenced code block or an inline code span; a bracket escaped with a backslash
// ("\[1]", "[1\]"; the window renders an escaped bracket apart from the text around it);
// links and images: the text and destination of "[1](url)", "[see [2]](url)" and
// "![alt [3]](src)" (with a valid destination and a closing parenthesis; "[1](" is a
// citation), a reference "[text][1]" or "[1]" whose label a link reference definition
// ("[1]: url" at the start of a line, not inside a paragraph) defines, and that
// definition itself; autolinks ("<https://a.example/[1]>") and bare URLs, which run to
// the next space ("https://a.example/x[1]"); footnotes "[^1]"; and any other bracketed
// text ("[Page 3]", "[1a]", "[]", "[1 2]").
//
// Known differences from the window, which renders Markdown fully: indented code blocks
// are not recognized (their brackets count; in a model's Markdown an indent is far more
// often a nested list), nor raw HTML (a citation inside "<a>…</a>" may count here) or
// character references ("&#91;1]" is no citation here).
//
// The window finds citations by the same rule (frontend/src/sources/citations.ts, on the rendered
// Markdown): testdata/citations.json holds the cases both sides' tests check.
func Citations(text string) []Citation {
	// Link reference definitions first: the renderer makes links, not citations, of the
	// brackets whose label one defines, wherever they are.
	defs := map[string]bool{}
	defLines := map[int]bool{}
	prevDef := false
	for line := range linesOutsideCode(text) {
		label, ok := definition(line.text)
		// A definition cannot interrupt a paragraph.
		ok = ok && (line.afterBreak || prevDef || isHeading(line.prev))
		if ok {
			defs[label] = true
			defLines[line.start] = true
		}
		prevDef = ok
	}
	var out []Citation
	for line := range linesOutsideCode(text) {
		if !defLines[line.start] {
			out = append(out, lineCitations(line.text, line.start, defs)...)
		}
	}
	return out
}

// codeLine is one line of a text outside fenced code: text without its line break, start
// its offset, prev the line before it ("" for the first), afterBreak whether it starts
// the text or follows a blank line or a fence.
type codeLine struct {
	text, prev string
	start      int
	afterBreak bool
}

// linesOutsideCode yields the lines of text outside fenced code blocks (their fences
// excluded).
func linesOutsideCode(text string) iter.Seq[codeLine] {
	return func(yield func(codeLine) bool) {
		fence := "" // the open fence's marker run, "" outside a fenced block
		off := 0
		prev, afterBreak := "", true
		for line := range strings.Lines(text) {
			start := off
			off += len(line)
			body := strings.TrimRight(line, "\r\n")
			if marker, ok := fenceMarker(body); ok {
				switch {
				case fence == "":
					fence = marker
					continue
				case closesFence(body, marker, fence):
					fence = ""
					prev, afterBreak = "", true
					continue
				}
			}
			if fence != "" {
				continue
			}
			if !yield(codeLine{text: body, prev: prev, start: start, afterBreak: afterBreak}) {
				return
			}
			prev, afterBreak = body, strings.TrimSpace(body) == ""
		}
	}
}

// isHeading reports whether line is an ATX heading ("# Title", up to three spaces before).
func isHeading(line string) bool {
	t := strings.TrimLeft(line, " ")
	return len(line)-len(t) <= 3 && strings.HasPrefix(t, "#")
}

// fenceMarker reports whether line opens or closes a fenced code block (up to three
// spaces, then three or more backticks or tildes) and returns the marker run.
func fenceMarker(line string) (string, bool) {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if indent > 3 {
		return "", false
	}
	rest := line[indent:]
	if rest == "" || (rest[0] != '`' && rest[0] != '~') {
		return "", false
	}
	n := len(rest) - len(strings.TrimLeft(rest, rest[:1]))
	if n < 3 {
		return "", false
	}
	if rest[0] == '`' && strings.Contains(rest[n:], "`") {
		return "", false // an info string may not hold a backtick: this is inline code
	}
	return rest[:n], true
}

// closesFence reports whether line, whose fence marker run is marker, closes the fenced
// block opened by fence: the same character, at least as long, and nothing after it.
func closesFence(line, marker, fence string) bool {
	return marker[0] == fence[0] && len(marker) >= len(fence) &&
		strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), marker[:1])) == ""
}

// lineCitations scans one line outside fenced code; base is its offset in the text and
// defs the labels of the text's link reference definitions (normalized by refLabel).
func lineCitations(line string, base int, defs map[string]bool) []Citation {
	var out []Citation
	var p pairs // computed when the line has a bracket
	for i := 0; i < len(line); {
		switch line[i] {
		case '\\':
			i += 2 // an escaped character is literal
			continue
		case '`':
			i = skipCode(line, i)
			continue
		case '<':
			if end, ok := autolink(line, i); ok {
				i = end
				continue
			}
		case '[':
			if p == nil {
				p = matchPairs(line)
			}
			if end, ok := link(line, i, p, defs); ok {
				i = end // link text, link destination or reference: a link, not a citation
				continue
			}
			nums, end, ok := parseGroup(line, i)
			if !ok {
				i++
				continue
			}
			out = append(out, Citation{Start: base + i, End: base + end, Numbers: nums})
			i = end
			continue
		default:
			if end, ok := bareURL(line, i); ok {
				i = end
				continue
			}
		}
		i++
	}
	return out
}

// skipCode returns the index after the code span that starts at s[i] == '`', or after
// the run of backticks when it is not closed (then it is literal).
func skipCode(s string, i int) int {
	n := runOf(s, i, '`')
	if end := closingRun(s, i+n, n); end >= 0 {
		return end + n
	}
	return i + n
}

// pairs maps the index of each '[' and '(' of a line to the index of the ']' or ')'
// that closes it (nested pairs balanced, escaped characters and code spans skipped).
type pairs map[int]int

// matchPairs computes the pairs of line in one pass.
func matchPairs(line string) pairs {
	out := pairs{}
	var brackets, parens []int
	for j := 0; j < len(line); {
		switch line[j] {
		case '\\':
			j += 2
			continue
		case '`':
			j = skipCode(line, j)
			continue
		case '[':
			brackets = append(brackets, j)
		case ']':
			if n := len(brackets); n > 0 {
				out[brackets[n-1]] = j
				brackets = brackets[:n-1]
			}
		case '(':
			parens = append(parens, j)
		case ')':
			if n := len(parens); n > 0 {
				out[parens[n-1]] = j
				parens = parens[:n-1]
			}
		}
		j++
	}
	return out
}

// closing returns the index of what closes the '[' or '(' at s[i], or -1.
func (p pairs) closing(i int) int {
	if j, ok := p[i]; ok {
		return j
	}
	return -1
}

// link reports whether the '[' at s[i] opens a Markdown link or image text the renderer
// makes a link of, and returns the index after the link: an inline link "[text](dest
// "title")" (an empty or valid destination and title, see linkTail), a full reference
// "[text][label]" or "[text][]", or a shortcut reference "[label]", whose label defs
// holds. p holds the pairs of s.
func link(s string, i int, p pairs, defs map[string]bool) (int, bool) {
	j := p.closing(i)
	if j < 0 {
		return 0, false
	}
	text := s[i+1 : j]
	if j+1 < len(s) && s[j+1] == '(' {
		if k := p.closing(j + 1); k >= 0 {
			return k + 1, linkTail(s[j+2:k], true)
		}
		return 0, false
	}
	if j+1 < len(s) && s[j+1] == '[' {
		if k := strings.IndexAny(s[j+2:], "[]"); k >= 0 && s[j+2+k] == ']' {
			label := s[j+2 : j+2+k]
			if strings.TrimSpace(label) == "" {
				label = text
			}
			if defs[refLabel(label)] {
				return j + 3 + k, true
			}
		}
	}
	if !strings.ContainsAny(text, "[]") && defs[refLabel(text)] {
		return j + 1, true
	}
	return 0, false
}

// definition reports whether line is a link reference definition, "[label]: dest" with an
// optional title (up to three spaces before it), and returns its label (refLabel).
func definition(line string) (string, bool) {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if indent > 3 || !strings.HasPrefix(line[indent:], "[") {
		return "", false
	}
	rest := line[indent:]
	j := strings.IndexAny(rest[1:], "[]")
	if j < 0 || rest[1+j] != ']' || !strings.HasPrefix(rest[2+j:], ":") || strings.TrimSpace(rest[1:1+j]) == "" {
		return "", false
	}
	if !linkTail(strings.TrimLeft(rest[3+j:], " "), false) {
		return "", false
	}
	return refLabel(rest[1 : 1+j]), true
}

// linkTail reports whether s is what may follow a link's text inside "(...)" or a
// definition's colon: a destination ("<...>" or a run without spaces; empty only when
// allowEmpty), then optionally spaces and a title ("...", '...' or (...)), then only
// spaces.
func linkTail(s string, allowEmpty bool) bool {
	s = strings.Trim(s, " \t")
	if s == "" {
		return allowEmpty
	}
	var rest string
	if s[0] == '<' {
		end := strings.IndexByte(s, '>')
		if end < 0 || strings.ContainsAny(s[1:end], "<\n") {
			return false
		}
		rest = s[end+1:]
	} else {
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			return true
		}
		rest = s[end:]
	}
	if rest == "" {
		return true
	}
	title := strings.TrimLeft(rest, " \t")
	if len(title) == len(rest) || len(title) < 2 {
		return false // a title must follow spaces
	}
	closing := map[byte]byte{'"': '"', '\'': '\'', '(': ')'}[title[0]]
	return closing != 0 && title[len(title)-1] == closing
}

// refLabel normalizes a link label as Markdown compares them: trimmed, runs of spaces as
// one, case folded.
func refLabel(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// autolink reports whether s[i] == '<' opens an autolink, "<scheme:...>" with no spaces
// or '<' inside, and returns the index after its '>'.
func autolink(s string, i int) (int, bool) {
	j := i + 1
	for j < len(s) && (isLetter(s[j]) || (j > i+1 && (isDigit(s[j]) || strings.IndexByte("+.-", s[j]) >= 0))) {
		j++
	}
	if n := j - i - 1; n < 2 || n > 32 || j >= len(s) || s[j] != ':' {
		return 0, false
	}
	for k := j + 1; k < len(s); k++ {
		switch c := s[k]; {
		case c == '>':
			return k + 1, true
		case c == '<' || c <= ' ':
			return 0, false
		}
	}
	return 0, false
}

// bareURL reports whether a bare URL the renderer turns into a link (GFM: "https://",
// "http://", "ftp://" or "www." and a host) starts at s[i], and returns the index of the
// space or '<' that ends it (brackets are part of it: "https://a.example/x[1]").
func bareURL(s string, i int) (int, bool) {
	if c := s[i]; c != 'h' && c != 'f' && c != 'w' {
		return 0, false
	}
	rest := s[i:]
	var after string
	for _, p := range []string{"https://", "http://", "ftp://", "www."} {
		if a, ok := strings.CutPrefix(rest, p); ok {
			after = a
			break
		}
	}
	if after == "" || !(isLetter(after[0]) || isDigit(after[0]) || after[0] == '-') {
		return 0, false
	}
	end := strings.IndexAny(rest, " \t<")
	if end < 0 {
		return len(s), true
	}
	return i + end, true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// runOf returns the length of the run of c starting at s[i].
func runOf(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// closingRun returns the index of the next run of exactly n backticks at or after from,
// or -1.
func closingRun(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := runOf(s, i, '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// parseGroup reads a citation group starting at s[i] == '['. It returns the numbers, the
// index just after the closing ']', and whether the group is a citation.
func parseGroup(s string, i int) ([]int, int, bool) {
	j := i + 1
	var nums []int
	for {
		j = skipSpaces(s, j)
		lo, k, ok := number(s, j)
		if !ok {
			return nil, 0, false
		}
		j = k
		if d := skipSpaces(s, j); dash(s, d) > 0 {
			hi, k, ok := number(s, skipSpaces(s, d+dash(s, d)))
			if !ok || hi <= lo || hi-lo > MaxRange {
				return nil, 0, false
			}
			for n := lo; n <= hi; n++ {
				nums = append(nums, n)
			}
			j = k
		} else {
			nums = append(nums, lo)
		}
		j = skipSpaces(s, j)
		if j >= len(s) {
			return nil, 0, false
		}
		if s[j] == ']' {
			return nums, j + 1, true
		}
		size := separator(s, j)
		if size == 0 {
			return nil, 0, false
		}
		j += size
	}
}

// number reads a number from 1 to MaxNumber without a leading zero at s[i].
func number(s string, i int) (int, int, bool) {
	if i >= len(s) || s[i] < '1' || s[i] > '9' {
		return 0, 0, false
	}
	n := 0
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		n = n*10 + int(s[j]-'0')
		j++
		if n > MaxNumber {
			return 0, 0, false
		}
	}
	return n, j, true
}

// dash returns the size in bytes of a range dash at s[i] ("-" or "–"), or 0.
func dash(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == '-' || r == '–' {
		return size
	}
	return 0
}

// separator returns the size of a list separator at s[i] (",", ";", "，" or "、"), or 0.
func separator(s string, i int) int {
	r, size := utf8.DecodeRuneInString(s[i:])
	switch r {
	case ',', ';', '，', '、':
		return size
	}
	return 0
}

// skipSpaces returns the index of the first byte at or after i that is not a space.
func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

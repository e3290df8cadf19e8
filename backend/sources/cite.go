package sources

import (
	"strings"
	"unicode/utf8"
)

// Citation is one bracket group of source numbers in a text: text[Start:End] is the
// group, "[1]", "[1, 2]" or "[3-5]", and Numbers its numbers in written order (a range
// expanded).
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
// ";", "，" or "、" (spaces allowed around them), an item being a number from 1 to
// MaxNumber written without a leading zero, or a range "a-b" (hyphen or en dash, a < b,
// b - a ≤ MaxRange). These are not citations, by decision: anything inside a fenced code
// block or an inline code span; a bracket escaped with a backslash; Markdown link text,
// "[1](url)" (a bracket group followed by "("); a link reference definition, "[1]: url"
// at the start of a line; footnotes "[^1]"; and any other bracketed text ("[Page 3]",
// "[1a]", "[ 1 ]" is allowed but "[]" is not). Indented code blocks are not recognized
// (their brackets count): in a model's Markdown an indent is far more often a nested
// list.
func Citations(text string) []Citation {
	var out []Citation
	fence := "" // the open fence's marker run, "" outside a fenced block
	off := 0
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
				continue
			}
		}
		if fence != "" {
			continue
		}
		out = append(out, lineCitations(body, start)...)
	}
	return out
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

// lineCitations scans one line outside fenced code; base is its offset in the text.
func lineCitations(line string, base int) []Citation {
	var out []Citation
	lead := len(line) - len(strings.TrimLeft(line, " \t"))
	for i := 0; i < len(line); {
		switch line[i] {
		case '\\':
			i += 2 // an escaped character is literal
			continue
		case '`':
			n := runOf(line, i, '`')
			if end := closingRun(line, i+n, n); end >= 0 {
				i = end + n // skip the code span
			} else {
				i += n
			}
			continue
		case '[':
			nums, end, ok := parseGroup(line, i)
			if !ok {
				i++
				continue
			}
			next := byte(0)
			if end < len(line) {
				next = line[end]
			}
			if next == '(' || (next == ':' && i == lead) {
				i = end
				continue
			}
			out = append(out, Citation{Start: base + i, End: base + end, Numbers: nums})
			i = end
			continue
		}
		i++
	}
	return out
}

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
		if size := dash(s, j); size > 0 {
			hi, k, ok := number(s, j+size)
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

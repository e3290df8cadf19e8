package localfiles

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"artifactflow/backend/store"
)

// Chunk sizes, in bytes of text. A chunk ends at a line end once it holds minChunk bytes
// and before it would pass maxChunk; a single line longer than maxChunk is cut (at a space
// when there is one in its second half, else at a character boundary).
const (
	minChunk = 2 << 10
	maxChunk = 4 << 10
)

// chunkText cuts text into the chunks the index stores (store.FileChunk, Terms filled):
// concatenated in order they are text. Line is the 1-based line each starts on. With
// paged set (PDF text), a line "[Page N]" starts a new chunk and sets the page of what
// follows to N; otherwise Page is 0. It also returns the number of lines of text.
func chunkText(text string, paged bool) ([]store.FileChunk, int) {
	var out []store.FileChunk
	var cur strings.Builder
	line, start, page := 1, 1, 0
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		t := cur.String()
		out = append(out, store.FileChunk{Line: start, Page: page, Text: t, Terms: Terms(t)})
		cur.Reset()
	}
	for rest := text; rest != ""; {
		l := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			l = rest[:i+1]
		}
		rest = rest[len(l):]
		if paged {
			if n, ok := pageMarker(l); ok {
				flush()
				page = n
			}
		}
		if cur.Len() > 0 && (cur.Len() >= minChunk && cur.Len()+len(l) > maxChunk || cur.Len()+len(l) > 2*maxChunk) {
			flush()
		}
		if cur.Len() == 0 {
			start = line
		}
		for len(l) > maxChunk { // an overlong line: cut it into pieces of its own
			flush()
			start = line
			cut := cutAt(l, maxChunk)
			cur.WriteString(l[:cut])
			flush()
			start = line
			l = l[cut:]
		}
		cur.WriteString(l)
		if strings.HasSuffix(l, "\n") {
			line++
		}
	}
	flush()
	lines := line - 1
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	return out, lines
}

// cutAt returns where to cut s (longer than n bytes) so that the first part has at most n
// bytes: after the last space in s[n/2:n] when there is one, else at the last character
// boundary at or before n.
func cutAt(s string, n int) int {
	if i := strings.LastIndexByte(s[n/2:n], ' '); i >= 0 {
		return n/2 + i + 1
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if n == 0 { // not UTF-8 at all; any cut will do
		return len(s) / 2
	}
	return n
}

// pageMarker reports whether line (with or without its line end) is a page marker of PDF
// text, "[Page N]" on a line of its own, and returns N.
func pageMarker(line string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "[Page ")
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(rest, "]")
	if !ok || digits == "" || len(digits) > 6 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n > 0
}

package localfiles

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"artifactflow/backend/store"
)

// Chinese, Japanese and Korean text has no spaces between words, and FTS5's unicode61
// tokenizer keeps a whole run of such characters as one token, so a two-character word
// inside a sentence would never match. Both the indexed text and the query are therefore
// rewritten before FTS5 sees them (Terms, matchExpr): every run of CJK characters becomes
// its overlapping two-character pieces followed by its last character, as separate tokens:
//
//	数据库 -> 数据 据库 库
//
// A query of two or more CJK characters is the phrase of its pieces ("数据 据库": the pieces
// at consecutive positions, i.e. the run itself), one character a prefix query ("库"*:
// any piece that starts with it, or a run's last character). Other text passes unchanged
// to unicode61 (with porter stemming and case and diacritic folding).
//
// The alternative, FTS5's trigram tokenizer, matches any substring of three or more
// characters, but a two-character query (数据, the commonest length of a Chinese word)
// cannot use its index and must scan every chunk with LIKE. Measured on 100 MB of mixed
// English and Chinese text in 3 KB chunks (this machine, go-sqlite3 with SQLite 3.54):
// trigram indexing took 78 s and 477 MB on disk, a two-character LIKE query 104 ms
// (unranked); these pieces over unicode61 took 15 s and 213 MB (text included), the same
// query 0.5 ms for every match and 4.8 ms for the best 8 by bm25.

// isCJK reports whether r is written without spaces between words: Han ideographs
// (with 々 〆 〇), Hiragana, Katakana (with ー and the half-width forms) and Hangul.
func isCJK(r rune) bool {
	switch {
	case r < 0x3005:
		return false
	case r <= 0x3007: // 々 〆 〇
		return true
	case r >= 0x3040 && r <= 0x30FF, // Hiragana, Katakana (ー included)
		r >= 0x31F0 && r <= 0x31FF,   // Katakana phonetic extensions
		r >= 0x3400 && r <= 0x4DBF,   // CJK extension A
		r >= 0x4E00 && r <= 0x9FFF,   // CJK unified ideographs
		r >= 0xAC00 && r <= 0xD7AF,   // Hangul syllables
		r >= 0x1100 && r <= 0x11FF,   // Hangul jamo
		r >= 0x3130 && r <= 0x318F,   // Hangul compatibility jamo
		r >= 0xF900 && r <= 0xFAFF,   // CJK compatibility ideographs
		r >= 0xFF66 && r <= 0xFF9F,   // half-width Katakana
		r >= 0x20000 && r <= 0x3FFFF: // CJK extensions B and later
		return r != 0x30FB // ・ (the Katakana middle dot) separates words
	}
	return false
}

// Terms returns text as the full-text index is given it: every run of CJK characters
// written as its overlapping two-character pieces and its last character, separated by
// spaces; everything else as it is.
func Terms(text string) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/2)
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			// ASCII runs go through in one piece.
			j := i + 1
			for j < len(text) && text[j] < utf8.RuneSelf {
				j++
			}
			b.WriteString(text[i:j])
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isCJK(r) {
			b.WriteString(text[i : i+n])
			i += n
			continue
		}
		// A CJK run: prev is the previous character of the run.
		b.WriteByte(' ')
		prev, prevN := r, n
		i += n
		for i < len(text) {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !isCJK(r) {
				break
			}
			b.WriteString(text[i-prevN : i])
			b.WriteString(text[i : i+n])
			b.WriteByte(' ')
			prev, prevN = r, n
			i += n
		}
		b.WriteRune(prev)
		b.WriteByte(' ')
	}
	return b.String()
}

// termExpr returns the FTS5 expression of one query term: its CJK runs and its other
// parts, each as a quoted string, joined with AND. A CJK run of two or more characters is
// the phrase of its two-character pieces, one character a prefix query. It returns "" for
// a term with nothing to search.
func termExpr(term string) string {
	var parts []string
	rs := []rune(term)
	for i := 0; i < len(rs); {
		j := i
		if isCJK(rs[i]) {
			for j < len(rs) && isCJK(rs[j]) {
				j++
			}
			run := rs[i:j]
			if len(run) == 1 {
				parts = append(parts, quote(string(run))+"*")
			} else {
				pieces := make([]string, 0, len(run)-1)
				for k := 0; k+1 < len(run); k++ {
					pieces = append(pieces, string(run[k:k+2]))
				}
				parts = append(parts, quote(strings.Join(pieces, " ")))
			}
		} else {
			for j < len(rs) && !isCJK(rs[j]) {
				j++
			}
			if other := string(rs[i:j]); strings.ContainsFunc(other, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
				parts = append(parts, quote(other))
			}
		}
		i = j
	}
	return strings.Join(parts, " AND ")
}

// matchExprs returns the FTS5 expressions for query, split into terms by store.QueryTerms
// (the splitter conversation search uses too): every term required (all), and, for a
// query of several terms, any term (any; "" otherwise). Both are "" when the query has
// nothing to search. Every term is quoted and free of control characters, so FTS5 syntax
// in a query (AND, NEAR, *, column:, ^, quotes, parentheses) is searched for as text and
// never fails.
func matchExprs(query string) (all, any string) {
	var exprs []string
	for _, t := range store.QueryTerms(query) {
		if e := termExpr(t); e != "" {
			exprs = append(exprs, "("+e+")")
		}
	}
	if len(exprs) == 0 {
		return "", ""
	}
	all = strings.Join(exprs, " AND ")
	if len(exprs) > 1 {
		any = strings.Join(exprs, " OR ")
	}
	return all, any
}

// quote quotes s as an FTS5 string, doubling inner quotes.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

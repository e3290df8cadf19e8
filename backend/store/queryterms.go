package store

import (
	"strings"
	"unicode"
)

// MaxQueryTerms is the most terms QueryTerms keeps of one query.
const MaxQueryTerms = 16

// QueryTerms splits a search query into terms. It is the one splitter of the app's
// full-text searches: SearchConversations here, and the local-file search of
// backend/localfiles.
//
//   - White space, control characters and CJK punctuation separate terms. CJK
//     punctuation is what Chinese and Japanese text uses where other languages use
//     spaces: the punctuation (not the symbols) of the CJK Symbols and Punctuation block
//     and of the full-width and half-width forms (，。、；：？！「」（）【】《》 …), and the
//     Katakana middle dot ・ (ジョン・スミス). Symbols there (￥ ＋ ～ 〒) stay part of a
//     term, as their ASCII counterparts do.
//   - Text in double quotes ("…", or “…”) is one term; a control character in it becomes
//     a space. An unpaired quote runs to the end of the query.
//   - Terms without a letter or digit are dropped, as are repeated terms (ignoring case);
//     at most MaxQueryTerms are kept.
//
// The terms hold no control character, which FTS5 cannot parse even inside a quoted
// string (a NUL ends it: "unterminated string").
func QueryTerms(query string) []string {
	var terms []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.TrimSpace(t)
		if t == "" || !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			return
		}
		if k := strings.ToLower(t); !seen[k] && len(terms) < MaxQueryTerms {
			seen[k] = true
			terms = append(terms, t)
		}
	}
	var cur strings.Builder
	quoted := false
	for _, r := range query {
		switch {
		case r == '"' || r == '“' || r == '”':
			add(cur.String())
			cur.Reset()
			quoted = !quoted
		case quoted && unicode.IsControl(r):
			cur.WriteByte(' ')
		case !quoted && (unicode.IsSpace(r) || unicode.IsControl(r) || IsCJKPunct(r)):
			add(cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	add(cur.String())
	return terms
}

// IsCJKPunct reports whether r separates words in Chinese or Japanese text the way a
// space does elsewhere (see QueryTerms): punctuation of the CJK Symbols and Punctuation
// block (U+3000-U+303F) or of the full-width and half-width forms (U+FF00-U+FFEF), or the
// Katakana middle dot U+30FB.
func IsCJKPunct(r rune) bool {
	return r == 0x30FB || unicode.IsPunct(r) && ((r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF))
}

package declared

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Unsafe display text (title, description and metadata are plain text; the app also
// refuses what would be dangerous if some client rendered them as HTML or turned them
// into links). checkText returns "" for safe text, else why it is refused.
//
// Refused, in this order:
//   - invalid UTF-8;
//   - ASCII and C1 control characters (U+0000–U+001F, U+007F–U+009F); with breaks,
//     line feed, carriage return and tab are allowed (description only);
//   - U+2028 and U+2029 (line and paragraph separators);
//   - bidirectional controls: U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069;
//   - HTML markup: "<" followed by a letter, "/", "!" or "?" (what an HTML tokenizer takes
//     for a tag, end tag, comment or processing instruction); "a < b" is fine;
//   - entity-encoded markup: a numeric character reference of "<" (&#60; &#x3C; with
//     any zero padding, with or without ";"), or text whose entity-decoded form (decoded up
//     to three times, so &amp;lt;script is caught too) holds markup;
//   - a javascript: or vbscript: URL, or a data: URL ("data:" followed by an optional
//     media type and "," or ";"), also when spelled with tabs or line breaks inside or
//     with entities; the scheme must start a word, so "metadata: x" and "Our data: 5 rows"
//     are fine while "JavaScript: The Good Parts" is refused (a javascript: URL as far as
//     a browser is concerned).
func checkText(s string, breaks bool) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			if !breaks {
				return "must be one line without control characters"
			}
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return "must not contain control characters"
		case r == 0x2028 || r == 0x2029:
			return "must not contain line or paragraph separators (U+2028, U+2029)"
		case isBidiControl(r):
			return "must not contain bidirectional control characters"
		}
	}
	if hasMarkup(s) {
		return "must not contain HTML markup"
	}
	if reNumericLT.MatchString(s) {
		return "must not contain entity-encoded markup"
	}
	if u := scriptURL(s); u != "" {
		return "must not contain a " + u + " URL"
	}
	prev := s
	for range 3 {
		dec := html.UnescapeString(prev)
		if dec == prev {
			break
		}
		if hasMarkup(dec) || reNumericLT.MatchString(dec) {
			return "must not contain entity-encoded markup"
		}
		if u := scriptURL(dec); u != "" {
			return "must not contain a " + u + " URL"
		}
		prev = dec
	}
	return ""
}

// isBidiControl reports the bidirectional formatting characters refused in display text.
func isBidiControl(r rune) bool {
	return r == 0x200e || r == 0x200f || r == 0x061c || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// hasMarkup reports "<" followed by an ASCII letter, "/", "!" or "?".
func hasMarkup(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		c := s[i+1]
		if (c|0x20 >= 'a' && c|0x20 <= 'z') || c == '/' || c == '!' || c == '?' {
			return true
		}
	}
	return false
}

var (
	// reNumericLT matches a numeric character reference of "<" (U+003C).
	reNumericLT = regexp.MustCompile(`(?i)&#(0*60([^0-9]|$)|x0*3c([^0-9a-f]|$))`)
	// reScriptURL matches a javascript: or vbscript: scheme starting a word.
	reScriptURL = regexp.MustCompile(`(?i)(^|[^a-z0-9+.\-])(javascript|vbscript):`)
	// reDataURL matches a data: URL: the scheme starting a word, an optional media type,
	// then the "," or ";" every data: URL has.
	reDataURL = regexp.MustCompile(`(?i)(^|[^a-z0-9+.\-])data:[ ]*([a-z0-9!#$&^_.+\-]+/[a-z0-9!#$&^_.+\-]+)?[ ]*[;,]`)
)

// urlSpace drops what a browser ignores inside a URL.
var urlSpace = strings.NewReplacer("\t", "", "\n", "", "\r", "")

// scriptURL returns "javascript:", "vbscript:" or "data:" when s holds such a URL (after
// dropping the tabs and line breaks a browser ignores inside a URL), else "".
func scriptURL(s string) string {
	t := s
	if strings.ContainsAny(s, "\t\n\r") {
		t = urlSpace.Replace(s)
	}
	if m := reScriptURL.FindStringSubmatch(t); m != nil {
		return strings.ToLower(m[2]) + ":"
	}
	if reDataURL.MatchString(t) {
		return "data:"
	}
	return ""
}

// hasControl reports ASCII or C1 control characters, line or paragraph separators,
// bidirectional controls, or invalid UTF-8 (for locators, which are not display text but
// are shown).
func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 || isBidiControl(r) {
			return true
		}
	}
	return false
}

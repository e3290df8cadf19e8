package cli

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// This file holds the output filters every command uses for text that came from a model
// or a server: terminal control sequences are removed from human-readable output, and
// C1 controls are escaped in JSON output.

// termSafe writes to w with terminal control sequences and characters removed
// (stripControls), so that text from a model or a server cannot drive the terminal it is
// shown on. Each Write is cleaned on its own: a sequence split across two Writes loses
// its control bytes all the same, leaving at most harmless printable text.
type termSafe struct{ w io.Writer }

// Write writes p without its control sequences and reports len(p) on success.
func (t termSafe) Write(p []byte) (int, error) {
	if _, err := t.w.Write(stripControls(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// jsonSafe writes JSON text to w with DEL and C1 controls (U+007F-U+009F), which
// encoding/json leaves raw inside strings, written as \u007f-\u009f escapes instead: the
// JSON decodes to the same value, and a terminal shown it meets no 8-bit CSI or OSC.
// Every Write must hold whole runes, as json.Encoder's one Write per value does.
type jsonSafe struct{ w io.Writer }

// Write writes p with DEL and C1 controls escaped and reports len(p) on success.
func (j jsonSafe) Write(p []byte) (int, error) {
	if _, err := j.w.Write(escapeJSONControls(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeJSONControls replaces DEL and the UTF-8 encodings of U+0080-U+009F in JSON text
// with \u escapes. They can only occur inside strings: JSON's own syntax is ASCII.
func escapeJSONControls(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		var r byte
		switch {
		case b[i] == 0x7f:
			r = 0x7f
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			r = b[i+1]
		default:
			continue
		}
		out = append(out, b[last:i]...)
		out = fmt.Appendf(out, `\u%04x`, r)
		if r != 0x7f {
			i++
		}
		last = i + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// C1 controls (U+0080-U+009F, or raw bytes 0x80-0x9F) with a meaning beyond themselves.
const (
	c1DCS = 0x90 // device control string
	c1SOS = 0x98 // start of string
	c1CSI = 0x9b // control sequence introducer
	c1ST  = 0x9c // string terminator
	c1OSC = 0x9d // operating system command
	c1PM  = 0x9e // privacy message
	c1APC = 0x9f // application program command
)

// stripControls returns b without terminal control sequences and control characters,
// keeping all other text, \n and \t:
//   - ESC sequences: CSI (ESC [ parameters intermediates final), the strings OSC, DCS,
//     SOS, PM and APC (ESC ] P X ^ _ up to BEL or ST, or up to CAN, SUB, ESC or the end
//     when unterminated), escape sequences with intermediates (ESC ( B), two-character
//     escapes (ESC c, ESC 7), and a lone ESC;
//   - C1 controls, as UTF-8 (U+0080-U+009F) or as raw bytes: 8-bit CSI and the 8-bit
//     string introducers with what they introduce, others alone;
//   - other C0 controls (\r included) and DEL.
//
// Invalid UTF-8 bytes outside 0x80-0x9F become U+FFFD. b itself is returned when it
// holds nothing to remove.
func stripControls(b []byte) []byte {
	if clean(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f):
			out = append(out, c)
			i++
		case c == 0x1b:
			i = skipEscape(b, i+1)
		case c < 0x80: // other C0 controls and DEL
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			switch {
			case r == utf8.RuneError && size == 1 && c >= 0x80 && c <= 0x9f: // raw 8-bit C1
				i = skipC1(b, i+1, c)
			case r >= 0x80 && r <= 0x9f:
				i = skipC1(b, i+size, byte(r))
			case r == utf8.RuneError && size == 1:
				out = utf8.AppendRune(out, utf8.RuneError)
				i++
			default:
				out = append(out, b[i:i+size]...)
				i += size
			}
		}
	}
	return out
}

// clean reports whether b is valid UTF-8 without control characters other than \n and
// \t, which stripControls leaves as it is.
func clean(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 || r <= 0x9f {
			return false
		}
		i += size
	}
	return true
}

// skipEscape returns the index after the escape sequence whose ESC is just before b[i].
func skipEscape(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch c := b[i]; {
	case c == '[':
		return skipCSI(b, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(b, i+1)
	case c >= 0x20 && c <= 0x2f: // intermediates, then one final byte
		for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
			i++
		}
		if i < len(b) && b[i] >= 0x30 && b[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e: // two-character escape
		return i + 1
	default: // a lone ESC: what follows is handled on its own
		return i
	}
}

// skipC1 returns the index after the C1 control c whose encoding ends just before b[i],
// including the sequence or string it introduces.
func skipC1(b []byte, i int, c byte) int {
	switch c {
	case c1CSI:
		return skipCSI(b, i)
	case c1OSC, c1DCS, c1SOS, c1PM, c1APC:
		return skipString(b, i)
	default:
		return i
	}
}

// skipCSI returns the index after the control sequence whose introducer ends just before
// b[i]: parameter and intermediate bytes (0x20-0x3F), then a final byte (0x40-0x7E). A
// sequence cut short by any other byte ends before it.
func skipCSI(b []byte, i int) int {
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x3f {
		i++
	}
	if i < len(b) && b[i] >= 0x40 && b[i] <= 0x7e {
		i++
	}
	return i
}

// skipString returns the index after the control string whose introducer ends just
// before b[i]: it ends with BEL or ST (ESC and a backslash, or C1 ST as UTF-8 or as a
// raw byte), both consumed, or before CAN, SUB or another ESC, or at the end of b. UTF-8
// in the string is skipped whole, so a continuation byte 0x9C is not taken for ST.
func skipString(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		switch {
		case c == 0x07:
			return i + 1
		case c == 0x1b:
			if i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
			return i
		case c == 0x18 || c == 0x1a:
			return i + 1
		case c < 0x80:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == c1ST || (r == utf8.RuneError && size == 1 && c == c1ST) {
				return i + size
			}
			i += size
		}
	}
	return i
}

// Package export turns an artifact version into a file the user can keep:
// Markdown (.md), a standalone HTML5 page (.html) and a Word document (.docx).
//
// It implements the export entry point: the caller passes the last flushed
// snapshot of an artifact as a Doc and writes the returned bytes wherever the
// user chose. Nothing here does I/O.
//
// Artifact content is untrusted (model output, text copied from web pages), so:
// raw HTML inside Markdown is never passed through (goldmark without
// html.WithUnsafe, and it is omitted from DOCX), characters that XML 1.0 forbids
// are removed before rendering HTML or DOCX, and non-Markdown content (code,
// CSV, HTML, JSON, …) is always shown as escaped text in a code block.
package export

import (
	"bytes"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"artifactflow/backend/sources"
)

// Doc is one artifact version to export.
//
// Title is plain text (not Markdown, not HTML, as a declared artifact's title and
// description are). ContentType is the artifact's content_type as the model wrote
// it: "markdown", "text/markdown", "md" and "" mean Markdown; anything else
// ("python", "text/csv", "html", "application/json", …) is exported as a code
// block whose language is derived from it. Version is the artifact version
// number (0 = unknown, not shown). Exported is the export time (zero = not
// shown); it goes into the HTML footer and the DOCX core properties. Sources is
// the conversation's source list: a Markdown document's [n] citations are
// resolved against it (see Markdown, HTML and DOCX); nil = no references.
// Diagrams maps the source of a ```mermaid block (its DiagramKey) to the SVG the
// app's page drew for it; only HTML uses it (see placeDiagrams: the SVG is
// cleaned, a block without a usable one stays its source); Markdown and DOCX keep
// the source; nil = no diagrams.
type Doc struct {
	Title, ContentType, Content string
	Version                     int
	Exported                    time.Time
	Sources                     []sources.Source
	Diagrams                    map[string]string
}

// md is the one Markdown engine for HTML and DOCX: CommonMark + GFM (tables,
// strikethrough, linkify autolinks, task lists) + CJK (no space is inserted at
// a soft line break between two East Asian characters). Raw HTML stays unsafe
// (omitted): html.WithUnsafe is deliberately not set. TeX math is parsed too
// (see mathExtension), and drawn Mermaid diagrams rendered (see diagramExtension). goldmark.Markdown is safe
// for concurrent use.
var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.NewCJK(extension.WithEastAsianLineBreaks()), mathExtension{}, diagramExtension{}),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(linkRelTransformer{}, 1000))),
)

// Markdown returns the Markdown export of d.
//
// Markdown content is returned byte for byte as stored, followed, when it cites
// sources of d.Sources and does not end with the managed Sources section the
// engine keeps (sources.SectionMarker), by a "## References" section listing the
// cited sources in citation order ("- [1] [Title](<URL>) · site · date"; a
// number not in the list gets no line). Any other content type
// becomes "# Title" (Markdown punctuation in the title escaped; omitted when
// the title is blank) followed by the content in a fenced code block tagged
// with the language derived from ContentType; the fence is longer than any
// backtick run in the content, so the content cannot close it early.
func Markdown(d Doc) []byte {
	if isMarkdown(d.ContentType) {
		return []byte(withReferences(d.Content, d.Sources, false))
	}
	var b bytes.Buffer
	b.Grow(len(d.Content) + len(d.Title) + 32)
	if title := oneLine(d.Title); title != "" {
		b.WriteString("# ")
		b.WriteString(escapeMarkdownInline(title))
		b.WriteString("\n\n")
	}
	fence := strings.Repeat("`", max(3, longestRun(d.Content, '`')+1))
	b.WriteString(fence)
	b.WriteString(codeLanguage(d.ContentType))
	b.WriteByte('\n')
	b.WriteString(d.Content)
	if d.Content != "" && !strings.HasSuffix(d.Content, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence)
	b.WriteByte('\n')
	return b.Bytes()
}

// parsed is a Doc prepared for rendering: its cleaned Markdown source, the
// goldmark AST over it, and whether a title heading must be added on top.
type parsed struct {
	title     string // cleaned, single line
	src       []byte
	root      ast.Node
	showTitle bool
}

// parse cleans d (see cleanText) and parses its Markdown export. The title is
// shown above the content unless it is blank or the content already opens with
// a level-1 heading (which is then the visible title; the Doc title is still
// used for <title> and the DOCX core properties).
func parse(d Doc) parsed {
	doc := string(Markdown(Doc{Title: d.Title, ContentType: d.ContentType, Content: d.Content}))
	if isMarkdown(d.ContentType) {
		doc = withReferences(d.Content, d.Sources, true) // [n] → a link to source n
	}
	src := []byte(cleanText(doc))
	root := md.Parser().Parse(text.NewReader(src))
	title := oneLine(cleanText(d.Title))
	h, ok := root.FirstChild().(*ast.Heading)
	return parsed{title: title, src: src, root: root, showTitle: title != "" && !(ok && h.Level == 1)}
}

// isMarkdown reports whether contentType names Markdown. Parameters
// (";charset=utf-8"), case, a "text/" or other media-type prefix and an "x-"
// prefix are ignored; "" counts as Markdown, the artifact default.
func isMarkdown(contentType string) bool {
	switch baseType(contentType) {
	case "", "markdown", "md", "gfm", "commonmark":
		return true
	}
	return false
}

// codeLanguage returns the fenced-code info string for a non-Markdown content
// type: "text/x-python" → "python", "application/ld+json" → "json",
// "text/plain" → "text". It returns "" when the name holds anything but
// [a-z0-9+#._-] or is longer than 32 bytes, so a model-chosen content type can
// never inject Markdown or HTML through the info string.
func codeLanguage(contentType string) string {
	lang := baseType(contentType)
	if i := strings.LastIndexByte(lang, '+'); i >= 0 && i < len(lang)-1 {
		lang = lang[i+1:]
	}
	if lang == "plain" {
		lang = "text"
	}
	if len(lang) > 32 {
		return ""
	}
	for _, c := range lang {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("+#._-", c)) {
			return ""
		}
	}
	return lang
}

// baseType lower-cases contentType and strips parameters, the media-type
// prefix up to '/' and an "x-" prefix.
func baseType(contentType string) string {
	t := strings.ToLower(strings.TrimSpace(contentType))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	if i := strings.LastIndexByte(t, '/'); i >= 0 {
		t = t[i+1:]
	}
	return strings.TrimPrefix(t, "x-")
}

// cleanText makes s safe for XML 1.0 and HTML: CRLF and CR become LF, invalid
// UTF-8 bytes become U+FFFD, and characters XML 1.0 forbids or HTML treats as
// parse errors are removed (C0 controls except tab and LF, DEL, C1 controls,
// U+FFFE, U+FFFF). Returns s itself when nothing needs changing.
func cleanText(s string) string {
	var b strings.Builder
	clean := 0 // s[:clean] is known clean and not yet copied into b
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		keep := true
		var repl string
		switch {
		case r == utf8.RuneError && size == 1:
			keep, repl = false, "\uFFFD"
		case r == '\r':
			keep = false
			if !strings.HasPrefix(s[i+1:], "\n") {
				repl = "\n"
			}
		case !xmlChar(r):
			keep = false
		}
		if !keep {
			if b.Cap() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[clean:i])
			b.WriteString(repl)
			clean = i + size
		}
		i += size
	}
	if b.Cap() == 0 {
		return s
	}
	b.WriteString(s[clean:])
	return b.String()
}

// xmlChar reports whether r is allowed in XML 1.0 content and is not a
// control character (DEL and C1 are legal XML but never meaningful text).
func xmlChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return true
	case r < 0x20, r >= 0x7F && r <= 0x9F:
		return false
	case r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= utf8.MaxRune:
		return true
	}
	return false
}

// oneLine trims s and turns every run of whitespace (newlines included) into
// one space, for titles.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// escapeMarkdownInline backslash-escapes the characters that could start an
// inline construct or close an ATX heading, so a title renders literally.
func escapeMarkdownInline(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>&~#", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// maxFilenameRunes is the longest file-name stem Filename returns.
const maxFilenameRunes = 80

// Filename returns a file name for an export of an artifact titled title,
// with extension ext ("docx" or ".docx"; "" = no extension).
//
// The stem keeps letters (any script, CJK included, with their combining
// marks), digits, '-' and '_'; runs of whitespace become one '_'; everything
// else (path separators, dots, quotes, control characters, emoji) is dropped.
// Leading and trailing '_' and '-' are trimmed, the stem is cut to 80 runes,
// "artifact" replaces an empty stem, and a Windows device name (CON, NUL,
// COM1, …) gets a trailing '_'. The extension keeps ASCII letters and digits.
func Filename(title, ext string) string {
	var b strings.Builder
	n := 0
	pendingSpace := false
	for _, r := range title {
		switch {
		case unicode.IsSpace(r):
			pendingSpace = n > 0
		case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			if pendingSpace {
				b.WriteByte('_')
				n++
				pendingSpace = false
			}
			if n < maxFilenameRunes {
				b.WriteRune(r)
				n++
			}
		}
		if n >= maxFilenameRunes {
			break
		}
	}
	stem := strings.Trim(b.String(), "_-")
	if stem == "" {
		stem = "artifact"
	}
	if isWindowsDeviceName(stem) {
		stem += "_"
	}
	ext = strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, ext)
	if ext == "" {
		return stem
	}
	return stem + "." + ext
}

// isWindowsDeviceName reports whether stem is a name Windows reserves for a
// device in every directory.
func isWindowsDeviceName(stem string) bool {
	switch u := strings.ToUpper(stem); u {
	case "CON", "PRN", "AUX", "NUL":
		return true
	default:
		return len(u) == 4 && (strings.HasPrefix(u, "COM") || strings.HasPrefix(u, "LPT")) && u[3] >= '1' && u[3] <= '9'
	}
}

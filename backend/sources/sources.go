// Package sources is the conversation's numbered source list: every search result, fetched
// page and local-file hit an agent saw gets a number that is stable for the conversation,
// and answers and reports cite those numbers as [n].
//
// The package holds the shapes, the identity of a location (Key), the reading of citations
// out of Markdown (Cited, Citations) and the Markdown line a cited source is listed with
// (Line). It imports nothing of ours: the store persists sources, the engine records them
// (Recorder) and the tools, the export and the app only read them.
package sources

import (
	"context"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kinds of source.
const (
	// KindWeb is a web page or search result; Location is its absolute http(s) URL.
	KindWeb = "web"
	// KindFile is a file of the conversation's workspace; Location is its
	// workspace-relative slash path.
	KindFile = "file"
)

// Source is one entry of a conversation's source list.
//
//   - N is its number: from 1, per conversation, assigned on first record and never
//     changed or reused.
//   - Kind is KindWeb or KindFile; Location an absolute URL (for a fetched page the final
//     URL after redirects) or a workspace-relative slash path.
//   - Title, Site (the host without "www."), Excerpt (a search snippet, or the first ~300
//     characters of a fetched page) and Published (as the provider gave it, "" when
//     unknown) are plain text.
//   - Page and Line locate a file hit (0 = not known).
//   - Fetched is true once the page or file was read, not only listed.
//   - MessageID is the run (message) that first recorded it; AddedAt when (UTC).
//   - Requested is not stored as a field: when a fetch was redirected it is the URL the
//     tool asked for, which the store remembers as another name of the same source, so
//     both URLs keep one number.
type Source struct {
	N         int       `json:"n"`
	Kind      string    `json:"kind"`
	Location  string    `json:"location"`
	Title     string    `json:"title"`
	Site      string    `json:"site"`
	Excerpt   string    `json:"excerpt"`
	Published string    `json:"published"`
	Page      int       `json:"page,omitempty"`
	Line      int       `json:"line,omitempty"`
	Fetched   bool      `json:"fetched"`
	MessageID string    `json:"message_id"`
	AddedAt   time.Time `json:"added_at"`
	Requested string    `json:"-"`
}

// Recorder adds a source to a conversation's list and returns it as stored, with its
// number. The same location (by Key, a redirect's requested URL included) in a
// conversation always gets the same number; numbers start at 1 and never change. The
// engine's implementation also emits the event source_added whose data is the Source.
// Tools treat an error as "no number" and go on.
type Recorder interface {
	Record(ctx context.Context, conversationID string, s Source) (Source, error)
}

// ExcerptRunes is how many characters of a fetched page's text become its excerpt.
const ExcerptRunes = 300

// Key returns the identity of a location within a conversation, the value the store's
// unique index holds. Web URLs are normalized so that trivial variants of one page share
// a number: the scheme (http or https), a "www." prefix, the default port, the fragment,
// a trailing slash, tracking parameters (utm_*, fbclid, gclid, msclkid) and the order of
// query parameters are ignored, and the host is lower-cased. A URL that does not parse
// is its own key, trimmed. A file's key is its cleaned slash path.
func Key(kind, location string) string {
	location = strings.TrimSpace(location)
	if kind == KindFile {
		p := path.Clean("/" + strings.ReplaceAll(location, `\`, "/"))
		return "file:" + strings.TrimPrefix(p, "/")
	}
	u, err := url.Parse(location)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "web:" + location
	}
	host := Site(location)
	if port := u.Port(); port != "" && port != "80" && port != "443" {
		host += ":" + port
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "utm_") || lk == "fbclid" || lk == "gclid" || lk == "msclkid" {
			q.Del(k)
		}
	}
	key := "web:" + host + p
	if enc := q.Encode(); enc != "" {
		key += "?" + enc
	}
	return key
}

// Site returns the host of a URL, lower-cased, without a "www." prefix or a port; "" when
// rawURL has no host.
func Site(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// Excerpt returns the first ExcerptRunes characters of a page's text, for a fetched
// source: page markers ("[Page 2]"), Markdown heading and list marks and runs of
// whitespace are dropped, and a cut text ends at a word boundary with "…".
func Excerpt(text string) string {
	var words []string
	n := 0
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if isPageMarker(line) {
			continue
		}
		line = strings.TrimLeft(line, "#>*-+| ")
		for _, w := range strings.Fields(line) {
			words = append(words, w)
			n += utf8.RuneCountInString(w) + 1
			if n > ExcerptRunes {
				break
			}
		}
		if n > ExcerptRunes {
			break
		}
	}
	s := strings.Join(words, " ")
	if utf8.RuneCountInString(s) <= ExcerptRunes {
		return s
	}
	r := []rune(s)[:ExcerptRunes]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > ExcerptRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRightFunc(cut, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) + "…"
}

// isPageMarker reports whether line is a page marker of PDF text ("[Page 3]").
func isPageMarker(line string) bool {
	rest, ok := strings.CutPrefix(line, "[Page ")
	if !ok {
		return false
	}
	digits, ok := strings.CutSuffix(rest, "]")
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}

// Line renders s for a list of cited sources, in Markdown, without a list mark:
// "[n] [Title](URL) · site · published" for the web (the title falls back to the URL;
// empty parts are left out) and "[n] path (p. 3)" (or "(line 12)") for a file, with no
// link. Title and path are escaped so that text from a page cannot form Markdown of its
// own; a URL that is not http(s) is shown as text, not as a link.
func Line(s Source) string {
	var b strings.Builder
	b.WriteString("[")
	b.WriteString(itoa(s.N))
	b.WriteString("] ")
	if s.Kind == KindFile {
		b.WriteString(EscapeMarkdown(s.Location))
		switch {
		case s.Page > 0:
			b.WriteString(" (p. " + itoa(s.Page) + ")")
		case s.Line > 0:
			b.WriteString(" (line " + itoa(s.Line) + ")")
		}
		return b.String()
	}
	title := oneLine(s.Title)
	if title == "" {
		title = s.Location
	}
	if dest, ok := LinkDestination(s.Location); ok {
		b.WriteString("[" + EscapeMarkdown(title) + "](" + dest + ")")
	} else {
		b.WriteString(EscapeMarkdown(title))
	}
	site := s.Site
	if site == "" {
		site = Site(s.Location)
	}
	for _, part := range []string{site, oneLine(s.Published)} {
		if part != "" {
			b.WriteString(" · " + EscapeMarkdown(part))
		}
	}
	return b.String()
}

// LinkDestination returns rawURL as a Markdown link destination ("<...>", with the
// characters that could end it percent-encoded) and true when it is an absolute http or
// https URL; otherwise "", false.
func LinkDestination(rawURL string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	r := strings.NewReplacer("<", "%3C", ">", "%3E", " ", "%20", "\n", "", "\r", "", "\\", "%5C")
	return "<" + r.Replace(u.String()) + ">", true
}

// EscapeMarkdown backslash-escapes the characters that could start an inline Markdown
// construct (links, emphasis, code, HTML, autolinks), so text from a page renders as the
// same text; line breaks become spaces.
func EscapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		if strings.ContainsRune("\\`*_[]<>()&~#!|", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// oneLine trims s and turns every run of whitespace into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// itoa formats n in decimal.
func itoa(n int) string { return strconv.Itoa(n) }

// SectionMarker is the line that opens the managed Sources section at the end of a
// Markdown report: an HTML comment, which Markdown renderers hide. The engine writes
// the section (the marker, SectionHeading and one line per cited source, "- " + Line)
// and replaces it on every run that changes the report, so there is never more than
// one; exports see it and add no reference list of their own.
const SectionMarker = "<!-- sources -->"

// SectionHeading is the heading line of the managed Sources section of a report written
// in English (or any language but Chinese); SectionHeadingChinese that of a report written
// in Chinese. SectionHeadingFor chooses by the report's own text.
const (
	SectionHeading        = "## Sources"
	SectionHeadingChinese = "## 来源"
)

// SectionHeadingFor returns the Sources heading for a report whose body is body: the
// heading follows the report's language, not the UI's, because the heading is part of
// the document the user exports and shares, and the UI's language may change while the
// stored report stays. body is Chinese when its Han characters are at least a third of
// its Latin letters (a Chinese report quotes English names, terms and URLs; an English
// one seldom has more than a few Han characters).
func SectionHeadingFor(body string) string {
	if IsChinese(body) {
		return SectionHeadingChinese
	}
	return SectionHeading
}

// IsChinese reports whether text is written in Chinese: it has Han characters, at least a
// third as many as Latin letters (see SectionHeadingFor). Only the first 64 KiB are read.
func IsChinese(text string) bool {
	if len(text) > 64<<10 {
		text = text[:64<<10]
	}
	han, latin := 0, 0
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
		case r < 0x80 && unicode.IsLetter(r), unicode.In(r, unicode.Latin) && unicode.IsLetter(r):
			latin++
		}
	}
	return han > 0 && han*3 >= latin
}

// isSourcesHeading reports whether t (a trimmed line) is a Sources heading in either language.
func isSourcesHeading(t string) bool { return t == SectionHeading || t == SectionHeadingChinese }

// SplitSection splits a Markdown document into its body and its managed Sources section.
//
// The section starts at the last line that is exactly SectionMarker (surrounding spaces
// ignored, outside fenced code) and holds the lines the engine writes there: the marker,
// SectionHeading, blank lines and source lines ("- [n] …"). It ends at the first other
// line: text written after the section (a model appending to a report "after the last
// source") is not part of it but of the body, so whoever rewrites the section keeps that
// text. Without a marker line (a model rewrote the report and dropped it), a
// SectionHeading line outside code followed only by blank lines and source lines up to
// the end is the section.
//
// When nothing follows the section, body + section == content. When text follows it,
// body is the text before the section, a blank line, the text after it and a blank line,
// so that body + section is the document with the section moved to the end (section then
// ends with one line break). section is "" when there is none (and body is content).
func SplitSection(content string) (body, section string) {
	type line struct {
		start, end int    // content[start:end] is the line with its line break
		text       string // without the line break
		code       bool   // inside a fenced code block, its fences included
	}
	var lines []line
	fence := ""
	off := 0
	for raw := range strings.Lines(content) {
		text := strings.TrimRight(raw, "\r\n")
		code := fence != ""
		marker, isFence := fenceMarker(text)
		switch {
		case fence != "":
			if isFence && closesFence(text, marker, fence) {
				fence = ""
			}
		case isFence:
			fence = marker
			code = true
		}
		lines = append(lines, line{off, off + len(raw), text, code})
		off += len(raw)
	}
	at := -1 // the index of the section's first line
	for i := len(lines) - 1; i >= 0; i-- {
		if !lines[i].code && strings.TrimSpace(lines[i].text) == SectionMarker {
			at = i
			break
		}
	}
	end := len(lines) // the index of the first line after the section
	if at >= 0 {
		for end = at + 1; end < len(lines) && isSectionLine(lines[end].text); end++ {
		}
	} else {
		// No marker: a heading followed only by section lines up to the end.
		for i := len(lines) - 1; i >= 0 && !lines[i].code; i-- {
			if isSourcesHeading(strings.TrimSpace(lines[i].text)) {
				at = i
				break
			}
			if !isSectionLine(lines[i].text) {
				break
			}
		}
	}
	if at < 0 {
		return content, ""
	}
	from := lines[at].start
	if end == len(lines) {
		return content[:from], content[from:]
	}
	to := lines[end].start
	section = strings.TrimRight(content[from:to], " \t\r\n") + "\n"
	before := strings.TrimRight(content[:from], " \t\r\n")
	after := strings.TrimRight(content[to:], " \t\r\n")
	if before != "" {
		before += "\n\n"
	}
	return before + after + "\n\n", section
}

// isSectionLine reports whether line (without its line break) may stand in the managed
// Sources section after the marker: SectionHeading, a blank line, or a source line as
// the engine writes it, "- [n] " and the rest of Line.
func isSectionLine(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || isSourcesHeading(t) {
		return true
	}
	rest, ok := strings.CutPrefix(t, "- [")
	if !ok {
		return false
	}
	_, j, ok := number(rest, 0)
	return ok && strings.HasPrefix(rest[j:], "] ")
}

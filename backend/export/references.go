package export

import (
	"strconv"
	"strings"

	"artifactflow/backend/sources"
)

// This file gives exports their references: a Markdown document's [n] citations
// are resolved against the conversation's sources (Doc.Sources).

// ReferencesHeading is the heading of the reference list an export adds to a document in
// English (or any language but Chinese), ReferencesHeadingChinese to one in Chinese: like
// the managed Sources section (sources.SectionHeadingFor), the heading follows the
// document's language.
const (
	ReferencesHeading        = "## References"
	ReferencesHeadingChinese = "## 参考来源"
)

// withReferences returns a Markdown document with its references: when the document
// has no managed Sources section (sources.SectionMarker, written by the engine) and its
// body cites numbers found in list, a "## References" section listing them in citation
// order (sources.Line) is appended, under ReferencesHeadingChinese when the body is Chinese
// (sources.IsChinese). With link set, every resolved web citation in the
// body (outside code) becomes a Markdown link to its source, "[[1]](<url>)", one link
// per number ("[1, 2]" becomes "[1][2]"); a file's number and unresolved numbers stay
// plain text. Without a source list the document is returned unchanged.
func withReferences(content string, list []sources.Source, link bool) string {
	if len(list) == 0 {
		return content
	}
	byN := make(map[int]sources.Source, len(list))
	for _, s := range list {
		byN[s.N] = s
	}
	body, section := sources.SplitSection(content)
	var refs []string
	if section == "" {
		for _, n := range sources.Cited(body) {
			if s, ok := byN[n]; ok {
				refs = append(refs, "- "+sources.Line(s))
			}
		}
	}
	out := body
	if link {
		out = linkCitations(body, byN)
	}
	if section != "" {
		return out + section
	}
	if len(refs) == 0 {
		return out
	}
	heading := ReferencesHeading
	if sources.IsChinese(body) {
		heading = ReferencesHeadingChinese
	}
	return strings.TrimRight(out, " \t\r\n") + "\n\n" + heading + "\n\n" + strings.Join(refs, "\n") + "\n"
}

// linkCitations rewrites the citations of body whose numbers resolve to web sources as
// Markdown links (see withReferences).
func linkCitations(body string, byN map[int]sources.Source) string {
	var b strings.Builder
	last := 0
	for _, c := range sources.Citations(body) {
		var group strings.Builder
		linked := false
		for _, n := range c.Numbers {
			label := "[" + strconv.Itoa(n) + "]"
			if dest, ok := sources.LinkDestination(byN[n].Location); ok && byN[n].Kind == sources.KindWeb {
				group.WriteString("[\\" + label[:len(label)-1] + "\\]](" + dest + ")")
				linked = true
			} else {
				group.WriteString("\\" + label[:len(label)-1] + "\\]")
			}
		}
		if !linked {
			continue // nothing resolves: the text stays as written
		}
		b.WriteString(body[last:c.Start])
		b.WriteString(group.String())
		last = c.End
	}
	if last == 0 {
		return body
	}
	b.WriteString(body[last:])
	return b.String()
}

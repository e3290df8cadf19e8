package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Bounds of a title made from a question, in runes.
const (
	// titleMax is the longest title; a longer one is cut, at a word boundary when the
	// text has spaces, and ends with "…".
	titleMax = 60
	// titleShort is a first sentence so short ("Hi.", "Context:") that the next one is
	// taken with it.
	titleShort = 16
)

// QuestionTitle makes a conversation's title from its first question, as the sidebar shows
// it until a better one is written: the question's text without Markdown (headings, list
// and quote markers, emphasis, code and link syntax; a link reads as its text, an image as
// its alt text, HTML tags are dropped, and a code block counts only when there is nothing
// else), its white space collapsed, cut after the first sentence ("?", "!", "." followed by
// a space, or "？", "！", "。"; a first sentence shorter than 16 runes takes the next one
// with it), then bounded to 60 runes (at a word boundary when there is one in the last
// third, with "…"). A trailing "." or "。" is dropped; "?" and "!" stay. Empty when the
// question has no text.
func QuestionTitle(question string) string {
	plain := markdownText(question)
	if plain == "" {
		return ""
	}
	title := firstSentences(plain)
	title = strings.TrimRightFunc(title, func(r rune) bool { return r == '.' || r == '。' || unicode.IsSpace(r) })
	return bound(title, titleMax)
}

// titleFrom makes a conversation title from the first question (QuestionTitle).
func titleFrom(content string) string { return QuestionTitle(content) }

// markdownText is the text a reader sees in Markdown source s, blocks separated by spaces,
// white space collapsed; code blocks only when nothing else has text.
func markdownText(s string) string {
	src := []byte(s)
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var prose, code strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if n.Type() == ast.TypeBlock {
				prose.WriteByte(' ')
			}
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				code.Write(seg.Value(src))
				code.WriteByte(' ')
			}
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			prose.Write(v.Segment.Value(src))
			if v.SoftLineBreak() || v.HardLineBreak() {
				prose.WriteByte(' ')
			}
		case *ast.String:
			prose.Write(v.Value)
		case *ast.AutoLink:
			prose.Write(v.URL(src))
		}
		return ast.WalkContinue, nil
	})
	if t := strings.Join(strings.Fields(prose.String()), " "); t != "" {
		return t
	}
	return strings.Join(strings.Fields(code.String()), " ")
}

// firstSentences is s up to the end of its first sentence, or of its second when the first
// is shorter than titleShort runes; s itself when it has no sentence end before its end.
func firstSentences(s string) string {
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		end := -1
		switch r[i] {
		case '?', '!', '.':
			if i+1 == len(r) || unicode.IsSpace(r[i+1]) {
				end = i + 1
			}
		case '？', '！', '。':
			end = i + 1
		}
		if end < 0 || end == len(r) {
			continue
		}
		if end < titleShort {
			continue // "Hi." or "Context:" alone says nothing: take the next sentence too
		}
		return strings.TrimSpace(string(r[:end]))
	}
	return s
}

// bound cuts s to at most n runes with "…" at the end: at the last space when one falls
// in the last third of the cut, else at n-1 runes.
func bound(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	if i := strings.LastIndexFunc(string(r), unicode.IsSpace); i >= 0 && utf8.RuneCountInString(string(r)[:i]) >= (n*2)/3 {
		r = []rune(string(r)[:i])
	}
	return strings.TrimRightFunc(string(r), func(c rune) bool { return unicode.IsSpace(c) || unicode.IsPunct(c) && c != '?' && c != '!' && c != ')' }) + "…"
}

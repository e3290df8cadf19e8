package localfiles

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// Search limits (the search_files tool's limit parameter).
const (
	DefaultSearchLimit = 8
	MaxSearchLimit     = 20
	// maxPerFile is how many hits one file may give when others match too.
	maxPerFile = 2
	// snippetRunes is the length of a hit's snippet, snippetLead how much of it comes
	// before the match.
	snippetRunes = 240
	snippetLead  = 80
)

// Hit is one place a search found: Path (workspace-relative slash path, or
// "@uploads/<artifact id>" for an upload), Ext (lower-case extension), Line (1-based line of
// the match, or of its chunk when the match is not literal), Page (the PDF page, 0 when the
// file has no pages) and Snippet (plain text around the match, about 240 characters, with
// "…" where it was cut).
type Hit struct {
	Path    string `json:"path"`
	Ext     string `json:"ext"`
	Line    int    `json:"line"`
	Page    int    `json:"page,omitempty"`
	Snippet string `json:"snippet"`
}

// Search finds the places in conversationID's indexed files that contain every word of
// query, best first (bm25), at most limit of them (DefaultSearchLimit when limit <= 0, at
// most MaxSearchLimit), no more than two per file while other files match. When no place
// holds every word, places holding any of them are returned instead.
//
// Query syntax (store.QueryTerms): words separated by spaces (or CJK punctuation, or
// control characters); text in double quotes is a phrase. Chinese and Japanese need no spaces: 数据 finds 数据库 and 大数据. English words
// match their inflections (index finds indexing). Case and diacritics are ignored. FTS
// syntax in a query is searched for as text.
//
// Passages of a workspace file whose path now leads, through a symbolic link, to a hidden
// file or folder, into a dependency folder or outside the folder are left out (showable).
//
// Errors: ErrEmptyQuery (nothing to search for); a database failure. A conversation whose
// files were never indexed has no hits (and no error).
func (ix *Index) Search(ctx context.Context, conversationID, query string, limit int) ([]Hit, error) {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	all, anyOf := matchExprs(query)
	if all == "" {
		return nil, ErrEmptyQuery
	}
	root, err := ix.opts.DB.FileRoot(ctx, conversationID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("localfiles: search: %w", err)
	}
	// A few times limit candidates, so that two per file still fill limit.
	chunks, err := ix.opts.DB.SearchFileChunks(ctx, root.ID, all, 3*limit)
	if err == nil && len(chunks) == 0 && anyOf != "" {
		chunks, err = ix.opts.DB.SearchFileChunks(ctx, root.ID, anyOf, 3*limit)
	}
	if err != nil {
		return nil, fmt.Errorf("localfiles: search for %q: %w", query, err)
	}
	terms := store.QueryTerms(query)
	perFile := map[string]int{}
	shown := map[string]bool{}
	var hits, extra []Hit
	for _, c := range chunks {
		ok, known := shown[c.Path]
		if !known {
			ok = showable(root.Workspace, c.Path)
			shown[c.Path] = ok
		}
		if !ok {
			continue
		}
		h := hitOf(c, terms)
		if perFile[c.Path] >= maxPerFile {
			extra = append(extra, h)
			continue
		}
		perFile[c.Path]++
		hits = append(hits, h)
	}
	hits = append(hits, extra...) // only when fewer files matched than limit
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// showable reports whether the text indexed for path p of the folder ws may be shown now:
// an upload always; a workspace file unless its path, followed through its links now, is
// hidden or in a dependency folder (Resolve: an index written before a link was swapped
// in, or by an older version that followed such links, must not hand out that text) or
// leads outside the folder. A file that is gone keeps its passages until the next pass.
func showable(ws, p string) bool {
	if strings.HasPrefix(p, UploadsDir+"/") {
		return true
	}
	if Excluded(p) {
		return false
	}
	_, _, err := Resolve(ws, p)
	return !errors.Is(err, ErrExcludedTarget) && !errors.Is(err, declared.ErrOutsideWorkspace)
}

// hitOf turns a matching chunk into a hit: the snippet starts a little before the first
// literal occurrence of a term (or of the longest prefix of at least four characters of
// one, for an inflected match), and Line counts the lines before it.
func hitOf(c store.FileChunkHit, terms []string) Hit {
	rs := []rune(c.Text)
	at := -1
	for _, t := range terms {
		if i := findTerm(rs, []rune(t)); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	h := Hit{Path: c.Path, Ext: c.Ext, Line: c.Line, Page: c.Page}
	start := 0
	if at >= 0 {
		h.Line += strings.Count(string(rs[:at]), "\n")
		start = max(0, at-snippetLead)
		// A cut inside a word moves on to the next word when one starts near.
		if start > 0 && !unicode.IsSpace(rs[start-1]) {
			for k := start; k < at && k < start+20; k++ {
				if unicode.IsSpace(rs[k]) {
					start = k + 1
					break
				}
			}
		}
	}
	h.Snippet = snippetAt(rs, start)
	return h
}

// findTerm returns the rune index of the first case-insensitive occurrence in rs of t, or
// of its longest prefix of at least four characters (porter matched an inflection), or -1.
func findTerm(rs, t []rune) int {
	for n := len(t); n >= min(4, len(t)); n-- {
		if i := indexFold(rs, t[:n]); i >= 0 {
			return i
		}
		if n > 0 && isCJK(t[0]) {
			break // CJK terms match literally or not at all
		}
	}
	return -1
}

// indexFold returns the index of the first occurrence of t in rs, comparing runes with
// simple case folding, or -1.
func indexFold(rs, t []rune) int {
	if len(t) == 0 {
		return -1
	}
scan:
	for i := 0; i+len(t) <= len(rs); i++ {
		for j, r := range t {
			if unicode.ToLower(rs[i+j]) != unicode.ToLower(r) {
				continue scan
			}
		}
		return i
	}
	return -1
}

// snippetAt returns about snippetRunes runes of rs from start with every run of white
// space as one space and "…" at cut ends; page markers of PDF text are dropped.
func snippetAt(rs []rune, start int) string {
	var b strings.Builder
	n := 0
	space := false
	end := start
	for end < len(rs) && n < snippetRunes {
		r := rs[end]
		end++
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	s := b.String()
	s = dropMarkers(s)
	if start > 0 {
		s = "…" + s
	}
	if end < len(rs) && strings.TrimSpace(string(rs[end:])) != "" {
		s += "…"
	}
	return s
}

// dropMarkers removes "[Page N]" markers from a one-line snippet.
func dropMarkers(s string) string {
	for {
		i := strings.Index(s, "[Page ")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return s
		}
		if _, ok := pageMarker(s[i : i+j+1]); !ok {
			return s
		}
		s = strings.TrimSpace(s[:i] + strings.TrimPrefix(s[i+j+1:], " "))
	}
}

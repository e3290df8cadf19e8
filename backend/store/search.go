package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Search limits for SearchConversations.
const (
	// DefaultSearchLimit is the number of conversations returned when limit <= 0.
	DefaultSearchLimit = 50
	// MaxSearchLimit is the largest limit; larger ones are lowered to it.
	MaxSearchLimit = 500
	// snippetRunes is the length of a snippet, snippetLead how much of it comes before the
	// first match.
	snippetRunes = 120
	snippetLead  = 30
)

// SearchHit is a conversation found by SearchConversations. Snippet is plain text (no
// markup) of up to about 120 characters around the first place a query term occurs in the
// best-matching title or message of the conversation, with "…" where it was cut; it is ""
// when the query was empty.
type SearchHit struct {
	Conversation
	Snippet string
}

// SearchConversations finds conversations whose title, message text (the user's content and
// the graph_response answer, on every branch) or artifact (title and current content,
// migration 0007) contains every term of query, best match first, at most limit of them
// (DefaultSearchLimit when limit <= 0, at most MaxSearchLimit).
//
// The query is split into terms by QueryTerms: at white space, control characters and CJK
// punctuation (，。、 …); text in double quotes is one term; terms without a letter or
// digit are dropped. Matching is by substring, case- and diacritic-insensitive, through
// the FTS5 trigram index of migration 0002, so Chinese and Japanese need no spaces. Terms are always quoted before they reach
// FTS5, so FTS syntax in a query (AND, NEAR, *, column:, parentheses, quotes) is searched
// for literally and never fails. Terms of one or two characters cannot use the trigram
// index and are matched with LIKE (case-insensitive for ASCII only) over the indexed text.
//
// Ranking: each title, message and artifact is a document (an artifact's title counts as
// a title, its content as an answer); all terms must occur in one document; a
// conversation ranks by its best document (bm25, title weighted 3, question 2, answer 1),
// ties and LIKE-only queries by most recently updated. An empty query, or one of
// punctuation only, returns the most recently updated conversations with empty snippets,
// never an error.
func (db *DB) SearchConversations(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	terms := QueryTerms(query)
	if len(terms) == 0 {
		convs, err := db.ListConversations(ctx, limit, 0)
		if err != nil {
			return nil, fmt.Errorf("store: search conversations: %w", err)
		}
		hits := make([]SearchHit, len(convs))
		for i, c := range convs {
			hits[i] = SearchHit{Conversation: c}
		}
		return hits, nil
	}

	where, args, score := matchTerms(terms)
	args = append(args, limit)
	rows, err := db.sql.QueryContext(ctx, `
		WITH matches AS MATERIALIZED (
			SELECT rowid AS docid, `+score+` AS score FROM search_fts WHERE `+where+`
		), best AS (
			SELECT search_docs.conversation_id AS cid, matches.docid, MIN(matches.score) AS score
			FROM matches JOIN search_docs ON search_docs.docid = matches.docid GROUP BY search_docs.conversation_id
		)
		SELECT c.id, c.title, COALESCE(c.active_branch, ''), COALESCE(c.user_id, ''), c.created_at, c.updated_at, c.metadata,
			COALESCE((SELECT m.status FROM messages m WHERE m.id = c.active_branch), ''),
			c.pinned_at, c.archived_at, COALESCE(c.title_source, ''),
			COALESCE(f.title, ''), COALESCE(f.content, ''), COALESCE(f.response, '')
		FROM best JOIN conversations c ON c.id = best.cid JOIN search_fts f ON f.rowid = best.docid
		ORDER BY best.score, c.updated_at DESC, c.rowid DESC
		LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search conversations for %q: %w", query, err)
	}
	defer rows.Close()
	var out []SearchHit
	for rows.Next() {
		var title, content, response string
		c, err := scanConversation(extraScanner{rows, []any{&title, &content, &response}})
		if err != nil {
			return nil, fmt.Errorf("store: search conversations for %q: %w", query, err)
		}
		h := SearchHit{Conversation: c}
		h.Snippet = snippet(terms, title, content, response)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search conversations for %q: %w", query, err)
	}
	return out, nil
}

// matchTerms returns the WHERE condition on search_fts that every one of terms (non-empty,
// from QueryTerms) must meet, its arguments, and the score expression to rank by: terms of
// three or more characters go to the trigram index as quoted phrases (bm25, title
// weighted 3, question 2, answer 1), shorter ones are matched with LIKE (score 0.0 when
// no term reaches the index).
func matchTerms(terms []string) (where string, args []any, score string) {
	var phrases, conds []string
	for _, t := range terms {
		if utf8.RuneCountInString(t) >= 3 {
			phrases = append(phrases, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
			continue
		}
		pat := "%" + likeEscaper.Replace(t) + "%"
		conds = append(conds, `(search_fts.title LIKE ? ESCAPE '\' OR search_fts.content LIKE ? ESCAPE '\' OR search_fts.response LIKE ? ESCAPE '\')`)
		args = append(args, pat, pat, pat)
	}
	score = "0.0"
	if len(phrases) > 0 {
		conds = append([]string{"search_fts MATCH ?"}, conds...)
		args = append([]any{strings.Join(phrases, " AND ")}, args...)
		score = "bm25(search_fts, 3.0, 2.0, 1.0)"
	}
	return strings.Join(conds, " AND "), args, score
}

// likeEscaper escapes LIKE wildcards for ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// extraScanner scans a row whose leading columns another scan function reads, putting
// the trailing columns into extra.
type extraScanner struct {
	rowScanner
	extra []any
}

// Scan scans dest followed by the extra destinations.
func (e extraScanner) Scan(dest ...any) error { return e.rowScanner.Scan(append(dest, e.extra...)...) }

// snippet returns plain text from the one of texts that contains the most terms (the
// first on a tie; case-insensitive), starting a little before the first occurrence of a
// term, or the start of the first non-empty text when no term is found literally (a
// diacritic-insensitive match). White space runs become one space; cuts are marked "…".
func snippet(terms []string, texts ...string) string {
	s, _ := snippetOf(terms, texts...)
	return s
}

// snippetOf is snippet that also returns the index in texts of the text the snippet was
// taken from (-1 when every text is empty).
func snippetOf(terms []string, texts ...string) (string, int) {
	var best []rune
	bestAt, bestCount, from := -1, 0, -1
	for i, text := range texts {
		rs := []rune(strings.Join(strings.Fields(text), " "))
		if len(best) == 0 && len(rs) > 0 {
			best, from = rs, i
		}
		at, n := -1, 0
		for _, t := range terms {
			if j := indexFold(rs, []rune(t)); j >= 0 {
				n++
				if at < 0 || j < at {
					at = j
				}
			}
		}
		if n > bestCount {
			best, bestAt, bestCount, from = rs, at, n, i
		}
	}
	if len(best) == 0 {
		return "", -1
	}
	return window(best, max(0, bestAt-snippetLead)), from
}

// window returns snippetRunes runes of rs from start, with "…" at cut ends.
func window(rs []rune, start int) string {
	end := min(len(rs), start+snippetRunes)
	if end-start < snippetRunes { // near the end: show more of what comes before
		start = max(0, end-snippetRunes)
	}
	s := string(rs[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(rs) {
		s += "…"
	}
	return s
}

// indexFold returns the rune index of the first occurrence of t in rs, comparing rune by
// rune with simple case folding, or -1.
func indexFold(rs, t []rune) int {
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

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Kinds of DocumentHit: which part of a conversation a search document is.
const (
	// DocTitle is the conversation's title.
	DocTitle = "title"
	// DocQuestion is a user message (messages.content).
	DocQuestion = "question"
	// DocAnswer is a run's final answer (messages.graph_response).
	DocAnswer = "answer"
	// DocArtifact is an artifact's title and current content.
	DocArtifact = "artifact"
)

// artifactDocPrefix starts search_docs.message_id for an artifact's document (migration
// 0007); message ids never start with it.
const artifactDocPrefix = "artifact:"

// DocumentHit is one search document found by SearchDocuments: the conversation it
// belongs to (id, title, last update), its Kind (DocTitle, DocQuestion, DocAnswer or
// DocArtifact), the message it comes from (MessageID, for a question or an answer) or the
// artifact (ArtifactID and ArtifactTitle, for an artifact), and Snippet, plain text of up
// to about 120 characters around the first place a query term occurs, with "…" where it
// was cut (as SearchHit.Snippet).
type DocumentHit struct {
	ConversationID    string
	ConversationTitle string
	UpdatedAt         time.Time
	Kind              string
	MessageID         string
	ArtifactID        string
	ArtifactTitle     string
	Snippet           string
}

// SearchDocuments is SearchConversations one document at a time: it finds the titles,
// messages (questions and answers, on every branch) and artifacts (title and current
// content) that contain every term of query, with the same term rules, matching and
// ranking (bm25, title weighted 3, question 2, answer 1; ties and LIKE-only queries by
// most recently updated conversation), at most limit of them (DefaultSearchLimit when
// limit <= 0, at most MaxSearchLimit). A conversation can give several hits, e.g. its
// question and its report. A message whose question and answer both match is one hit,
// of the kind whose text holds more of the terms (the question on a tie).
//
// A query without a searchable term (empty, or punctuation only) finds nothing: the
// result is empty, not an error. Errors: the context's error and database errors.
func (db *DB) SearchDocuments(ctx context.Context, query string, limit int) ([]DocumentHit, error) {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	terms := QueryTerms(query)
	if len(terms) == 0 {
		return []DocumentHit{}, nil
	}
	where, args, score := matchTerms(terms)
	args = append(args, limit)
	rows, err := db.sql.QueryContext(ctx, `
		WITH matches AS MATERIALIZED (
			SELECT rowid AS docid, `+score+` AS score FROM search_fts WHERE `+where+`
		)
		SELECT d.conversation_id, d.message_id, c.title, c.updated_at,
			COALESCE(f.title, ''), COALESCE(f.content, ''), COALESCE(f.response, '')
		FROM matches JOIN search_docs d ON d.docid = matches.docid
			JOIN conversations c ON c.id = d.conversation_id
			JOIN search_fts f ON f.rowid = matches.docid
		ORDER BY matches.score, c.updated_at DESC, d.docid DESC
		LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search documents for %q: %w", query, err)
	}
	defer rows.Close()
	out := []DocumentHit{}
	for rows.Next() {
		var h DocumentHit
		var docID, title, content, response string
		var updated sql.NullString
		if err := rows.Scan(&h.ConversationID, &docID, &h.ConversationTitle, &updated, &title, &content, &response); err != nil {
			return nil, fmt.Errorf("store: search documents for %q: %w", query, err)
		}
		if h.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, fmt.Errorf("store: search documents for %q: %w", query, err)
		}
		switch {
		case docID == "":
			h.Kind = DocTitle
			h.Snippet = snippet(terms, title)
		case strings.HasPrefix(docID, artifactDocPrefix):
			h.Kind, h.ArtifactID, h.ArtifactTitle = DocArtifact, strings.TrimPrefix(docID, artifactDocPrefix), title
			h.Snippet = snippet(terms, title, response)
		default:
			var from int
			h.MessageID = docID
			h.Snippet, from = snippetOf(terms, content, response)
			h.Kind = DocQuestion
			if from == 1 {
				h.Kind = DocAnswer
			}
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search documents for %q: %w", query, err)
	}
	return out, nil
}

// MessageCounts returns how many messages (on every branch) each of the conversations ids
// holds; a conversation without messages, or that does not exist, is absent from the map.
// Errors: the context's error and database errors.
func (db *DB) MessageCounts(ctx context.Context, ids []string) (map[string]int, error) {
	out := make(map[string]int, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("store: count messages: %w", err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT conversation_id, count(*) FROM messages
		WHERE conversation_id IN (SELECT value FROM json_each(?)) GROUP BY conversation_id`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: count messages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("store: count messages: %w", err)
		}
		out[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: count messages: %w", err)
	}
	return out, nil
}

// ArtifactSummary is an artifact without its content: Size is the content's length in
// bytes.
type ArtifactSummary struct {
	SessionID      string
	ID             string
	ContentType    string
	Title          string
	CurrentVersion int
	Size           int
	UpdatedAt      time.Time
}

// ArtifactSummaries returns the artifacts of the sessions (conversations) sessionIDs
// without their content, by session in the order given, each session's in creation order
// (as ListArtifacts). Unknown sessions give nothing. Errors: the context's error and
// database errors.
func (db *DB) ArtifactSummaries(ctx context.Context, sessionIDs []string) ([]ArtifactSummary, error) {
	out := []ArtifactSummary{}
	if len(sessionIDs) == 0 {
		return out, nil
	}
	list, err := json.Marshal(sessionIDs)
	if err != nil {
		return nil, fmt.Errorf("store: artifact summaries: %w", err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT a.session_id, a.id, a.content_type, a.title, a.current_version,
			length(CAST(a.content AS BLOB)), a.updated_at
		FROM json_each(?) AS s JOIN artifacts a ON a.session_id = s.value
		ORDER BY s.key, a.created_at, a.rowid`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: artifact summaries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a ArtifactSummary
		var updated sql.NullString
		if err := rows.Scan(&a.SessionID, &a.ID, &a.ContentType, &a.Title, &a.CurrentVersion, &a.Size, &updated); err != nil {
			return nil, fmt.Errorf("store: artifact summaries: %w", err)
		}
		if a.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, fmt.Errorf("store: artifact summaries: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: artifact summaries: %w", err)
	}
	return out, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"artifactflow/backend/sources"
)

// sourceAttempts is how many times AddSource tries its transaction while the database is
// busy (see WithRetry).
const sourceAttempts = 5

// AddSource adds s to the conversation's source list (migration 0005) and returns it as
// stored; see AddSourceChanged.
func (db *DB) AddSource(ctx context.Context, conversationID string, s sources.Source) (sources.Source, error) {
	out, _, err := db.AddSourceChanged(ctx, conversationID, s)
	return out, err
}

// AddSourceChanged adds s to the conversation's source list and returns it as stored,
// and whether anything was written (a new source or a changed one).
//
// Identity: s is known by sources.Key(s.Kind, s.Location) and, for a redirected fetch, by
// the key of s.Requested. When either key is already in the list (the requested URL's
// first, being the one the agent was shown), that source keeps its number and is merged:
// empty title, excerpt, published date, page and line are filled, fetched becomes true
// once set, and a fetch moves its location to the final URL unless that URL is another
// source's. Every key not yet known is then remembered for that number. Otherwise s gets
// the next number (1 for the first source of a conversation). s.N, s.MessageID of a
// merge and s.Site are ignored: the site is derived from the location.
//
// The read and the write happen in one immediate transaction, retried while the database
// is busy, and the keys' primary key makes a duplicate impossible, so concurrent callers
// get the same number for the same location. Errors: ErrInvalid (no conversation id, a
// kind other than web or file, no location), ErrNotFound (no such conversation), other
// database errors wrapped.
func (db *DB) AddSourceChanged(ctx context.Context, conversationID string, s sources.Source) (sources.Source, bool, error) {
	s.Location = strings.TrimSpace(s.Location)
	s.Requested = strings.TrimSpace(s.Requested)
	if err := requireIDs("add source", "conversation id", conversationID, "location", s.Location); err != nil {
		return sources.Source{}, false, err
	}
	if s.Kind != sources.KindWeb && s.Kind != sources.KindFile {
		return sources.Source{}, false, fmt.Errorf("store: add source: kind %q is not web or file: %w", s.Kind, ErrInvalid)
	}
	if s.Kind == sources.KindWeb {
		s.Site = sources.Site(s.Location)
	} else {
		s.Site = ""
	}
	s.Page, s.Line = max(s.Page, 0), max(s.Line, 0)
	keys := []string{sources.Key(s.Kind, s.Location)}
	if s.Requested != "" {
		if k := sources.Key(s.Kind, s.Requested); k != keys[0] {
			keys = []string{k, keys[0]}
		}
	}
	at := timeOr(s.AddedAt, now())
	var out sources.Source
	var changed bool
	err := WithRetry(ctx, sourceAttempts, func(ctx context.Context) error {
		return db.inTx(ctx, func(tx *sql.Tx) error {
			var err error
			out, changed, err = addSource(ctx, tx, conversationID, s, keys, at)
			return err
		})
	})
	if err != nil {
		return sources.Source{}, false, err
	}
	return out, changed, nil
}

// addSource is AddSourceChanged's transaction.
func addSource(ctx context.Context, tx *sql.Tx, conversationID string, s sources.Source, keys []string, at time.Time) (sources.Source, bool, error) {
	owner := map[string]int{} // key → number, for the keys already known
	n := 0
	for _, k := range keys {
		var kn int
		err := tx.QueryRowContext(ctx, `SELECT n FROM source_keys WHERE conversation_id = ? AND key = ?`, conversationID, k).Scan(&kn)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return sources.Source{}, false, fmt.Errorf("store: add source %q: %w", s.Location, err)
		}
		owner[k] = kn
		if n == 0 {
			n = kn
		}
	}
	changed := false
	if n == 0 {
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(n), 0) + 1 FROM sources WHERE conversation_id = ?`, conversationID).Scan(&n); err != nil {
			return sources.Source{}, false, fmt.Errorf("store: add source %q: next number: %w", s.Location, err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sources (conversation_id, n, kind, location, title, site, excerpt,
			published, page, line, fetched, message_id, added_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			conversationID, n, s.Kind, s.Location, s.Title, s.Site, s.Excerpt, s.Published, s.Page, s.Line, boolInt(s.Fetched),
			s.MessageID, formatTime(at), formatTime(at))
		switch {
		case isForeignKey(err):
			return sources.Source{}, false, fmt.Errorf("store: add source: conversation %q: %w", conversationID, ErrNotFound)
		case err != nil:
			return sources.Source{}, false, fmt.Errorf("store: add source %q: %w", s.Location, err)
		}
		changed = true
	} else {
		old, err := getSource(ctx, tx, conversationID, n)
		if err != nil {
			return sources.Source{}, false, err
		}
		merged := mergeSource(old, s, owner[keys[len(keys)-1]])
		if merged != old {
			_, err := tx.ExecContext(ctx, `UPDATE sources SET location = ?, title = ?, site = ?, excerpt = ?, published = ?,
				page = ?, line = ?, fetched = ?, updated_at = ? WHERE conversation_id = ? AND n = ?`,
				merged.Location, merged.Title, merged.Site, merged.Excerpt, merged.Published, merged.Page, merged.Line,
				boolInt(merged.Fetched), formatTime(at), conversationID, n)
			if err != nil {
				return sources.Source{}, false, fmt.Errorf("store: update source %d: %w", n, err)
			}
			changed = true
		}
	}
	for _, k := range keys {
		if _, known := owner[k]; known {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO source_keys (conversation_id, key, n) VALUES (?, ?, ?)`, conversationID, k, n); err != nil {
			return sources.Source{}, false, fmt.Errorf("store: add source %q: remember its key: %w", s.Location, err)
		}
	}
	out, err := getSource(ctx, tx, conversationID, n)
	return out, changed, err
}

// mergeSource returns old with what s adds (see AddSourceChanged). finalOwner is the
// number that already holds the key of s's location, 0 when none does.
func mergeSource(old, s sources.Source, finalOwner int) sources.Source {
	m := old
	if m.Title == "" {
		m.Title = s.Title
	}
	if m.Excerpt == "" {
		m.Excerpt = s.Excerpt
	}
	if m.Published == "" {
		m.Published = s.Published
	}
	if m.Page == 0 {
		m.Page = s.Page
	}
	if m.Line == 0 {
		m.Line = s.Line
	}
	if s.Fetched && !m.Fetched {
		m.Fetched = true
		if s.Location != m.Location && (finalOwner == 0 || finalOwner == m.N) {
			m.Location, m.Site = s.Location, s.Site
		}
	}
	return m
}

const sourceCols = `n, kind, location, title, site, excerpt, published, page, line, fetched, message_id, added_at`

// scanSource reads one row of sourceCols.
func scanSource(sc rowScanner) (sources.Source, error) {
	var s sources.Source
	var fetched int
	var added sql.NullString
	if err := sc.Scan(&s.N, &s.Kind, &s.Location, &s.Title, &s.Site, &s.Excerpt, &s.Published, &s.Page, &s.Line,
		&fetched, &s.MessageID, &added); err != nil {
		return sources.Source{}, err
	}
	s.Fetched = fetched != 0
	var err error
	s.AddedAt, err = parseTime(added)
	return s, err
}

// getSource reads source n of a conversation inside tx.
func getSource(ctx context.Context, tx *sql.Tx, conversationID string, n int) (sources.Source, error) {
	s, err := scanSource(tx.QueryRowContext(ctx, `SELECT `+sourceCols+` FROM sources WHERE conversation_id = ? AND n = ?`, conversationID, n))
	if errors.Is(err, sql.ErrNoRows) {
		return sources.Source{}, fmt.Errorf("store: source %d of conversation %q: %w", n, conversationID, ErrNotFound)
	}
	if err != nil {
		return sources.Source{}, fmt.Errorf("store: read source %d: %w", n, err)
	}
	return s, nil
}

// Sources returns a conversation's source list in number order; an empty list (not an
// error) for a conversation without sources or that does not exist.
func (db *DB) Sources(ctx context.Context, conversationID string) ([]sources.Source, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+sourceCols+` FROM sources WHERE conversation_id = ? ORDER BY n`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("store: list sources of %q: %w", conversationID, err)
	}
	defer rows.Close()
	out := []sources.Source{}
	for rows.Next() {
		s, err := scanSource(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list sources of %q: %w", conversationID, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list sources of %q: %w", conversationID, err)
	}
	return out, nil
}

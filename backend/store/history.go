package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"artifactflow/backend/events"
)

// History page sizes (cursor paging).
const (
	// DefaultHistoryLimit is the page size when HistoryQuery.Limit is 0.
	DefaultHistoryLimit = 200
	// MaxHistoryLimit is the largest page; larger limits are lowered to it.
	MaxHistoryLimit = 1000
)

// HistoryQuery selects one page of the history the user sees (history comes from the
// append-only event store, so every original message, tool result and compaction marker
// stays visible). The history is every stored message_events row (everything but
// llm_chunk, which is never stored) of the messages on the path from the root to
// ToMessageID, in seq order. There is no cap on its length: callers page through it.
//
//   - ConversationID is required; ToMessageID "" means the conversation's active_branch.
//   - AfterSeq > 0 keeps events with seq > AfterSeq, BeforeSeq > 0 events with
//     seq < BeforeSeq (both exclusive; 0 = no bound).
//   - The page is the first Limit events of that window (paging forward) when AfterSeq > 0,
//     or when neither bound is set and Latest is false; it is the last Limit events (paging
//     backward, or the newest page when Latest is set) when only BeforeSeq is set, or when
//     neither is set and Latest is true. Events are always returned in ascending seq.
//   - Limit 0 means DefaultHistoryLimit; above MaxHistoryLimit it is lowered to it.
type HistoryQuery struct {
	ConversationID string
	ToMessageID    string
	AfterSeq       int64
	BeforeSeq      int64
	Limit          int
	Latest         bool
}

// HistoryPage is one page of history. FirstSeq and LastSeq are the seqs of its first and
// last events (0 when it is empty): pass BeforeSeq = FirstSeq for the page before and
// AfterSeq = LastSeq for the page after. HasBefore / HasAfter tell whether the path holds
// events before the page (seq < FirstSeq, or at most AfterSeq for an empty page) or after
// it (seq > LastSeq, or at least BeforeSeq for an empty page).
type HistoryPage struct {
	Events    []events.Event
	HasBefore bool
	HasAfter  bool
	FirstSeq  int64
	LastSeq   int64
}

// pathMessages is the condition selecting the events of the messages listed in ?1, a JSON
// array of message ids. (A literal list through json_each keeps the query on the
// (conversation_id, seq) index at a tenth of the cost of joining a recursive CTE there.)
const pathMessages = `message_id IN (SELECT value FROM json_each(?1))`

// pathIDs returns, as a JSON array, the ids of the messages from the root down to
// toMessageID in the conversation; the walk is bounded by the message count, so a parent
// cycle ends.
func (db *DB) pathIDs(ctx context.Context, conversationID, toMessageID string) (string, error) {
	var ids string
	err := db.sql.QueryRowContext(ctx, `WITH RECURSIVE path(mid, pid, depth) AS (
			SELECT id, parent_id, 0 FROM messages WHERE id = ?1 AND conversation_id = ?2
			UNION ALL
			SELECT m.id, m.parent_id, path.depth + 1 FROM messages m JOIN path ON m.id = path.pid
			WHERE m.conversation_id = ?2 AND path.depth < (SELECT count(*) FROM messages WHERE conversation_id = ?2)
		)
		SELECT json_group_array(mid) FROM path`, toMessageID, conversationID).Scan(&ids)
	if err != nil {
		return "", fmt.Errorf("store: path to %q: %w", toMessageID, err)
	}
	return ids, nil
}

// History returns one page of the history of a branch (see HistoryQuery). The path's
// message ids are read first; the page query then walks the (conversation_id, seq) index in
// seq order and stops after the page, so a page costs the same at the start and at the end
// of a long conversation.
//
// Errors: empty ConversationID, negative bounds or limit, or BeforeSeq <= AfterSeq when
// both are set → ErrInvalid; an unknown conversation, or a ToMessageID outside it →
// ErrNotFound. A conversation without messages gives an empty page.
func (db *DB) History(ctx context.Context, q HistoryQuery) (HistoryPage, error) {
	switch {
	case q.ConversationID == "":
		return HistoryPage{}, fmt.Errorf("store: history: empty conversation id: %w", ErrInvalid)
	case q.AfterSeq < 0 || q.BeforeSeq < 0 || q.Limit < 0:
		return HistoryPage{}, fmt.Errorf("store: history: negative cursor or limit (after %d, before %d, limit %d): %w",
			q.AfterSeq, q.BeforeSeq, q.Limit, ErrInvalid)
	case q.AfterSeq > 0 && q.BeforeSeq > 0 && q.BeforeSeq <= q.AfterSeq:
		return HistoryPage{}, fmt.Errorf("store: history: before_seq %d is not above after_seq %d: %w", q.BeforeSeq, q.AfterSeq, ErrInvalid)
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultHistoryLimit
	}
	limit = min(limit, MaxHistoryLimit)
	to := q.ToMessageID
	if to == "" {
		c, err := db.GetConversation(ctx, q.ConversationID)
		if err != nil {
			return HistoryPage{}, fmt.Errorf("store: history: %w", err)
		}
		if c.ActiveBranch == "" {
			return HistoryPage{}, nil
		}
		to = c.ActiveBranch
	} else if _, err := db.messageIn(ctx, "history", q.ConversationID, to); err != nil {
		return HistoryPage{}, err
	}

	path, err := db.pathIDs(ctx, q.ConversationID, to)
	if err != nil {
		return HistoryPage{}, err
	}
	backward := q.AfterSeq == 0 && (q.BeforeSeq > 0 || q.Latest)
	lo, hi := q.AfterSeq, q.BeforeSeq // exclusive; 0 = unbounded
	where := `conversation_id = ?2 AND ` + pathMessages
	args := []any{path, q.ConversationID}
	if lo > 0 {
		where += ` AND seq > ?3`
	}
	if hi > 0 {
		where += ` AND seq < ?4`
	}
	args = append(args, lo, hi)
	order := "ASC"
	if backward {
		order = "DESC"
	}
	evs, err := db.scanEvents(ctx, "history of "+q.ConversationID, `SELECT conversation_id, message_id, seq, type,
		agent_name, data, created_at FROM message_events WHERE `+where+` ORDER BY seq `+order+` LIMIT ?5`,
		append(args, limit+1)...)
	if err != nil {
		return HistoryPage{}, err
	}
	more := len(evs) > limit // more events in the paging direction, inside the window
	if more {
		evs = evs[:limit]
	}
	if backward {
		slices.Reverse(evs)
	}
	p := HistoryPage{Events: evs}
	if len(evs) > 0 {
		p.FirstSeq, p.LastSeq = evs[0].Seq, evs[len(evs)-1].Seq
	}
	// Events outside the window on either side: seq <= lo (before) and seq >= hi (after).
	if backward { // lo == 0: nothing lies below the window
		p.HasBefore = more
		if hi > 0 {
			p.HasAfter, err = db.pathEventExists(ctx, path, q.ConversationID, "seq >= ?3", hi)
		}
	} else {
		p.HasAfter = more
		if !more && hi > 0 {
			p.HasAfter, err = db.pathEventExists(ctx, path, q.ConversationID, "seq >= ?3", hi)
		}
		if err == nil && lo > 0 {
			p.HasBefore, err = db.pathEventExists(ctx, path, q.ConversationID, "seq <= ?3", lo)
		}
	}
	if err != nil {
		return HistoryPage{}, err
	}
	return p, nil
}

// PathEvents returns every event of the messages messageIDs (a conversation path) in seq
// order, in one query: the events of other branches, whose seqs interleave with the path's,
// are left out. Errors: an empty conversation id → ErrInvalid.
func (db *DB) PathEvents(ctx context.Context, conversationID string, messageIDs []string) ([]events.Event, error) {
	if conversationID == "" {
		return nil, fmt.Errorf("store: path events: empty conversation id: %w", ErrInvalid)
	}
	if len(messageIDs) == 0 {
		return nil, nil
	}
	ids, err := json.Marshal(messageIDs)
	if err != nil {
		return nil, fmt.Errorf("store: path events: %w", err)
	}
	return db.scanEvents(ctx, "path events of "+conversationID, `SELECT conversation_id, message_id, seq, type,
		agent_name, data, created_at FROM message_events WHERE conversation_id = ?2 AND `+pathMessages+`
		ORDER BY seq`, string(ids), conversationID)
}

// pathEventExists reports whether an event of the messages in path (a JSON array of ids)
// satisfies cond (which uses ?3 for bound).
func (db *DB) pathEventExists(ctx context.Context, path, conversationID, cond string, bound int64) (bool, error) {
	var ok bool
	err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM message_events
		WHERE conversation_id = ?2 AND `+pathMessages+` AND `+cond+`)`, path, conversationID, bound).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("store: history of %q: %w", conversationID, err)
	}
	return ok, nil
}

// scanEvents runs a query selecting (conversation_id, message_id, seq, type, agent_name,
// data, created_at) and returns the events in row order.
func (db *DB) scanEvents(ctx context.Context, op, query string, args ...any) ([]events.Event, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", op, err)
	}
	defer rows.Close()
	var out []events.Event
	for rows.Next() {
		var ev events.Event
		var typ, data string
		var created sql.NullString
		if err := rows.Scan(&ev.ConversationID, &ev.MessageID, &ev.Seq, &typ, &ev.AgentName, &data, &created); err != nil {
			return nil, fmt.Errorf("store: %s: %w", op, err)
		}
		ev.Type = events.Type(typ)
		ev.Data = json.RawMessage(data)
		if ev.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("store: %s: %w", op, err)
		}
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: %w", op, err)
	}
	return out, nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"artifactflow/backend/events"
)

// EventQuery selects events of one conversation for ListEvents.
//
//   - ConversationID is required.
//   - MessageID, when set, keeps only that message's events.
//   - AfterSeq > 0 keeps events with seq > AfterSeq (resume after a reconnect).
//   - BeforeSeq > 0 keeps events with seq < BeforeSeq and, with Limit, returns the Limit
//     events just before BeforeSeq (paging backwards through history).
//   - Limit <= 0 means no limit. Results are always in ascending seq order.
type EventQuery struct {
	ConversationID string
	MessageID      string
	AfterSeq       int64
	BeforeSeq      int64
	Limit          int
}

// AppendEvents stores evs in message_events in one transaction: all or none
// (append-only event store). Zero CreatedAt is set to now; empty Data is stored as {}.
//
// Errors: an event with an empty conversation/message id or type, seq < 1, invalid JSON data,
// or a type that is never persisted (llm_chunk) → ErrInvalid; an unknown
// conversation → ErrNotFound; a (conversation_id, seq) already stored for the same message
// (a batch that landed, retried) → ErrDuplicate; one stored for another message (another
// writer numbered from the same MaxSeq) → ErrSeqTaken. Nothing is written on error.
func (db *DB) AppendEvents(ctx context.Context, evs ...events.Event) error {
	if len(evs) == 0 {
		return nil
	}
	for i, ev := range evs {
		if err := validateEvent(ev); err != nil {
			return fmt.Errorf("store: append events: event %d (seq %d): %w", i, ev.Seq, err)
		}
	}
	t := now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO message_events
			(conversation_id, message_id, seq, type, agent_name, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, ev := range evs {
			data := string(ev.Data)
			if len(ev.Data) == 0 {
				data = "{}"
			}
			if _, err := stmt.ExecContext(ctx, ev.ConversationID, ev.MessageID, ev.Seq, string(ev.Type), ev.AgentName,
				data, formatTime(timeOr(ev.CreatedAt, t))); err != nil {
				if isUnique(err) {
					return seqConflict(ctx, tx, ev, err)
				}
				return fmt.Errorf("seq %d: %w", ev.Seq, err)
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, ErrSeqTaken):
		return fmt.Errorf("store: append events to %q: %w", evs[0].ConversationID, err)
	case isUnique(err):
		return fmt.Errorf("store: append events to %q: %w: %w", evs[0].ConversationID, ErrDuplicate, err)
	case isForeignKey(err):
		return fmt.Errorf("store: append events: conversation %q: %w", evs[0].ConversationID, ErrNotFound)
	case err != nil:
		return fmt.Errorf("store: append events to %q: %w", evs[0].ConversationID, err)
	}
	return nil
}

func validateEvent(ev events.Event) error {
	switch {
	case ev.ConversationID == "":
		return fmt.Errorf("empty conversation id: %w", ErrInvalid)
	case ev.MessageID == "":
		return fmt.Errorf("empty message id: %w", ErrInvalid)
	case ev.Type == "":
		return fmt.Errorf("empty type: %w", ErrInvalid)
	case !ev.Type.Persisted():
		return fmt.Errorf("type %q is never persisted: %w", ev.Type, ErrInvalid)
	case ev.Seq < 1:
		return fmt.Errorf("seq must be >= 1: %w", ErrInvalid)
	case len(ev.Data) > 0 && !json.Valid(ev.Data):
		return fmt.Errorf("data is not valid JSON: %w", ErrInvalid)
	}
	return nil
}

// ListEvents returns the events selected by q in ascending seq order (see EventQuery).
// An unknown conversation gives an empty slice; an empty ConversationID → ErrInvalid.
func (db *DB) ListEvents(ctx context.Context, q EventQuery) ([]events.Event, error) {
	if q.ConversationID == "" {
		return nil, fmt.Errorf("store: list events: empty conversation id: %w", ErrInvalid)
	}
	where := []string{"conversation_id = ?"}
	args := []any{q.ConversationID}
	if q.MessageID != "" {
		where = append(where, "message_id = ?")
		args = append(args, q.MessageID)
	}
	if q.AfterSeq > 0 {
		where = append(where, "seq > ?")
		args = append(args, q.AfterSeq)
	}
	order := "ASC"
	if q.BeforeSeq > 0 {
		where = append(where, "seq < ?")
		args = append(args, q.BeforeSeq)
		order = "DESC" // take the newest Limit rows before BeforeSeq, reversed below
	}
	limit := q.Limit
	if limit <= 0 {
		limit = -1
	}
	args = append(args, limit)
	rows, err := db.sql.QueryContext(ctx, `SELECT conversation_id, message_id, seq, type, agent_name, data, created_at
		FROM message_events WHERE `+strings.Join(where, " AND ")+` ORDER BY seq `+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list events of %q: %w", q.ConversationID, err)
	}
	out, err := scanEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("store: list events of %q: %w", q.ConversationID, err)
	}
	if order == "DESC" {
		slices.Reverse(out)
	}
	return out, nil
}

// scanEvents reads rows of (conversation_id, message_id, seq, type, agent_name, data,
// created_at) into events, and closes rows.
func scanEvents(rows *sql.Rows) ([]events.Event, error) {
	defer rows.Close()
	var out []events.Event
	for rows.Next() {
		var ev events.Event
		var typ, data string
		var created sql.NullString
		if err := rows.Scan(&ev.ConversationID, &ev.MessageID, &ev.Seq, &typ, &ev.AgentName, &data, &created); err != nil {
			return nil, err
		}
		ev.Type, ev.Data = events.Type(typ), json.RawMessage(data)
		var err error
		if ev.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

// MaxSeq returns the highest event seq stored for the conversation, 0 when it has none.
func (db *DB) MaxSeq(ctx context.Context, conversationID string) (int64, error) {
	var seq int64
	if err := db.sql.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM message_events WHERE conversation_id = ?`,
		conversationID).Scan(&seq); err != nil {
		return 0, fmt.Errorf("store: max event seq of %q: %w", conversationID, err)
	}
	return seq, nil
}

// seqConflict tells, after inserting ev hit a unique violation (err) inside tx, whether the
// seq is held by another message's event (ErrSeqTaken) or by the same message's (err, which
// AppendEvents reports as ErrDuplicate).
func seqConflict(ctx context.Context, tx *sql.Tx, ev events.Event, err error) error {
	var holder string
	qerr := tx.QueryRowContext(ctx, `SELECT message_id FROM message_events WHERE conversation_id = ? AND seq = ?`,
		ev.ConversationID, ev.Seq).Scan(&holder)
	if qerr == nil && holder != ev.MessageID {
		return fmt.Errorf("seq %d of message %q is held by message %q: %w", ev.Seq, ev.MessageID, holder, ErrSeqTaken)
	}
	return fmt.Errorf("seq %d: %w", ev.Seq, err)
}

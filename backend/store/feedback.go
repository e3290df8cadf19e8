package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"artifactflow/backend/events"
)

// The user's thumbs up or down on a run, with an optional note, is a feedback event
// (events.Feedback) in message_events, keyed by the rated run's message id: the event log is
// append-only and never pruned, so a rating outlives compaction, stays with its run on
// whichever branch is shown, and travels with the conversation's events in a conversation
// file. The latest feedback event of a message is its rating.

// Kinds of run, from where its message sits in the message tree (RatedRun.Kind).
const (
	RunFirst      = "first"      // the conversation's first question
	RunFollowUp   = "follow_up"  // a question after an answer
	RunEdit       = "edit"       // an edited question: a later sibling of a different question
	RunRegenerate = "regenerate" // the same question asked again: a later sibling with the same text
)

// Feedback is a message's current rating: the data of its latest feedback event, the
// event's seq and time.
type Feedback struct {
	ConversationID string
	MessageID      string
	Rating         string // events.RatingUp or events.RatingDown
	Note           string
	Seq            int64
	At             time.Time
}

// RatedRun is a rated run with what its rating is counted by: Model is the model its
// metadata event names ("" when it has none), Kind one of the Run* kinds.
type RatedRun struct {
	Feedback
	Model string
	Kind  string
}

// CleanFeedback checks and normalizes feedback data: the note is trimmed; a rating other
// than events.RatingUp, RatingDown or "" (cleared), a note on a cleared rating, a note that
// is not valid UTF-8, holds control characters other than line breaks and tabs, or is longer
// than events.MaxFeedbackNote runes gives an error wrapping ErrInvalid.
func CleanFeedback(d events.DataFeedback) (events.DataFeedback, error) {
	d.Note = strings.TrimSpace(d.Note)
	switch {
	case d.Rating != events.RatingUp && d.Rating != events.RatingDown && d.Rating != "":
		return d, fmt.Errorf("rating %q: want %q, %q or empty: %w", d.Rating, events.RatingUp, events.RatingDown, ErrInvalid)
	case d.Rating == "" && d.Note != "":
		return d, fmt.Errorf("a note needs a rating: %w", ErrInvalid)
	case !utf8.ValidString(d.Note):
		return d, fmt.Errorf("note is not valid UTF-8: %w", ErrInvalid)
	case strings.ContainsFunc(d.Note, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' }):
		return d, fmt.Errorf("note has control characters: %w", ErrInvalid)
	case utf8.RuneCountInString(d.Note) > events.MaxFeedbackNote:
		return d, fmt.Errorf("note is longer than %d characters: %w", events.MaxFeedbackNote, ErrInvalid)
	}
	return d, nil
}

// AppendFeedback records the user's rating of message messageID's run in conversationID
// (CleanFeedback first) as a feedback event with the conversation's next seq, in one
// immediate transaction, and returns the event stored. A run still writing events in the
// same conversation keeps them: its next batch finds the seq taken (ErrSeqTaken) and is
// renumbered after this one (the engine's emitter).
//
// Errors: bad data, or a run that has not ended (status running) → ErrInvalid; an unknown
// conversation or a message not in it → ErrNotFound.
func (db *DB) AppendFeedback(ctx context.Context, conversationID, messageID string, d events.DataFeedback) (events.Event, error) {
	d, err := CleanFeedback(d)
	if err != nil {
		return events.Event{}, fmt.Errorf("store: feedback: %w", err)
	}
	data, err := json.Marshal(d)
	if err != nil {
		return events.Event{}, fmt.Errorf("store: feedback: %w", err)
	}
	ev := events.Event{Type: events.Feedback, ConversationID: conversationID, MessageID: messageID, CreatedAt: now(), Data: data}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM messages WHERE id = ? AND conversation_id = ?`, messageID, conversationID).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("message %q of conversation %q: %w", messageID, conversationID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if status == "running" {
			return fmt.Errorf("message %q: its run has not ended: %w", messageID, ErrInvalid)
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM message_events WHERE conversation_id = ?`,
			conversationID).Scan(&ev.Seq); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO message_events (conversation_id, message_id, seq, type, agent_name, data, created_at)
			VALUES (?, ?, ?, ?, '', ?, ?)`, ev.ConversationID, ev.MessageID, ev.Seq, string(ev.Type), string(ev.Data), formatTime(ev.CreatedAt))
		return err
	})
	if err != nil {
		return events.Event{}, fmt.Errorf("store: feedback on %q: %w", messageID, err)
	}
	return ev, nil
}

// ConversationFeedback returns the current rating of every rated run of the conversation
// (every branch), by message id; runs whose latest feedback cleared the rating are left
// out. An unknown conversation gives an empty map.
func (db *DB) ConversationFeedback(ctx context.Context, conversationID string) (map[string]Feedback, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT conversation_id, message_id, seq, data, created_at FROM message_events
		WHERE conversation_id = ? AND type = ? ORDER BY seq`, conversationID, string(events.Feedback))
	if err != nil {
		return nil, fmt.Errorf("store: feedback of %q: %w", conversationID, err)
	}
	out := map[string]Feedback{}
	err = scanFeedback(rows, func(f Feedback) {
		if f.Rating == "" {
			delete(out, f.MessageID)
		} else {
			out[f.MessageID] = f
		}
	})
	if err != nil {
		return nil, fmt.Errorf("store: feedback of %q: %w", conversationID, err)
	}
	return out, nil
}

// RatedRuns returns every rated run of the data directory (the current rating of each, as
// ConversationFeedback gives it) with its model and kind, by conversation and seq.
func (db *DB) RatedRuns(ctx context.Context) ([]RatedRun, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT f.conversation_id, f.message_id, f.seq, f.data, f.created_at,
			COALESCE((SELECT json_extract(md.data, '$.model') FROM message_events md
				WHERE md.message_id = f.message_id AND md.conversation_id = f.conversation_id AND md.type = ?2
				ORDER BY md.seq LIMIT 1), ''),
			CASE
				WHEN EXISTS (SELECT 1 FROM messages s WHERE s.conversation_id = m.conversation_id
					AND COALESCE(s.parent_id, '') = COALESCE(m.parent_id, '') AND s.id != m.id
					AND s.created_at < m.created_at AND s.content = m.content) THEN ?3
				WHEN EXISTS (SELECT 1 FROM messages s WHERE s.conversation_id = m.conversation_id
					AND COALESCE(s.parent_id, '') = COALESCE(m.parent_id, '') AND s.id != m.id
					AND s.created_at < m.created_at) THEN ?4
				WHEN COALESCE(m.parent_id, '') = '' THEN ?5
				ELSE ?6
			END
		FROM message_events f JOIN messages m ON m.id = f.message_id AND m.conversation_id = f.conversation_id
		WHERE f.type = ?1 AND f.seq = (SELECT MAX(g.seq) FROM message_events g
			WHERE g.conversation_id = f.conversation_id AND g.message_id = f.message_id AND g.type = ?1)
		ORDER BY f.conversation_id, f.seq`,
		string(events.Feedback), string(events.Metadata), RunRegenerate, RunEdit, RunFirst, RunFollowUp)
	if err != nil {
		return nil, fmt.Errorf("store: rated runs: %w", err)
	}
	defer rows.Close()
	var out []RatedRun
	for rows.Next() {
		var r RatedRun
		var data string
		var created sql.NullString
		if err := rows.Scan(&r.ConversationID, &r.MessageID, &r.Seq, &data, &created, &r.Model, &r.Kind); err != nil {
			return nil, fmt.Errorf("store: rated runs: %w", err)
		}
		if !readFeedback(&r.Feedback, data, created) || r.Rating == "" {
			continue
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: rated runs: %w", err)
	}
	return out, nil
}

// scanFeedback reads rows of (conversation_id, message_id, seq, data, created_at) of
// feedback events and calls fn with each readable one, in row order; it closes rows.
func scanFeedback(rows *sql.Rows, fn func(Feedback)) error {
	defer rows.Close()
	for rows.Next() {
		var f Feedback
		var data string
		var created sql.NullString
		if err := rows.Scan(&f.ConversationID, &f.MessageID, &f.Seq, &data, &created); err != nil {
			return err
		}
		if readFeedback(&f, data, created) {
			fn(f)
		}
	}
	return rows.Err()
}

// readFeedback fills f's rating, note and time from a stored feedback event's data and
// created_at; false when the data is not feedback this version understands (an event
// written by hand or by a later version is skipped, never an error).
func readFeedback(f *Feedback, data string, created sql.NullString) bool {
	var d events.DataFeedback
	if json.Unmarshal([]byte(data), &d) != nil {
		return false
	}
	d, err := CleanFeedback(d)
	if err != nil {
		return false
	}
	f.Rating, f.Note = d.Rating, d.Note
	f.At, _ = parseTime(created)
	return true
}

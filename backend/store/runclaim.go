package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors of the cross-process run claim and of event numbering (issue 11, item 4: two
// processes on one data dir, the window and `artifactflow ask --conversation X`).
var (
	// ErrRunLive: StartRun found a running message of the conversation owned by another
	// instance whose heartbeat is fresh, so a second run there would interleave with it.
	// Nothing was written.
	ErrRunLive = errors.New("store: a run is going in this conversation in another ArtifactFlow process")
	// ErrSeqTaken: AppendEvents found an event seq of the batch already stored for another
	// message of the conversation (another writer numbered from the same MaxSeq). The batch
	// was not written; unlike ErrDuplicate it is not a retry of a batch that landed.
	ErrSeqTaken = errors.New("store: event seq is taken by another message's event")
)

// interruptedReason is the error stored on a run whose process stopped before it finished.
const interruptedReason = "the app stopped before this run finished"

// LiveRun describes the run that made StartRun refuse: the running message and the
// instance (see Heartbeat) that owns it, with its last beat.
type LiveRun struct {
	MessageID   string
	Owner       string
	HeartbeatAt time.Time
}

// RunLiveError is the error StartRun returns when another instance's run is live in the
// conversation; it wraps ErrRunLive (test with errors.Is) and names that run.
type RunLiveError struct {
	ConversationID string
	Run            LiveRun
}

// Error says which run holds the conversation and what to do.
func (e *RunLiveError) Error() string {
	return fmt.Sprintf("%v: conversation %q, message %q, process %q (last seen %s); wait for it to finish or stop it there",
		ErrRunLive, e.ConversationID, e.Run.MessageID, e.Run.Owner, e.Run.HeartbeatAt.Format(time.RFC3339))
}

// Unwrap returns ErrRunLive.
func (e *RunLiveError) Unwrap() error { return ErrRunLive }

// StartRun adds m, a run's user message, as AddMessage does (status running, owner
// m.Owner), claiming its conversation across processes in the same IMMEDIATE transaction:
//
//   - A running message of the conversation owned by another instance whose heartbeat
//     (Heartbeat) is at most staleAfter old is a live run: StartRun refuses with a
//     *RunLiveError (errors.Is ErrRunLive) and writes nothing.
//   - A running message with no owner, an owner unknown to the instances table (removed at
//     shutdown or swept) or an owner whose heartbeat is older than staleAfter is the
//     leftover of a process that stopped: it is marked interrupted, as
//     InterruptOrphanedRuns would, and does not block.
//   - Running messages owned by m.Owner itself are left to the caller (the engine keeps
//     one run per conversation within a process).
//
// Two processes calling StartRun on one conversation at once are serialized by the write
// lock: exactly one succeeds. staleAfter <= 0 counts every heartbeat as stale.
// Errors: those of AddMessage, and *RunLiveError.
func (db *DB) StartRun(ctx context.Context, m Message, staleAfter time.Duration) error {
	if err := requireIDs("start run", "id", m.ID, "conversation id", m.ConversationID); err != nil {
		return err
	}
	m.Status = StatusRunning
	meta, err := nullJSON(m.Metadata, "message metadata")
	if err != nil {
		return err
	}
	t := now()
	var live *RunLiveError
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		fresh := formatTime(t.Add(-max(staleAfter, 0)))
		rows, err := tx.QueryContext(ctx, `SELECT m.id, COALESCE(m.owner, ''), COALESCE(i.heartbeat_at, '')
			FROM messages m LEFT JOIN instances i ON i.id = m.owner
			WHERE m.conversation_id = ? AND m.status = ? AND COALESCE(m.owner, '') != ?
			ORDER BY m.created_at`, m.ConversationID, StatusRunning, m.Owner)
		if err != nil {
			return err
		}
		var orphans []string
		for rows.Next() {
			var id, owner, beat string
			if err := rows.Scan(&id, &owner, &beat); err != nil {
				rows.Close()
				return err
			}
			if owner != "" && beat != "" && staleAfter > 0 && strings.Compare(beat, fresh) >= 0 {
				if live == nil {
					at, _ := parseTime(sql.NullString{String: beat, Valid: true})
					live = &RunLiveError{ConversationID: m.ConversationID, Run: LiveRun{MessageID: id, Owner: owner, HeartbeatAt: at}}
				}
				continue
			}
			orphans = append(orphans, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if live != nil {
			return live
		}
		for _, id := range orphans {
			if _, err := tx.ExecContext(ctx, `UPDATE messages SET status = ?, error = ?, updated_at = ? WHERE id = ? AND status = ?`,
				StatusInterrupted, interruptedReason, formatTime(t), id, StatusRunning); err != nil {
				return err
			}
		}
		return addMessageTx(ctx, tx, m, meta, t)
	})
	switch {
	case live != nil:
		return live
	case isUnique(err):
		return fmt.Errorf("store: start run %q: %w", m.ID, ErrDuplicate)
	case err != nil:
		return fmt.Errorf("store: start run %q: %w", m.ID, err)
	}
	return nil
}

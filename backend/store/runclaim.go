package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"artifactflow/backend/events"
)

// Errors of the cross-process run claim and of event numbering (two processes on one
// data dir, the window and `artifactflow ask --conversation X`).
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

// OwnerProbe tells whether the process whose instance id is owner is alive, from
// something other than its heartbeat (the app's per-process lock files): known false
// leaves the decision to the heartbeat. A heartbeat is a database write, so it cannot land
// while another process holds the write lock (up to BusyTimeout), and a process whose
// beats are late is not dead; the OS releases a dead process's file lock at once. It is
// called inside write transactions: it must be quick and must not use the database.
type OwnerProbe func(owner string) (alive, known bool)

// Liveness is how StartRun tells another instance's live run from the leftover of a
// process that stopped: Probe when it is set and knows the owner, else the owner's
// heartbeat, fresh when at most StaleAfter old (StaleAfter <= 0 counts every heartbeat as
// stale).
type Liveness struct {
	// StaleAfter is how old an owner's last heartbeat may be for it to count as alive when
	// Probe is nil or does not know the owner.
	StaleAfter time.Duration
	// Probe, when set, is asked first (the app's lock files; see OwnerProbe).
	Probe OwnerProbe
}

// provenAlive reports whether Probe knows owner and says it is alive. A finished message
// stays claimed only on that proof: only this version holds a claim past a run's end, and
// it always has a lock file, while an older version never cleared the owner of its
// finished messages, which must not block anyone however fresh its heartbeat.
func (l Liveness) provenAlive(owner string) bool {
	if l.Probe == nil || owner == "" {
		return false
	}
	alive, known := l.Probe(owner)
	return known && alive
}

// alive decides for one owner with last beat beat (formatted, "" when the owner is not in
// the instances table) against the cutoff fresh (formatted; beats at or after it are fresh).
func (l Liveness) alive(owner, beat, fresh string) bool {
	if owner == "" {
		return false
	}
	if l.Probe != nil {
		if alive, known := l.Probe(owner); known {
			return alive
		}
	}
	return beat != "" && l.StaleAfter > 0 && strings.Compare(beat, fresh) >= 0
}

// StartRun adds m, a run's user message, as AddMessage does (status running, owner
// m.Owner), claiming its conversation across processes in the same IMMEDIATE transaction.
// The claim is the message's owner: it holds from StartRun until ReleaseRun, which the
// engine calls once the run and its Stop hooks have ended (after FinishMessage), so a run
// whose hooks still write events holds its conversation too.
//
//   - A message of the conversation held by another instance (owner set, not m.Owner)
//     that is alive makes StartRun refuse with a *RunLiveError (errors.Is ErrRunLive);
//     nothing is written. A running message's owner is alive as live says (probe, else
//     heartbeat); a finished message's only when live.Probe proves it (provenAlive).
//   - A held message whose owner has stopped (no owner, an owner unknown to the instances
//     table or to live.Probe, a stale heartbeat) is released; if it is still running it is
//     marked interrupted, as InterruptOrphanedRuns would.
//   - Running messages of m.Owner itself are left to the caller (the engine keeps one run
//     per conversation within a process); its finished messages still held (a ReleaseRun
//     that failed) are released.
//
// Two processes calling StartRun on one conversation at once are serialized by the write
// lock: exactly one succeeds. The staleness cutoff is taken once the lock is held.
// Errors: those of AddMessage, and *RunLiveError.
func (db *DB) StartRun(ctx context.Context, m Message, live Liveness) error {
	if err := requireIDs("start run", "id", m.ID, "conversation id", m.ConversationID); err != nil {
		return err
	}
	m.Status = StatusRunning
	meta, err := nullJSON(m.Metadata, "message metadata")
	if err != nil {
		return err
	}
	var busy *RunLiveError
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		busy = nil
		t := now() // after BEGIN IMMEDIATE: a wait for the lock does not age the beats we read
		fresh := formatTime(t.Add(-max(live.StaleAfter, 0)))
		rows, err := tx.QueryContext(ctx, `SELECT m.id, m.status, COALESCE(m.owner, ''), COALESCE(i.heartbeat_at, '')
			FROM messages m LEFT JOIN instances i ON i.id = m.owner
			WHERE m.conversation_id = ? AND COALESCE(m.owner, '') != ?
			AND (m.status = ? OR COALESCE(m.owner, '') != '')
			ORDER BY m.created_at`, m.ConversationID, m.Owner, StatusRunning)
		if err != nil {
			return err
		}
		type held struct{ id, status string }
		var stopped []held
		for rows.Next() {
			var id, status, owner, beat string
			if err := rows.Scan(&id, &status, &owner, &beat); err != nil {
				rows.Close()
				return err
			}
			if status == StatusRunning && live.alive(owner, beat, fresh) || status != StatusRunning && live.provenAlive(owner) {
				if busy == nil {
					at, _ := parseTime(sql.NullString{String: beat, Valid: beat != ""})
					busy = &RunLiveError{ConversationID: m.ConversationID, Run: LiveRun{MessageID: id, Owner: owner, HeartbeatAt: at}}
				}
				continue
			}
			stopped = append(stopped, held{id, status})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if busy != nil {
			return busy
		}
		for _, h := range stopped {
			if h.status == StatusRunning {
				if _, err := tx.ExecContext(ctx, `UPDATE messages SET status = ?, error = ?, updated_at = ?, owner = NULL WHERE id = ? AND status = ?`,
					StatusInterrupted, interruptedReason, formatTime(t), h.id, StatusRunning); err != nil {
					return err
				}
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE messages SET owner = NULL WHERE id = ?`, h.id); err != nil {
				return err
			}
		}
		// Our own finished messages still held here are claims a failed ReleaseRun left:
		// the engine starts a run only once its previous one there has ended.
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET owner = NULL WHERE conversation_id = ? AND owner = ? AND status != ?`,
			m.ConversationID, m.Owner, StatusRunning); err != nil {
			return err
		}
		return addMessageTx(ctx, tx, m, meta, t)
	})
	switch {
	case busy != nil:
		return busy
	case isUnique(err):
		return fmt.Errorf("store: start run %q: %w", m.ID, ErrDuplicate)
	case err != nil:
		return fmt.Errorf("store: start run %q: %w", m.ID, err)
	}
	return nil
}

// ReleaseRun ends the claim StartRun took for message id on behalf of owner (see
// StartRun): another instance may start a run in the conversation from now on. Call it
// after the message's final status is stored and the run's last event (its Stop hooks'
// included) is written. Releasing a message not held by owner does nothing.
func (db *DB) ReleaseRun(ctx context.Context, id, owner string) error {
	if _, err := db.exec(ctx, `UPDATE messages SET owner = NULL WHERE id = ? AND owner = ?`, id, owner); err != nil {
		return fmt.Errorf("store: release run %q: %w", id, err)
	}
	return nil
}

// InstanceBeats returns the last heartbeat of every instance in the instances table, by
// instance id.
func (db *DB) InstanceBeats(ctx context.Context) (map[string]time.Time, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, heartbeat_at FROM instances`)
	if err != nil {
		return nil, fmt.Errorf("store: list instances: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var beat sql.NullString
		if err := rows.Scan(&id, &beat); err != nil {
			return nil, fmt.Errorf("store: list instances: %w", err)
		}
		if out[id], err = parseTime(beat); err != nil {
			return nil, fmt.Errorf("store: list instances: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list instances: %w", err)
	}
	return out, nil
}

// HeldRun is a message another instance holds (StartRun's claim, see there): its run is
// going (Status running), or has ended and its Stop hooks may still write events.
type HeldRun struct {
	MessageID      string
	ConversationID string
	Owner          string
	Status         string
}

// HeldRuns returns the messages held by instances other than self, oldest first: what a
// process follows of other processes' runs on the same database (the window showing a run
// `artifactflow ask` started). It reads the partial index on messages.owner.
func (db *DB) HeldRuns(ctx context.Context, self string) ([]HeldRun, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, conversation_id, owner, status FROM messages
		WHERE owner IS NOT NULL AND owner != ? ORDER BY created_at`, self)
	if err != nil {
		return nil, fmt.Errorf("store: list held runs: %w", err)
	}
	defer rows.Close()
	var out []HeldRun
	for rows.Next() {
		var h HeldRun
		if err := rows.Scan(&h.MessageID, &h.ConversationID, &h.Owner, &h.Status); err != nil {
			return nil, fmt.Errorf("store: list held runs: %w", err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list held runs: %w", err)
	}
	return out, nil
}

// RequestStop asks the instance running research in conversationID, another process than
// self, to stop it: it marks the conversation's running messages held by an instance
// other than self (stop_requested_at) and returns how many it marked (0: nothing is
// running there in another process). The owner finds the request through StopRequests.
// Errors: an empty id → ErrInvalid.
func (db *DB) RequestStop(ctx context.Context, conversationID, self string) (int, error) {
	if err := requireIDs("request stop", "conversation id", conversationID); err != nil {
		return 0, err
	}
	res, err := db.exec(ctx, `UPDATE messages SET stop_requested_at = ? WHERE conversation_id = ? AND status = ?
		AND owner IS NOT NULL AND owner != ? AND stop_requested_at IS NULL`,
		formatTime(now()), conversationID, StatusRunning, self)
	if err != nil {
		return 0, fmt.Errorf("store: request stop in conversation %q: %w", conversationID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store: request stop in conversation %q: %w", conversationID, err)
	}
	return int(n), nil
}

// StopRequest is a running message another process asked its owner to stop
// (RequestStop), with its conversation.
type StopRequest struct {
	ConversationID string
	MessageID      string
}

// StopRequests returns the running messages of owner another process asked to stop
// (RequestStop), in no particular order. A request ends with its run: a message that is
// no longer running is not listed. The owner stops a run only when it is still that
// message's (a new run in the conversation is not the one asked about).
func (db *DB) StopRequests(ctx context.Context, owner string) ([]StopRequest, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT conversation_id, id FROM messages
		WHERE owner = ? AND status = ? AND stop_requested_at IS NOT NULL`, owner, StatusRunning)
	if err != nil {
		return nil, fmt.Errorf("store: list stop requests: %w", err)
	}
	defer rows.Close()
	var out []StopRequest
	for rows.Next() {
		var r StopRequest
		if err := rows.Scan(&r.ConversationID, &r.MessageID); err != nil {
			return nil, fmt.Errorf("store: list stop requests: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list stop requests: %w", err)
	}
	return out, nil
}

// LastEventID returns the id of the newest stored event (message_events.id, which
// AUTOINCREMENT never reuses), 0 when there is none: where a follower starts
// (OtherEvents).
func (db *DB) LastEventID(ctx context.Context) (int64, error) {
	var id int64
	if err := db.sql.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM message_events`).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: last event id: %w", err)
	}
	return id, nil
}

// OtherEvents returns the events with after < id <= upTo (message_events.id, see
// LastEventID) of messages whose run self did not start (messages.started_by; a message
// of an older version, without one, counts as another's), in the order they were stored:
// what a process following other processes' runs relays, each event once, however short
// the run was.
func (db *DB) OtherEvents(ctx context.Context, self string, after, upTo int64) ([]events.Event, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT e.conversation_id, e.message_id, e.seq, e.type, e.agent_name, e.data, e.created_at
		FROM message_events e LEFT JOIN messages m ON m.id = e.message_id
		WHERE e.id > ? AND e.id <= ? AND COALESCE(m.started_by, '') != ? ORDER BY e.id`, after, upTo, self)
	if err != nil {
		return nil, fmt.Errorf("store: list other processes' events: %w", err)
	}
	out, err := scanEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("store: list other processes' events: %w", err)
	}
	return out, nil
}

// RunningDrafts returns the checkpointed working copies (artifact_drafts) of the running
// messages of conversationID that instances other than self hold, newest first: what
// another process's run has written so far and not yet stored as versions, for showing it
// while it runs. Drafts of runs that ended are RecoverableDrafts' business.
func (db *DB) RunningDrafts(ctx context.Context, conversationID, self string) ([]Draft, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT d.conversation_id, d.artifact_id, d.message_id, d.content_type,
		d.title, d.content, d.source, d.version, d.base_version, d.update_type, d.updated_at
		FROM artifact_drafts d JOIN messages m ON m.id = d.message_id
		WHERE d.conversation_id = ? AND m.status = ? AND m.owner IS NOT NULL AND m.owner != ?
		ORDER BY d.updated_at DESC, d.artifact_id`, conversationID, StatusRunning, self)
	if err != nil {
		return nil, fmt.Errorf("store: list running drafts of %q: %w", conversationID, err)
	}
	defer rows.Close()
	var out []Draft
	for rows.Next() {
		var d Draft
		var updated sql.NullString
		if err := rows.Scan(&d.ConversationID, &d.ArtifactID, &d.MessageID, &d.ContentType, &d.Title, &d.Content,
			&d.Source, &d.Version, &d.BaseVersion, &d.UpdateType, &updated); err != nil {
			return nil, fmt.Errorf("store: list running drafts of %q: %w", conversationID, err)
		}
		if d.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, fmt.Errorf("store: list running drafts of %q: %w", conversationID, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list running drafts of %q: %w", conversationID, err)
	}
	return out, nil
}

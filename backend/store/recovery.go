package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Heartbeat records that the instance id (one process running research: the window, serve
// or ask) is alive at now; the first beat registers it with pid. Running messages whose
// owner stops beating are interrupted by InterruptOrphanedRuns.
func (db *DB) Heartbeat(ctx context.Context, id string, pid int) error {
	if err := requireIDs("heartbeat", "instance id", id); err != nil {
		return err
	}
	t := formatTime(now())
	_, err := db.exec(ctx, `INSERT INTO instances (id, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`, id, pid, t, t)
	if err != nil {
		return fmt.Errorf("store: heartbeat of instance %q: %w", id, err)
	}
	return nil
}

// RemoveInstance forgets instance id at a clean shutdown.
func (db *DB) RemoveInstance(ctx context.Context, id string) error {
	if _, err := db.exec(ctx, `DELETE FROM instances WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: remove instance %q: %w", id, err)
	}
	return nil
}

// InterruptOrphanedRuns sets status 'interrupted' on every running message whose owner is
// not self and has stopped: no owner, or probe (nil allowed) says the owner is dead, or
// probe does not know it and it is unknown to the instances table or last beat before
// staleBefore. Those are runs of a process that was killed or crashed; live runs of
// another process on the same data dir are left alone, even when their beats are late
// because a long write elsewhere held the database. It returns the ids it marked, oldest
// first, and deletes instances that are stale and not known alive by probe.
func (db *DB) InterruptOrphanedRuns(ctx context.Context, self string, staleBefore time.Time, probe OwnerProbe) ([]string, error) {
	var ids []string
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		ids = nil
		live := Liveness{StaleAfter: time.Nanosecond, Probe: probe} // any positive bound: the cutoff is stale itself
		stale := formatTime(staleBefore)
		rows, err := tx.QueryContext(ctx, `SELECT m.id, COALESCE(m.owner, ''), COALESCE(i.heartbeat_at, '') FROM messages m
			LEFT JOIN instances i ON i.id = m.owner
			WHERE m.status = ? AND COALESCE(m.owner, '') != ?
			ORDER BY m.created_at`, StatusRunning, self)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, owner, beat string
			if err := rows.Scan(&id, &owner, &beat); err != nil {
				rows.Close()
				return err
			}
			if !live.alive(owner, beat, stale) {
				ids = append(ids, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		t := formatTime(now())
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE messages SET status = ?, error = ?, updated_at = ?, owner = NULL WHERE id = ?`,
				StatusInterrupted, interruptedReason, t, id); err != nil {
				return err
			}
		}
		rows, err = tx.QueryContext(ctx, `SELECT id FROM instances WHERE heartbeat_at < ? AND id != ?`, stale, self)
		if err != nil {
			return err
		}
		var gone []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			if probe != nil {
				if alive, known := probe(id); known && alive {
					continue
				}
			}
			gone = append(gone, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range gone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM instances WHERE id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: interrupt orphaned runs: %w", err)
	}
	return ids, nil
}

// Draft is one artifact of a run's write-back cache as checkpointed after a completed
// tool round (crash safety: a crash loses at most the tool round in flight, not the whole
// run). Version is the in-memory version; BaseVersion the stored current_version the run
// started from (0 = the run created the artifact).
type Draft struct {
	ConversationID string
	ArtifactID     string
	MessageID      string
	ContentType    string
	Title          string
	Content        string
	Source         string
	Version        int
	BaseVersion    int
	UpdateType     string
	Changes        []Change
	UpdatedAt      time.Time
}

// SaveDrafts upserts ds in one transaction: all or none.
// Errors: a draft without conversation, artifact or message id → ErrInvalid.
func (db *DB) SaveDrafts(ctx context.Context, ds ...Draft) error {
	if len(ds) == 0 {
		return nil
	}
	t := now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		for _, d := range ds {
			if err := requireIDs("save draft", "conversation id", d.ConversationID, "artifact id", d.ArtifactID, "message id", d.MessageID); err != nil {
				return err
			}
			changes, err := json.Marshal(d.Changes)
			if err != nil {
				return fmt.Errorf("draft %q changes: %w", d.ArtifactID, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO artifact_drafts (conversation_id, artifact_id, message_id,
				content_type, title, content, source, version, base_version, update_type, changes, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT(conversation_id, artifact_id, message_id) DO UPDATE SET content_type = excluded.content_type,
				title = excluded.title, content = excluded.content, source = excluded.source, version = excluded.version,
				update_type = excluded.update_type, changes = excluded.changes, updated_at = excluded.updated_at`,
				d.ConversationID, d.ArtifactID, d.MessageID, d.ContentType, d.Title, d.Content, d.Source, d.Version,
				d.BaseVersion, d.UpdateType, string(changes), formatTime(timeOr(d.UpdatedAt, t))); err != nil {
				return fmt.Errorf("draft %q: %w", d.ArtifactID, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: save drafts: %w", err)
	}
	return nil
}

// DeleteDraft removes the draft of artifactID left by messageID ("" = every message's).
func (db *DB) DeleteDraft(ctx context.Context, conversationID, artifactID, messageID string) error {
	_, err := db.exec(ctx, `DELETE FROM artifact_drafts WHERE conversation_id = ? AND artifact_id = ?
		AND (? = '' OR message_id = ?)`, conversationID, artifactID, messageID, messageID)
	if err != nil {
		return fmt.Errorf("store: delete draft %q: %w", artifactID, err)
	}
	return nil
}

// RecoverableDrafts returns the drafts of conversationID left by runs that are no longer
// running (interrupted, or ended without a successful flush), newest first. Drafts whose
// content the store already holds as the artifact's current content are stale and are
// deleted instead of returned.
func (db *DB) RecoverableDrafts(ctx context.Context, conversationID string) ([]Draft, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT d.conversation_id, d.artifact_id, d.message_id, d.content_type,
		d.title, d.content, d.source, d.version, d.base_version, d.update_type, COALESCE(d.changes, ''), d.updated_at,
		a.content IS NOT NULL AND a.content = d.content
		FROM artifact_drafts d
		JOIN messages m ON m.id = d.message_id AND m.status != ?
		LEFT JOIN artifacts a ON a.session_id = d.conversation_id AND a.id = d.artifact_id
		WHERE d.conversation_id = ? ORDER BY d.updated_at DESC, d.artifact_id`, StatusRunning, conversationID)
	if err != nil {
		return nil, fmt.Errorf("store: list drafts of %q: %w", conversationID, err)
	}
	defer rows.Close()
	var out, stale []Draft
	for rows.Next() {
		var d Draft
		var changes string
		var updated sql.NullString
		var same bool
		if err := rows.Scan(&d.ConversationID, &d.ArtifactID, &d.MessageID, &d.ContentType, &d.Title, &d.Content,
			&d.Source, &d.Version, &d.BaseVersion, &d.UpdateType, &changes, &updated, &same); err != nil {
			return nil, fmt.Errorf("store: list drafts of %q: %w", conversationID, err)
		}
		if changes != "" {
			_ = json.Unmarshal([]byte(changes), &d.Changes)
		}
		if d.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, fmt.Errorf("store: list drafts of %q: %w", conversationID, err)
		}
		if same {
			stale = append(stale, d)
			continue
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list drafts of %q: %w", conversationID, err)
	}
	rows.Close()
	for _, d := range stale {
		if err := db.DeleteDraft(ctx, d.ConversationID, d.ArtifactID, d.MessageID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns nil when SQLite answers "ok".
func (db *DB) IntegrityCheck(ctx context.Context) error {
	var res string
	if err := db.sql.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil {
		return fmt.Errorf("store: integrity check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("store: integrity check of %s: %s", db.path, res)
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// pendingUploadKey is the key, in conversations.metadata, naming the instance that created
// the conversation for an upload and has not stored a file in it yet.
const pendingUploadKey = "pending_upload"

// PendingUploadMetadata is the conversations.metadata of a conversation that instance
// creates to hold an upload, {"pending_upload": instance}: until ClearPendingUpload, a
// conversation so marked that is still empty when its instance has stopped is the leftover
// of an upload killed before it stored a file (RemoveAbandonedUploads).
func PendingUploadMetadata(instance string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{pendingUploadKey: instance}) // a string map always encodes
	return b
}

// ClearPendingUpload removes the pending-upload mark from conversation id's metadata (the
// metadata becomes NULL when nothing else is in it), once the upload has stored a file.
// An unmarked or unknown conversation is left as it is. Errors: database errors, wrapped.
func (db *DB) ClearPendingUpload(ctx context.Context, id string) error {
	_, err := db.exec(ctx, `UPDATE conversations
		SET metadata = CASE WHEN json_remove(metadata, '$.`+pendingUploadKey+`') = '{}' THEN NULL
			ELSE json_remove(metadata, '$.`+pendingUploadKey+`') END
		WHERE id = ? AND json_valid(metadata) AND json_type(metadata, '$.`+pendingUploadKey+`') IS NOT NULL`, id)
	if err != nil {
		return fmt.Errorf("store: clear the upload mark of conversation %q: %w", id, err)
	}
	return nil
}

// RemoveAbandonedUploads deletes the conversations created for an upload (marked by
// PendingUploadMetadata) whose upload will never store a file: still marked, still empty (no
// message, no artifact, no declared artifact, no workspace folder chosen), and created by an
// instance other than self that has stopped: probe (nil allowed) says it is dead, or probe
// does not know it and the instances table does not list it or its last beat is before
// staleBefore (as InterruptOrphanedRuns judges a run's owner). A conversation whose
// instance is alive is kept: its upload may be storing the first file right now. Checks and
// deletions happen in one write transaction, so nothing is added to a conversation between
// its check and its removal. It returns the ids it removed. Errors: database errors,
// wrapped.
func (db *DB) RemoveAbandonedUploads(ctx context.Context, self string, staleBefore time.Time, probe OwnerProbe) ([]string, error) {
	var ids []string
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		ids = nil
		live := Liveness{StaleAfter: time.Nanosecond, Probe: probe} // any positive bound: the cutoff is stale itself
		rows, err := tx.QueryContext(ctx, `SELECT c.id, json_extract(c.metadata, '$.`+pendingUploadKey+`'), COALESCE(i.heartbeat_at, '')
			FROM conversations c
			LEFT JOIN instances i ON i.id = json_extract(c.metadata, '$.`+pendingUploadKey+`')
			WHERE c.metadata IS NOT NULL AND json_valid(c.metadata)
				AND json_type(c.metadata, '$.`+pendingUploadKey+`') = 'text'
				AND json_extract(c.metadata, '$.`+pendingUploadKey+`') != ?
				AND c.workspace IS NULL
				AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id)
				AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.session_id = c.id)
				AND NOT EXISTS (SELECT 1 FROM declared_artifacts d WHERE d.conversation_id = c.id)
			ORDER BY c.created_at`, self)
		if err != nil {
			return err
		}
		stale := formatTime(staleBefore)
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
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: remove the conversations of abandoned uploads: %w", err)
	}
	return ids, nil
}

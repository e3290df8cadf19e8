package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// ConversationBlobs returns the distinct blob file names (artifacts.metadata "blob", set for
// uploads: the SHA-256 hex name of the original under the data dir's blobs directory)
// recorded by the artifacts of the conversation, in no particular order. Blobs are content
// addressed, so other conversations may share them: see BlobsInUse. An unknown
// conversation gives an empty slice.
func (db *DB) ConversationBlobs(ctx context.Context, conversationID string) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT json_extract(metadata, '$.blob') FROM artifacts
		WHERE session_id = ? AND json_valid(metadata) AND json_type(metadata, '$.blob') = 'text'`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("store: blobs of %q: %w", conversationID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("store: blobs of %q: %w", conversationID, err)
		}
		if b != "" {
			out = append(out, b)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: blobs of %q: %w", conversationID, err)
	}
	return out, nil
}

// BlobsInUse returns the subset of blobs still recorded by some artifact of any
// conversation, as a set.
func (db *DB) BlobsInUse(ctx context.Context, blobs []string) (map[string]bool, error) {
	in := map[string]bool{}
	if len(blobs) == 0 {
		return in, nil
	}
	list, err := json.Marshal(blobs)
	if err != nil {
		return nil, fmt.Errorf("store: blobs in use: %w", err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT json_extract(metadata, '$.blob') FROM artifacts
		WHERE json_valid(metadata) AND json_type(metadata, '$.blob') = 'text'
		AND json_extract(metadata, '$.blob') IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: blobs in use: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("store: blobs in use: %w", err)
		}
		in[b] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: blobs in use: %w", err)
	}
	return in, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Branches of the message tree: messages that share a parent are siblings, one branch
// each. Editing an earlier question or regenerating an answer adds a sibling;
// conversations.active_branch names the message the user is looking at, and the path from
// the root to it (MessagePath) is the conversation as shown.

// TreeNode is one message's place in the tree, without its text: ParentID is "" for a root.
type TreeNode struct {
	ID        string
	ParentID  string
	CreatedAt time.Time
}

// MessageTree returns every message of the conversation as a TreeNode, ordered by
// created_at then insertion order, so the children of any message appear oldest first.
// It reads ids only, for building branch navigators over long conversations. An unknown
// conversation gives an empty slice.
func (db *DB) MessageTree(ctx context.Context, conversationID string) ([]TreeNode, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, COALESCE(parent_id, ''), created_at FROM messages
		WHERE conversation_id = ? ORDER BY created_at, rowid`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("store: message tree of %q: %w", conversationID, err)
	}
	defer rows.Close()
	var out []TreeNode
	for rows.Next() {
		var n TreeNode
		var created sql.NullString
		if err := rows.Scan(&n.ID, &n.ParentID, &created); err != nil {
			return nil, fmt.Errorf("store: message tree of %q: %w", conversationID, err)
		}
		if n.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("store: message tree of %q: %w", conversationID, err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: message tree of %q: %w", conversationID, err)
	}
	return out, nil
}

// Children returns the messages of the conversation whose parent is parentID, oldest first
// (created_at, then insertion order); parentID "" returns the roots (parent_id NULL). A
// parent without children, or an unknown conversation, gives an empty slice.
func (db *DB) Children(ctx context.Context, conversationID, parentID string) ([]Message, error) {
	if parentID == "" {
		return db.queryMessages(ctx, "roots of "+conversationID, `SELECT `+messageCols+` FROM messages
			WHERE conversation_id = ? AND parent_id IS NULL ORDER BY created_at, rowid`, conversationID)
	}
	return db.queryMessages(ctx, "children of "+parentID, `SELECT `+messageCols+` FROM messages
		WHERE conversation_id = ? AND parent_id = ? ORDER BY created_at, rowid`, conversationID, parentID)
}

// Siblings returns messageID and the other messages with the same parent in the
// conversation (the branches at that point of the tree), oldest first; a root's siblings
// are the conversation's other roots. Errors: messageID not in the conversation →
// ErrNotFound.
func (db *DB) Siblings(ctx context.Context, conversationID, messageID string) ([]Message, error) {
	m, err := db.messageIn(ctx, "siblings", conversationID, messageID)
	if err != nil {
		return nil, err
	}
	return db.Children(ctx, conversationID, m.ParentID)
}

// LatestLeaf returns the newest leaf below messageID: starting at messageID it follows, at
// each step, the most recently created child (created_at, then insertion order) until a
// message without children; a message without children is its own latest leaf. This is
// where the conversation continues when the user switches to messageID's branch.
// Errors: messageID not in the conversation → ErrNotFound.
func (db *DB) LatestLeaf(ctx context.Context, conversationID, messageID string) (Message, error) {
	if _, err := db.messageIn(ctx, "latest leaf", conversationID, messageID); err != nil {
		return Message{}, err
	}
	// depth is bounded by the conversation's message count, so a parent cycle ends.
	var leaf string
	err := db.sql.QueryRowContext(ctx, `
		WITH RECURSIVE walk(id, depth) AS (
			SELECT ?1, 0
			UNION ALL
			SELECT (SELECT c.id FROM messages c WHERE c.parent_id = walk.id AND c.conversation_id = ?2
			        ORDER BY c.created_at DESC, c.rowid DESC LIMIT 1), walk.depth + 1
			FROM walk
			WHERE walk.id IS NOT NULL AND walk.depth < (SELECT count(*) FROM messages WHERE conversation_id = ?2)
		)
		SELECT id FROM walk WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1`, messageID, conversationID).Scan(&leaf)
	if err != nil {
		return Message{}, fmt.Errorf("store: latest leaf below %q: %w", messageID, err)
	}
	return db.GetMessage(ctx, leaf)
}

// SetActiveBranch makes messageID the conversation's active_branch, the message the
// conversation is shown up to and continued from. updated_at is left alone: looking at
// another branch is not a change to the conversation. Errors: empty ids → ErrInvalid;
// messageID not in the conversation (or an unknown conversation) → ErrNotFound.
func (db *DB) SetActiveBranch(ctx context.Context, conversationID, messageID string) error {
	if err := requireIDs("set active branch", "conversation id", conversationID, "message id", messageID); err != nil {
		return err
	}
	res, err := db.exec(ctx, `UPDATE conversations SET active_branch = ?2 WHERE id = ?1
		AND EXISTS (SELECT 1 FROM messages WHERE id = ?2 AND conversation_id = ?1)`, conversationID, messageID)
	if err != nil {
		return fmt.Errorf("store: set active branch of %q: %w", conversationID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: set active branch of %q: %w", conversationID, err)
	}
	if n == 0 {
		return fmt.Errorf("store: set active branch of %q: message %q in that conversation: %w", conversationID, messageID, ErrNotFound)
	}
	return nil
}

// messageIn returns message id if it belongs to conversationID, else ErrNotFound.
func (db *DB) messageIn(ctx context.Context, op, conversationID, id string) (Message, error) {
	m, err := db.GetMessage(ctx, id)
	if errors.Is(err, ErrNotFound) || (err == nil && m.ConversationID != conversationID) {
		return Message{}, fmt.Errorf("store: %s: message %q in conversation %q: %w", op, id, conversationID, ErrNotFound)
	}
	if err != nil {
		return Message{}, fmt.Errorf("store: %s: %w", op, err)
	}
	return m, nil
}

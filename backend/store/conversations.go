package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Conversation is one row of conversations. ActiveBranch is the id of the message the
// conversation currently continues from ("" when it has no messages); UserID may be "".
// Metadata is a JSON value or nil.
type Conversation struct {
	ID           string
	Title        string
	ActiveBranch string
	UserID       string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Metadata     json.RawMessage
	// LastStatus is the status (Status*) of the active branch's last message, the
	// conversation's latest run: "" when it has no message. Read-only: filled by
	// GetConversation and ListConversations (the sidebar's failed and stopped badges).
	LastStatus string
	// PinnedAt and ArchivedAt are when the user pinned or archived the conversation (zero:
	// not pinned, not archived). Set with SetPinned and SetArchived; CreateConversation
	// ignores them.
	PinnedAt   time.Time
	ArchivedAt time.Time
	// TitleSource says who wrote Title: TitleFromQuestion, TitleFromModel, TitleFromUser,
	// or "" for a conversation from before titles recorded it (kept as it is).
	TitleSource string
}

// Title sources (conversations.title_source). A title made from the question may be
// replaced once by the model's (SetModelTitle); a user's rename is never replaced.
const (
	TitleFromQuestion = "question"
	TitleFromModel    = "model"
	TitleFromUser     = "user"
	// TitleFromFiles marks the stand-in title ("Files: name") of a conversation that files
	// dropped or pasted with no conversation open created: the first question replaces it
	// (SetQuestionTitle), as if the conversation had begun with that question.
	TitleFromFiles = "files"
)

// Message statuses (messages.status). A message is running while its run is active and ends
// in one of the other four; interrupted marks runs found still running at start-up.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusCancelled   = "cancelled"
	StatusError       = "error"
	StatusInterrupted = "interrupted"
)

// validStatus reports whether s is one of the message statuses.
func validStatus(s string) bool {
	switch s {
	case StatusRunning, StatusComplete, StatusCancelled, StatusError, StatusInterrupted:
		return true
	}
	return false
}

// Message is one node of a conversation's message tree: Content is the user's text,
// GraphResponse the final answer, ParentID "" for a root. Status is one of the Status*
// constants; Error is the failure text of an errored run. Metadata is JSON or nil.
type Message struct {
	ID             string
	ConversationID string
	ParentID       string
	Content        string
	ThreadID       string
	GraphResponse  string
	Status         string
	Error          string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Metadata       json.RawMessage
	// Owner is the instance (see Heartbeat) running the message; set by AddMessage only.
	Owner string
}

const conversationCols = `id, title, COALESCE(active_branch, ''), COALESCE(user_id, ''), created_at, updated_at, metadata,
	COALESCE((SELECT m.status FROM messages m WHERE m.id = conversations.active_branch), ''),
	pinned_at, archived_at, COALESCE(title_source, '')`

func scanConversation(sc rowScanner) (Conversation, error) {
	var c Conversation
	var created, updated, meta, pinned, archived sql.NullString
	if err := sc.Scan(&c.ID, &c.Title, &c.ActiveBranch, &c.UserID, &created, &updated, &meta, &c.LastStatus,
		&pinned, &archived, &c.TitleSource); err != nil {
		return Conversation{}, err
	}
	var err error
	if c.CreatedAt, err = parseTime(created); err != nil {
		return Conversation{}, err
	}
	if c.UpdatedAt, err = parseTime(updated); err != nil {
		return Conversation{}, err
	}
	if c.PinnedAt, err = parseTime(pinned); err != nil {
		return Conversation{}, err
	}
	if c.ArchivedAt, err = parseTime(archived); err != nil {
		return Conversation{}, err
	}
	c.Metadata = rawJSON(meta)
	return c, nil
}

// CreateConversation inserts c and its artifact session (artifact_sessions row with the same
// id) in one transaction. Zero CreatedAt/UpdatedAt are set to now; TitleSource is stored as
// given ("" stores NULL: a title no model replaces). Errors: empty id, invalid Metadata or an
// unknown TitleSource → ErrInvalid; existing id → ErrDuplicate.
func (db *DB) CreateConversation(ctx context.Context, c Conversation) error {
	if err := requireIDs("create conversation", "id", c.ID); err != nil {
		return err
	}
	meta, err := nullJSON(c.Metadata, "conversation metadata")
	if err != nil {
		return err
	}
	switch c.TitleSource {
	case "", TitleFromQuestion, TitleFromModel, TitleFromUser, TitleFromFiles:
	default:
		return fmt.Errorf("store: create conversation %q: unknown title source %q: %w", c.ID, c.TitleSource, ErrInvalid)
	}
	t := now()
	created, updated := formatTime(timeOr(c.CreatedAt, t)), formatTime(timeOr(c.UpdatedAt, t))
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, title, active_branch, user_id, created_at, updated_at, metadata, title_source)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			c.ID, c.Title, nullString(c.ActiveBranch), nullString(c.UserID), created, updated, meta, nullString(c.TitleSource)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO artifact_sessions (id, created_at, updated_at) VALUES (?, ?, ?)`, c.ID, created, updated)
		return err
	})
	if isUnique(err) {
		return fmt.Errorf("store: create conversation %q: %w", c.ID, ErrDuplicate)
	}
	if err != nil {
		return fmt.Errorf("store: create conversation %q: %w", c.ID, err)
	}
	return nil
}

// GetConversation returns the conversation with the given id, or ErrNotFound.
func (db *DB) GetConversation(ctx context.Context, id string) (Conversation, error) {
	c, err := scanConversation(db.sql.QueryRowContext(ctx, `SELECT `+conversationCols+` FROM conversations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("store: conversation %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Conversation{}, fmt.Errorf("store: get conversation %q: %w", id, err)
	}
	return c, nil
}

// ListConversations returns conversations with the most recently updated first, skipping
// offset rows and returning at most limit (limit <= 0 means all). Negative offset → ErrInvalid.
func (db *DB) ListConversations(ctx context.Context, limit, offset int) ([]Conversation, error) {
	if offset < 0 {
		return nil, fmt.Errorf("store: list conversations: negative offset %d: %w", offset, ErrInvalid)
	}
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT `+conversationCols+` FROM conversations
		ORDER BY updated_at DESC, rowid DESC LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("store: list conversations: %w", err)
	}
	defer rows.Close()
	var out []Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list conversations: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list conversations: %w", err)
	}
	return out, nil
}

// RenameConversation sets the title and updated_at of conversation id and records the
// title as the user's (TitleFromUser), so no model title replaces it afterwards, even one
// whose call was already under way (SetModelTitle). ErrNotFound if absent.
func (db *DB) RenameConversation(ctx context.Context, id, title string) error {
	return db.updateConversation(ctx, "rename", id, `UPDATE conversations SET title = ?, title_source = ?, updated_at = ? WHERE id = ?`,
		title, TitleFromUser, formatTime(now()), id)
}

// SetQuestionTitle gives conversation id the title made from its first question
// (TitleFromQuestion), only while its title is the stand-in of files uploaded before any
// question (TitleFromFiles): a rename, or a title a question already made, is kept. It
// reports whether the title was replaced; updated_at does not change. Database errors are
// wrapped; an unknown id replaces nothing.
func (db *DB) SetQuestionTitle(ctx context.Context, id, title string) (bool, error) {
	res, err := db.exec(ctx, `UPDATE conversations SET title = ?, title_source = ? WHERE id = ? AND title_source = ?`,
		title, TitleFromQuestion, id, TitleFromFiles)
	if err != nil {
		return false, fmt.Errorf("store: set question title of conversation %q: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: set question title of conversation %q: %w", id, err)
	}
	return n > 0, nil
}

// SetModelTitle replaces the title of conversation id with one the model wrote, only while
// the title is still the one made from the question (TitleFromQuestion): the check and the
// write are one statement, so a rename that lands first always wins. It reports whether the
// title was replaced; updated_at does not change (the list keeps its order). Errors:
// ErrNotFound for an unknown conversation; database errors, wrapped.
func (db *DB) SetModelTitle(ctx context.Context, id, title string) (bool, error) {
	res, err := db.exec(ctx, `UPDATE conversations SET title = ?, title_source = ? WHERE id = ? AND title_source = ?`,
		title, TitleFromModel, id, TitleFromQuestion)
	if err != nil {
		return false, fmt.Errorf("store: set model title of conversation %q: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: set model title of conversation %q: %w", id, err)
	}
	if n > 0 {
		return true, nil
	}
	if _, err := db.GetConversation(ctx, id); err != nil {
		return false, fmt.Errorf("store: set model title: %w", err)
	}
	return false, nil
}

// SetPinned pins (pinned_at = now) or unpins (NULL) conversation id; pinning a pinned
// conversation keeps its first pin time. updated_at does not change. ErrNotFound if absent.
func (db *DB) SetPinned(ctx context.Context, id string, pinned bool) error {
	if !pinned {
		return db.updateConversation(ctx, "unpin", id, `UPDATE conversations SET pinned_at = NULL WHERE id = ?`, id)
	}
	return db.updateConversation(ctx, "pin", id, `UPDATE conversations SET pinned_at = COALESCE(pinned_at, ?) WHERE id = ?`, formatTime(now()), id)
}

// SetArchived archives (archived_at = now) or restores (NULL) conversation id; archiving an
// archived conversation keeps its first time. A pin stays, and applies again once the
// conversation is restored. updated_at does not change. ErrNotFound if absent.
func (db *DB) SetArchived(ctx context.Context, id string, archived bool) error {
	if !archived {
		return db.updateConversation(ctx, "unarchive", id, `UPDATE conversations SET archived_at = NULL WHERE id = ?`, id)
	}
	return db.updateConversation(ctx, "archive", id, `UPDATE conversations SET archived_at = COALESCE(archived_at, ?) WHERE id = ?`, formatTime(now()), id)
}

// TouchConversation sets updated_at of conversation id to now (ErrNotFound if absent).
func (db *DB) TouchConversation(ctx context.Context, id string) error {
	return db.updateConversation(ctx, "touch", id, `UPDATE conversations SET updated_at = ? WHERE id = ?`, formatTime(now()), id)
}

// DeleteConversation deletes conversation id and, through ON DELETE CASCADE, its messages,
// events, artifact session, artifacts and artifact versions (ErrNotFound if absent).
func (db *DB) DeleteConversation(ctx context.Context, id string) error {
	return db.updateConversation(ctx, "delete", id, `DELETE FROM conversations WHERE id = ?`, id)
}

// updateConversation runs a one-row statement on conversation id, mapping 0 rows to ErrNotFound.
func (db *DB) updateConversation(ctx context.Context, op, id, query string, args ...any) error {
	res, err := db.exec(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("store: %s conversation %q: %w", op, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: %s conversation %q: %w", op, id, err)
	}
	if n == 0 {
		return fmt.Errorf("store: %s conversation %q: %w", op, id, ErrNotFound)
	}
	return nil
}

const messageCols = `id, conversation_id, COALESCE(parent_id, ''), content, thread_id, COALESCE(graph_response, ''),
	status, COALESCE(error, ''), created_at, updated_at, metadata`

func scanMessage(sc rowScanner) (Message, error) {
	var m Message
	var created, updated, meta sql.NullString
	if err := sc.Scan(&m.ID, &m.ConversationID, &m.ParentID, &m.Content, &m.ThreadID, &m.GraphResponse,
		&m.Status, &m.Error, &created, &updated, &meta); err != nil {
		return Message{}, err
	}
	var err error
	if m.CreatedAt, err = parseTime(created); err != nil {
		return Message{}, err
	}
	if m.UpdatedAt, err = parseTime(updated); err != nil {
		return Message{}, err
	}
	m.Metadata = rawJSON(meta)
	return m, nil
}

// AddMessage inserts m and makes it the conversation's active branch (active_branch = m.ID,
// updated_at = now) in one transaction. An empty Status means running; zero times are set
// to now. A non-empty ParentID must name a message of the same conversation.
//
// Errors: empty id/conversation id, unknown status, invalid Metadata or a parent outside the
// conversation → ErrInvalid; missing conversation → ErrNotFound; existing id → ErrDuplicate.
func (db *DB) AddMessage(ctx context.Context, m Message) error {
	if err := requireIDs("add message", "id", m.ID, "conversation id", m.ConversationID); err != nil {
		return err
	}
	if m.Status == "" {
		m.Status = StatusRunning
	}
	if !validStatus(m.Status) {
		return fmt.Errorf("store: add message %q: unknown status %q: %w", m.ID, m.Status, ErrInvalid)
	}
	meta, err := nullJSON(m.Metadata, "message metadata")
	if err != nil {
		return err
	}
	t := now()
	err = db.inTx(ctx, func(tx *sql.Tx) error { return addMessageTx(ctx, tx, m, meta, t) })
	if isUnique(err) {
		return fmt.Errorf("store: add message %q: %w", m.ID, ErrDuplicate)
	}
	if err != nil {
		return fmt.Errorf("store: add message %q: %w", m.ID, err)
	}
	return nil
}

// addMessageTx is AddMessage's work inside tx: m's status is valid and meta is its
// metadata as stored; t is now.
func addMessageTx(ctx context.Context, tx *sql.Tx, m Message, meta any, t time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE conversations SET active_branch = ?, updated_at = ? WHERE id = ?`,
		m.ID, formatTime(t), m.ConversationID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("conversation %q: %w", m.ConversationID, ErrNotFound)
	}
	if m.ParentID != "" {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE id = ? AND conversation_id = ?`,
			m.ParentID, m.ConversationID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("parent %q is not a message of conversation %q: %w", m.ParentID, m.ConversationID, ErrInvalid)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO messages (id, conversation_id, parent_id, content, thread_id,
		graph_response, status, error, created_at, updated_at, metadata, owner, started_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.ConversationID, nullString(m.ParentID), m.Content, m.ThreadID, nullString(m.GraphResponse),
		m.Status, nullString(m.Error), formatTime(timeOr(m.CreatedAt, t)), formatTime(timeOr(m.UpdatedAt, t)), meta,
		nullString(m.Owner), nullString(m.Owner)) // started_by stays when ReleaseRun clears owner
	return err
}

// GetMessage returns the message with the given id, or ErrNotFound.
func (db *DB) GetMessage(ctx context.Context, id string) (Message, error) {
	m, err := scanMessage(db.sql.QueryRowContext(ctx, `SELECT `+messageCols+` FROM messages WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("store: message %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Message{}, fmt.Errorf("store: get message %q: %w", id, err)
	}
	return m, nil
}

// ListMessages returns every message of the conversation (all branches) ordered by created_at,
// then insertion order. An unknown conversation gives an empty slice.
func (db *DB) ListMessages(ctx context.Context, conversationID string) ([]Message, error) {
	return db.queryMessages(ctx, "list messages of "+conversationID,
		`SELECT `+messageCols+` FROM messages WHERE conversation_id = ? ORDER BY created_at, rowid`, conversationID)
}

func (db *DB) queryMessages(ctx context.Context, op, query string, args ...any) ([]Message, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", op, err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("store: %s: %w", op, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: %w", op, err)
	}
	return out, nil
}

// FinishMessage records the end of a run on message id: its final answer, status (one of the
// Status* constants) and error text ("" for none), and sets updated_at.
// Errors: unknown status → ErrInvalid; missing message → ErrNotFound.
func (db *DB) FinishMessage(ctx context.Context, id, graphResponse, status, errText string) error {
	if !validStatus(status) {
		return fmt.Errorf("store: finish message %q: unknown status %q: %w", id, status, ErrInvalid)
	}
	res, err := db.exec(ctx, `UPDATE messages SET graph_response = ?, status = ?, error = ?, updated_at = ? WHERE id = ?`,
		nullString(graphResponse), status, nullString(errText), formatTime(now()), id)
	if err != nil {
		return fmt.Errorf("store: finish message %q: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: finish message %q: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("store: finish message %q: %w", id, ErrNotFound)
	}
	return nil
}

// MessagePath returns the messages from the root down to toMessageID (inclusive) by following
// parent_id. An empty toMessageID means the conversation's active_branch; a conversation
// without messages gives an empty slice.
//
// Errors: unknown conversation, or toMessageID not in the conversation → ErrNotFound; a parent
// chain that is broken (missing parent) or cyclic gives an error naming the message.
func (db *DB) MessagePath(ctx context.Context, conversationID, toMessageID string) ([]Message, error) {
	if toMessageID == "" {
		c, err := db.GetConversation(ctx, conversationID)
		if err != nil {
			return nil, fmt.Errorf("store: message path: %w", err)
		}
		if c.ActiveBranch == "" {
			return nil, nil
		}
		toMessageID = c.ActiveBranch
	}
	// depth is bounded by the conversation's message count, so a parent cycle ends.
	path, err := db.queryMessages(ctx, "message path to "+toMessageID, `
		WITH RECURSIVE path(mid, pid, depth) AS (
			SELECT id, parent_id, 0 FROM messages WHERE id = ?1 AND conversation_id = ?2
			UNION ALL
			SELECT m.id, m.parent_id, path.depth + 1 FROM messages m JOIN path ON m.id = path.pid
			WHERE m.conversation_id = ?2 AND path.depth < (SELECT count(*) FROM messages WHERE conversation_id = ?2)
		)
		SELECT `+messageCols+` FROM path JOIN messages ON messages.id = path.mid ORDER BY path.depth DESC`,
		toMessageID, conversationID)
	if err != nil {
		return nil, err
	}
	if len(path) == 0 {
		return nil, fmt.Errorf("store: message path: message %q in conversation %q: %w", toMessageID, conversationID, ErrNotFound)
	}
	if root := path[0]; root.ParentID != "" {
		return nil, fmt.Errorf("store: message path to %q: chain broken at %q (parent %q missing or cyclic)", toMessageID, root.ID, root.ParentID)
	}
	return path, nil
}

// MarkRunningInterrupted sets status 'interrupted' (and updated_at) on every message still
// 'running' and returns how many changed. Called at start-up: no run survives a restart.
func (db *DB) MarkRunningInterrupted(ctx context.Context) (int, error) {
	res, err := db.exec(ctx, `UPDATE messages SET status = ?, updated_at = ? WHERE status = ?`,
		StatusInterrupted, formatTime(now()), StatusRunning)
	if err != nil {
		return 0, fmt.Errorf("store: mark running messages interrupted: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store: mark running messages interrupted: %w", err)
	}
	return int(n), nil
}

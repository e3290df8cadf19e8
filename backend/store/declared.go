package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// DeclaredChangesKept is how many changes of each conversation declared_changes keeps:
// appending prunes the older ones (the log lets a client resume an event stream; a
// client further behind resynchronizes with a list).
const DeclaredChangesKept = 1000

// DeclaredRow is one row of declared_artifacts (migration 0004): a declared artifact
// with its internal bookkeeping. The store keeps the values as given; the rules
// (identity, validation, merging, quotas) live in package declared.
//
//   - ID is the public id, IdentityKey the location it was derived from; both unique per
//     conversation.
//   - Description, WorkspacePath, ManagedID, URL, MimeType, ToolCallID, ToolName, HookName,
//     ClientID and MissingReason are "" when absent (stored as NULL); SizeBytes is nil when
//     unknown; Metadata is a JSON object or nil.
//   - ClientID is the first writer's client id (never exposed); ClientRetained is set once
//     any client registered the location, RetainedBy lists the ids of those clients.
//   - RetentionSource is the first writer's source (its quota bucket); InsertSeq is the
//     per-conversation insertion order, assigned by Insert when 0 and never changed.
//   - LastStatAt is when the workspace file was last stat'ed (zero: never).
type DeclaredRow struct {
	ConversationID  string
	ID              string
	IdentityKey     string
	Kind            string
	Storage         string
	Title           string
	Description     string
	Status          string
	MissingReason   string
	Source          string
	WorkspacePath   string
	ManagedID       string
	URL             string
	MimeType        string
	SizeBytes       *int64
	ToolCallID      string
	ToolName        string
	HookName        string
	ClientID        string
	ClientRetained  bool
	RetainedBy      []string
	RetentionSource string
	InsertSeq       int64
	Metadata        json.RawMessage
	CreatedAt       time.Time
	UpdatedAt       time.Time
	LastStatAt      time.Time
}

// DeclaredChange is one entry of a conversation's declared-artifact change log: Seq is its
// place (increasing, unique across conversations), Change the JSON object stored.
type DeclaredChange struct {
	Seq       int64
	Change    json.RawMessage
	CreatedAt time.Time
}

const declaredCols = `conversation_id, id, identity_key, kind, storage, title, COALESCE(description, ''), status,
	COALESCE(missing_reason, ''), source, COALESCE(workspace_path, ''), COALESCE(managed_id, ''), COALESCE(url, ''),
	COALESCE(mime_type, ''), size_bytes, COALESCE(tool_call_id, ''), COALESCE(tool_name, ''), COALESCE(hook_name, ''),
	COALESCE(client_id, ''), client_retained, retained_by, retention_source, insert_seq, metadata,
	created_at, updated_at, last_stat_at`

func scanDeclared(sc rowScanner) (DeclaredRow, error) {
	var r DeclaredRow
	var size sql.NullInt64
	var retained int
	var retainedBy, meta, created, updated, stat sql.NullString
	if err := sc.Scan(&r.ConversationID, &r.ID, &r.IdentityKey, &r.Kind, &r.Storage, &r.Title, &r.Description,
		&r.Status, &r.MissingReason, &r.Source, &r.WorkspacePath, &r.ManagedID, &r.URL, &r.MimeType, &size,
		&r.ToolCallID, &r.ToolName, &r.HookName, &r.ClientID, &retained, &retainedBy, &r.RetentionSource,
		&r.InsertSeq, &meta, &created, &updated, &stat); err != nil {
		return DeclaredRow{}, err
	}
	if size.Valid {
		n := size.Int64
		r.SizeBytes = &n
	}
	r.ClientRetained = retained != 0
	if retainedBy.Valid && retainedBy.String != "" {
		if err := json.Unmarshal([]byte(retainedBy.String), &r.RetainedBy); err != nil {
			return DeclaredRow{}, fmt.Errorf("store: declared artifact %q: retained_by: %w", r.ID, err)
		}
	}
	r.Metadata = rawJSON(meta)
	var err error
	if r.CreatedAt, err = parseTime(created); err != nil {
		return DeclaredRow{}, err
	}
	if r.UpdatedAt, err = parseTime(updated); err != nil {
		return DeclaredRow{}, err
	}
	if r.LastStatAt, err = parseTime(stat); err != nil {
		return DeclaredRow{}, err
	}
	return r, nil
}

// validate checks what the schema needs of r; op names the caller in errors.
func (r *DeclaredRow) validate(op string) error {
	if err := requireIDs(op, "artifact id", r.ID, "identity key", r.IdentityKey, "kind", r.Kind,
		"storage", r.Storage, "status", r.Status, "source", r.Source, "retention source", r.RetentionSource); err != nil {
		return err
	}
	if r.CreatedAt.IsZero() || r.UpdatedAt.IsZero() {
		return fmt.Errorf("store: %s %q: zero created or updated time: %w", op, r.ID, ErrInvalid)
	}
	return nil
}

// nullTime maps the zero time to SQL NULL.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return formatTime(t)
}

// nullInt64 maps nil to SQL NULL.
func nullInt64(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// retainedByJSON encodes the retaining clients (nil for none).
func retainedByJSON(ids []string) (any, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("encode retained_by: %w", err)
	}
	return string(b), nil
}

// boolInt is SQLite's boolean.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DeclaredTx is a write transaction (BEGIN IMMEDIATE) over one conversation's declared
// artifacts and change log, handed to the function given to (*DB).DeclaredTx. It is valid
// only during that call and not safe for concurrent use.
type DeclaredTx struct {
	ctx     context.Context
	tx      *sql.Tx
	conv    string
	stmts   map[string]*sql.Stmt // prepared once per transaction (a batch inserts up to 200)
	nextSeq int64                // the next insert_seq, once read
}

// stmt returns query prepared on the transaction (closed with it).
func (t *DeclaredTx) stmt(query string) (*sql.Stmt, error) {
	if st := t.stmts[query]; st != nil {
		return st, nil
	}
	st, err := t.tx.PrepareContext(t.ctx, query)
	if err != nil {
		return nil, err
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[query] = st
	return st, nil
}

// exec runs a prepared statement.
func (t *DeclaredTx) exec(query string, args ...any) (sql.Result, error) {
	st, err := t.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(t.ctx, args...)
}

// DeclaredTx runs fn in one write transaction over conversation conversationID's declared
// artifacts, committing when fn returns nil and rolling back otherwise (fn's error is
// returned unchanged). Errors: empty id → ErrInvalid; unknown conversation → ErrNotFound
// (fn is not called); store errors, wrapped.
func (db *DB) DeclaredTx(ctx context.Context, conversationID string, fn func(tx *DeclaredTx) error) error {
	if err := requireIDs("declared transaction", "conversation id", conversationID); err != nil {
		return err
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := conversationExists(ctx, tx, conversationID); err != nil {
			return err
		}
		return fn(&DeclaredTx{ctx: ctx, tx: tx, conv: conversationID})
	})
}

// queryer is what *sql.DB and *sql.Tx have in common for reads.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// conversationExists returns ErrNotFound (wrapped) when conversation id does not exist.
func conversationExists(ctx context.Context, q queryer, id string) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM conversations WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("store: conversation %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: conversation %q: %w", id, err)
	}
	return nil
}

// listDeclared returns the declared artifacts of conv, oldest first (created_at, then
// insert_seq).
func listDeclared(ctx context.Context, q queryer, conv string) ([]DeclaredRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+declaredCols+` FROM declared_artifacts
		WHERE conversation_id = ? ORDER BY created_at, insert_seq`, conv)
	if err != nil {
		return nil, fmt.Errorf("store: list declared artifacts of %q: %w", conv, err)
	}
	defer rows.Close()
	var out []DeclaredRow
	for rows.Next() {
		r, err := scanDeclared(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list declared artifacts of %q: %w", conv, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list declared artifacts of %q: %w", conv, err)
	}
	return out, nil
}

// List returns the conversation's declared artifacts, oldest first (createdAt, then
// insertion order).
func (t *DeclaredTx) List() ([]DeclaredRow, error) { return listDeclared(t.ctx, t.tx, t.conv) }

// Get returns the declared artifact with the given id, or ErrNotFound.
func (t *DeclaredTx) Get(id string) (DeclaredRow, error) {
	r, err := scanDeclared(t.tx.QueryRowContext(t.ctx, `SELECT `+declaredCols+` FROM declared_artifacts
		WHERE conversation_id = ? AND id = ?`, t.conv, id))
	if errors.Is(err, sql.ErrNoRows) {
		return DeclaredRow{}, fmt.Errorf("store: declared artifact %q of %q: %w", id, t.conv, ErrNotFound)
	}
	if err != nil {
		return DeclaredRow{}, fmt.Errorf("store: get declared artifact %q of %q: %w", id, t.conv, err)
	}
	return r, nil
}

// Insert stores a new declared artifact of the transaction's conversation (r's
// ConversationID is ignored) and returns it as stored. A zero InsertSeq is set to one more
// than the conversation's largest (the rows inserted before in this transaction included). Errors: empty ids, kind, storage, status, source or
// retention source, zero times, or invalid Metadata JSON → ErrInvalid; an id or identity
// key already stored → ErrDuplicate.
func (t *DeclaredTx) Insert(r DeclaredRow) (DeclaredRow, error) {
	r.ConversationID = t.conv
	if err := r.validate("insert declared artifact"); err != nil {
		return DeclaredRow{}, err
	}
	meta, err := nullJSON(r.Metadata, "declared artifact metadata")
	if err != nil {
		return DeclaredRow{}, err
	}
	retainedBy, err := retainedByJSON(r.RetainedBy)
	if err != nil {
		return DeclaredRow{}, fmt.Errorf("store: insert declared artifact %q: %w", r.ID, err)
	}
	if t.nextSeq == 0 {
		if err := t.tx.QueryRowContext(t.ctx, `SELECT COALESCE(MAX(insert_seq), 0) + 1 FROM declared_artifacts
			WHERE conversation_id = ?`, t.conv).Scan(&t.nextSeq); err != nil {
			return DeclaredRow{}, fmt.Errorf("store: insert declared artifact %q: next insert seq: %w", r.ID, err)
		}
	}
	if r.InsertSeq == 0 {
		r.InsertSeq = t.nextSeq
	}
	_, err = t.exec(`INSERT INTO declared_artifacts (conversation_id, id, identity_key, kind, storage,
		title, description, status, missing_reason, source, workspace_path, managed_id, url, mime_type, size_bytes,
		tool_call_id, tool_name, hook_name, client_id, client_retained, retained_by, retention_source, insert_seq,
		metadata, created_at, updated_at, last_stat_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.conv, r.ID, r.IdentityKey, r.Kind, r.Storage, r.Title, nullString(r.Description), r.Status,
		nullString(r.MissingReason), r.Source, nullString(r.WorkspacePath), nullString(r.ManagedID), nullString(r.URL),
		nullString(r.MimeType), nullInt64(r.SizeBytes), nullString(r.ToolCallID), nullString(r.ToolName),
		nullString(r.HookName), nullString(r.ClientID), boolInt(r.ClientRetained), retainedBy, r.RetentionSource,
		r.InsertSeq, meta, formatTime(r.CreatedAt), formatTime(r.UpdatedAt), nullTime(r.LastStatAt))
	if isUnique(err) {
		return DeclaredRow{}, fmt.Errorf("store: insert declared artifact %q of %q: %w", r.ID, t.conv, ErrDuplicate)
	}
	if err != nil {
		return DeclaredRow{}, fmt.Errorf("store: insert declared artifact %q of %q: %w", r.ID, t.conv, err)
	}
	t.nextSeq = max(t.nextSeq, r.InsertSeq) + 1
	return r, nil
}

// Update overwrites the stored declared artifact r.ID with r, except its identity key,
// insert_seq and created_at, which never change. Errors: as Insert; an id not stored →
// ErrNotFound.
func (t *DeclaredTx) Update(r DeclaredRow) error {
	r.ConversationID = t.conv
	if err := r.validate("update declared artifact"); err != nil {
		return err
	}
	meta, err := nullJSON(r.Metadata, "declared artifact metadata")
	if err != nil {
		return err
	}
	retainedBy, err := retainedByJSON(r.RetainedBy)
	if err != nil {
		return fmt.Errorf("store: update declared artifact %q: %w", r.ID, err)
	}
	res, err := t.exec(`UPDATE declared_artifacts SET kind = ?, storage = ?, title = ?,
		description = ?, status = ?, missing_reason = ?, source = ?, workspace_path = ?, managed_id = ?, url = ?,
		mime_type = ?, size_bytes = ?, tool_call_id = ?, tool_name = ?, hook_name = ?, client_id = ?,
		client_retained = ?, retained_by = ?, retention_source = ?, metadata = ?, updated_at = ?, last_stat_at = ?
		WHERE conversation_id = ? AND id = ?`,
		r.Kind, r.Storage, r.Title, nullString(r.Description), r.Status, nullString(r.MissingReason), r.Source,
		nullString(r.WorkspacePath), nullString(r.ManagedID), nullString(r.URL), nullString(r.MimeType),
		nullInt64(r.SizeBytes), nullString(r.ToolCallID), nullString(r.ToolName), nullString(r.HookName),
		nullString(r.ClientID), boolInt(r.ClientRetained), retainedBy, r.RetentionSource, meta,
		formatTime(r.UpdatedAt), nullTime(r.LastStatAt), t.conv, r.ID)
	return t.oneRow(res, err, "update", r.ID)
}

// SetStat records the result of a stat of workspace artifact id: its status, missing
// reason ("" when available), size (nil when unknown) and when it was taken; updated_at is
// left alone (a status refresh is not an upsert). Errors: an id not stored → ErrNotFound.
func (t *DeclaredTx) SetStat(id, status, missingReason string, sizeBytes *int64, at time.Time) error {
	if err := requireIDs("set declared stat", "artifact id", id, "status", status); err != nil {
		return err
	}
	res, err := t.exec(`UPDATE declared_artifacts SET status = ?, missing_reason = ?, size_bytes = ?,
		last_stat_at = ? WHERE conversation_id = ? AND id = ?`,
		status, nullString(missingReason), nullInt64(sizeBytes), nullTime(at), t.conv, id)
	return t.oneRow(res, err, "set stat of", id)
}

// Delete removes the declared artifact id. Errors: an id not stored → ErrNotFound.
func (t *DeclaredTx) Delete(id string) error {
	res, err := t.exec(`DELETE FROM declared_artifacts WHERE conversation_id = ? AND id = ?`, t.conv, id)
	return t.oneRow(res, err, "delete", id)
}

// oneRow maps the result of a one-row statement: an error is wrapped, 0 rows is ErrNotFound.
func (t *DeclaredTx) oneRow(res sql.Result, err error, op, id string) error {
	if err != nil {
		return fmt.Errorf("store: %s declared artifact %q of %q: %w", op, id, t.conv, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: %s declared artifact %q of %q: %w", op, id, t.conv, err)
	}
	if n == 0 {
		return fmt.Errorf("store: %s declared artifact %q of %q: %w", op, id, t.conv, ErrNotFound)
	}
	return nil
}

// AppendChanges appends changes (JSON objects) to the conversation's change log in order,
// all stamped at, and returns their sequence numbers; then prunes the log to the
// conversation's last DeclaredChangesKept entries. Errors: invalid JSON → ErrInvalid.
func (t *DeclaredTx) AppendChanges(at time.Time, changes ...json.RawMessage) ([]int64, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	stmt, err := t.stmt(`INSERT INTO declared_changes (conversation_id, change, created_at) VALUES (?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("store: append declared changes of %q: %w", t.conv, err)
	}
	stamp := formatTime(timeOr(at, now()))
	seqs := make([]int64, 0, len(changes))
	for i, ch := range changes {
		if !json.Valid(ch) || len(ch) == 0 {
			return nil, fmt.Errorf("store: append declared changes of %q: change %d is not valid JSON: %w", t.conv, i, ErrInvalid)
		}
		res, err := stmt.ExecContext(t.ctx, t.conv, string(ch), stamp)
		if err != nil {
			return nil, fmt.Errorf("store: append declared changes of %q: %w", t.conv, err)
		}
		seq, err := res.LastInsertId()
		if err != nil {
			return nil, fmt.Errorf("store: append declared changes of %q: %w", t.conv, err)
		}
		seqs = append(seqs, seq)
	}
	if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM declared_changes WHERE conversation_id = ? AND seq <=
		(SELECT seq FROM declared_changes WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
		t.conv, t.conv, DeclaredChangesKept); err != nil {
		return nil, fmt.Errorf("store: prune declared changes of %q: %w", t.conv, err)
	}
	return seqs, nil
}

// ListDeclared returns conversation conversationID's declared artifacts, oldest first
// (createdAt, then insertion order). Errors: unknown conversation → ErrNotFound.
func (db *DB) ListDeclared(ctx context.Context, conversationID string) ([]DeclaredRow, error) {
	if err := conversationExists(ctx, db.sql, conversationID); err != nil {
		return nil, err
	}
	return listDeclared(ctx, db.sql, conversationID)
}

// DeclaredChangesSince returns the logged declared-artifact changes of conversation
// conversationID with seq > after, oldest first, at most limit (limit <= 0: all kept).
// Errors: unknown conversation → ErrNotFound.
func (db *DB) DeclaredChangesSince(ctx context.Context, conversationID string, after int64, limit int) ([]DeclaredChange, error) {
	if err := conversationExists(ctx, db.sql, conversationID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT seq, change, created_at FROM declared_changes
		WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?`, conversationID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: declared changes of %q: %w", conversationID, err)
	}
	defer rows.Close()
	var out []DeclaredChange
	for rows.Next() {
		var c DeclaredChange
		var change string
		var created sql.NullString
		if err := rows.Scan(&c.Seq, &change, &created); err != nil {
			return nil, fmt.Errorf("store: declared changes of %q: %w", conversationID, err)
		}
		c.Change = json.RawMessage(change)
		if c.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("store: declared changes of %q: %w", conversationID, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: declared changes of %q: %w", conversationID, err)
	}
	return out, nil
}

// SetConversationWorkspace sets the folder the user chose as conversation id's workspace;
// "" restores the default (<data-dir>/workspaces/<conversation-id>/). Errors: a path that
// is not absolute → ErrInvalid; unknown conversation → ErrNotFound.
func (db *DB) SetConversationWorkspace(ctx context.Context, id, path string) error {
	if path != "" && !filepath.IsAbs(path) {
		return fmt.Errorf("store: set workspace of conversation %q: %q is not an absolute path: %w", id, path, ErrInvalid)
	}
	var p any
	if path != "" {
		p = filepath.Clean(path)
	}
	return db.updateConversation(ctx, "set workspace of", id, `UPDATE conversations SET workspace = ? WHERE id = ?`, p, id)
}

// ConversationWorkspace returns the folder chosen as conversation id's workspace, or ""
// for the default. Errors: unknown conversation → ErrNotFound.
func (db *DB) ConversationWorkspace(ctx context.Context, id string) (string, error) {
	var ws sql.NullString
	err := db.sql.QueryRowContext(ctx, `SELECT workspace FROM conversations WHERE id = ?`, id).Scan(&ws)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: workspace of conversation %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: workspace of conversation %q: %w", id, err)
	}
	return ws.String, nil
}

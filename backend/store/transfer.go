package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"artifactflow/backend/events"
)

// Row is one table row as a conversation file carries it (ExportConversation,
// ImportConversation): column name to value, each value a string, an int64, a float64 or
// nil (SQL NULL). Columns of the table that a row leaves out take their defaults.
type Row map[string]any

// transferSpec says how one table's rows of a conversation leave and enter a database.
type transferSpec struct {
	table string
	conv  string   // the column holding the conversation id (the WHERE of the export)
	convs []string // other columns that hold the conversation id (messages.thread_id)
	order string   // ORDER BY of the export
	// skip: columns never exported: ids the receiving database assigns (AUTOINCREMENT),
	// and what belongs to this computer only (a process's claim on a run, the folder the
	// user chose for the conversation's workspace).
	skip []string
	msgs []string // columns holding message ids: remapped (the messages' own ids included)
	// strict: columns whose message id must name a message of the file (else the file is
	// refused); the others keep an id they cannot map (a source may name a message that
	// is gone).
	strict []string
	json   []string // JSON columns: string values naming a remapped id are rewritten
}

// transferTables are the tables a conversation file carries, in import order: every
// parent before its children (foreign keys), messages before what names them, and the
// declared artifacts before the events and changes whose JSON names their ids. What is
// left out is derived or local: search_docs and search_fts (filled by triggers),
// file_index_* (rebuilt from the uploads and the workspace folder), instances.
// TestTransferCoversConversationTables fails when a migration adds a table holding
// conversation data that is neither here nor in transferLeftOut.
var transferTables = []transferSpec{
	{table: "conversations", conv: "id", order: "id", skip: []string{"workspace"},
		msgs: []string{"active_branch"}, strict: []string{"active_branch"}, json: []string{"metadata"}},
	{table: "artifact_sessions", conv: "id", order: "id"},
	{table: "messages", conv: "conversation_id", convs: []string{"thread_id"}, order: "created_at, id",
		skip: []string{"owner", "started_by", "stop_requested_at"},
		msgs: []string{"id", "parent_id"}, strict: []string{"id", "parent_id"}, json: []string{"metadata"}},
	{table: "declared_artifacts", conv: "conversation_id", order: "insert_seq, id", json: []string{"metadata"}},
	{table: "declared_changes", conv: "conversation_id", order: "seq", skip: []string{"seq"}, json: []string{"change"}},
	{table: "message_events", conv: "conversation_id", order: "seq", skip: []string{"id"},
		msgs: []string{"message_id"}, strict: []string{"message_id"}, json: []string{"data"}},
	{table: "artifacts", conv: "session_id", order: "created_at, id", json: []string{"metadata"}},
	{table: "artifact_versions", conv: "session_id", order: "artifact_id, version", skip: []string{"id"}, msgs: []string{"message_id"}},
	{table: "artifact_drafts", conv: "conversation_id", order: "artifact_id, message_id", msgs: []string{"message_id"}},
	{table: "sources", conv: "conversation_id", order: "n", msgs: []string{"message_id"}},
	{table: "source_keys", conv: "conversation_id", order: "key"},
}

// transferLeftOut are the tables with conversation rows that a conversation file leaves
// out on purpose (see transferTables).
var transferLeftOut = []string{"search_docs", "search_fts", "file_index_roots", "file_index_files", "file_index_chunks", "file_index_fts"}

// TransferTables returns the names of the tables a conversation file carries, in the order
// ImportConversation reads them.
func TransferTables() []string {
	out := make([]string, len(transferTables))
	for i, s := range transferTables {
		out[i] = s.table
	}
	return out
}

// ExportConversation calls emit with every row of conversation id that a conversation
// file carries (TransferTables, in that order; within a table in a fixed order: events by
// seq, versions by artifact and version, …), all read in one read transaction, so the rows
// are one consistent state even while a run writes to the conversation. Columns that only
// make sense on this computer are left out: messages.owner, started_by and
// stop_requested_at, conversations.workspace; so are AUTOINCREMENT ids. It returns the
// database's schema version (SchemaVersion), which the file records. emit's error stops
// the export and is returned unchanged. Errors: ErrNotFound for an unknown conversation;
// database errors, wrapped.
func (db *DB) ExportConversation(ctx context.Context, id string, emit func(table string, row Row) error) (int, error) {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: export conversation %q: %w", id, err)
	}
	defer conn.Close()
	// A deferred transaction on a read connection: its snapshot is taken at the first read
	// and holds no write lock (the DSN's _txlock applies to BeginTx only).
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return 0, fmt.Errorf("store: export conversation %q: %w", id, err)
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") }()
	var schema int
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&schema); err != nil {
		return 0, fmt.Errorf("store: export conversation %q: schema version: %w", id, err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM conversations WHERE id = ?`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: export conversation %q: %w", id, err)
	}
	if n == 0 {
		return 0, fmt.Errorf("store: export conversation %q: %w", id, ErrNotFound)
	}
	for _, spec := range transferTables {
		if err := exportTable(ctx, conn, spec, id, emit); err != nil {
			return 0, err
		}
	}
	return schema, nil
}

// exportTable emits the rows of one table of conversation id (ExportConversation).
func exportTable(ctx context.Context, conn *sql.Conn, spec transferSpec, id string, emit func(string, Row) error) error {
	rows, err := conn.QueryContext(ctx, `SELECT * FROM `+spec.table+` WHERE `+spec.conv+` = ? ORDER BY `+spec.order, id)
	if err != nil {
		return fmt.Errorf("store: export %s of %q: %w", spec.table, id, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("store: export %s of %q: %w", spec.table, id, err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("store: export %s of %q: %w", spec.table, id, err)
		}
		row := Row{}
		for i, c := range cols {
			if slices.Contains(spec.skip, c) {
				continue
			}
			switch v := vals[i].(type) {
			case nil, string, int64, float64:
				row[c] = v
			case []byte: // no table of a conversation has a BLOB column; never seen
				return fmt.Errorf("store: export %s.%s of %q: a binary value is not supported", spec.table, c, id)
			default:
				return fmt.Errorf("store: export %s.%s of %q: unexpected value type %T", spec.table, c, id, v)
			}
		}
		if err := emit(spec.table, row); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: export %s of %q: %w", spec.table, id, err)
	}
	return nil
}

// ImportResult says what ImportConversation stored.
type ImportResult struct {
	// ConversationID is the new conversation's id; OldID the id it had in the file.
	ConversationID, OldID string
	// Title is the conversation's title.
	Title string
	// IDs maps every id the import replaced (the conversation's, its messages', its declared
	// artifacts') to the new one.
	IDs map[string]string
	// Rows counts the rows stored per table.
	Rows map[string]int
}

// ErrSchemaMismatch: a conversation file's rows do not fit this database's tables (a
// column this database does not have, from a file a newer version wrote).
var ErrSchemaMismatch = errors.New("store: the file's tables do not match this database")

// importIDPattern is what conversation and message ids of an imported file must look like:
// the app makes UUIDs; anything plain and short enough is accepted, nothing with quotes,
// backslashes, spaces or control characters (ids are matched as whole JSON strings).
var importIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// ImportConversation stores a conversation read from a file as a new conversation with
// id newID ("" for a fresh UUID; an id in use fails with ErrInvalid) and new ids for the
// rest, in one write transaction: either every row is stored or nothing is. rows is
// called once per table of TransferTables, in order, and calls each with every row of that
// table in the file (convfile reads them from the file's entries as it goes).
//
// Ids: the conversation gets newID, each of its messages a fresh UUID, and the declared
// artifacts the ids their identity gives in the new conversation (DeclaredID), so
// importing the same file twice gives two separate copies and never touches the
// conversation the file came from if it is here. Every column holding one of these ids
// is rewritten through the mapping, and so are the JSON values (event data, metadata,
// declared changes) that are exactly one of the old ids; AUTOINCREMENT ids (event ids,
// version ids, change seqs) are assigned anew. What was local to the exporting computer
// is reset: a message still running there is interrupted here, the mark of a pending
// upload is dropped, the workspace folder is the default one
// (<data-dir>/workspaces/<new id>).
//
// Validation (a file may be damaged or hostile; each failure is ErrInvalid unless said
// otherwise, wrapped, naming the table and row): the conversations table has exactly one
// row and every row of every table belongs to that conversation; ids are plain
// (importIDPattern) and message ids unique; a row's column not in this database's table
// gives ErrSchemaMismatch (fileSchema, the file's SchemaVersion, is named in the error;
// ErrSchemaTooNew when it is above this database's); values are strings, integral or
// finite numbers or null; JSON columns hold valid JSON; events are of a stored type
// and name a message of the file; every parent_id and active_branch names a message of
// the file; declared ids match their identity. SQLite's own constraints (NOT NULL,
// CHECK, UNIQUE, foreign keys) apply too. rows' own error is returned unchanged.
func (db *DB) ImportConversation(ctx context.Context, newID string, fileSchema int, rows func(table string, each func(Row) error) error) (ImportResult, error) {
	if newID == "" {
		newID = uuid.NewString()
	}
	if !importIDPattern.MatchString(newID) {
		return ImportResult{}, fmt.Errorf("store: import: new conversation id %q: %w", newID, ErrInvalid)
	}
	own, err := db.SchemaVersion(ctx)
	if err != nil {
		return ImportResult{}, err
	}
	if fileSchema > own {
		return ImportResult{}, fmt.Errorf("store: import: the file was written with database schema %d, this program knows up to %d: %w",
			fileSchema, own, ErrSchemaTooNew)
	}
	var res ImportResult
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		im := &importer{ctx: ctx, tx: tx, schema: fileSchema, newID: newID, ids: map[string]string{}, msgIDs: map[string]bool{}, msgs: map[string]bool{},
			stmts: map[string]*sql.Stmt{}, res: ImportResult{Rows: map[string]int{}}}
		defer im.close()
		for _, spec := range transferTables {
			cols, err := tableColumns(ctx, tx, spec.table)
			if err != nil {
				return err
			}
			im.spec, im.cols, im.n = spec, cols, 0
			if err := rows(spec.table, im.row); err != nil {
				return err
			}
			if spec.table == "conversations" && im.n != 1 {
				return fmt.Errorf("store: import: the file holds %d conversations, want 1: %w", im.n, ErrInvalid)
			}
			im.res.Rows[spec.table] = im.n
		}
		if err := im.checkReferences(); err != nil {
			return err
		}
		res = im.res
		res.IDs = im.ids
		return nil
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// importer is the state of one ImportConversation.
type importer struct {
	ctx    context.Context
	tx     *sql.Tx
	schema int
	spec   transferSpec
	cols   map[string]bool   // the current table's columns in this database
	n      int               // rows of the current table so far
	oldID  string            // the conversation's id in the file
	newID  string            // its id here
	ids    map[string]string // every old id to its new one (conversation, messages, declared artifacts)
	msgIDs map[string]bool   // the old message ids mapped so far (stored or only named)
	msgs   map[string]bool   // the file's message ids stored so far
	stmts  map[string]*sql.Stmt
	res    ImportResult
}

func (im *importer) close() {
	for _, s := range im.stmts {
		_ = s.Close()
	}
}

// fail is an ErrInvalid error naming the current table and row.
func (im *importer) fail(format string, args ...any) error {
	return fmt.Errorf("store: import: %s row %d: %s: %w", im.spec.table, im.n+1, fmt.Sprintf(format, args...), ErrInvalid)
}

// row checks, maps and stores one row of the current table.
func (im *importer) row(r Row) error {
	if err := im.ctx.Err(); err != nil {
		return err
	}
	spec := im.spec
	for c, v := range r {
		if !im.cols[c] {
			return fmt.Errorf("store: import: %s row %d: column %q is not in this database (file schema %d): %w",
				spec.table, im.n+1, c, im.schema, ErrSchemaMismatch)
		}
		if slices.Contains(spec.skip, c) {
			delete(r, c) // local to the computer that wrote the file
			continue
		}
		switch x := v.(type) {
		case nil, string, int64:
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return im.fail("column %s is not a finite number", c)
			}
		default:
			return im.fail("column %s holds a %T, not a string, number or null", c, v)
		}
	}
	conv, ok := r[spec.conv].(string)
	if spec.table == "conversations" {
		if im.n > 0 {
			return im.fail("the file holds more than one conversation")
		}
		if !ok || !importIDPattern.MatchString(conv) {
			return im.fail("invalid conversation id %v", r[spec.conv])
		}
		im.oldID = conv
		im.res.OldID = conv
		im.ids[conv] = im.newID
		im.res.ConversationID = im.ids[conv]
		im.res.Title, _ = r["title"].(string)
		if err := dropPendingUpload(r); err != nil {
			return im.fail("%v", err)
		}
	} else if !ok || conv != im.oldID {
		return im.fail("it belongs to another conversation (%v)", r[spec.conv])
	}
	r[spec.conv] = im.ids[im.oldID]
	for _, c := range spec.convs {
		if v, _ := r[c].(string); v == im.oldID {
			r[c] = im.ids[im.oldID]
		}
	}
	if err := im.mapMessages(r); err != nil {
		return err
	}
	switch spec.table {
	case "messages":
		if r["status"] == "running" {
			r["status"] = "interrupted" // its run was going on the computer that wrote the file
		}
	case "message_events":
		if t, _ := r["type"].(string); !events.Type(t).Persisted() {
			return im.fail("event type %q is never stored", t)
		}
	case "declared_artifacts":
		if err := im.mapDeclared(r); err != nil {
			return err
		}
	}
	for _, c := range spec.json {
		v, present := r[c]
		if !present || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok || !json.Valid([]byte(s)) {
			return im.fail("column %s is not valid JSON", c)
		}
		r[c] = rewriteJSONStrings(s, im.ids)
	}
	if err := im.insert(r); err != nil {
		return err
	}
	im.n++
	return nil
}

// mapMessages replaces the message ids of r's message columns; the messages table's own
// rows assign the new ids.
func (im *importer) mapMessages(r Row) error {
	for _, c := range im.spec.msgs {
		v, present := r[c]
		if !present || v == nil {
			continue
		}
		id, ok := v.(string)
		if !ok {
			return im.fail("column %s is not a message id", c)
		}
		if id == "" && c != "id" && c != "message_id" {
			continue
		}
		strict := slices.Contains(im.spec.strict, c)
		switch {
		case im.spec.table == "messages" && c == "id":
			if !importIDPattern.MatchString(id) || id == im.oldID {
				return im.fail("invalid message id %q", id)
			}
			if im.msgs[id] {
				return im.fail("message id %q appears twice", id)
			}
			im.msgs[id] = true
		case strict && im.spec.table != "messages" && im.spec.table != "conversations" && !im.msgs[id]:
			return im.fail("column %s names message %q, which the file does not hold", c, id)
		case strict && !importIDPattern.MatchString(id):
			return im.fail("column %s: invalid message id %q", c, id)
		}
		if !im.msgIDs[id] {
			if !strict {
				continue // a message no longer in the conversation: kept as it was
			}
			// A parent stored after its child, or the active branch before the messages:
			// checkReferences makes sure it was stored in the end.
			im.ids[id] = uuid.NewString()
			im.msgIDs[id] = true
		}
		r[c] = im.ids[id]
	}
	return nil
}

// mapDeclared gives a declared artifact its identity key and id in the new conversation.
func (im *importer) mapDeclared(r Row) error {
	key, _ := r["identity_key"].(string)
	id, _ := r["id"].(string)
	identity, ok := strings.CutPrefix(key, im.oldID+":")
	if !ok || identity == "" {
		return im.fail("identity_key %q does not belong to the conversation", key)
	}
	if id != DeclaredID(key) {
		return im.fail("declared id %q does not match its identity", id)
	}
	if _, taken := im.ids[id]; taken {
		return im.fail("declared id %q is also another id of the file", id)
	}
	newKey := im.ids[im.oldID] + ":" + identity
	r["identity_key"], r["id"] = newKey, DeclaredID(newKey)
	im.ids[id] = r["id"].(string)
	return nil
}

// insert stores r in the current table (a prepared statement per column set).
func (im *importer) insert(r Row) error {
	cols := make([]string, 0, len(r))
	for c := range r {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	key := im.spec.table + "\x00" + strings.Join(cols, ",")
	stmt := im.stmts[key]
	if stmt == nil {
		q := `INSERT INTO ` + im.spec.table + ` (` + strings.Join(cols, ", ") + `) VALUES (` +
			strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + `)`
		var err error
		if stmt, err = im.tx.PrepareContext(im.ctx, q); err != nil {
			return fmt.Errorf("store: import %s: %w", im.spec.table, err)
		}
		im.stmts[key] = stmt
	}
	args := make([]any, len(cols))
	for i, c := range cols {
		args[i] = r[c]
	}
	if _, err := stmt.ExecContext(im.ctx, args...); err != nil {
		if im.ctx.Err() != nil {
			return fmt.Errorf("store: import %s: %w", im.spec.table, err)
		}
		return fmt.Errorf("store: import: %s row %d: %w: %w", im.spec.table, im.n+1, ErrInvalid, err)
	}
	return nil
}

// checkReferences makes sure every message id a parent_id or the active branch named was
// stored.
func (im *importer) checkReferences() error {
	for old := range im.msgIDs {
		if !im.msgs[old] {
			return fmt.Errorf("store: import: message %q is named (as a parent or the active branch) but not in the file: %w", old, ErrInvalid)
		}
	}
	return nil
}

// dropPendingUpload removes the pending-upload mark from a conversations row's metadata:
// it names a process of the computer that wrote the file.
func dropPendingUpload(r Row) error {
	s, ok := r["metadata"].(string)
	if !ok || !strings.Contains(s, pendingUploadKey) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil // not an object: left to the JSON check
	}
	delete(m, pendingUploadKey)
	if len(m) == 0 {
		r["metadata"] = nil
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	r["metadata"] = string(b)
	return nil
}

// tableColumns returns the column names of table in this database.
func tableColumns(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, fmt.Errorf("store: columns of %s: %w", table, err)
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("store: columns of %s: %w", table, err)
		}
		cols[c] = true
	}
	return cols, rows.Err()
}

// DeclaredID is the public id of the declared artifact with identity key key
// ("<conversation id>:<kind of locator>:<value>", declared_artifacts.identity_key): the
// first 12 hex digits of the key's SHA-256. Package declared assigns ids with it, and an
// import recomputes them for the new conversation.
func DeclaredID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:6])
}

// rewriteJSONStrings returns the JSON text s with every string token (value or key) whose
// value is a key of ids replaced by that key's value; everything else, whitespace and
// escapes included, is kept byte for byte. s must be valid JSON.
func rewriteJSONStrings(s string, ids map[string]string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			break // unterminated: not valid JSON, left as it is
		}
		tok := s[i : j+1]
		var v string
		if strings.IndexByte(tok, '\\') < 0 {
			v = tok[1 : len(tok)-1]
		} else if json.Unmarshal([]byte(tok), &v) != nil {
			i = j
			continue
		}
		if to, ok := ids[v]; ok {
			b.WriteString(s[last:i])
			q, _ := json.Marshal(to) // a string always encodes
			b.Write(q)
			last = j + 1
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

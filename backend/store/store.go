// Package store is the SQLite data layer (schema in docs/ARCHITECTURE.md, "Contracts other
// code relies on"): one local database file holding conversations, the message tree, the
// append-only event log and versioned artifacts with an optimistic lock.
//
// The database runs in WAL mode with foreign keys on and synchronous=NORMAL. Reads go
// through a pool of connections; writes through a second pool of one connection, so the
// process's own writers wait in Go (each giving up when its context ends, or after
// BusyTimeout; not in arrival order) instead of sleeping in SQLite's busy handler. Write transactions start with BEGIN
// IMMEDIATE, so writers never fail on a lock upgrade; a write waiting for another
// process's write lock waits in slices of busySlice and checks its context between them,
// up to BusyTimeout (60 s) in all (waitForLock). The schema is created and
// upgraded by numbered SQL migrations embedded in the binary (migrations/NNNN_name.sql).
//
// Times are stored as UTC RFC 3339 text with a fixed 9-digit fraction (so text order is time
// order) and returned as time.Time in UTC. JSON columns are returned as json.RawMessage
// (nil for SQL NULL).
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"

	"artifactflow/internal/timeline"
)

// Sentinel errors. Every error returned by this package wraps at most one of them; test with
// errors.Is.
var (
	// ErrNotFound: the conversation, message, artifact or version does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrDuplicate: a row with the same key exists (SQLite unique or primary-key violation),
	// e.g. an existing conversation id, event seq, artifact id or artifact version.
	ErrDuplicate = errors.New("store: already exists")
	// ErrVersionConflict: an artifact write lost the optimistic lock (its expected
	// lock_version is stale) or recorded a version not above current_version.
	ErrVersionConflict = errors.New("store: version conflict")
	// ErrSchemaTooNew: the database was migrated by a newer build than this one, or its
	// header's file format versions say a newer SQLite wrote it.
	ErrSchemaTooNew = errors.New("store: database schema is newer than this program")
	// ErrInvalid: an argument is missing or malformed (empty id, unknown status, invalid
	// JSON ...). Nothing was written.
	ErrInvalid = errors.New("store: invalid argument")
)

// timeLayout is RFC 3339 with a fixed 9-digit fraction; values are always UTC, so they end in
// "Z" and sort as text in time order. time.RFC3339Nano parses it.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// BusyTimeout is how long a write waits for another process to release the write lock
// (waitForLock) and for this process's other writes (writeConn) before failing, with
// "database is locked" (SQLITE_BUSY) in the first case; reads wait for a lock as long.
// Writing a large artifact holds the lock for seconds (64 MB: 7 s, 200 MB: 29 s on a loaded 2-core
// machine), so the earlier 5 s let the other process (the window while `artifactflow ask`
// runs, say) fail its writes; 60 s covers the largest upload (256 MiB). Only a process
// doing real work holds the lock: the OS releases it when a process dies.
const BusyTimeout = 60 * time.Second

// busySlice is how long one attempt of a write waits inside SQLite for another process's
// write lock (the write connection's busy_timeout). SQLite's own wait cannot be
// interrupted (its busy handler sleeps without looking at sqlite3_interrupt), so a write
// waits in slices of this length and checks its context between them: a stopped run or a
// request past its deadline gives up within about busySlice instead of up to BusyTimeout.
const busySlice = 200 * time.Millisecond

// dsnParams are the connection settings applied by go-sqlite3 on every new connection,
// without the busy timeout (see dsn).
const dsnParams = "_journal_mode=WAL&_foreign_keys=on&_synchronous=NORMAL&_txlock=immediate"

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is an open ArtifactFlow database. It is safe for concurrent use by many goroutines.
type DB struct {
	sql  *sql.DB // reads (and tests' raw access): busy_timeout BusyTimeout
	w    *sql.DB // writes: one connection, busy_timeout busySlice, waited on by waitForLock
	path string
}

// Open opens (creating if needed) the database file at path and brings its schema up to date.
//
// The parent directory is created with mode 0700. Outside Windows the database file is
// created with mode 0600 and an existing one, with its -wal and -shm, loses every permission
// of group and others (createPrivate, privateFiles), whatever the folder's mode or the
// umask; SQLite gives the -wal and -shm it creates the database file's mode. The connection uses WAL, foreign_keys=ON,
// synchronous=NORMAL and BEGIN IMMEDIATE transactions; reads wait up to BusyTimeout for a
// lock, writes go through one connection of their own (see the package comment). Open
// checks that foreign keys and WAL are really in effect. Pending embedded migrations are applied in order,
// each in its own transaction, and recorded in schema_migrations.
//
// Before SQLite opens an existing non-empty file, Open reads its header (checkFile: one
// 100-byte read, no full scan; PRAGMA quick_check would cost about 20 times a whole Open on
// a database of 10,000 events): a damaged file is refused before anything is written to it.
// When a non-empty -wal is beside it (a crash, or another process has it open), Open first
// reads the schema through a read-only connection (probeFile), which cannot checkpoint
// the -wal into a damaged file, and connects read-write only if that read succeeds.
//
// Errors: a damaged file (random bytes, a wrong header, a copy cut short, or pages SQLite
// reports as not a database or malformed) gives a *CorruptError wrapping ErrCorrupt, whose
// text names the file, its -wal and -shm, and the way out, and the files are left
// unchanged; so does a missing or zero-length file with a non-empty -wal beside it
// (CorruptError.Orphan), which SQLite would delete; a path that cannot be created or is
// read-only gives a wrapped error naming the path; a database whose schema version is above
// the newest embedded migration, or whose header's file format versions are above 2 (a
// newer SQLite's file), gives ErrSchemaTooNew. A zero-length file without such a -wal is a
// new, empty database.
func Open(ctx context.Context, path string) (*DB, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("store: open: empty database path: %w", ErrInvalid)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("store: open %s: create parent directory: %w", abs, err)
	}
	probe, err := inspectFile(abs)
	if err != nil {
		return nil, err // before SQLite touches it: a damaged file is left as it is
	}
	if probe {
		if err := probeFile(ctx, abs); err != nil {
			return nil, err // found read-only: nothing checkpointed into the damaged file
		}
	}
	createPrivate(abs)
	privateFiles(abs)
	sqlDB, err := sql.Open("sqlite3", dsn(abs, BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	wDB, err := sql.Open("sqlite3", dsn(abs, busySlice))
	if err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	// SQLite lets one connection write at a time; queueing here keeps the order and
	// honours each writer's context while it waits.
	wDB.SetMaxOpenConns(1)
	db := &DB{sql: sqlDB, w: wDB, path: abs}
	if err := db.init(ctx); err != nil {
		_ = sqlDB.Close()
		_ = wDB.Close()
		if ce := asCorrupt(abs, err); ce != nil {
			return nil, ce
		}
		return nil, err
	}
	return db, nil
}

// asCorrupt returns a *CorruptError for err when SQLite reported the file as not a
// database (SQLITE_NOTADB) or malformed (SQLITE_CORRUPT), else nil.
func asCorrupt(abs string, err error) *CorruptError {
	var ce *CorruptError
	if errors.As(err, &ce) {
		return ce
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return nil
	}
	switch se.Code {
	case sqlite3.ErrNotADB:
		return &CorruptError{Path: abs, Reason: "not a SQLite database: " + se.Error(), Err: err}
	case sqlite3.ErrCorrupt:
		return &CorruptError{Path: abs, Reason: se.Error(), Err: err}
	}
	return nil
}

// dsn builds a go-sqlite3 URI for an absolute file path whose connections wait up to busy
// for a lock. The path is percent-encoded so that '?', '#' and '%' in directory names
// cannot be taken for URI syntax.
func dsn(abs string, busy time.Duration) string {
	return fileURI(abs) + "?" + dsnParams + "&_busy_timeout=" + strconv.FormatInt(busy.Milliseconds(), 10)
}

// fileURI is the file: URI, without a query, of an absolute path (see dsn).
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") { // Windows: C:/x -> /C:/x
		p = "/" + p
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String()
}

func (db *DB) init(ctx context.Context) error {
	if err := db.sql.PingContext(ctx); err != nil {
		return db.describeOpenError(err)
	}
	var fk int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return db.describeOpenError(err)
	}
	if fk != 1 {
		return fmt.Errorf("store: open %s: foreign_keys pragma is %d after connect, want 1", db.path, fk)
	}
	var mode string
	if err := db.sql.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return db.describeOpenError(err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("store: open %s: journal_mode is %q, want wal (is the file system read-only or remote?)", db.path, mode)
	}
	timeline.Mark("database open")
	if err := db.migrate(ctx); err != nil {
		return err
	}
	timeline.Mark("migrations done")
	return nil
}

// describeOpenError turns the SQLite errors seen when opening a bad path into a message that
// says what is wrong with the file, keeping the original error wrapped.
func (db *DB) describeOpenError(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrNotADB, sqlite3.ErrCorrupt:
			return asCorrupt(db.path, err)
		case sqlite3.ErrCantOpen:
			return fmt.Errorf("store: open %s: cannot open database file (check that the path is a file and the directory is writable): %w", db.path, err)
		case sqlite3.ErrReadonly, sqlite3.ErrPerm:
			return fmt.Errorf("store: open %s: database is read-only: %w", db.path, err)
		}
	}
	return fmt.Errorf("store: open %s: %w", db.path, err)
}

// Close closes the database. Calls after the first return nil.
func (db *DB) Close() error {
	if err := errors.Join(db.w.Close(), db.sql.Close()); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}

// SQL returns the read connection pool for raw access (tests, integrity checks). A write
// through it waits for another writer in SQLite's busy handler (up to BusyTimeout, not
// interrupted by its context) instead of in waitForLock. Callers must not close it; use
// (*DB).Close.
func (db *DB) SQL() *sql.DB { return db.sql }

// migration is one embedded numbered SQL script.
type migration struct {
	version int
	name    string
	script  string
}

// loadMigrations reads migrations/NNNN_name.sql from the embedded files, sorted by version.
// Versions must be positive and unique.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: read embedded migrations: %w", err)
	}
	var ms []migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: embedded migration %q: name must be NNNN_description.sql", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("store: embedded migrations %q and %q share version %d", prev, name, v)
		}
		seen[v] = name
		b, err := migrationFS.ReadFile(path.Join("migrations", name))
		if err != nil {
			return nil, fmt.Errorf("store: read embedded migration %q: %w", name, err)
		}
		ms = append(ms, migration{version: v, name: name, script: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrate applies every embedded migration not yet recorded in schema_migrations, in version
// order, each in its own transaction. It refuses a database whose version is above the newest
// embedded migration (ErrSchemaTooNew).
func (db *DB) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	if _, err := db.exec(ctx,
		`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return db.describeOpenError(fmt.Errorf("create schema_migrations: %w", err))
	}
	current, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	maxKnown := 0
	if len(ms) > 0 {
		maxKnown = ms[len(ms)-1].version
	}
	if current > maxKnown {
		return fmt.Errorf("store: open %s: schema version %d, this program knows up to %d: %w", db.path, current, maxKnown, ErrSchemaTooNew)
	}
	for _, m := range ms {
		if err := db.applyMigration(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// applyMigration runs m unless it is already recorded; the check runs inside the (immediate)
// transaction so two processes opening the same file at once apply it only once.
func (db *DB) applyMigration(ctx context.Context, m migration) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
			return fmt.Errorf("store: migration %s: %w", m.name, err)
		}
		if n > 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, m.script); err != nil {
			return fmt.Errorf("store: migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)`,
			m.version, formatTime(now())); err != nil {
			return fmt.Errorf("store: record migration %s: %w", m.name, err)
		}
		return nil
	})
}

// SchemaVersion returns the highest migration version recorded in the database (0 for none).
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := db.sql.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: read schema version: %w", err)
	}
	return v, nil
}

// inTx runs fn in a write transaction (BEGIN IMMEDIATE, from the DSN) on the write
// connection, committing when fn returns nil and rolling back otherwise. fn's error is
// returned unchanged. Beginning waits for the write lock as waitForLock does.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	conn, err := db.writeConn(ctx)
	if err != nil {
		return fmt.Errorf("store: begin transaction: %w", err)
	}
	defer conn.Close() // back to the pool once the transaction has ended
	var tx *sql.Tx
	err = waitForLock(ctx, func() (err error) {
		tx, err = conn.BeginTx(ctx, nil)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// exec runs one writing statement outside a transaction on the write connection, waiting
// for the write lock as waitForLock does.
func (db *DB) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	conn, err := db.writeConn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var res sql.Result
	err = waitForLock(ctx, func() (err error) {
		res, err = conn.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

// writeConn takes the write connection, waiting for this process's other writers at most
// BusyTimeout (less when ctx ends first), as SQLite would wait for another process's.
// The caller closes it to give it back. Errors: ctx's, or one saying this process's own
// writes held the database for BusyTimeout.
func (db *DB) writeConn(ctx context.Context) (*sql.Conn, error) {
	wctx, cancel := context.WithTimeout(ctx, BusyTimeout)
	defer cancel()
	conn, err := db.w.Conn(wctx)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return nil, fmt.Errorf("store: other writes of this process held the database for %s: %w", BusyTimeout, err)
	}
	if err != nil {
		return nil, fmt.Errorf("store: take the write connection: %w", err)
	}
	return conn, nil
}

// waitForLock calls try, which takes the write lock (BEGIN IMMEDIATE or a writing
// statement) on a connection whose busy timeout is busySlice, again and again while it
// fails with SQLITE_BUSY or SQLITE_LOCKED (another process holds the write lock), until it
// succeeds, fails otherwise, ctx ends, or BusyTimeout has passed since the first call.
// Errors: try's own error; the last busy error after BusyTimeout (the caller's "database is
// locked"); when ctx ends first, an error wrapping both ctx.Err() and the busy error.
func waitForLock(ctx context.Context, try func() error) error {
	deadline := time.Now().Add(BusyTimeout)
	for {
		start := time.Now()
		err := try()
		if err == nil || !isBusy(err) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("store: stopped waiting for another process's write lock: %w (%w)", ctx.Err(), err)
		}
		if !time.Now().Before(deadline) {
			return err
		}
		// SQLite answers busy without waiting in some cases (a lock it cannot wait for);
		// do not spin then.
		if rest := busySlice/4 - time.Since(start); rest > 0 {
			t := time.NewTimer(rest)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("store: stopped waiting for another process's write lock: %w (%w)", ctx.Err(), err)
			case <-t.C:
			}
		}
	}
}

// WithRetry calls fn up to attempts times (at least once) while it fails with SQLITE_BUSY or
// SQLITE_LOCKED, waiting 10 ms before the second call and doubling the wait each time. Any
// other error, or success, returns at once. When attempts run out the last error is returned;
// when ctx ends during a wait the result wraps both ctx.Err() and the last error.
// Each flush runs in its own transaction with retry.
func WithRetry(ctx context.Context, attempts int, fn func(ctx context.Context) error) error {
	wait := 10 * time.Millisecond
	var err error
	for i := 0; ; i++ {
		if err = fn(ctx); err == nil || !isBusy(err) || i+1 >= attempts {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("store: retry stopped: %w (last error: %w)", ctx.Err(), err)
		case <-t.C:
		}
		wait *= 2
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// isUnique reports whether err is a unique or primary-key constraint violation.
func isUnique(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) &&
		(se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey)
}

// isForeignKey reports whether err is a foreign-key constraint violation.
func isForeignKey(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintForeignKey
}

// now is the current time in UTC without the monotonic reading.
func now() time.Time { return time.Now().UTC().Round(0) }

// formatTime renders t for storage; see timeLayout.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// parseTime reads a stored time; NULL or empty gives the zero time.
func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid || s.String == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s.String)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: stored time %q: %w", s.String, err)
	}
	return t.UTC(), nil
}

// timeOr returns t, or def when t is zero.
func timeOr(t, def time.Time) time.Time {
	if t.IsZero() {
		return def
	}
	return t
}

// nullString maps "" to SQL NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullJSON validates raw and maps an empty value to SQL NULL. what names the field in errors.
func nullJSON(raw json.RawMessage, what string) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("store: %s is not valid JSON: %w", what, ErrInvalid)
	}
	return string(raw), nil
}

// rawJSON maps a stored JSON column back; NULL gives nil.
func rawJSON(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}

// rowScanner is what *sql.Row and *sql.Rows have in common.
type rowScanner interface {
	Scan(dest ...any) error
}

// requireIDs returns ErrInvalid naming the first empty value among name/value pairs.
func requireIDs(op string, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("store: %s: empty %s: %w", op, pairs[i], ErrInvalid)
		}
	}
	return nil
}

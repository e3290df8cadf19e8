package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
)

// openTestDB opens a fresh database file in a temporary directory, closed at cleanup.
func openTestDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "data", "artifactflow.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// createConv creates a conversation with the given id or fails the test.
func createConv(t testing.TB, db *DB, id string) {
	t.Helper()
	if err := db.CreateConversation(context.Background(), Conversation{ID: id, Title: "title " + id}); err != nil {
		t.Fatalf("CreateConversation(%q): %v", id, err)
	}
}

func TestOpenCreatesDirectoryAndReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "nested", "dir with ?#% chars")
	path := filepath.Join(dir, "artifactflow.db")

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("parent directory not created: %v", err)
	}
	if perm := st.Mode().Perm(); perm != 0o700 {
		t.Errorf("parent directory mode = %o, want 700", perm)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not at the given path (escaping broken?): %v", err)
	}
	if err := db.CreateConversation(ctx, Conversation{ID: "c1", Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	v1, err := db.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	c, err := db.GetConversation(ctx, "c1")
	if err != nil || c.Title != "kept" {
		t.Fatalf("after reopen GetConversation = %+v, %v; want title kept", c, err)
	}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	v2, err := db.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := ms[len(ms)-1].version; v1 != want || v2 != want {
		t.Errorf("schema version = %d then %d, want %d", v1, v2, want)
	}
	var rows int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != len(ms) {
		t.Errorf("schema_migrations has %d rows after reopen, want %d (each migration once)", rows, len(ms))
	}
}

func TestPragmas(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	// Several connections at once, so pooled connections other than the first are checked too.
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "60000"},
		{"synchronous", "1"}, // NORMAL
	}
	for i := 0; i < 3; i++ {
		conn, err := db.SQL().Conn(ctx) // held open, so each iteration gets a new connection
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, tt := range tests {
			var got string
			if err := conn.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got); err != nil {
				t.Fatalf("PRAGMA %s: %v", tt.pragma, err)
			}
			if !strings.EqualFold(got, tt.want) {
				t.Errorf("connection %d: PRAGMA %s = %q, want %q", i, tt.pragma, got, tt.want)
			}
		}
	}
}

func TestForeignKeysEnforced(t *testing.T) {
	db := openTestDB(t)
	_, err := db.SQL().Exec(`INSERT INTO messages (id, conversation_id, content) VALUES ('m1', 'missing', 'hi')`)
	var se sqlite3.Error
	if !errors.As(err, &se) || se.ExtendedCode != sqlite3.ErrConstraintForeignKey {
		t.Fatalf("insert message for a missing conversation: err = %v, want a foreign key violation", err)
	}
	// Through the API the same mistake is a clean ErrNotFound.
	err = db.AddMessage(context.Background(), Message{ID: "m1", ConversationID: "missing", Content: "hi"})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("AddMessage to a missing conversation: err = %v, want ErrNotFound", err)
	}
}

func TestOpenBadPaths(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("this is not a database\n", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(aFile, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	aDir := filepath.Join(dir, "a-directory")
	if err := os.Mkdir(aDir, 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		wantErr string
	}{
		{"garbage file", garbage, "not a SQLite database"},
		{"parent is a file", filepath.Join(aFile, "x.db"), "create parent directory"},
		{"path is a directory", aDir, "cannot open database file"},
		{"empty path", "", "empty database path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(ctx, tt.path)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) succeeded, want error", tt.path)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Open(%q) error = %q, want it to mention %q", tt.path, err, tt.wantErr)
			}
		})
	}
	// The garbage file is left untouched.
	b, err := os.ReadFile(garbage)
	if err != nil || !strings.HasPrefix(string(b), "this is not a database") {
		t.Errorf("garbage file was modified: %q, %v", b[:min(len(b), 40)], err)
	}
}

func TestSchemaTooNew(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "af.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (999999, 'future')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded on a database from the future")
	}
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("err = %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), "999999") {
		t.Errorf("error %q does not name the stored version", err)
	}
}

func TestWithRetry(t *testing.T) {
	busy := sqlite3.Error{Code: sqlite3.ErrBusy}
	locked := sqlite3.Error{Code: sqlite3.ErrLocked}
	other := errors.New("boom")
	tests := []struct {
		name      string
		attempts  int
		results   []error // result of call i; nil after the end
		wantCalls int
		wantErr   error
	}{
		{"success first", 3, nil, 1, nil},
		{"busy then success", 5, []error{busy, locked}, 3, nil},
		{"other error not retried", 5, []error{other}, 1, other},
		{"attempts exhausted returns last error", 3, []error{busy, busy, locked, busy}, 3, locked},
		{"zero attempts still calls once", 0, []error{busy}, 1, busy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := WithRetry(context.Background(), tt.attempts, func(context.Context) error {
				calls++
				if calls <= len(tt.results) {
					return tt.results[calls-1]
				}
				return nil
			})
			if calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tt.wantCalls)
			}
			if !errors.Is(err, tt.wantErr) { // errors.Is(nil, nil) is true
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}

	t.Run("context cancelled during backoff", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		err := WithRetry(ctx, 1000, func(context.Context) error {
			calls++
			cancel()
			return busy
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		var se sqlite3.Error
		if !errors.As(err, &se) || se.Code != sqlite3.ErrBusy {
			t.Errorf("err = %v, want it to keep the last SQLite error", err)
		}
		if calls != 1 {
			t.Errorf("calls = %d after cancel, want 1", calls)
		}
	})
}

func TestTimesRoundTripAndSortAsText(t *testing.T) {
	// A time without fraction must sort after an earlier one with a fraction.
	a := time.Date(2025, 1, 2, 3, 4, 5, 123_000_000, time.UTC)
	b := time.Date(2025, 1, 2, 3, 4, 6, 0, time.UTC)
	if !(formatTime(a) < formatTime(b)) {
		t.Errorf("formatTime(%v) = %q not < formatTime(%v) = %q", a, formatTime(a), b, formatTime(b))
	}
	loc := time.FixedZone("UTC+8", 8*3600)
	in := time.Date(2025, 6, 7, 8, 9, 10, 11, loc)
	got, err := parseTime(nullStr(formatTime(in)))
	if err != nil || !got.Equal(in) || got.Location() != time.UTC {
		t.Errorf("round trip of %v = %v (%v), %v", in, got, got.Location(), err)
	}
}

func nullStr(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }

func TestOpenReadOnlyLocation(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("file permissions do not stop root")
	}
	ctx := context.Background()
	tests := []struct {
		name    string
		wantErr string
		setup   func(t *testing.T, dir string) string // returns the path to open
	}{
		{"new file in a read-only directory", "cannot open database file", func(t *testing.T, dir string) string {
			if err := os.Chmod(dir, 0o500); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "af.db")
		}},
		{"existing database made read-only", "read-only", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "af.db")
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			if err := os.Chmod(path, 0o400); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o500); err != nil {
				t.Fatal(err)
			}
			return path
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ro")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o700) })
			path := tt.setup(t, dir)
			db, err := Open(ctx, path)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) in a read-only location succeeded", path)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q should name the path and say %q", err, tt.wantErr)
			}
		})
	}
}

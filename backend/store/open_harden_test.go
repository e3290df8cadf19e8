package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/events"
)

// validDBBytes returns the bytes of a closed database (no -wal left) holding a conversation
// with 300 events, large enough to span many pages.
func validDBBytes(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "artifactflow.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	createConv(t, db, "c")
	evs := make([]events.Event, 300)
	for i := range evs {
		evs[i] = benchEvent(int64(i + 1))
	}
	if err := db.AppendEvents(ctx, evs...); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a -wal file is left after Close (%v): the damaged copies below would not be what they claim", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 8*4096 {
		t.Fatalf("the valid database has only %d bytes; want several pages", len(b))
	}
	return b
}

// TestOpenDamagedFileIsRefusedAndLeftUnchanged: a damaged artifactflow.db gives ErrCorrupt
// with a message naming the file's full path and the way out, and neither the file (bytes,
// mtime) nor a -wal/-shm beside it is written.
func TestOpenDamagedFileIsRefusedAndLeftUnchanged(t *testing.T) {
	valid := validDBBytes(t)
	random := make([]byte, 8192)
	rand.New(rand.NewSource(11)).Read(random)
	wrongMagic := bytes.Clone(valid)
	copy(wrongMagic, "SQLite format 4\x00")
	badPageSize := bytes.Clone(valid)
	badPageSize[16], badPageSize[17] = 0x03, 0x00 // 768: not a power of two
	schemaGarbage := bytes.Clone(valid)
	copy(schemaGarbage[100:4096], bytes.Repeat([]byte{0xA5}, 3996)) // page 1's b-tree (sqlite_schema) overwritten
	tests := []struct {
		name       string
		content    []byte
		wantReason string
	}{
		{"random bytes", random, "does not start with the SQLite header"},
		{"text file", []byte(strings.Repeat("this is not a database\n", 200)), "not a SQLite database"},
		{"shorter than a header", []byte("SQLite format 3\x00\x10\x00"), "has only 18 bytes"},
		{"truncated in the middle", valid[:len(valid)/2+1234], "cut short"},
		{"truncated at a page boundary", valid[:len(valid)/2/4096*4096], "cut short"},
		{"wrong magic", wrongMagic, "does not start with the SQLite header"},
		{"bad page size", badPageSize, "page size of 768"},
		{"schema page overwritten", schemaGarbage, "damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "artifactflow.db")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			db, err := Open(context.Background(), path)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded on a damaged file, want ErrCorrupt")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open error = %v, want ErrCorrupt", err)
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != path {
				t.Errorf("Open error = %#v, want a *CorruptError with Path %s", err, path)
			}
			msg := err.Error()
			for _, want := range []string{"the database " + path + " is damaged", tt.wantReason, "move it aside", "restore a backup", "it was not changed"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not contain %q", msg, want)
				}
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, tt.content) {
				t.Errorf("the damaged file was changed (%d bytes before, %d after)", len(tt.content), len(after))
			}
			if st, err := os.Stat(path); err != nil || !st.ModTime().Equal(old) {
				t.Errorf("mtime after Open = %v (err %v), want %v", st.ModTime(), err, old)
			}
			for _, side := range []string{"-wal", "-shm", "-journal"} {
				if _, err := os.Stat(path + side); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s exists after the refused Open (stat: %v)", filepath.Base(path+side), err)
				}
			}
		})
	}
}

// TestOpenEmptyAndValidFilesStillOpen: a zero-length artifactflow.db is a new database
// (Open creates the schema in it), and a valid closed database or one with a live -wal
// beside it (another process has it open) passes the header check.
func TestOpenEmptyAndValidFilesStillOpen(t *testing.T) {
	ctx := context.Background()
	valid := validDBBytes(t)
	tests := []struct {
		name    string
		content []byte
		convs   int
	}{
		{"zero-length file", []byte{}, 0},
		{"valid database", valid, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "artifactflow.db")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer db.Close()
			cs, err := db.ListConversations(ctx, 100, 0)
			if err != nil || len(cs) != tt.convs {
				t.Fatalf("ListConversations = %d conversations, %v; want %d", len(cs), err, tt.convs)
			}
			createConv(t, db, "new")
			// A second Open while the first holds the file and its WAL (the window and
			// `artifactflow ask` at once) is not taken for damage.
			db2, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("second Open while the first is open: %v", err)
			}
			defer db2.Close()
			if _, err := db2.GetConversation(ctx, "new"); err != nil {
				t.Fatalf("second connection does not see the first's write: %v", err)
			}
		})
	}
}

// TestCorruptErrorText pins the message format the command line and the window show.
func TestCorruptErrorText(t *testing.T) {
	inner := errors.New("file is not a database")
	tests := []struct {
		err  *CorruptError
		want string
	}{
		{&CorruptError{Path: "/x/artifactflow.db", Reason: "file is not a database"},
			"the database /x/artifactflow.db is damaged (file is not a database): move it aside and start again to get an empty one, or restore a backup; it was not changed"},
		{&CorruptError{Path: "/y/a.db", Reason: "r", Err: inner}, "the database /y/a.db is damaged (r): "},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if got := tt.err.Error(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("Error() = %q, want prefix %q", got, tt.want)
			}
			if !errors.Is(tt.err, ErrCorrupt) {
				t.Error("does not wrap ErrCorrupt")
			}
			if tt.err.Err != nil && !errors.Is(tt.err, tt.err.Err) {
				t.Error("does not wrap SQLite's error")
			}
		})
	}
}

package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crashedDB returns the path of a copy of a database taken as a crash would leave it: 30
// conversations checkpointed into the file, then an update of conversation "c00"'s title
// that is only in the -wal beside it. The -shm is copied too when withSHM is set.
func crashedDB(t *testing.T, withSHM bool) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "artifactflow.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		createConv(t, db, fmt.Sprintf("c%02d", i))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", dsn(path, BusyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	if _, err := raw.Exec(`PRAGMA wal_autocheckpoint=0`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE conversations SET title = 'only in the wal' WHERE id = 'c00'`); err != nil {
		t.Fatal(err)
	}
	crash := filepath.Join(t.TempDir(), "artifactflow.db")
	sides := []string{"", "-wal"}
	if withSHM {
		sides = append(sides, "-shm")
	}
	for _, side := range sides {
		b, err := os.ReadFile(path + side)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crash+side, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := os.Stat(crash + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("the crashed copy has no -wal with data (%v)", err)
	}
	return crash
}

// filesBeside returns the contents of path and its -wal, and whether its -shm exists.
func filesBeside(t *testing.T, path string) (db, wal []byte, shm bool) {
	t.Helper()
	db, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	wal, err = os.ReadFile(path + "-wal")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	_, err = os.Stat(path + "-shm")
	return db, wal, err == nil
}

// TestOpenDamagedFileWithWALIsLeftUnchanged (review finding 1): damage past the 100-byte
// header with a -wal a crash left beside it passes the header check; Open must find it
// without a read-write connection, whose close would checkpoint the -wal into the damaged
// file and delete it although the error says "it was not changed". A healthy crashed copy
// still opens and has the -wal's change.
func TestOpenDamagedFileWithWALIsLeftUnchanged(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		withSHM bool
		damage  func(b []byte)
		healthy bool
	}{
		{"page 1 b-tree header byte", false, func(b []byte) { b[100] = 0xFF }, false},
		{"page 1 b-tree header byte, -shm left too", true, func(b []byte) { b[100] = 0xFF }, false},
		{"schema page overwritten", false, func(b []byte) { copy(b[100:4096], bytes.Repeat([]byte{0xA5}, 3996)) }, false},
		{"not damaged", false, func([]byte) {}, true},
		{"not damaged, -shm left too", true, func([]byte) {}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := crashedDB(t, tt.withSHM)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tt.damage(b)
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			dbBefore, walBefore, shmBefore := filesBeside(t, path)
			db, err := Open(ctx, path)
			if tt.healthy {
				if err != nil {
					t.Fatalf("Open of a healthy crashed copy: %v", err)
				}
				defer db.Close()
				c, err := db.GetConversation(ctx, "c00")
				if err != nil || c.Title != "only in the wal" {
					t.Fatalf("conversation c00 = %q, %v; want the title written only to the -wal", c.Title, err)
				}
				return
			}
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded on a damaged file, want ErrCorrupt")
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != path || ce.Orphan {
				t.Errorf("Open error = %v, want a *CorruptError for %s", err, path)
			}
			dbAfter, walAfter, shmAfter := filesBeside(t, path)
			if !bytes.Equal(dbAfter, dbBefore) {
				t.Error("the damaged file was changed (the -wal was checkpointed into it)")
			}
			if !bytes.Equal(walAfter, walBefore) {
				t.Errorf("the -wal was changed or removed: %d bytes before, %d after", len(walBefore), len(walAfter))
			}
			if shmAfter != shmBefore {
				t.Errorf("-shm exists after Open: %v, before: %v", shmAfter, shmBefore)
			}
		})
	}
}

// TestOpenRefusesWALWithoutItsDatabase (review finding 2): a user who moved only
// artifactflow.db aside (or emptied it) left its -wal, which SQLite deletes when it opens an
// empty database there. Open refuses with a *CorruptError (Orphan) naming the -wal and -shm
// and leaves them as they are; an empty -wal is no obstacle.
func TestOpenRefusesWALWithoutItsDatabase(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		withSHM  bool
		dbFile   string // "missing" or "empty"
		emptyWAL bool
		refused  bool
	}{
		{"database moved aside, -wal left", false, "missing", false, true},
		{"database moved aside, -wal and -shm left", true, "missing", false, true},
		{"database emptied, -wal left", false, "empty", false, true},
		{"database moved aside, empty -wal left", false, "missing", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := crashedDB(t, tt.withSHM)
			if err := os.Rename(path, path+".damaged"); err != nil {
				t.Fatal(err)
			}
			if tt.dbFile == "empty" {
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.emptyWAL {
				if err := os.Truncate(path+"-wal", 0); err != nil {
					t.Fatal(err)
				}
			}
			dbBefore, walBefore, shmBefore := filesBeside(t, path)
			db, err := Open(ctx, path)
			if !tt.refused {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer db.Close()
				if cs, err := db.ListConversations(ctx, 100, 0); err != nil || len(cs) != 0 {
					t.Fatalf("new database holds %d conversations (%v), want 0", len(cs), err)
				}
				return
			}
			if err == nil {
				cs, _ := db.ListConversations(ctx, 100, 0)
				db.Close()
				t.Fatalf("Open succeeded beside the old -wal (%d conversations), want it refused", len(cs))
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || !ce.Orphan || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open error = %v, want a *CorruptError with Orphan", err)
			}
			for _, want := range []string{path, path + "-wal", path + "-shm", "missing or empty", "they were not changed"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not contain %q", err, want)
				}
			}
			dbAfter, walAfter, shmAfter := filesBeside(t, path)
			if !bytes.Equal(walAfter, walBefore) || !bytes.Equal(dbAfter, dbBefore) || shmAfter != shmBefore {
				t.Errorf("files changed: -wal %d -> %d bytes, db %d -> %d bytes, -shm %v -> %v",
					len(walBefore), len(walAfter), len(dbBefore), len(dbAfter), shmBefore, shmAfter)
			}
			if _, err := os.Stat(path); tt.dbFile == "missing" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Open created %s (stat: %v)", path, err)
			}
		})
	}
}

// TestCheckFileSizeAfterWALCheck (review finding 3): another process's checkpoint can end
// between checkFile's header read and its -wal check, having written page 1 with the new
// page count, grown the file and removed the -wal. The size must be the grown one, not the
// one before: a healthy file is not "cut short".
func TestCheckFileSizeAfterWALCheck(t *testing.T) {
	full := validDBBytes(t)
	tests := []struct {
		name    string
		grow    bool // the checkpoint grows the file to its header's page count
		wantErr bool
	}{
		{"checkpoint ends between header read and -wal check", true, false},
		{"file cut short, -wal removed, nothing grows it", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "artifactflow.db")
			// page 1 already has the new page count; the rest is not written yet
			if err := os.WriteFile(path, full[:len(full)/2/4096*4096], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+"-wal", []byte("frames"), 0o600); err != nil {
				t.Fatal(err)
			}
			checkFileRace = func() {
				if tt.grow {
					if err := os.WriteFile(path, full, 0o600); err != nil {
						t.Error(err)
					}
				}
				if err := os.Remove(path + "-wal"); err != nil {
					t.Error(err)
				}
			}
			defer func() { checkFileRace = nil }()
			err := checkFile(path)
			if tt.wantErr != (err != nil) || (err != nil && !errors.Is(err, ErrCorrupt)) {
				t.Fatalf("checkFile = %v, want error: %v", err, tt.wantErr)
			}
		})
	}
}

// TestOpenFileFormatVersions (review finding 4): header bytes 18/19 (file format write and
// read versions) of 0 are damage; above 2 they mean a newer SQLite wrote the file, which
// is refused as too new (ErrSchemaTooNew), not as damaged. The file is left unchanged.
func TestOpenFileFormatVersions(t *testing.T) {
	valid := validDBBytes(t)
	tests := []struct {
		name        string
		write, read byte
		want        error
		notWant     error
		text        string
	}{
		{"write version 3", 3, 2, ErrSchemaTooNew, ErrCorrupt, "written by a newer version of SQLite"},
		{"read version 3", 2, 3, ErrSchemaTooNew, ErrCorrupt, "written by a newer version of SQLite"},
		{"both 255", 255, 255, ErrSchemaTooNew, ErrCorrupt, "file format versions 255 and 255"},
		{"write version 0", 0, 2, ErrCorrupt, ErrSchemaTooNew, "format fields are wrong"},
		{"read version 0", 2, 0, ErrCorrupt, ErrSchemaTooNew, "format fields are wrong"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "artifactflow.db")
			b := bytes.Clone(valid)
			b[18], b[19] = tt.write, tt.read
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(context.Background(), path)
			if err == nil {
				db.Close()
				t.Fatalf("Open succeeded, want %v", tt.want)
			}
			if !errors.Is(err, tt.want) || errors.Is(err, tt.notWant) {
				t.Errorf("Open error = %v, want %v and not %v", err, tt.want, tt.notWant)
			}
			if !strings.Contains(err.Error(), tt.text) || !strings.Contains(err.Error(), path) {
				t.Errorf("message %q does not contain %q and the path", err, tt.text)
			}
			if after, _, shm := filesBeside(t, path); !bytes.Equal(after, b) || shm {
				t.Error("the file was changed, or a -shm created")
			}
		})
	}
}

// TestCorruptErrorNamesWALAndSHM (review finding 2): "move it aside" alone leaves the -wal
// and -shm, part of the damaged database's data, for a fresh start to overwrite; the text
// names them to move together.
func TestCorruptErrorNamesWALAndSHM(t *testing.T) {
	tests := []struct {
		err  *CorruptError
		want []string
	}{
		{&CorruptError{Path: "/x/artifactflow.db", Reason: "r"},
			[]string{"move it aside and start again", "it was not changed", "Move /x/artifactflow.db-wal and /x/artifactflow.db-shm together with it"}},
		{&CorruptError{Path: "/x/artifactflow.db", Reason: "the file does not exist, but /x/artifactflow.db-wal beside it holds 8272 bytes", Orphan: true},
			[]string{"the database /x/artifactflow.db is missing or empty (the file does not exist, but /x/artifactflow.db-wal beside it holds 8272 bytes)",
				"move /x/artifactflow.db-wal and /x/artifactflow.db-shm aside", "they were not changed"}},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			for _, want := range tt.want {
				if !strings.Contains(tt.err.Error(), want) {
					t.Errorf("Error() = %q, does not contain %q", tt.err.Error(), want)
				}
			}
		})
	}
}

//go:build !windows

package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDatabaseFilesArePrivate: the database and its -wal and -shm hold conversations and
// the text of indexed files, so they are readable by their owner only, mode 0600, even in
// a data directory of mode 0755 under the common umask 022; a database an older version
// left 0644 (with a -wal and -shm beside it) is tightened when opened.
func TestDatabaseFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	ctx := context.Background()
	modes := func(t *testing.T, path string) map[string]os.FileMode {
		t.Helper()
		got := map[string]os.FileMode{}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(p), err)
			}
			got[filepath.Base(p)] = fi.Mode().Perm()
		}
		return got
	}
	want := func(t *testing.T, path string, mode os.FileMode) {
		t.Helper()
		for name, m := range modes(t, path) {
			if m != mode {
				t.Errorf("%s has mode %v, want %v", name, m, mode)
			}
		}
	}

	t.Run("new", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "artifactflow.db")
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		createConv(t, db, "c") // a write: the -wal and -shm exist while the database is open
		want(t, path, 0o600)
	})

	t.Run("existing 0644", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "artifactflow.db")
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		createConv(t, db, "c")
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		// As an older version left it: the database 0644, an empty -wal and -shm 0644 or 0640
		// (a crash leaves them; SQLite rebuilds both from empty).
		for p, m := range map[string]os.FileMode{path: 0o644, path + "-wal": 0o644, path + "-shm": 0o640} {
			if p != path {
				if err := os.WriteFile(p, nil, m); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(p, m); err != nil {
				t.Fatal(err)
			}
		}
		db, err = Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		want(t, path, 0o600)
		if _, err := db.GetConversation(ctx, "c"); err != nil {
			t.Errorf("the tightened database lost its conversation: %v", err)
		}
	})
}

package store

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
)

// createPrivate creates the database file abs, empty, with mode 0600 when it does not exist
// yet, so that SQLite (which would create it 0644 less the umask) opens a file only its
// owner can read: it holds conversations and the text of indexed files, and SQLite gives
// the -wal and -shm it creates later the database file's mode. An empty file is a new
// database to SQLite. A file that exists is left alone (privateFiles tightens it); any
// other failure (a read-only folder) is left for SQLite to report with its own error.
// Nothing is done on Windows, where file modes do not restrict readers.
func createPrivate(abs string) {
	if runtime.GOOS == "windows" {
		return
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_ = f.Close()
	}
}

// privateFiles takes every permission of group and others off the database file abs and
// the -wal and -shm beside it that exist (0644 becomes 0600, 0640 becomes 0600; the owner's
// bits are kept, so a read-only file stays read-only): a database an older version or the
// umask left readable by others is tightened when it is opened. The database is followed
// through a symbolic link (the user may keep it elsewhere); a -wal or -shm that is not a
// regular file is left to SQLite. A file that cannot be changed (another owner) is logged
// and opened as it is. Nothing is done on Windows, where file modes do not restrict
// readers.
func privateFiles(abs string) {
	if runtime.GOOS == "windows" {
		return
	}
	for _, p := range []string{abs, abs + "-wal", abs + "-shm"} {
		stat := os.Lstat
		if p == abs {
			stat = os.Stat
		}
		fi, err := stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				slog.Warn("store: cannot check the database file's mode", "path", p, "err", err)
			}
			continue
		}
		if err := os.Chmod(p, fi.Mode().Perm()&^0o077); err != nil {
			slog.Warn("store: the database file stays readable by others: cannot change its mode", "path", p, "mode", fi.Mode().Perm(), "err", err)
		}
	}
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattn/go-sqlite3"
)

// BackupTo writes a copy of the whole database to the file dst with SQLite's online backup
// API (sqlite3_backup_*), which is consistent while other connections and processes go on
// writing: the copy is made in one step inside one read transaction, so it is the
// database as it stood at one instant (a WAL reader blocks no writer, and no writer
// restarts the copy). dst must not exist; its folder must. The copy keeps the database's
// WAL mode and carries what the -wal held. Errors: dst exists, ctx's error before the copy
// starts, SQLite's errors, wrapped; a failed copy leaves no dst.
func (db *DB) BackupTo(ctx context.Context, dst string) (err error) {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return fmt.Errorf("store: backup to %s: %w", dst, err)
	}
	if _, err := os.Lstat(abs); err == nil {
		return fmt.Errorf("store: backup to %s: the file exists", abs)
	}
	defer func() {
		if err != nil {
			for _, p := range []string{abs, abs + "-wal", abs + "-shm", abs + "-journal"} {
				_ = os.Remove(p)
			}
		}
	}()
	createPrivate(abs)
	out, err := sql.Open("sqlite3", fileURI(abs))
	if err != nil {
		return fmt.Errorf("store: backup to %s: %w", abs, err)
	}
	defer out.Close()
	dconn, err := out.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: backup to %s: %w", abs, err)
	}
	defer dconn.Close()
	sconn, err := db.sql.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: backup to %s: %w", abs, err)
	}
	defer sconn.Close()
	err = dconn.Raw(func(d any) error {
		dc, ok := d.(*sqlite3.SQLiteConn)
		if !ok {
			return errors.New("not a SQLite connection")
		}
		return sconn.Raw(func(s any) error {
			sc, ok := s.(*sqlite3.SQLiteConn)
			if !ok {
				return errors.New("not a SQLite connection")
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			bk, err := dc.Backup("main", sc, "main")
			if err != nil {
				return err
			}
			done, err := bk.Step(-1) // every page at once: one read transaction, one instant
			if ferr := bk.Finish(); err == nil {
				err = ferr
			}
			if err == nil && !done {
				err = errors.New("the copy did not finish")
			}
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("store: backup to %s: %w", abs, err)
	}
	return nil
}

// LatestSchemaVersion is the newest migration this program knows: a database (or a
// backup of one) with a higher SchemaVersion was written by a newer version.
func LatestSchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// ForgetProcesses makes a database that no process has open (one just restored from a
// backup, whose copy was taken while runs went on) look like no process ever ran on it:
// every running message becomes interrupted, no message is held by an owner or has a stop
// request, and the instances table is emptied. It returns how many messages were
// interrupted. All in one transaction. Errors: database errors, wrapped.
func (db *DB) ForgetProcesses(ctx context.Context) (int, error) {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE messages SET status = ?, updated_at = ? WHERE status = ?`,
			StatusInterrupted, formatTime(now()), StatusRunning)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET owner = NULL, stop_requested_at = NULL
			WHERE owner IS NOT NULL OR stop_requested_at IS NOT NULL`); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM instances`)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: forget the processes of a restored database: %w", err)
	}
	return int(n), nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/mattn/go-sqlite3"
)

// ErrCorrupt: the database file is damaged (random bytes, a wrong header, a copy cut short,
// or pages SQLite reports as malformed), or it is missing or empty while the -wal beside it
// holds data. Open returns it wrapped in a *CorruptError and leaves the file, and any
// -wal/-shm beside it, as they were.
var ErrCorrupt = errors.New("store: database file is damaged")

// CorruptError is the error Open returns for a damaged database file. Its text names the
// file and says what to do, e.g. "the database /x/artifactflow.db is damaged (file is cut
// short: the header says 5 pages of 4096 bytes, the file has 7000 bytes): move it aside
// and start again to get an empty one, or restore a backup; it was not changed. Move
// /x/artifactflow.db-wal and /x/artifactflow.db-shm together with it, if they are there:
// they hold part of its data". It wraps ErrCorrupt and, when SQLite reported the damage,
// SQLite's error.
type CorruptError struct {
	// Path is the database file's absolute path.
	Path string
	// Reason says what is wrong, e.g. "not a SQLite database: the header is wrong".
	Reason string
	// Err is SQLite's error when SQLite found the damage, else nil.
	Err error
	// Orphan is true when the database file is missing or empty while a non-empty -wal
	// beside it holds changes of a database (one moved or deleted without its -wal).
	// Opening would have deleted that -wal, so Open refuses; the text then says to put the
	// database file back beside it or to move the -wal and -shm aside.
	Orphan bool
}

// Error returns the message for the user (see CorruptError).
func (e *CorruptError) Error() string {
	if e.Orphan {
		return fmt.Sprintf("the database %s is missing or empty (%s): put back the database file that %s-wal belongs to, or move %s-wal and %s-shm aside to start again with an empty database; they were not changed",
			e.Path, e.Reason, e.Path, e.Path, e.Path)
	}
	return fmt.Sprintf("the database %s is damaged (%s): move it aside and start again to get an empty one, or restore a backup; it was not changed. Move %s-wal and %s-shm together with it, if they are there: they hold part of its data",
		e.Path, e.Reason, e.Path, e.Path)
}

// Unwrap returns ErrCorrupt and SQLite's error, if any.
func (e *CorruptError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrCorrupt}
	}
	return []error{ErrCorrupt, e.Err}
}

// IsCorrupt reports whether err is, or wraps, ErrCorrupt or SQLite's own report of a damaged
// file (SQLITE_CORRUPT, SQLITE_NOTADB): damage Open's header check could not see, found
// later when a query reaches a broken page.
func IsCorrupt(err error) bool {
	if errors.Is(err, ErrCorrupt) {
		return true
	}
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// checkFileRace, when set (tests only), runs in checkFile after the header is read and
// before the -wal is looked at: where another process's checkpoint can grow the file and
// remove its -wal.
var checkFileRace func()

// checkFile looks at the database file's 100-byte header before SQLite opens it, so a
// damaged file is refused without SQLite writing to it (switching it to WAL, creating
// -wal/-shm, or a migration). It costs one read of 100 bytes and a few stats.
func checkFile(abs string) error {
	_, err := inspectFile(abs)
	return err
}

// inspectFile is checkFile; probe reports whether Open must look into the file read-only
// (probeFile) before it connects read-write: when a non-empty -wal is beside it, whose
// frames a read-write connection would checkpoint into the file on close (a damaged file
// without one is left unchanged by a failed read-write open, see
// TestOpenDamagedFileIsRefusedAndLeftUnchanged).
//
// A missing or empty path passes (Open creates a new database) unless a non-empty -wal is
// beside it: that -wal belongs to a database moved or deleted without it, SQLite would
// delete it on open, and a *CorruptError with Orphan set is returned instead. An unreadable
// path passes (SQLite says why). A non-empty file fails with a *CorruptError when it is
// shorter than a header; its magic string, page size or payload fractions are wrong; its
// file-format versions (bytes 18 and 19) are 0; or it is shorter than the page count its
// header records (a copy cut short). Format versions above 2 (a newer SQLite's file) give
// an error wrapping ErrSchemaTooNew, not ErrCorrupt. The length check is skipped while a
// non-empty -wal file is beside it: then the newest pages may be in the WAL and a
// checkpoint in another process may be growing the file. The file's size is taken after
// the -wal is looked at, so a checkpoint that ends in between (page 1 with the new page
// count written, the file grown, the -wal removed) does not make a healthy file look cut
// short.
func inspectFile(abs string) (probe bool, err error) {
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, checkOrphanWAL(abs, "the file does not exist")
		}
		return false, nil // unreadable: SQLite says why
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false, nil // a directory or device: SQLite says why
	}
	if st.Size() == 0 {
		return false, checkOrphanWAL(abs, "the file is empty")
	}
	var h [100]byte
	if n, err := io.ReadFull(f, h[:]); err != nil {
		return false, &CorruptError{Path: abs, Reason: fmt.Sprintf("not a SQLite database: the file has only %d bytes", n)}
	}
	if string(h[:16]) != sqliteMagic {
		return false, &CorruptError{Path: abs, Reason: "not a SQLite database: the file does not start with the SQLite header"}
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return false, &CorruptError{Path: abs, Reason: fmt.Sprintf("not a SQLite database: the header has a page size of %d", pageSize)}
	}
	if h[18] == 0 || h[19] == 0 || h[21] != 64 || h[22] != 32 || h[23] != 32 {
		return false, &CorruptError{Path: abs, Reason: "not a SQLite database: the header's format fields are wrong"}
	}
	if h[18] > 2 || h[19] > 2 {
		// SQLite: a write version above 2 makes the file read-only, a read version above 2
		// unreadable. Not damage: a newer SQLite wrote it.
		return false, fmt.Errorf("store: open %s: the file was written by a newer version of SQLite (file format versions %d and %d, this program knows 1 and 2): use a newer ArtifactFlow; it was not changed: %w",
			abs, h[18], h[19], ErrSchemaTooNew)
	}
	if checkFileRace != nil {
		checkFileRace()
	}
	if wal, err := os.Stat(abs + "-wal"); err == nil && wal.Size() > 0 {
		return true, nil
	}
	// The page count at offset 28 is valid when the change counter (24) equals the
	// version-valid-for number (92), as SQLite itself decides.
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	if pages == 0 || binary.BigEndian.Uint32(h[24:28]) != binary.BigEndian.Uint32(h[92:96]) {
		return false, nil
	}
	// The size after the -wal check: a checkpoint removes (or empties) the -wal only after
	// it has grown the file to the page count it wrote into page 1.
	if st, err = f.Stat(); err != nil {
		return false, nil
	}
	if want := pages * pageSize; st.Size() < want {
		return false, &CorruptError{Path: abs, Reason: fmt.Sprintf("file is cut short: its header records %d pages of %d bytes (%d bytes), the file has %d bytes",
			pages, pageSize, want, st.Size())}
	}
	return false, nil
}

// checkOrphanWAL is inspectFile for a missing or empty database file (what says why):
// a *CorruptError with Orphan set when a non-empty -wal is beside it, else nil.
func checkOrphanWAL(abs, what string) error {
	wal, err := os.Stat(abs + "-wal")
	if err != nil || !wal.Mode().IsRegular() || wal.Size() == 0 {
		return nil
	}
	return &CorruptError{Path: abs, Orphan: true,
		Reason: fmt.Sprintf("%s, but %s-wal beside it holds %d bytes of a database's changes", what, abs, wal.Size())}
}

// probeFile opens an existing database (one inspectFile says to probe) read-only and reads
// what Open's migration step reads (the schema and schema_migrations). A read-only
// connection never checkpoints the -wal into the file nor deletes it on close, so damage
// SQLite finds here (not a database, malformed) is reported as a *CorruptError before Open
// connects read-write, and the file and its -wal stay as they were. A -shm the probe
// created beside a refused file is removed again. Other errors (no schema_migrations table,
// a lock, a read-only directory) return nil: the read-write open reports them.
func probeFile(ctx context.Context, abs string) error {
	_, shmErr := os.Lstat(abs + "-shm")
	conn, err := sql.Open("sqlite3", roDSN(abs))
	if err != nil {
		return nil
	}
	var v int
	err = conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	_ = conn.Close()
	ce := asCorrupt(abs, err)
	if ce == nil {
		return nil
	}
	if errors.Is(shmErr, fs.ErrNotExist) {
		_ = os.Remove(abs + "-shm") // the probe created it; a process opening a damaged file fails too
	}
	return ce
}

// roDSN is dsn for probeFile's read-only connection.
func roDSN(abs string) string {
	return fileURI(abs) + "?mode=ro&_busy_timeout=" + strconv.FormatInt(BusyTimeout.Milliseconds(), 10)
}

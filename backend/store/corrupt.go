package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-sqlite3"
)

// ErrCorrupt: the database file is damaged (random bytes, a wrong header, a copy cut short,
// or pages SQLite reports as malformed). Open returns it wrapped in a *CorruptError and
// leaves the file, and any -wal/-shm beside it, as they were.
var ErrCorrupt = errors.New("store: database file is damaged")

// CorruptError is the error Open returns for a damaged database file. Its text names the
// file and says what to do, e.g. "the database /x/artifactflow.db is damaged (file is cut
// short: the header says 5 pages of 4096 bytes, the file has 7000 bytes): move it aside
// and start again to get an empty one, or restore a backup; it was not changed". It wraps
// ErrCorrupt and, when SQLite reported the damage, SQLite's error.
type CorruptError struct {
	// Path is the database file's absolute path.
	Path string
	// Reason says what is wrong, e.g. "not a SQLite database: the header is wrong".
	Reason string
	// Err is SQLite's error when SQLite found the damage, else nil.
	Err error
}

// Error returns the message for the user (see CorruptError).
func (e *CorruptError) Error() string {
	return fmt.Sprintf("the database %s is damaged (%s): move it aside and start again to get an empty one, or restore a backup; it was not changed",
		e.Path, e.Reason)
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

// checkFile looks at the database file's 100-byte header before SQLite opens it, so a
// damaged file is refused without SQLite writing to it (switching it to WAL, creating
// -wal/-shm, or a migration). It costs one read of 100 bytes and a few stats.
//
// A missing, empty or unreadable path passes (Open creates the first two; SQLite reports
// the third). A non-empty file fails with a *CorruptError when it is shorter than a header,
// its magic string, page size, file-format versions or payload fractions are wrong, or it
// is shorter than the page count its header records (a copy cut short). The last check is
// skipped while a non-empty -wal file is beside it: then the newest pages may be in the WAL
// and a checkpoint in another process may be growing the file.
func checkFile(abs string) error {
	f, err := os.Open(abs)
	if err != nil {
		return nil // missing (created by Open) or unreadable (SQLite says why)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return nil // a directory or device: SQLite says why; empty: a new database
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return &CorruptError{Path: abs, Reason: fmt.Sprintf("not a SQLite database: the file has only %d bytes", st.Size())}
	}
	if string(h[:16]) != sqliteMagic {
		return &CorruptError{Path: abs, Reason: "not a SQLite database: the file does not start with the SQLite header"}
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return &CorruptError{Path: abs, Reason: fmt.Sprintf("not a SQLite database: the header has a page size of %d", pageSize)}
	}
	if h[18] < 1 || h[18] > 2 || h[19] < 1 || h[19] > 2 || h[21] != 64 || h[22] != 32 || h[23] != 32 {
		return &CorruptError{Path: abs, Reason: "not a SQLite database: the header's format fields are wrong"}
	}
	// The page count at offset 28 is valid when the change counter (24) equals the
	// version-valid-for number (92), as SQLite itself decides.
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	if pages == 0 || binary.BigEndian.Uint32(h[24:28]) != binary.BigEndian.Uint32(h[92:96]) {
		return nil
	}
	if wal, err := os.Stat(abs + "-wal"); err == nil && wal.Size() > 0 {
		return nil
	}
	if want := pages * pageSize; st.Size() < want {
		return &CorruptError{Path: abs, Reason: fmt.Sprintf("file is cut short: its header records %d pages of %d bytes (%d bytes), the file has %d bytes",
			pages, pageSize, want, st.Size())}
	}
	return nil
}

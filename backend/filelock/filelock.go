// Package filelock takes exclusive locks on files that hold across processes: flock on
// Unix, LockFileEx on Windows. The locks are advisory (they bind only the code that asks
// for them) and belong to the open file: closing it, or the death of its process, releases
// the lock. Two opens of one file in the same process do not share a lock, so such a lock
// also serializes the goroutines of one process that each open the file.
package filelock

import (
	"fmt"
	"os"
	"path/filepath"
)

// Acquire opens the file at path (creating it with mode 0600, and its folder with mode
// 0700, when missing) and locks it exclusively, waiting while another holder has it. The
// caller releases the lock with Release. Errors: the folder or file cannot be made or
// opened, or the lock cannot be taken (the path is named).
func Acquire(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("filelock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("filelock: %w", err)
	}
	if err := Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("filelock: lock %s: %w", path, err)
	}
	return f, nil
}

// Release unlocks f, which Acquire returned, and closes it. Errors: the unlock's or the
// close's (the file is closed either way, which releases the lock as well).
func Release(f *os.File) error {
	uerr := Unlock(f)
	if cerr := f.Close(); uerr == nil && cerr != nil {
		return fmt.Errorf("filelock: close %s: %w", f.Name(), cerr)
	}
	if uerr != nil {
		return fmt.Errorf("filelock: unlock %s: %w", f.Name(), uerr)
	}
	return nil
}

package app

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"artifactflow/backend/filelock"
)

// BlobLockFile is the lock file, in the data dir, that uploads writing an original into
// blobs/ and deletions removing unused originals hold across processes (issue 11, item 4:
// the window and `artifactflow ask` or `serve` on one data dir).
const BlobLockFile = "blobs.lock"

// blobLock serializes, within this process and with every other process on the data dir,
// an upload's "write or reuse the original, then store the artifact that names it" against
// a deletion's "check no artifact names it, then remove it" (removeUnusedBlobs). Without
// it an upload in one process could reuse an original that a deletion in another has just
// found unused and then removes. It is a sync.Locker: the mutex for this process, then an
// exclusive lock on the file at path for the others (flock on Unix, LockFileEx on
// Windows). With path "" it is the mutex alone. When the file cannot be opened or locked
// the failure is logged and the mutex alone is held: an upload or deletion is never
// refused for it.
type blobLock struct {
	mu   sync.Mutex
	path string
	log  *slog.Logger
	f    *os.File // the locked file while held; nil when the file lock could not be taken
	// contended, when set (tests), is called when the file is locked by another holder,
	// before waiting for it.
	contended func()
}

// Lock takes the mutex, then the file lock (waiting for another process to release it).
func (l *blobLock) Lock() {
	l.mu.Lock()
	if l.path == "" {
		return
	}
	f, err := l.lockFile()
	if err != nil {
		if l.log != nil {
			l.log.Warn("could not lock the upload originals against other processes; going on without", "err", err)
		}
		return
	}
	l.f = f
}

// TryLock takes the mutex and the file lock only if both are free at once, and reports
// whether it did; it never waits. Unlike Lock it does not go on without the file: when the
// file cannot be opened or locked it returns false and holds nothing, so a caller that
// must know no other process is between writing an original and storing its artifact
// (sweepUploads) never acts on a guess. With path "" it is the mutex's TryLock.
func (l *blobLock) TryLock() bool {
	if !l.mu.TryLock() {
		return false
	}
	if l.path == "" {
		return true
	}
	f, err := l.openFile()
	if err != nil {
		l.mu.Unlock()
		return false
	}
	if busy, err := filelock.TryLock(f); err != nil || busy {
		f.Close()
		l.mu.Unlock()
		return false
	}
	l.f = f
	return true
}

// openFile opens (creating) the lock file at path.
func (l *blobLock) openFile() (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return nil, fmt.Errorf("app: blob lock: %w", err)
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("app: blob lock: %w", err)
	}
	return f, nil
}

// lockFile opens path and locks it exclusively, calling contended first when it is busy.
func (l *blobLock) lockFile() (*os.File, error) {
	f, err := l.openFile()
	if err != nil {
		return nil, err
	}
	busy, err := filelock.TryLock(f)
	if err == nil && busy {
		if l.contended != nil {
			l.contended()
		}
		err = filelock.Lock(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("app: blob lock %s: %w", l.path, err)
	}
	return f, nil
}

// Unlock releases the file lock (closing the file releases it too) and the mutex.
func (l *blobLock) Unlock() {
	if l.f != nil {
		if err := filelock.Unlock(l.f); err != nil && l.log != nil {
			l.log.Warn("could not unlock the upload originals' lock file", "err", err)
		}
		l.f.Close()
		l.f = nil
	}
	l.mu.Unlock()
}

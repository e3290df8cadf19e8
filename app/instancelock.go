package app

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"artifactflow/backend/filelock"
	"artifactflow/backend/store"
)

// InstancesDir is the folder, in the data dir, that holds one lock file per running
// ArtifactFlow process (<id>.lock, id the instance id in messages.owner and the instances
// table). Each process holds its file locked (flock on Unix, LockFileEx on Windows) from
// NewCore to Close, and the OS releases the lock when the process dies, so another process
// can tell a live owner from a dead one at once, which a heartbeat cannot: a heartbeat is a
// database write and waits, up to store.BusyTimeout, while another process holds the
// database for a long write (issue 11, item 4: two processes on one data dir).
const InstancesDir = "instances"

// instanceLock is this process's locked file in InstancesDir.
type instanceLock struct {
	f    *os.File
	path string
}

// holdInstanceLock creates <dataDir>/instances/<id>.lock and locks it exclusively.
// Errors: the folder or file cannot be made, or the lock cannot be taken (busy means
// another holder, which for a fresh id is a bug).
func holdInstanceLock(dataDir, id string) (*instanceLock, error) {
	path, ok := instanceLockPath(dataDir, id)
	if !ok {
		return nil, fmt.Errorf("app: instance lock: invalid instance id %q", id)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("app: instance lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("app: instance lock: %w", err)
	}
	// Another process may be probing the new file at this instant (it holds the lock for
	// a moment to see whether the owner lives): try a few times.
	var busy bool
	for try := 0; try < 20; try++ {
		if busy, err = filelock.TryLock(f); err != nil || !busy {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err == nil && busy {
		err = errors.New("held by another process")
	}
	if err != nil {
		f.Close()
		_ = os.Remove(path) // unlocked, it would read as a dead owner's
		return nil, fmt.Errorf("app: instance lock %s: %w", path, err)
	}
	return &instanceLock{f: f, path: path}, nil
}

// release unlocks, closes and removes the file. Safe on nil.
func (l *instanceLock) release(log *slog.Logger) {
	if l == nil {
		return
	}
	_ = filelock.Unlock(l.f)
	l.f.Close()
	if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Warn("could not remove this process's lock file", "path", l.path, "err", err)
	}
}

// instanceLockPath is <dataDir>/instances/<id>.lock; ok is false for an id that is not a
// plain name (instance ids are UUIDs; anything with a path separator or dots is refused).
func instanceLockPath(dataDir, id string) (string, bool) {
	if id == "" || len(id) > 64 {
		return "", false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_') {
			return "", false
		}
	}
	return filepath.Join(dataDir, InstancesDir, id+".lock"), true
}

// ownerProbe returns the store.OwnerProbe of the processes on dataDir: self is alive;
// another owner is alive while its lock file is locked, and dead when the lock can be
// taken. An owner without a lock file (an older version, or a process that has closed) or
// whose file cannot be read is unknown, left to its heartbeat. The probe never removes a
// file: a dead owner must read as dead to every later question until the sweep has
// forgotten it (removeDeadInstanceLocks).
func ownerProbe(dataDir, self string) store.OwnerProbe {
	return func(owner string) (alive, known bool) {
		if owner == self {
			return true, true
		}
		path, ok := instanceLockPath(dataDir, owner)
		if !ok {
			return false, false
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return false, false
		}
		busy, err := filelock.TryLock(f)
		if err != nil {
			f.Close()
			return false, false
		}
		if busy {
			f.Close()
			return true, true
		}
		_ = filelock.Unlock(f)
		f.Close()
		return false, true
	}
}

// removeDeadInstanceLocks removes the lock files in <dataDir>/instances of processes that
// are gone and forgotten: the lock can be taken (the process died) and the instances
// table no longer lists the id or its last beat is before staleBefore (the sweep has
// interrupted its runs, or will, and the heartbeat says the same as the file). A starting
// process registers its heartbeat before it creates its file, so its file is never taken
// for a dead one. Files of live processes, and anything that is not an instance lock file,
// are left.
func removeDeadInstanceLocks(dataDir, self string, beats map[string]time.Time, staleBefore time.Time) {
	entries, err := os.ReadDir(filepath.Join(dataDir, InstancesDir))
	if err != nil {
		return
	}
	probe := ownerProbe(dataDir, self)
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || id == self || !e.Type().IsRegular() {
			continue
		}
		if beat, listed := beats[id]; listed && !beat.Before(staleBefore) {
			continue
		}
		if alive, known := probe(id); known && !alive {
			_ = os.Remove(filepath.Join(dataDir, InstancesDir, e.Name()))
		}
	}
}

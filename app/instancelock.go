package app

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

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
	busy, err := tryLockFile(f)
	if err == nil && busy {
		err = errors.New("held by another process")
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("app: instance lock %s: %w", path, err)
	}
	return &instanceLock{f: f, path: path}, nil
}

// release unlocks, closes and removes the file. Safe on nil.
func (l *instanceLock) release(log *slog.Logger) {
	if l == nil {
		return
	}
	_ = unlockFile(l.f)
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
// taken (the file is then removed). An owner without a lock file (an older version, or a
// process that has closed) or whose file cannot be read is unknown, left to its heartbeat.
// The store calls it inside write transactions, which serializes the probes of all
// processes.
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
		busy, err := tryLockFile(f)
		if err != nil {
			f.Close()
			return false, false
		}
		if busy {
			f.Close()
			return true, true
		}
		_ = unlockFile(f)
		f.Close()
		_ = os.Remove(path) // a dead process's file; its runs are about to be interrupted
		return false, true
	}
}

// removeDeadInstanceLocks removes the lock files in <dataDir>/instances of processes that
// are gone (the lock can be taken: a crash left the file), so crashes do not pile files
// up. Files of live processes, and anything that is not an instance lock file, are left.
func removeDeadInstanceLocks(dataDir, self string) {
	entries, err := os.ReadDir(filepath.Join(dataDir, InstancesDir))
	if err != nil {
		return
	}
	probe := ownerProbe(dataDir, self)
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".lock"); ok && e.Type().IsRegular() {
			probe(id) // removes the file when its owner is gone
		}
	}
}

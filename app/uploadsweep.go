package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"artifactflow/backend/config"
)

// LeftoverUploadAge is how old (by modification time) a temporary upload file or an
// original no artifact names must be before a starting process removes it from blobs/
// (sweepUploads). The blob lock already proves that no process of this version is writing
// one; the age spares a writer that does not take the lock (an older version of the app,
// or a process whose lock file could not be locked), which writes its file in one go,
// seconds at most, and renames it at once.
const LeftoverUploadAge = 10 * time.Minute

// sweepUploads removes what an upload killed mid-way (kill -9, a crash, power loss) leaves
// behind, once, when the Core starts:
//
//   - conversations created for an upload that never stored a file, whose creating process
//     has stopped (store.RemoveAbandonedUploads; the one still uploading keeps its own);
//   - in blobs/, temporary files (".upload-*.tmp", written before the rename to the
//     original's name) and originals (SHA-256 hex names) that no artifact names, both at
//     least LeftoverUploadAge old. These are looked at only while this process holds the
//     blob lock (blobLock.TryLock: this process's mutex and the data dir's BlobLockFile),
//     which every upload holds from writing its temporary file until its artifact is
//     stored: while it is held no upload of this version is between those two steps. When
//     another process holds it (it is uploading now) or the lock file cannot be locked,
//     blobs/ is left for a later start; the start never waits for it.
//
// Failures are logged, not returned: a leftover costs only disk space or a line in the
// sidebar.
func (c *Core) sweepUploads(ctx context.Context, now time.Time) {
	removed, err := c.db.RemoveAbandonedUploads(ctx, c.instance, now.Add(-3*c.beat), ownerProbe(c.dataDir, c.instance))
	if err != nil {
		c.log.Warn("could not remove the conversations of uploads that were killed", "err", err)
	} else if len(removed) > 0 {
		c.log.Info("removed the empty conversations of uploads that were killed", "conversations", removed)
	}

	dir := filepath.Join(c.dataDir, config.BlobsDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("could not list the upload originals", "dir", dir, "err", err)
		}
		return
	}
	if len(entries) == 0 {
		return
	}
	if !c.blobMu.TryLock() {
		c.log.Info("another process is uploading, or the upload lock is unavailable; leftovers of killed uploads are left for a later start")
		return
	}
	defer c.blobMu.Unlock()
	entries, err = os.ReadDir(dir) // again under the lock: an upload may have finished meanwhile
	if err != nil {
		c.log.Warn("could not list the upload originals", "dir", dir, "err", err)
		return
	}
	old := func(e fs.DirEntry) bool {
		info, err := e.Info()
		return err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) >= LeftoverUploadAge
	}
	var temps, blobs []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, ".upload-") && strings.HasSuffix(name, ".tmp"):
			if old(e) {
				temps = append(temps, name)
			}
		case blobName.MatchString(name):
			if old(e) {
				blobs = append(blobs, name)
			}
		}
	}
	inUse, err := c.db.BlobsInUse(ctx, blobs)
	if err != nil {
		c.log.Warn("could not check which upload originals are used; keeping them", "err", err)
		blobs = nil
	}
	for _, b := range blobs {
		if !inUse[b] {
			temps = append(temps, b)
		}
	}
	for _, name := range temps {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("could not remove the leftover of a killed upload", "file", name, "err", err)
			continue
		}
		c.log.Info("removed the leftover of a killed upload", "file", name)
	}
}

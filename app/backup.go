package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"artifactflow/backend/backup"
	"artifactflow/backend/filelock"
)

// BackupResult is what a backup wrote: the file (SavedPath; empty when the user cancelled
// the save dialog), its size in bytes, and how many conversations, upload originals and
// workspace files it holds.
type BackupResult struct {
	SavedPath     string `json:"saved_path"`
	Size          int64  `json:"size"`
	Conversations int    `json:"conversations"`
	Uploads       int    `json:"uploads"`
	Files         int    `json:"files"`
}

// BackupFilename is the default name of a backup made at t: artifactflow-backup-<local
// date and time>.zip.
func BackupFilename(t time.Time) string {
	return "artifactflow-backup-" + t.Format("20060102-150405") + ".zip"
}

// Backup writes a backup of the whole data directory to w (package backup,
// docs/ARCHITECTURE.md "Conversation files and backups"): the database copied at one
// instant with SQLite's online backup API while runs may go on writing, the upload
// originals it names (read under the blob lock, so no upload or deletion changes them
// meanwhile), the default workspace folders, the agents folder and config.json without its secrets.
func (c *Core) Backup(ctx context.Context, w io.Writer) (backup.Manifest, error) {
	return backup.Create(ctx, c.db, c.dataDir, w, backup.Options{Lock: &c.blobMu})
}

// BackupFile is Backup into the file at path (written under a temporary name beside it and
// renamed when complete), and returns what it holds.
func (c *Core) BackupFile(ctx context.Context, path string) (BackupResult, error) {
	var m backup.Manifest
	if err := writeAtomically(path, func(w io.Writer) error {
		var err error
		m, err = c.Backup(ctx, w)
		return err
	}); err != nil {
		return BackupResult{}, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return BackupResult{}, err
	}
	return BackupResult{SavedPath: path, Size: st.Size(), Conversations: m.Conversations, Uploads: len(m.Blobs), Files: len(m.Workspaces)}, nil
}

// Backup writes a backup of the whole data (Core.BackupFile) while the app runs. In the
// window the save dialog opens in the user's Documents folder; browser mode, which has no
// dialog and whose file may be far larger than a download through the page should carry,
// writes it into the Documents folder under BackupFilename (a new name, never over a file)
// and says where in SavedPath. Errors: the backup's.
func (s *SettingsService) Backup() (BackupResult, error) {
	name := BackupFilename(time.Now())
	dir := documentsDir()
	var path string
	if fd := s.core.fileDialogs(); fd != nil {
		p, err := fd.SaveFileAs(s.core.uiText("Back up ArtifactFlow's data", "备份 ArtifactFlow 数据"), dir, name,
			s.core.uiText("ArtifactFlow backup", "ArtifactFlow 备份"), "*.zip")
		if err != nil || p == "" {
			return BackupResult{}, err
		}
		path = p
	} else {
		if dir == "" {
			return BackupResult{}, errors.New("no Documents or home folder to write the backup to: use `artifactflow backup --out FILE`")
		}
		path = freeName(filepath.Join(dir, name))
	}
	ctx, cancel := context.WithTimeout(context.Background(), transferTimeout)
	defer cancel()
	res, err := s.core.BackupFile(ctx, path)
	if err != nil {
		return BackupResult{}, err
	}
	s.core.rememberExport(path) // "Show in folder" (ArtifactService.RevealExport)
	return res, nil
}

// freeName returns p, or p with " (2)", " (3)" … before its extension, the first that does
// not exist.
func freeName(p string) string {
	ext := filepath.Ext(p)
	stem := strings.TrimSuffix(p, ext)
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
		p = fmt.Sprintf("%s (%d)%s", stem, i, ext)
	}
}

// DataDirInUse reports whether an ArtifactFlow process (the window, serve, ask, another
// command) has the data directory dataDir open: one of the lock files every running Core
// holds in <dataDir>/instances is locked. Errors: the folder cannot be read.
func DataDirInUse(dataDir string) (bool, error) {
	entries, err := os.ReadDir(filepath.Join(dataDir, InstancesDir))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("app: instances of %s: %w", dataDir, err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		path, ok := instanceLockPath(dataDir, id)
		if !ok {
			continue
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			continue // gone meanwhile
		}
		busy, err := filelock.TryLock(f)
		if err == nil && !busy {
			_ = filelock.Unlock(f)
		}
		f.Close()
		if err != nil {
			return false, fmt.Errorf("app: lock file %s: %w", path, err)
		}
		if busy {
			return true, nil
		}
	}
	return false, nil
}

// Restore replaces the data of dataDir with the backup file (backup.Restore: checked in
// full, integrity_check included, before anything is replaced; the previous data kept in
// dataDir/before-restore-<time>/). It refuses while an ArtifactFlow process runs on
// dataDir (DataDirInUse, asked before and right before the swap): restore into a new data
// dir instead, or close the app. Errors: backup.ErrInUse, backup.ErrInvalidBackup,
// backup.ErrTooNew, wrapped; file system and database errors.
func Restore(ctx context.Context, dataDir, file string) (backup.RestoreResult, error) {
	return backup.Restore(ctx, file, dataDir, backup.RestoreOptions{InUse: func() (bool, error) { return DataDirInUse(dataDir) }})
}

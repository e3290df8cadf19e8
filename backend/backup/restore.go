package backup

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/store"
)

// Limits bound what Restore reads. Zero fields take the Default* values.
type Limits struct {
	MaxEntries int   // entries in the archive
	MaxEntry   int64 // inflated bytes of one entry
	MaxTotal   int64 // inflated bytes of all entries
}

// Default limits: far above any real data directory, finite for a hostile file.
const (
	DefaultMaxEntries = 1_000_000
	DefaultMaxEntry   = 64 << 30
	DefaultMaxTotal   = 256 << 30
)

// RestoreOptions configure Restore.
type RestoreOptions struct {
	// InUse reports whether an ArtifactFlow process runs on the data directory; Restore
	// refuses then (ErrInUse). It is asked before anything is read and again right before
	// the files are swapped. nil: never in use.
	InUse func() (bool, error)
	// Limits bound the archive.
	Limits Limits
	// Now names the folder the old data goes to (nil: time.Now).
	Now func() time.Time
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	// Manifest is the backup's manifest.
	Manifest Manifest
	// Conversations is how many conversations the restored database lists.
	Conversations int
	// Interrupted is how many runs were going when the backup was taken: their messages
	// are marked interrupted.
	Interrupted int
	// Aside is the folder the previous database, blobs and workspaces were moved to; ""
	// when the data directory held none.
	Aside string
	// ConfigRestored reports that config.json came from the backup (the data directory
	// had none); otherwise the existing one was kept.
	ConfigRestored bool
}

// Restore replaces the database, blobs, workspace folders and agents folder of dataDir
// (created if missing; the agents folder only when the backup carries it, Manifest.Agents) with those of the backup file at file. The backup is checked first, in a
// staging folder inside dataDir: its manifest and entries (names, sizes, SHA-256 of every
// entry), and its database with PRAGMA integrity_check and a schema version this program
// can open. Only then are the current artifactflow.db (with its -wal and -shm), blobs/,
// workspaces/ and agents/ moved into dataDir/before-restore-<time>/, which is kept for the user to
// delete, and the restored ones moved into place; the new database is then opened with
// store.Open (which brings an older schema up to date), the runs its copy caught going are
// marked interrupted (store.DB.ForgetProcesses) and its conversations counted. A
// failure at any step puts the previous files back. config.json is written from the
// backup (which holds no secrets) only when dataDir has none: existing settings, with their
// API keys, are kept.
//
// Errors: ErrInUse (from opts.InUse), ErrInvalidBackup, ErrTooNew, file system and
// database errors, wrapped. The data directory is unchanged after any error.
func Restore(ctx context.Context, file, dataDir string, opts RestoreOptions) (res RestoreResult, err error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	lim := opts.Limits.withDefaults()
	if err := checkInUse(opts.InUse, dataDir); err != nil {
		return RestoreResult{}, err
	}
	f, err := os.Open(file)
	if err != nil {
		return RestoreResult{}, fmt.Errorf("backup: restore: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return RestoreResult{}, fmt.Errorf("backup: restore: %w", err)
	}
	if !st.Mode().IsRegular() {
		return RestoreResult{}, fmt.Errorf("backup: restore: %w: %s is not a file", ErrInvalidBackup, file)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return RestoreResult{}, fmt.Errorf("backup: restore: %w: not a zip archive (%v)", ErrInvalidBackup, err)
	}
	entries, m, err := readArchive(zr, lim)
	if err != nil {
		return RestoreResult{}, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return RestoreResult{}, fmt.Errorf("backup: restore: %w", err)
	}
	stage, err := os.MkdirTemp(dataDir, ".restore-*")
	if err != nil {
		return RestoreResult{}, fmt.Errorf("backup: restore: %w", err)
	}
	defer os.RemoveAll(stage)
	if err := unpack(ctx, entries, m, stage); err != nil {
		return RestoreResult{}, err
	}
	if _, schema, _, err := inspect(ctx, filepath.Join(stage, config.DBFile)); err != nil {
		return RestoreResult{}, fmt.Errorf("backup: restore: %w: the database: %v", ErrInvalidBackup, err)
	} else if latest := store.LatestSchemaVersion(); schema > latest {
		return RestoreResult{}, fmt.Errorf("backup: restore: %w (database schema %d, this one knows up to %d): update ArtifactFlow", ErrTooNew, schema, latest)
	}
	if err := checkInUse(opts.InUse, dataDir); err != nil {
		return RestoreResult{}, err
	}
	res.Manifest = m
	sw := &swap{dataDir: dataDir, agents: m.Agents != nil, aside: filepath.Join(dataDir, "before-restore-"+opts.Now().UTC().Format("20060102-150405"))}
	defer func() {
		if err != nil {
			sw.undo()
		}
	}()
	if err := sw.replace(stage); err != nil {
		return RestoreResult{}, err
	}
	db, err := store.Open(ctx, filepath.Join(dataDir, config.DBFile))
	if err != nil {
		return RestoreResult{}, fmt.Errorf("backup: restore: the restored database does not open: %w", err)
	}
	// The copy was taken while processes ran: none runs here now (InUse said so).
	interrupted, err := db.ForgetProcesses(ctx)
	var convs []store.Conversation
	if err == nil {
		convs, err = db.ListConversations(ctx, 0, 0)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return RestoreResult{}, fmt.Errorf("backup: restore: the restored database: %w", err)
	}
	res.Conversations, res.Interrupted = len(convs), interrupted
	if m.Config {
		cfg := filepath.Join(dataDir, config.ConfigFile)
		if _, err := os.Lstat(cfg); errors.Is(err, os.ErrNotExist) {
			if err := os.Rename(filepath.Join(stage, config.ConfigFile), cfg); err != nil {
				return RestoreResult{}, fmt.Errorf("backup: restore: %w", err)
			}
			res.ConfigRestored = true
		}
	}
	res.Aside = sw.finish()
	return res, nil
}

func checkInUse(inUse func() (bool, error), dataDir string) error {
	if inUse == nil {
		return nil
	}
	busy, err := inUse()
	if err != nil {
		return fmt.Errorf("backup: restore: could not tell whether ArtifactFlow runs on %s: %w", dataDir, err)
	}
	if busy {
		return fmt.Errorf("backup: restore: %w (%s): close it first, or restore into another folder with --data-dir", ErrInUse, dataDir)
	}
	return nil
}

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxEntry <= 0 {
		l.MaxEntry = DefaultMaxEntry
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultMaxTotal
	}
	return l
}

// readArchive indexes the archive's entries, reads the manifest and matches the two: each
// entry is listed once with its size and a name this package writes, and each listed
// entry is there.
func readArchive(zr *zip.Reader, lim Limits) (map[string]*zip.File, Manifest, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("backup: restore: %w: %s", ErrInvalidBackup, fmt.Sprintf(format, args...))
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, Manifest{}, bad("%d entries, the limit is %d", len(zr.File), lim.MaxEntries)
	}
	entries := map[string]*zip.File{}
	var total uint64
	for _, zf := range zr.File {
		if _, dup := entries[zf.Name]; dup {
			return nil, Manifest{}, bad("entry %q appears twice", zf.Name)
		}
		if zf.UncompressedSize64 > uint64(lim.MaxEntry) {
			return nil, Manifest{}, bad("entry %q inflates to %d bytes, the limit is %d", zf.Name, zf.UncompressedSize64, lim.MaxEntry)
		}
		if total += zf.UncompressedSize64; total > uint64(lim.MaxTotal) {
			return nil, Manifest{}, bad("its entries inflate to more than %d bytes", lim.MaxTotal)
		}
		entries[zf.Name] = zf
	}
	mf := entries["manifest.json"]
	if mf == nil {
		return nil, Manifest{}, bad("it has no manifest.json")
	}
	rc, err := mf.Open()
	if err != nil {
		return nil, Manifest{}, bad("manifest.json: %v", err)
	}
	b, err := io.ReadAll(io.LimitReader(rc, 256<<20))
	rc.Close()
	if err != nil {
		return nil, Manifest{}, bad("manifest.json: %v", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, Manifest{}, bad("manifest.json: %v", err)
	}
	switch {
	case m.Format != Format:
		return nil, Manifest{}, bad("its format is %q, not %q", m.Format, Format)
	case m.Version > Version:
		return nil, Manifest{}, fmt.Errorf("backup: restore: %w (backup version %d, this one reads up to %d): update ArtifactFlow", ErrTooNew, m.Version, Version)
	case m.Version < 1:
		return nil, Manifest{}, bad("version %d", m.Version)
	}
	listed := map[string]bool{"manifest.json": true}
	need := func(e FileEntry, ok bool) error {
		zf := entries[e.Path]
		switch {
		case !ok:
			return bad("entry name %q is not one a backup holds", e.Path)
		case listed[e.Path]:
			return bad("entry %q is listed twice", e.Path)
		case zf == nil:
			return bad("entry %s is missing", e.Path)
		case e.Size < 0 || zf.UncompressedSize64 != uint64(e.Size):
			return bad("entry %s has %d bytes, the manifest says %d", e.Path, zf.UncompressedSize64, e.Size)
		case !blobName.MatchString(e.SHA256):
			return bad("entry %s has no SHA-256", e.Path)
		}
		listed[e.Path] = true
		return nil
	}
	if err := need(m.Database, m.Database.Path == config.DBFile); err != nil {
		return nil, Manifest{}, err
	}
	for _, e := range m.Blobs {
		b, ok := strings.CutPrefix(e.Path, "blobs/")
		if err := need(e, ok && blobName.MatchString(b) && b == e.SHA256); err != nil {
			return nil, Manifest{}, err
		}
	}
	for _, tree := range []struct {
		prefix string
		list   []FileEntry
	}{{WorkspacesDir, m.Workspaces}, {AgentsDir, m.Agents}} {
		for _, e := range tree.list {
			rel, ok := strings.CutPrefix(e.Path, tree.prefix+"/")
			if ok {
				_, ok = cleanRel(rel)
			}
			if err := need(e, ok); err != nil {
				return nil, Manifest{}, err
			}
		}
	}
	if m.Config {
		if entries[config.ConfigFile] == nil {
			return nil, Manifest{}, bad("entry %s is missing", config.ConfigFile)
		}
		listed[config.ConfigFile] = true
	}
	for name := range entries {
		if !listed[name] {
			return nil, Manifest{}, bad("entry %q is not in the manifest", name)
		}
	}
	return entries, m, nil
}

// unpack writes every entry into stage: artifactflow.db, blobs/, workspaces/, agents/
// and config.json, checking each one's SHA-256.
func unpack(ctx context.Context, entries map[string]*zip.File, m Manifest, stage string) error {
	all := append([]FileEntry{m.Database}, m.Blobs...)
	all = append(all, m.Workspaces...)
	all = append(all, m.Agents...)
	for _, e := range all {
		if err := extract(ctx, entries[e.Path], filepath.Join(stage, filepath.FromSlash(e.Path)), e); err != nil {
			return err
		}
	}
	if m.Config {
		zf := entries[config.ConfigFile]
		rc, err := zf.Open()
		if err != nil {
			return fmt.Errorf("backup: restore: %w: %s: %v", ErrInvalidBackup, zf.Name, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, 16<<20))
		rc.Close()
		if err != nil || !json.Valid(b) {
			return fmt.Errorf("backup: restore: %w: %s is not valid JSON (%v)", ErrInvalidBackup, zf.Name, err)
		}
		if err := os.WriteFile(filepath.Join(stage, config.ConfigFile), b, 0o600); err != nil {
			return fmt.Errorf("backup: restore: %w", err)
		}
	}
	return nil
}

// extract inflates zf into the new file dst, checking its size and SHA-256 against e.
func extract(ctx context.Context, zf *zip.File, dst string, e FileEntry) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("backup: restore: %w", err)
	}
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("backup: restore: %w: %s: %v", ErrInvalidBackup, zf.Name, err)
	}
	defer rc.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup: restore: %w", err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(ctxReader{ctx, rc}, e.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("backup: restore: %w: %s: %v", ErrInvalidBackup, zf.Name, err)
	case n != e.Size:
		return fmt.Errorf("backup: restore: %w: %s has %d bytes, the manifest says %d", ErrInvalidBackup, zf.Name, n, e.Size)
	case hex.EncodeToString(h.Sum(nil)) != e.SHA256:
		return fmt.Errorf("backup: restore: %w: %s: its content does not match its SHA-256", ErrInvalidBackup, zf.Name)
	}
	return nil
}

// ctxReader stops reading once ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// swap moves the data directory's current files aside and the staged ones in, and can
// undo both.
type swap struct {
	dataDir, aside string
	agents         bool     // the backup carries the agents folder (it replaces the current one)
	moved          []string // names moved aside, in order
	placed         []string // names moved in from the stage
}

// swapped are the data directory's names a restore replaces.
var swapped = []string{config.DBFile, config.DBFile + "-wal", config.DBFile + "-shm", config.BlobsDir, WorkspacesDir}

// replace moves the current files aside (the database first, so nothing opens a half-
// replaced directory's old database), then the staged ones into place.
func (s *swap) replace(stage string) error {
	names, in := swapped, []string{config.DBFile, config.BlobsDir, WorkspacesDir}
	if s.agents {
		names, in = append(slices.Clone(names), AgentsDir), append(in, AgentsDir)
	}
	for _, name := range names {
		cur := filepath.Join(s.dataDir, name)
		if _, err := os.Lstat(cur); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if len(s.moved) == 0 {
			if err := os.Mkdir(s.aside, 0o700); err != nil {
				return fmt.Errorf("backup: restore: keep the current data aside: %w", err)
			}
		}
		if err := os.Rename(cur, filepath.Join(s.aside, name)); err != nil {
			return fmt.Errorf("backup: restore: move %s aside: %w", name, err)
		}
		s.moved = append(s.moved, name)
	}
	for _, name := range in {
		staged := filepath.Join(stage, name)
		if _, err := os.Lstat(staged); errors.Is(err, os.ErrNotExist) {
			continue // a backup without uploads or workspaces: none restored
		}
		if err := os.Rename(staged, filepath.Join(s.dataDir, name)); err != nil {
			return fmt.Errorf("backup: restore: move the restored %s into place: %w", name, err)
		}
		s.placed = append(s.placed, name)
	}
	return nil
}

// undo removes what was placed and moves the old files back.
func (s *swap) undo() {
	for _, name := range s.placed {
		_ = os.RemoveAll(filepath.Join(s.dataDir, name))
	}
	for _, name := range []string{config.DBFile + "-wal", config.DBFile + "-shm"} {
		_ = os.Remove(filepath.Join(s.dataDir, name)) // the restored database's, from store.Open
	}
	for _, name := range s.moved {
		_ = os.Rename(filepath.Join(s.aside, name), filepath.Join(s.dataDir, name))
	}
	if len(s.moved) > 0 {
		_ = os.Remove(s.aside)
	}
}

// finish returns the folder holding the previous files, "" when there were none.
func (s *swap) finish() string {
	if len(s.moved) == 0 {
		return ""
	}
	return s.aside
}

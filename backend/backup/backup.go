// Package backup writes a whole data directory to one backup file while the app runs, and
// restores such a file into a data directory (docs/ARCHITECTURE.md, "Conversation files
// and backups").
//
// A backup is a zip archive holding:
//
//	manifest.json        Manifest: format and version, the database schema, what is inside
//	artifactflow.db      a copy of the database made with SQLite's online backup API
//	                     (store.DB.BackupTo): one instant, consistent while runs write
//	blobs/<sha256>       the uploaded originals the copied database names
//	workspaces/<id>/...  the default workspace folders inside the data directory (folders
//	                     the user chose elsewhere are theirs, and not included)
//	agents/...           the user's own agent definitions (useragents.Dir)
//	config.json          the settings without any secret (StripSecrets): API keys,
//	                     tokens and passwords never leave the computer in a backup
//
// Restore checks the backup before it touches the data directory: the manifest, every
// entry's name and size, each blob's SHA-256, and the database with PRAGMA integrity_check
// and its schema version, all in a staging folder inside the data directory. Only then
// does it move the current database, blobs, workspaces and agents aside (into
// before-restore-<time>/, kept for the user to delete) and the restored ones into place;
// a failure on the way puts the old ones back.
package backup

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/store"
	"artifactflow/backend/useragents"
)

// Format is Manifest.Format of a backup.
const Format = "artifactflow-backup"

// Version is the layout version this package writes; Restore reads it and older ones.
const Version = 1

// WorkspacesDir is the data directory's folder of default workspace folders.
const WorkspacesDir = "workspaces"

// AgentsDir is the data directory's folder of the user's agent files (useragents.DirName).
const AgentsDir = useragents.DirName

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidBackup: the file is not a backup, or it is damaged (a bad manifest, an
	// entry missing or unlisted, a bad name, a blob whose content is not its name, a
	// database that fails integrity_check). Nothing was changed.
	ErrInvalidBackup = errors.New("not a valid ArtifactFlow backup")
	// ErrTooNew: a newer version of ArtifactFlow made the backup.
	ErrTooNew = errors.New("the backup was made by a newer version of ArtifactFlow")
	// ErrInUse: an ArtifactFlow process runs on the data directory (RestoreOptions.InUse).
	ErrInUse = errors.New("ArtifactFlow is running on this data directory")
)

// Manifest is manifest.json.
type Manifest struct {
	Format        string      `json:"format"`
	Version       int         `json:"version"`
	Schema        int         `json:"schema"`
	CreatedAt     time.Time   `json:"created_at"`
	Database      FileEntry   `json:"database"`
	Conversations int         `json:"conversations"`
	Blobs         []FileEntry `json:"blobs"`
	Workspaces    []FileEntry `json:"workspaces"`
	// Agents are the files of the data directory's agents folder (useragents.Dir). Create
	// always writes the list (empty when there are none); a backup made before agents were
	// carried has none, and its restore leaves the current agents folder as it is.
	Agents  []FileEntry    `json:"agents"`
	Config  bool           `json:"config"` // config.json (without secrets) is inside
	LeftOut []LeftOutEntry `json:"left_out,omitempty"`
}

// FileEntry is one entry: its path in the archive, size and SHA-256.
type FileEntry struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// LeftOutEntry is a file the backup could not carry, and why.
type LeftOutEntry struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Options configure Create.
type Options struct {
	// Lock, when set, is held while the database is copied and its blobs read (the data
	// dir's blob lock: no upload or deletion changes blobs/ meanwhile, so every blob the
	// copy names is there).
	Lock sync.Locker
	// Now gives the backup's time (nil: time.Now).
	Now func() time.Time
}

// Create writes a backup of the data directory dataDir, whose database db is, to w, and
// returns its manifest. The app may go on running meanwhile: the database is copied at
// one instant (store.DB.BackupTo, into a temporary folder in dataDir that is removed after)
// and checked with integrity_check; the blobs are those the copy names. A blob or
// workspace file that cannot be read is listed in Manifest.LeftOut; symbolic links in the
// workspaces are not followed. Errors: the copy's, w's and the file system's, wrapped; w
// then holds a partial file.
func Create(ctx context.Context, db *store.DB, dataDir string, w io.Writer, opts Options) (Manifest, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	tmp, err := os.MkdirTemp(dataDir, ".backup-*")
	if err != nil {
		return Manifest{}, fmt.Errorf("backup: %w", err)
	}
	defer os.RemoveAll(tmp)
	m := Manifest{Format: Format, Version: Version, CreatedAt: opts.Now().UTC().Truncate(time.Second),
		Blobs: []FileEntry{}, Workspaces: []FileEntry{}, Agents: []FileEntry{}}
	zw := zip.NewWriter(w)
	if err := addDatabaseAndBlobs(ctx, db, dataDir, tmp, zw, &m, opts.Lock); err != nil {
		return Manifest{}, err
	}
	if err := addTree(ctx, filepath.Join(dataDir, WorkspacesDir), WorkspacesDir, zw, &m, &m.Workspaces); err != nil {
		return Manifest{}, err
	}
	if err := addTree(ctx, useragents.Dir(dataDir), AgentsDir, zw, &m, &m.Agents); err != nil {
		return Manifest{}, err
	}
	if raw, err := os.ReadFile(filepath.Join(dataDir, config.ConfigFile)); err == nil {
		clean, err := StripSecrets(raw)
		if err != nil {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: config.ConfigFile, Reason: "not valid JSON: " + err.Error()})
		} else if cw, err := zw.Create(config.ConfigFile); err != nil {
			return Manifest{}, fmt.Errorf("backup: %w", err)
		} else if _, err := cw.Write(clean); err != nil {
			return Manifest{}, fmt.Errorf("backup: %w", err)
		} else {
			m.Config = true
		}
	}
	mw, err := zw.Create("manifest.json")
	if err == nil {
		enc := json.NewEncoder(mw)
		enc.SetIndent("", "  ")
		err = enc.Encode(m)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("backup: %w", err)
	}
	return m, nil
}

// addDatabaseAndBlobs copies the database into tmp, checks the copy, and adds the blobs it
// names and then the copy to zw. lock is held from the copy until the blobs are read;
// compressing the copy, which takes longest, happens after.
func addDatabaseAndBlobs(ctx context.Context, db *store.DB, dataDir, tmp string, zw *zip.Writer, m *Manifest, lock sync.Locker) error {
	snap := filepath.Join(tmp, config.DBFile)
	if err := snapshotAndBlobs(ctx, db, dataDir, snap, zw, m, lock); err != nil {
		return err
	}
	e, why, err := addFile(zw, config.DBFile, snap)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if why != "" {
		return fmt.Errorf("backup: the copy of the database: %s", why)
	}
	m.Database = e
	return nil
}

// snapshotAndBlobs copies the database to snap, checks it, and adds the blobs it names to
// zw, all under lock.
func snapshotAndBlobs(ctx context.Context, db *store.DB, dataDir, snap string, zw *zip.Writer, m *Manifest, lock sync.Locker) error {
	if lock != nil {
		lock.Lock()
		defer lock.Unlock()
	}
	if err := db.BackupTo(ctx, snap); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	blobs, schema, convs, err := inspect(ctx, snap)
	if err != nil {
		return fmt.Errorf("backup: the copy of the database: %w", err)
	}
	m.Schema, m.Conversations = schema, convs
	for _, b := range blobs {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := "blobs/" + b
		if !blobName.MatchString(b) {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: name, Reason: "not a blob name"})
			continue
		}
		e, why, err := addFile(zw, name, filepath.Join(dataDir, config.BlobsDir, b))
		if err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		if why == "" && e.SHA256 != b {
			why = "its content does not match its name (the blob is damaged)"
		}
		if why != "" {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: name, Reason: why})
			continue
		}
		m.Blobs = append(m.Blobs, e)
	}
	return nil
}

// inspect opens the database file at p read-only, checks it (integrity_check) and returns
// the blobs its artifacts name, its schema version and its number of conversations.
func inspect(ctx context.Context, p string) (blobs []string, schema, convs int, err error) {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(p), RawQuery: "mode=ro&immutable=1"}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	d, err := sql.Open("sqlite3", u.String())
	if err != nil {
		return nil, 0, 0, err
	}
	defer d.Close()
	var res string
	if err := d.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil {
		return nil, 0, 0, fmt.Errorf("integrity check: %w", err)
	}
	if res != "ok" {
		return nil, 0, 0, fmt.Errorf("integrity check: %s", res)
	}
	if err := d.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&schema); err != nil {
		return nil, 0, 0, fmt.Errorf("not an ArtifactFlow database: %w", err)
	}
	if err := d.QueryRowContext(ctx, `SELECT count(*) FROM conversations`).Scan(&convs); err != nil {
		return nil, 0, 0, fmt.Errorf("not an ArtifactFlow database: %w", err)
	}
	rows, err := d.QueryContext(ctx, `SELECT DISTINCT json_extract(metadata, '$.blob') FROM artifacts
		WHERE json_valid(metadata) AND json_type(metadata, '$.blob') = 'text' ORDER BY 1`)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("not an ArtifactFlow database: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			return nil, 0, 0, err
		}
		blobs = append(blobs, b)
	}
	return blobs, schema, convs, rows.Err()
}

// addTree adds every regular file under dir (the data dir's workspaces or agents folder)
// as prefix/<relative path>, listing each in *list and what it cannot carry in
// m.LeftOut.
func addTree(ctx context.Context, dir, prefix string, zw *zip.Writer, m *Manifest, list *[]FileEntry) error {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel, rerr := filepath.Rel(dir, p)
		if rerr != nil {
			return rerr
		}
		name := path.Join(prefix, filepath.ToSlash(rel))
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: name, Reason: "could not be read: " + err.Error()})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: name, Reason: "not a regular file (links are not followed)"})
			return nil
		}
		if _, ok := cleanRel(filepath.ToSlash(rel)); !ok {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: name, Reason: "its name cannot be stored"})
			return nil
		}
		e, why, err := addFile(zw, name, p)
		if err != nil {
			return err
		}
		if why != "" {
			m.LeftOut = append(m.LeftOut, LeftOutEntry{Path: name, Reason: why})
			return nil
		}
		*list = append(*list, e)
		return nil
	})
	if err != nil {
		return fmt.Errorf("backup: %s: %w", prefix, err)
	}
	return nil
}

// addFile adds the regular file src to zw as name, streaming it, and returns its entry.
// why says why it was not added (it could not be opened or is not a regular file); err
// is an error of the archive or a read failing half-way.
func addFile(zw *zip.Writer, name, src string) (FileEntry, string, error) {
	f, err := os.Open(src)
	if err != nil {
		return FileEntry{}, "could not be read: " + err.Error(), nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return FileEntry{}, "could not be read: " + err.Error(), nil
	}
	if !st.Mode().IsRegular() {
		return FileEntry{}, "not a regular file", nil
	}
	fh := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: st.ModTime()}
	fh.SetMode(0o600)
	ew, err := zw.CreateHeader(fh)
	if err != nil {
		return FileEntry{}, "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(ew, h), f)
	if err != nil {
		return FileEntry{}, "", fmt.Errorf("%s: %w", name, err)
	}
	return FileEntry{Path: name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, "", nil
}

// blobName is an upload's blob file name: its SHA-256 in lower-case hex.
var blobName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// cleanRel returns p cleaned if it is a relative slash path that stays inside its folder.
func cleanRel(p string) (string, bool) {
	if p == "" || len(p) > 4096 || strings.ContainsAny(p, "\\\x00") || strings.HasPrefix(p, "/") ||
		(len(p) >= 2 && p[1] == ':') {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") || c != p {
		return "", false
	}
	return c, true
}

// secretWords mark a settings member whose value is a secret: any member whose name holds
// one of them (case folded) is removed by StripSecrets, whatever its depth.
var secretWords = []string{"key", "token", "secret", "password", "passwd", "authorization", "credential", "cookie"}

// StripSecrets returns the settings file raw (config.json) without its secrets: every
// member, at any depth, whose name contains key, token, secret, password, passwd,
// authorization, credential or cookie (api_key, the agents' api_key, search.keys, a
// proxy's password …) is removed, every member of an "env" or "headers" object (an MCP
// server's environment and HTTP headers, which the settings treat as secrets whatever
// their names) is removed, and the user name and password of every URL value are
// dropped (a proxy written as http://user:pass@host). What remains (endpoints, models,
// limits, hooks, permissions, language) is what a restore on another computer is glad to
// find. Errors: raw is not valid JSON.
func StripSecrets(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	v = strip(v)
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			lk := strings.ToLower(k)
			secret := false
			for _, w := range secretWords {
				secret = secret || strings.Contains(lk, w)
			}
			if secret {
				delete(x, k)
				continue
			}
			if m, ok := val.(map[string]any); ok && (lk == "env" || lk == "headers") {
				clear(m) // an MCP server's environment and headers: every value may be a secret
				continue
			}
			x[k] = strip(val)
		}
		return x
	case []any:
		for i := range x {
			x[i] = strip(x[i])
		}
		return x
	case string:
		if strings.Contains(x, "@") && strings.Contains(x, "://") {
			if u, err := url.Parse(x); err == nil && u.User != nil {
				u.User = nil
				return u.String()
			}
		}
		return x
	}
	return v
}

package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"artifactflow/backend/filelock"
)

// LockFile is the lock file, in the data dir, that every change of config.json holds
// (Update): the window, browser mode and the command line may run at once on one data
// dir, and each writes what it changed on top of what the others wrote.
const LockFile = "config.lock"

// FileStamp tells one version of config.json from another without reading it: the file's
// identity (each save puts a new file in place), size and modification time, and when
// they were taken. The zero FileStamp stands for no file.
type FileStamp struct {
	info  fs.FileInfo
	taken time.Time
}

// stampSlack is the coarsest modification-time resolution a stamp allows for (FAT keeps
// 2 s; ext3 and HFS+ 1 s): an edit in place, of the same size, within that time of the
// stamped version could leave the same stamp behind.
const stampSlack = 2 * time.Second

// Same reports whether a and b have the same identity, size and modification time (both
// zero: both missing).
func (a FileStamp) Same(b FileStamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil
	}
	return a.info.Size() == b.info.Size() && a.info.ModTime().Equal(b.info.ModTime()) && os.SameFile(a.info, b.info)
}

// Settled reports whether any later change of the file is sure to change its stamp: a was
// taken more than stampSlack after the file's modification time (or there was no file).
// A stamp taken sooner may not tell a same-size edit in place made right after it, so a
// cache keyed by it must read the file again (as git does with racily clean entries).
func (a FileStamp) Settled() bool {
	return a.info == nil || a.taken.Sub(a.info.ModTime()) > stampSlack
}

// Stamp returns the FileStamp of dir/config.json as it is now: one stat, no read. A
// missing file gives the zero FileStamp. Errors: the stat's, other than not-exist.
func Stamp(dir string) (FileStamp, error) {
	fi, err := os.Stat(filepath.Join(dir, ConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return FileStamp{}, nil
	}
	if err != nil {
		return FileStamp{}, fmt.Errorf("config: %w", err)
	}
	return FileStamp{fi, time.Now()}, nil
}

// Load reads dir/config.json. A missing file gives zero Settings and no error; a file that
// is not valid JSON, has a value of the wrong type or a hook whose program is neither an
// absolute path nor a program found on PATH (HookProgram) gives a *FileError (wrapping
// ErrBadFile) naming the file, the line and column or the hook, and the way out; the file
// is left untouched (and Update and Save will not write over it). A leading UTF-8
// byte-order mark is skipped. A file written before per-model context settings, with
// context_window or compact_at_percent and a model, has them moved into that model's
// entry in Models.
func Load(dir string) (Settings, error) {
	s, _, err := LoadStamped(dir)
	return s, err
}

// LoadStamped is Load that also returns the FileStamp of the version it read (taken from
// the file it read, so a save between the two cannot pair one version's stamp with
// another's settings). Errors are Load's.
func LoadStamped(dir string) (Settings, FileStamp, error) {
	path := filepath.Join(dir, ConfigFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, FileStamp{}, nil
	}
	if err != nil {
		return Settings{}, FileStamp{}, fmt.Errorf("config: read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Settings{}, FileStamp{}, fmt.Errorf("config: read %s: %w", path, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return Settings{}, FileStamp{}, fmt.Errorf("config: read %s: %w", path, err)
	}
	s, err := decodeFile(path, b)
	if err != nil {
		return Settings{}, FileStamp{}, err
	}
	return s.migrateModelContext(), FileStamp{fi, time.Now()}, nil
}

// Update changes dir/config.json: while holding LockFile (so that no other process or
// goroutine writes between its read and its write), it reads the file as it is now, calls
// change with its settings (as Load gives them) and writes only what change altered (a
// field, a map entry such as one model's context or one search key; lists such as a hook
// event's entries whole) over the file's own text. Everything else in the file is kept as
// it is, keys Settings does not know included; keys keep their order and new ones follow.
// The file gets mode 0600 (it holds the API key) and dir mode 0700 when created; the new
// text goes to a temporary file renamed into place, so a crash never leaves a half-written
// config. It returns the settings now stored and their FileStamp.
//
// Errors: change's; a *FileError (ErrBadFile) when the file cannot be loaded (Load), in
// which case nothing is written, so the user's hand edit can be fixed; an *InvalidError
// (ErrInvalid) when the new settings fail Validate or have a hook whose program Load
// would refuse; I/O errors naming the file.
func Update(dir string, change func(Settings) (Settings, error)) (Settings, FileStamp, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Settings{}, FileStamp{}, fmt.Errorf("config: create %s: %w", dir, err)
	}
	lock, err := filelock.Acquire(filepath.Join(dir, LockFile))
	if err != nil {
		return Settings{}, FileStamp{}, fmt.Errorf("config: %w", err)
	}
	defer func() { _ = filelock.Release(lock) }() // it closes the file, which releases the lock in any case

	path := filepath.Join(dir, ConfigFile)
	raw, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Settings{}, FileStamp{}, fmt.Errorf("config: read %s: %w", path, err)
	}
	stored, err := decodeFile(path, raw)
	if err != nil {
		return Settings{}, FileStamp{}, err
	}
	next, err := change(stored.migrateModelContext())
	if err != nil {
		return Settings{}, FileStamp{}, err
	}
	if err := next.Validate(); err != nil {
		return Settings{}, FileStamp{}, err
	}
	if problems := hookProgramProblems(next.Hooks); len(problems) > 0 { // Load would refuse the file
		ie := &InvalidError{}
		for _, p := range problems {
			ie.Problems = append(ie.Problems, p.at+".command: "+p.why)
		}
		return Settings{}, FileStamp{}, ie
	}
	tree, err := fileTree(path, raw)
	if err != nil {
		return Settings{}, FileStamp{}, err
	}
	from, err := treeOf(stored) // the file's settings as read, before migrateModelContext
	if err != nil {
		return Settings{}, FileStamp{}, err
	}
	to, err := treeOf(next)
	if err != nil {
		return Settings{}, FileStamp{}, err
	}
	jsonApply(tree, jsonDiff(from, to))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return Settings{}, FileStamp{}, fmt.Errorf("config: encode: %w", err)
	}
	stamp, err := writeFile(dir, path, buf.Bytes())
	if err != nil {
		return Settings{}, FileStamp{}, err
	}
	// The text was just encoded here and its hooks checked above: read it back plainly,
	// without decodeFile's checks (they would look every hook program up on PATH again).
	var saved Settings
	if err := json.Unmarshal(buf.Bytes(), &saved); err != nil {
		return Settings{}, FileStamp{}, fmt.Errorf("config: read back %s: %w", path, err)
	}
	return saved.migrateModelContext(), stamp, nil
}

// Save makes s the settings of dir/config.json: Update with a change that returns s, so
// keys of the file that Settings does not know are kept, and the write holds LockFile.
// Save never replaces a config.json that Load cannot read: it returns Load's *FileError
// (ErrBadFile) and leaves the file as it is. Other errors are Update's.
func Save(dir string, s Settings) error {
	_, _, err := Update(dir, func(Settings) (Settings, error) { return s, nil })
	return err
}

// fileTree is config.json's text raw (read from path) as a jsonObject: an empty one for a
// missing, blank or null file. raw has passed decodeFile.
func fileTree(path string, raw []byte) (*jsonObject, error) {
	raw = bytes.TrimPrefix(raw, utf8BOM)
	if len(bytes.TrimSpace(raw)) == 0 {
		return newJSONObject(), nil
	}
	v, err := parseJSONTree(raw)
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	switch t := v.(type) {
	case *jsonObject:
		return t, nil
	case nil:
		return newJSONObject(), nil
	}
	return nil, fmt.Errorf("config: read %s: %w: not a JSON object", path, ErrBadFile)
}

// writeFile puts b in place of path (in dir) through a temporary file with mode 0600,
// synced and renamed, and returns the FileStamp of the new file.
func writeFile(dir, path string, b []byte) (FileStamp, error) {
	tmp, err := os.CreateTemp(dir, ".config-*.json")
	if err != nil {
		return FileStamp{}, fmt.Errorf("config: write %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return FileStamp{}, fmt.Errorf("config: chmod: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return FileStamp{}, fmt.Errorf("config: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return FileStamp{}, fmt.Errorf("config: sync: %w", err)
	}
	fi, err := tmp.Stat() // the rename keeps the file, its size and its time
	if err != nil {
		tmp.Close()
		return FileStamp{}, fmt.Errorf("config: stat %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return FileStamp{}, fmt.Errorf("config: close: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return FileStamp{}, fmt.Errorf("config: replace %s: %w", path, err)
	}
	return FileStamp{fi, time.Now()}, nil
}

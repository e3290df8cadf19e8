// Package gzfs serves a tree of gzip-compressed files as the plain tree: name.gz is read as
// name, decompressed whole when opened. The binaries embed the built frontend this way
// (frontend/distgz, 0.4 MB instead of frontend/dist's 2.2 MB; vite.config.ts writes it).
package gzfs

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

// maxFile bounds one decompressed file, in bytes (the largest bundle is under 1 MB).
const maxFile = 64 << 20

// FS is the plain view of a tree of .gz files. Open returns, for a file, its decompressed
// bytes (seekable, as http.FileServerFS needs) and for a directory its entries with .gz
// dropped; files not ending in .gz (such as .gitkeep) are hidden.
type FS struct{ gz fs.FS }

// New returns the plain view of gz.
func New(gz fs.FS) FS { return FS{gz} }

// Open implements fs.FS. Errors are *fs.PathError: fs.ErrNotExist for a name with no .gz
// file or directory, fs.ErrInvalid for a file that does not decompress.
func (f FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if st, err := fs.Stat(f.gz, name); err == nil && st.IsDir() {
		ents, err := fs.ReadDir(f.gz, name)
		if err != nil {
			return nil, err
		}
		return &dir{info: info{name: path.Base(name), mode: fs.ModeDir | 0o555}, ents: f.plainEntries(name, ents)}, nil
	}
	if strings.HasSuffix(name, ".gz") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	src, err := f.gz.Open(name + ".gz")
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	defer src.Close()
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: %w", fs.ErrInvalid, err)}
	}
	// One allocation of the size the trailer records (what garbage a file leaves is what the
	// window's idle RSS keeps), read to EOF so a wrong trailer still gives the whole file.
	b := bytes.NewBuffer(make([]byte, 0, min(f.trailerSize(name+".gz"), maxFile)+bytes.MinRead))
	if n, err := b.ReadFrom(io.LimitReader(zr, maxFile+1)); err != nil || n > maxFile {
		if err == nil {
			err = errors.New("over 64 MB decompressed")
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: %w", fs.ErrInvalid, err)}
	}
	return &file{Reader: bytes.NewReader(b.Bytes()), info: info{name: path.Base(name), size: int64(b.Len()), mode: 0o444}}, nil
}

// plainEntries maps the entries of directory name to the plain names: subdirectories as
// they are, x.gz as x (its size from the gzip trailer), anything else dropped.
func (f FS) plainEntries(name string, ents []fs.DirEntry) []fs.DirEntry {
	var out []fs.DirEntry
	for _, e := range ents {
		switch {
		case e.IsDir():
			out = append(out, fs.FileInfoToDirEntry(info{name: e.Name(), mode: fs.ModeDir | 0o555}))
		case strings.HasSuffix(e.Name(), ".gz") && e.Name() != ".gz":
			out = append(out, fs.FileInfoToDirEntry(info{name: strings.TrimSuffix(e.Name(), ".gz"),
				size: f.trailerSize(path.Join(name, e.Name())), mode: 0o444}))
		}
	}
	return out
}

// trailerSize returns the decompressed size a .gz file records in its last 4 bytes (mod
// 2^32, which no asset reaches), 0 when it cannot be read.
func (f FS) trailerSize(name string) int64 {
	src, err := f.gz.Open(name)
	if err != nil {
		return 0
	}
	defer src.Close()
	var tail [4]byte
	if ra, ok := src.(io.ReaderAt); ok { // embed.FS and fstest.MapFS files: no copy
		st, err := src.Stat()
		if err != nil || st.Size() < 4 {
			return 0
		}
		if _, err := ra.ReadAt(tail[:], st.Size()-4); err != nil {
			return 0
		}
		return int64(binary.LittleEndian.Uint32(tail[:]))
	}
	b, err := io.ReadAll(src)
	if err != nil || len(b) < 4 {
		return 0
	}
	return int64(binary.LittleEndian.Uint32(b[len(b)-4:]))
}

type info struct {
	name string
	size int64
	mode fs.FileMode
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return nil }

type file struct {
	*bytes.Reader
	info info
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

type dir struct {
	info info
	ents []fs.DirEntry
	off  int
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dir) Close() error               { return nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}

// ReadDir implements fs.ReadDirFile.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return rest, nil
}

package convfile

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"artifactflow/backend/store"
)

// dataDir is a data directory for the tests: its database, blobs and workspaces folders.
type dataDir struct {
	dir string
	db  *store.DB
}

func newDataDir(t *testing.T) dataDir {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "artifactflow.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return dataDir{dir: dir, db: db}
}

func (d dataDir) blobs() string { return filepath.Join(d.dir, "blobs") }

func (d dataDir) workspace(id string) string { return filepath.Join(d.dir, "workspaces", id) }

func (d dataDir) importOptions() ImportOptions {
	return ImportOptions{BlobsDir: d.blobs(), WorkspaceDir: d.workspace, Lock: &sync.Mutex{}}
}

const (
	original = "the uploaded original, bytes as dropped"
	outFile  = "# Results\n\nWritten by a hook.\n"
)

// fixture fills conversation c1 of d: a message, an upload artifact naming its blob (in
// blobs/), and three declared workspace files: notes/out.md (in the workspace), leak.md
// (a link to a file outside it) and gone.md (missing).
func fixture(t *testing.T, d dataDir) {
	t.Helper()
	sum := sha256.Sum256([]byte(original))
	blob := hex.EncodeToString(sum[:])
	if err := os.MkdirAll(d.blobs(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.blobs(), blob), []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := d.workspace("c1")
	if err := os.MkdirAll(filepath.Join(ws, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes", "out.md"), []byte(outFile), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(d.dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("not for export"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(ws, "leak.md")); err != nil {
		t.Fatal(err)
	}
	q := []string{
		`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Notes', '2026-01-01T00:00:00.000000000Z', '2026-01-01T00:00:00.000000000Z')`,
		`INSERT INTO artifact_sessions (id) VALUES ('c1')`,
		`INSERT INTO messages (id, conversation_id, content, thread_id, status) VALUES ('m1', 'c1', 'Q', 'c1', 'complete')`,
		`INSERT INTO artifacts (id, session_id, content_type, title, content, metadata) VALUES
			('upload_notes', 'c1', 'text/plain', 'notes.txt', 'text', '{"blob":"` + blob + `","filename":"notes.txt"}')`,
	}
	for i, p := range []string{"notes/out.md", "leak.md", "gone.md"} {
		key := "c1:workspace:" + p
		q = append(q, `INSERT INTO declared_artifacts (conversation_id, id, identity_key, kind, storage, title, status, source,
			workspace_path, retention_source, insert_seq, created_at, updated_at) VALUES ('c1', '`+store.DeclaredID(key)+`', '`+key+`',
			'file', 'workspace', '`+p+`', 'available', 'hook', '`+p+`', 'hook', `+string(rune('1'+i))+`, '2026-01-01T00:00:00.000000000Z', '2026-01-01T00:00:00.000000000Z')`)
	}
	for _, s := range q {
		if _, err := d.db.SQL().Exec(s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
}

func export(t *testing.T, d dataDir) ([]byte, Manifest) {
	t.Helper()
	var buf bytes.Buffer
	m, err := Export(context.Background(), d.db, "c1", &buf, ExportOptions{BlobsDir: d.blobs(), Workspace: d.workspace("c1")})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), m
}

// TestExportImportFiles: the file carries the upload's original and the declared
// workspace file (not the link leaving the workspace, nor the missing file: both listed
// as left out), and importing it into another data directory writes the blob and puts the
// file in the new conversation's workspace folder.
func TestExportImportFiles(t *testing.T) {
	src := newDataDir(t)
	fixture(t, src)
	file, m := export(t, src)
	if m.Format != Format || m.Version != Version || m.Schema < 8 || m.Conversation != (ConvInfo{ID: "c1", Title: "Notes"}) {
		t.Errorf("manifest = %+v", m)
	}
	if len(m.Blobs) != 1 || m.Blobs[0].Size != int64(len(original)) {
		t.Errorf("blobs = %+v", m.Blobs)
	}
	if len(m.Files) != 1 || m.Files[0].Path != "notes/out.md" {
		t.Errorf("files = %+v", m.Files)
	}
	var left []string
	for _, l := range m.LeftOut {
		left = append(left, l.Path+": "+l.Reason)
	}
	if want := []string{"files/leak.md: it is a link that leaves the workspace", "files/gone.md: the file is not there"}; !slices.Equal(left, want) {
		t.Errorf("left out = %q, want %q", left, want)
	}
	if bytes.Contains(file, []byte("not for export")) {
		t.Error("the file holds the content of a link leaving the workspace")
	}
	var names []string
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	for _, want := range []string{"manifest.json", "tables/messages.jsonl", "tables/message_events.jsonl", "blobs/" + m.Blobs[0].SHA256, "files/notes/out.md"} {
		if !slices.Contains(names, want) {
			t.Errorf("entries %q lack %s", names, want)
		}
	}

	dst := newDataDir(t)
	res, err := Import(context.Background(), dst.db, bytes.NewReader(file), int64(len(file)), dst.importOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.NewBlobs != 1 || res.Files != 1 || res.Title != "Notes" {
		t.Errorf("result = %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(dst.blobs(), m.Blobs[0].SHA256)); err != nil || string(b) != original {
		t.Errorf("blob = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dst.workspace(res.ConversationID), "notes", "out.md")); err != nil || string(b) != outFile {
		t.Errorf("workspace file = %q, %v", b, err)
	}
	// A second import of the same file is a second copy; the blob is shared, not rewritten.
	again, err := Import(context.Background(), dst.db, bytes.NewReader(file), int64(len(file)), dst.importOptions())
	if err != nil || again.ConversationID == res.ConversationID || again.NewBlobs != 0 || again.Files != 1 {
		t.Errorf("second import = %+v, %v", again, err)
	}
}

// entry is one entry of a hand-made archive.
type entry struct {
	name string
	data []byte
}

// rezip rebuilds a conversation file from its entries after change (which may add,
// drop or alter entries).
func rezip(t *testing.T, file []byte, change func(es []entry) []entry) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var es []entry
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		es = append(es, entry{f.Name, b})
	}
	es = change(es)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// editManifest returns a change that rewrites manifest.json through edit.
func editManifest(edit func(m *Manifest)) func([]entry) []entry {
	return func(es []entry) []entry {
		for i, e := range es {
			if e.name == "manifest.json" {
				var m Manifest
				_ = json.Unmarshal(e.data, &m)
				edit(&m)
				es[i].data, _ = json.Marshal(m)
			}
		}
		return es
	}
}

// editEntry returns a change that replaces the data of entry name.
func editEntry(name string, edit func([]byte) []byte) func([]entry) []entry {
	return func(es []entry) []entry {
		for i, e := range es {
			if e.name == name {
				es[i].data = edit(e.data)
			}
		}
		return es
	}
}

// bomb is an archive whose one entry claims 10 bytes but inflates to 16 MB of zeros
// (written raw, with the lying sizes in its headers).
func bomb(t *testing.T, file []byte) []byte {
	t.Helper()
	var payload, comp bytes.Buffer
	zw := zip.NewWriter(&comp)
	w, _ := zw.Create("x")
	_, _ = w.Write(make([]byte, 16<<20))
	_ = zw.Close()
	zr, _ := zip.NewReader(bytes.NewReader(comp.Bytes()), int64(comp.Len()))
	raw, _ := zr.File[0].OpenRaw()
	_, _ = io.Copy(&payload, raw)
	return rezipRaw(t, file, "tables/messages.jsonl", zr.File[0].CRC32, payload.Bytes(), 10)
}

// rezipRaw is rezip with entry name replaced by raw deflated data whose headers claim
// size bytes.
func rezipRaw(t *testing.T, file []byte, name string, crc uint32, raw []byte, size uint64) []byte {
	t.Helper()
	zr, _ := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if f.Name == name {
			w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc,
				CompressedSize64: uint64(len(raw)), UncompressedSize64: size})
			if err != nil {
				t.Fatal(err)
			}
			_, _ = w.Write(raw)
			continue
		}
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	_ = zw.Close()
	return buf.Bytes()
}

// TestImportRefusesBadFiles feeds Import damaged and hostile files and checks each is
// refused with the right error and leaves no row, blob or workspace file behind.
func TestImportRefusesBadFiles(t *testing.T) {
	src := newDataDir(t)
	fixture(t, src)
	good, m := export(t, src)
	blobEntry := "blobs/" + m.Blobs[0].SHA256
	cases := []struct {
		name string
		file func() []byte
		lim  Limits
		want error
	}{
		{"not a zip", func() []byte { return []byte("PK\x03\x04 nothing else") }, Limits{}, ErrInvalidFile},
		{"cut in half", func() []byte { return good[:len(good)/2] }, Limits{}, ErrInvalidFile},
		{"no manifest", func() []byte {
			return rezip(t, good, func(es []entry) []entry {
				return slices.DeleteFunc(es, func(e entry) bool { return e.name == "manifest.json" })
			})
		}, Limits{}, ErrInvalidFile},
		{"another format", func() []byte { return rezip(t, good, editManifest(func(m *Manifest) { m.Format = "zip" })) }, Limits{}, ErrInvalidFile},
		{"a newer version", func() []byte { return rezip(t, good, editManifest(func(m *Manifest) { m.Version = Version + 1 })) }, Limits{}, ErrTooNew},
		{"a newer schema", func() []byte { return rezip(t, good, editManifest(func(m *Manifest) { m.Schema += 100 })) }, Limits{}, ErrTooNew},
		{"fewer rows than the manifest says", func() []byte {
			return rezip(t, good, editEntry("tables/declared_artifacts.jsonl", func(b []byte) []byte {
				return b[:bytes.IndexByte(b, '\n')+1]
			}))
		}, Limits{}, ErrInvalidFile},
		{"a row that is not JSON", func() []byte {
			return rezip(t, good, editEntry("tables/messages.jsonl", func(b []byte) []byte { return []byte("{oops\n") }))
		}, Limits{}, ErrInvalidFile},
		{"a row of another conversation", func() []byte {
			return rezip(t, good, editEntry("tables/messages.jsonl", func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"conversation_id":"c1"`), []byte(`"conversation_id":"c2"`), 1)
			}))
		}, Limits{}, store.ErrInvalid},
		{"an entry the manifest does not list", func() []byte {
			return rezip(t, good, func(es []entry) []entry { return append(es, entry{"extra.sh", []byte("rm -rf ~")}) })
		}, Limits{}, ErrInvalidFile},
		{"a file path leaving its folder", func() []byte {
			return rezip(t, good, func(es []entry) []entry {
				es = append(es, entry{"files/../../evil.md", []byte("x")})
				return editManifest(func(m *Manifest) {
					m.Files = append(m.Files, FileEntry{Path: "../../evil.md", Size: 1, SHA256: strings.Repeat("0", 64)})
				})(es)
			})
		}, Limits{}, ErrInvalidFile},
		{"an absolute file path", func() []byte {
			return rezip(t, good, func(es []entry) []entry {
				es = append(es, entry{"files//etc/evil", []byte("x")})
				return editManifest(func(m *Manifest) {
					m.Files = append(m.Files, FileEntry{Path: "/etc/evil", Size: 1, SHA256: strings.Repeat("0", 64)})
				})(es)
			})
		}, Limits{}, ErrInvalidFile},
		{"a blob whose content is not its name", func() []byte {
			return rezip(t, good, editEntry(blobEntry, func(b []byte) []byte { return bytes.ToUpper(b) }))
		}, Limits{}, ErrInvalidFile},
		{"a file whose content is not its SHA-256", func() []byte {
			return rezip(t, good, editEntry("files/notes/out.md", func(b []byte) []byte { return bytes.ToUpper(b) }))
		}, Limits{}, ErrInvalidFile},
		{"an entry over the limit", func() []byte { return good }, Limits{MaxEntry: 8}, ErrTooLarge},
		{"more entries than the limit", func() []byte { return good }, Limits{MaxEntries: 3}, ErrTooLarge},
		{"a row over the limit", func() []byte { return good }, Limits{MaxRow: 64}, ErrTooLarge},
		{"an entry inflating past its declared size", func() []byte { return bomb(t, good) }, Limits{}, ErrInvalidFile},
	}
	dst := newDataDir(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := c.file()
			opts := dst.importOptions()
			opts.Limits = c.lim
			_, err := Import(context.Background(), dst.db, bytes.NewReader(file), int64(len(file)), opts)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			t.Log(err)
			var n int
			if err := dst.db.SQL().QueryRow(`SELECT (SELECT count(*) FROM conversations) + (SELECT count(*) FROM messages)
				+ (SELECT count(*) FROM declared_artifacts)`).Scan(&n); err != nil || n != 0 {
				t.Errorf("rows left: %d, %v", n, err)
			}
			for _, dir := range []string{dst.blobs(), filepath.Join(dst.dir, "workspaces")} {
				if es, _ := os.ReadDir(dir); len(es) != 0 {
					t.Errorf("%s holds %d entries after a refused import", dir, len(es))
				}
			}
			if _, err := os.Stat(filepath.Join(dst.dir, "evil.md")); err == nil {
				t.Error("a file was written outside the data directory")
			}
		})
	}
}

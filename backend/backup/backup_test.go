package backup

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

const (
	original   = "an uploaded original"
	hookOutput = "a file a hook wrote into the default workspace"
	configJSON = `{
  "base_url": "http://user:hunter2@llm.example/v1",
  "api_key": "sk-secret-top",
  "model": "qwen3",
  "lead": {"model": "big", "api_key": "sk-secret-lead"},
  "search": {"provider": "brave", "keys": {"brave": "BSA-secret"}},
  "hooks": {"Stop": [{"command": ["/usr/bin/true"]}]},
  "mcp_servers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp-secret", "NOTION_DB": "ntn-secret"}, "headers": {"X-Org": "org-secret"}}},
  "language": "zh-CN"
}`
)

// fillDataDir makes a data directory with one conversation holding an upload (its blob
// in blobs/), n events, a file in its default workspace, an unused blob and config.json
// with secrets; it returns the open database.
func fillDataDir(t *testing.T, dir string, n int) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sum := sha256.Sum256([]byte(original))
	blob := hex.EncodeToString(sum[:])
	for name, data := range map[string]string{
		filepath.Join(config.BlobsDir, blob):                    original,
		filepath.Join(config.BlobsDir, strings.Repeat("a", 64)): "no artifact names this one",
		filepath.Join(WorkspacesDir, "c1", "out", "notes.md"):   hookOutput,
		config.ConfigFile: configJSON,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c1", Title: "Backed up"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(ctx, store.Message{ID: "m1", ConversationID: "c1", Content: "Q", ThreadID: "c1", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`INSERT INTO artifacts (id, session_id, content_type, title, content, metadata)
		VALUES ('upload', 'c1', 'text/plain', 'u.txt', 'text', '{"blob":"` + blob + `"}')`); err != nil {
		t.Fatal(err)
	}
	appendEvents(t, db, 1, n)
	return db
}

// appendEvents stores events from to to (seq) of message m1 with 1 KB of data each.
func appendEvents(t testing.TB, db *store.DB, from, to int) {
	for seq := from; seq <= to; seq++ {
		data, _ := json.Marshal(map[string]string{"text": strings.Repeat(fmt.Sprint(seq%10), 1000)})
		if err := db.AppendEvents(context.Background(), events.Event{Type: events.ToolComplete, ConversationID: "c1",
			MessageID: "m1", Seq: int64(seq), Data: data}); err != nil {
			t.Error(err)
			return
		}
	}
}

func create(t *testing.T, db *store.DB, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Create(context.Background(), db, dir, &buf, Options{Lock: &sync.Mutex{}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "backup.zip")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBackupWhileWritingRestoresIntoNewDir takes a backup while another goroutine keeps
// appending events, restores it into an empty data directory, and checks what users rely
// on: the database passes integrity_check and opens with its conversation and a prefix of
// the events without gaps, the run it caught going marked interrupted; the upload's blob and the workspace file are there, the unused
// blob is not; config.json came along without a single secret.
func TestBackupWhileWritingRestoresIntoNewDir(t *testing.T) {
	src := t.TempDir()
	db := fillDataDir(t, src, 50)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the writer: a run's events while the backup is taken
		defer wg.Done()
		for seq := 51; ; seq++ {
			select {
			case <-stop:
				return
			default:
			}
			appendEvents(t, db, seq, seq)
		}
	}()
	file := create(t, db, src)
	close(stop)
	wg.Wait()

	dst := filepath.Join(t.TempDir(), "new")
	res, err := Restore(context.Background(), writeFile(t, file), dst, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Conversations != 1 || res.Interrupted != 1 || res.Aside != "" || !res.ConfigRestored {
		t.Errorf("result = %+v", res)
	}
	rdb, err := store.Open(context.Background(), filepath.Join(dst, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if err := rdb.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
	var n, maxSeq int
	if err := rdb.SQL().QueryRow(`SELECT count(*), MAX(seq) FROM message_events`).Scan(&n, &maxSeq); err != nil {
		t.Fatal(err)
	}
	if n < 50 || n != maxSeq {
		t.Errorf("restored %d events up to seq %d: want at least 50, without gaps", n, maxSeq)
	}
	for name, want := range map[string]string{
		filepath.Join(config.BlobsDir, res.Manifest.Blobs[0].SHA256): original,
		filepath.Join(WorkspacesDir, "c1", "out", "notes.md"):        hookOutput,
	} {
		if b, err := os.ReadFile(filepath.Join(dst, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v", name, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, config.BlobsDir, strings.Repeat("a", 64))); err == nil {
		t.Error("the blob no artifact names was restored")
	}
	cfg, err := os.ReadFile(filepath.Join(dst, config.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), "secret") || strings.Contains(string(cfg), "hunter2") {
		t.Errorf("restored config.json holds secrets:\n%s", cfg)
	}
	for _, kept := range []string{`"qwen3"`, `"big"`, `"brave"`, `/usr/bin/true`, `"zh-CN"`, `http://llm.example/v1`} {
		if !strings.Contains(string(cfg), kept) {
			t.Errorf("restored config.json lacks %s:\n%s", kept, cfg)
		}
	}
	if _, err := config.Load(dst); err != nil {
		t.Errorf("restored config.json does not load: %v", err)
	}
	if files, _ := filepath.Glob(filepath.Join(src, ".backup-*")); len(files) != 0 {
		t.Errorf("the backup left its temporary copy: %v", files)
	}
}

// TestRestoreOverExistingDataKeepsItAside restores into a data directory that has its own
// database, uploads and settings: the old ones are moved to before-restore-<time>/, the
// settings (with their keys) stay.
func TestRestoreOverExistingDataKeepsItAside(t *testing.T) {
	src := t.TempDir()
	file := create(t, fillDataDir(t, src, 3), src)

	dst := t.TempDir()
	old, err := store.Open(context.Background(), filepath.Join(dst, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := old.CreateConversation(context.Background(), store.Conversation{ID: "old", Title: "Before"}); err != nil {
		t.Fatal(err)
	}
	old.Close()
	mine := `{"api_key": "sk-mine", "model": "mine"}`
	if err := os.WriteFile(filepath.Join(dst, config.ConfigFile), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 29, 15, 30, 0, 0, time.UTC)
	res, err := Restore(context.Background(), writeFile(t, file), dst, RestoreOptions{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Aside != filepath.Join(dst, "before-restore-20261129-153000") || res.ConfigRestored {
		t.Errorf("result = %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, config.ConfigFile)); string(b) != mine {
		t.Errorf("config.json = %s, want the existing one kept", b)
	}
	titles := func(p string) string {
		db, err := store.Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		cs, err := db.ListConversations(context.Background(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.Title)
		}
		return strings.Join(out, ",")
	}
	if got := titles(filepath.Join(dst, config.DBFile)); got != "Backed up" {
		t.Errorf("restored conversations = %q", got)
	}
	if got := titles(filepath.Join(res.Aside, config.DBFile)); got != "Before" {
		t.Errorf("conversations kept aside = %q", got)
	}
}

// rebuild rewrites a backup's entries through change, recomputing nothing.
func rebuild(t *testing.T, file []byte, change func(name string, data []byte) (string, []byte)) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		name, b := change(f.Name, b)
		if name == "" {
			continue
		}
		w, _ := zw.Create(name)
		_, _ = w.Write(b)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// addEntry returns file with one more entry.
func addEntry(t *testing.T, file []byte, name string, data []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	w, _ := zw.Create(name)
	_, _ = w.Write(data)
	_ = zw.Close()
	return buf.Bytes()
}

// manifestOf edits the manifest of a backup.
func manifestOf(edit func(m *Manifest)) func(string, []byte) (string, []byte) {
	return func(name string, b []byte) (string, []byte) {
		if name != "manifest.json" {
			return name, b
		}
		var m Manifest
		_ = json.Unmarshal(b, &m)
		edit(&m)
		out, _ := json.Marshal(m)
		return name, out
	}
}

// corruptDB damages a page in the middle of the backup's database and fixes up the
// manifest's size and hash, so only integrity_check can tell.
func corruptDB(t *testing.T, file []byte) []byte {
	t.Helper()
	var sum string
	file = rebuild(t, file, func(name string, b []byte) (string, []byte) {
		if name == config.DBFile {
			b = bytes.Clone(b)
			page := 4096
			mid := (len(b) / page / 2) * page
			for i := mid + 8; i < mid+page; i++ {
				b[i] = 0xA5
			}
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:])
		}
		return name, b
	})
	return rebuild(t, file, manifestOf(func(m *Manifest) { m.Database.SHA256 = sum }))
}

// TestRestoreRefuses: each bad backup, and a data directory in use, is refused with the
// right error and leaves the data directory exactly as it was.
func TestRestoreRefuses(t *testing.T) {
	src := t.TempDir()
	good := create(t, fillDataDir(t, src, 300), src)
	cases := []struct {
		name  string
		file  func() []byte
		inUse bool
		want  error
	}{
		{"the app runs on the data directory", func() []byte { return good }, true, ErrInUse},
		{"not a zip", func() []byte { return []byte("not a zip") }, false, ErrInvalidBackup},
		{"cut short", func() []byte { return good[:len(good)-100] }, false, ErrInvalidBackup},
		{"a conversation file", func() []byte {
			return rebuild(t, good, manifestOf(func(m *Manifest) { m.Format = "artifactflow-conversation" }))
		}, false, ErrInvalidBackup},
		{"a newer version", func() []byte { return rebuild(t, good, manifestOf(func(m *Manifest) { m.Version = Version + 1 })) }, false, ErrTooNew},
		{"a damaged database", func() []byte { return corruptDB(t, good) }, false, ErrInvalidBackup},
		{"a database whose bytes are not its hash", func() []byte {
			return rebuild(t, good, func(name string, b []byte) (string, []byte) {
				if name == config.DBFile {
					b = bytes.Clone(b)
					b[len(b)-1] ^= 1
				}
				return name, b
			})
		}, false, ErrInvalidBackup},
		{"a workspace path leaving its folder", func() []byte {
			f := rebuild(t, good, func(name string, b []byte) (string, []byte) {
				return strings.Replace(name, "workspaces/c1/out/notes.md", "workspaces/../../evil.md", 1), b
			})
			return rebuild(t, f, manifestOf(func(m *Manifest) { m.Workspaces[0].Path = "workspaces/../../evil.md" }))
		}, false, ErrInvalidBackup},
		{"an entry the manifest does not list", func() []byte { return addEntry(t, good, "run-me.sh", []byte("rm -rf ~")) }, false, ErrInvalidBackup},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := t.TempDir()
			db, err := store.Open(context.Background(), filepath.Join(dst, config.DBFile))
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			before := listing(t, dst)
			_, err = Restore(context.Background(), writeFile(t, c.file()), dst, RestoreOptions{InUse: func() (bool, error) { return c.inUse, nil }})
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			t.Log(err)
			if after := listing(t, dst); after != before {
				t.Errorf("the data directory changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// listing is every path under dir with its size and hash.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/\n", rel)
			return nil
		}
		data, _ := os.ReadFile(p)
		h := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s %d %x\n", rel, len(data), h[:4])
		return nil
	})
	return b.String()
}

// TestStripSecrets: members named like secrets go at any depth, URLs lose their user
// and password, the rest stays.
func TestStripSecrets(t *testing.T) {
	out, err := StripSecrets([]byte(configJSON))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"base_url":    "http://llm.example/v1",
		"model":       "qwen3",
		"lead":        map[string]any{"model": "big"},
		"search":      map[string]any{"provider": "brave"},
		"hooks":       map[string]any{"Stop": []any{map[string]any{"command": []any{"/usr/bin/true"}}}},
		"mcp_servers": map[string]any{"gh": map[string]any{"command": "gh-mcp", "env": map[string]any{}, "headers": map[string]any{}}},
		"language":    "zh-CN",
	}
	if g, _ := json.Marshal(got); string(g) != mustJSON(want) {
		t.Errorf("StripSecrets =\n%s\nwant\n%s", g, mustJSON(want))
	}
	if _, err := StripSecrets([]byte("{")); err == nil {
		t.Error("broken JSON: no error")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestBackupCarriesAgents: the user's agent files (the data dir's agents folder) go into
// the backup and come back on restore, replacing the agents the target had (which are kept
// aside with the rest); an agent path leaving its folder makes the backup invalid.
func TestBackupCarriesAgents(t *testing.T) {
	src := t.TempDir()
	db := fillDataDir(t, src, 3)
	agentFile := filepath.Join(src, AgentsDir, "reviewer.md")
	const agent = "---\nname: reviewer\ndescription: reads drafts critically\n---\nYou review drafts.\n"
	if err := os.MkdirAll(filepath.Dir(agentFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agentFile, []byte(agent), 0o600); err != nil {
		t.Fatal(err)
	}
	file := create(t, db, src)

	dst := t.TempDir()
	mine := filepath.Join(dst, AgentsDir, "mine.md")
	if err := os.MkdirAll(filepath.Dir(mine), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("---\nname: mine\n---\nx\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Restore(context.Background(), writeFile(t, file), dst, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, AgentsDir, "reviewer.md")); err != nil || string(b) != agent {
		t.Errorf("restored agent = %q, %v; want the backed-up file", b, err)
	}
	if _, err := os.Stat(filepath.Join(dst, AgentsDir, "mine.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the target's own agent is still in agents/ (%v); want it moved aside", err)
	}
	if _, err := os.Stat(filepath.Join(res.Aside, AgentsDir, "mine.md")); err != nil {
		t.Errorf("the target's own agent was not kept aside: %v", err)
	}

	bad := rebuild(t, file, func(name string, b []byte) (string, []byte) {
		return strings.Replace(name, "agents/reviewer.md", "agents/../evil.md", 1), b
	})
	bad = rebuild(t, bad, manifestOf(func(m *Manifest) { m.Agents[0].Path = "agents/../evil.md" }))
	if _, err := Restore(context.Background(), writeFile(t, bad), t.TempDir(), RestoreOptions{}); !errors.Is(err, ErrInvalidBackup) {
		t.Errorf("an agent path leaving its folder: err = %v, want ErrInvalidBackup", err)
	}
}

// TestRestoreOldBackupKeepsAgents: a backup made before agents were carried (no "agents"
// in its manifest) leaves the target's agents folder as it is.
func TestRestoreOldBackupKeepsAgents(t *testing.T) {
	src := t.TempDir()
	file := create(t, fillDataDir(t, src, 3), src)
	old := rebuild(t, file, func(name string, b []byte) (string, []byte) {
		if name != "manifest.json" {
			return name, b
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "agents")
		out, _ := json.Marshal(m)
		return name, out
	})
	dst := t.TempDir()
	mine := filepath.Join(dst, AgentsDir, "mine.md")
	if err := os.MkdirAll(filepath.Dir(mine), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(context.Background(), writeFile(t, old), dst, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the agents folder was touched by a backup that does not carry one: %v", err)
	}
}

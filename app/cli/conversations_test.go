package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/store"
)

// conversationCount returns the conversations of dataDir's database and the messages and
// events of each, as "title: messages/events".
func conversationCount(t *testing.T, dataDir string) []string {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(dataDir, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.SQL().Query(`SELECT c.title, (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id),
		(SELECT count(*) FROM message_events e WHERE e.conversation_id = c.id) FROM conversations c ORDER BY c.created_at, c.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var title string
		var m, e int
		if err := rows.Scan(&title, &m, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s: %d/%d", title, m, e))
	}
	return out
}

// TestConversationsExportImportCLI: `conversations export ID --out FILE` writes the
// research `ask` did, `conversations import FILE` stores it in another data directory
// as a new conversation with every message and event; a bad file, an unknown id and
// missing arguments fail with the documented exit codes and import nothing.
func TestConversationsExportImportCLI(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	if code, _, errOut := ask(context.Background(), w, apptest.Question); code != ExitOK {
		t.Fatalf("ask: %d %s", code, errOut)
	}
	db, err := store.Open(context.Background(), filepath.Join(w.DataDir, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	convs, err := db.ListConversations(context.Background(), 0, 0)
	db.Close()
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations after ask: %v, %v", convs, err)
	}
	file := filepath.Join(t.TempDir(), "moon.artifactflow.zip")
	code, out, errOut := runCLI(t, "conversations", "export", convs[0].ID, "--out", file, "--data-dir", w.DataDir)
	if code != ExitOK || !strings.HasPrefix(out, `exported "How far away is the Moon?" to `+file) || !strings.Contains(out, "2 sources") {
		t.Fatalf("export: %d %q %q", code, out, errOut)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	code, out, errOut = runCLI(t, "conversations", "import", file, "--data-dir", fresh)
	if code != ExitOK || !strings.HasPrefix(out, `imported "How far away is the Moon?" as conversation `) || strings.Contains(out, convs[0].ID) {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	want := conversationCount(t, w.DataDir)
	if got := conversationCount(t, fresh); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("imported %q, exported %q", got, want)
	}

	bad := filepath.Join(t.TempDir(), "bad.zip")
	if err := os.WriteFile(bad, []byte("PK\x03\x04 truncated"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"conversations", "import", bad}, ExitError, "not a valid ArtifactFlow conversation file, or it is damaged: not a zip archive"},
		{[]string{"conversations", "export", "nope", "--out", filepath.Join(t.TempDir(), "x.zip")}, ExitError, `no conversation "nope"`},
		{[]string{"conversations", "export", convs[0].ID}, ExitUsage, "--out FILE is required"},
		{[]string{"conversations", "import"}, ExitUsage, "give exactly one file"},
		{[]string{"conversations"}, ExitUsage, "missing subcommand"},
		{[]string{"conversations", "merge"}, ExitUsage, `unknown subcommand "merge"`},
	} {
		code, _, errOut := runCLI(t, append(c.args, "--data-dir", fresh)...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%q: %d %q, want %d and %q", c.args, code, errOut, c.code, c.msg)
		}
	}
	if got := conversationCount(t, fresh); len(got) != 1 {
		t.Errorf("after the failed commands the fresh data holds %q", got)
	}
}

// TestBackupRestoreCLI: `backup --out FILE` works while an app has the data directory
// open; `restore FILE` refuses that directory while the app runs (exit 1, nothing
// changed) and restores into a new one, which then opens with the same conversations.
func TestBackupRestoreCLI(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	if code, _, errOut := ask(context.Background(), w, apptest.Question); code != ExitOK {
		t.Fatalf("ask: %d %s", code, errOut)
	}
	want := conversationCount(t, w.DataDir)
	if err := os.WriteFile(filepath.Join(w.DataDir, config.ConfigFile), []byte(`{"model": "test-model", "api_key": "sk-test-secret"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	core := newTestCore(t, w) // the app, running on the data directory
	file := filepath.Join(t.TempDir(), "backup.zip")
	code, out, errOut := runCLI(t, "backup", "--out", file, "--data-dir", w.DataDir)
	if code != ExitOK || !strings.Contains(out, "1 conversations") || !strings.Contains(out, "API keys are not in it") {
		t.Fatalf("backup: %d %q %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "restore", file, "--data-dir", w.DataDir)
	if code != ExitError || !strings.Contains(errOut, "ArtifactFlow is running on "+w.DataDir) || !strings.Contains(errOut, "nothing was changed") {
		t.Fatalf("restore over a running app: %d %q", code, errOut)
	}
	if _, err := core.Store().ListConversations(context.Background(), 0, 0); err != nil {
		t.Fatalf("the running app's database after a refused restore: %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	code, out, errOut = runCLI(t, "restore", file, "--data-dir", fresh)
	if code != ExitOK || !strings.HasPrefix(out, "restored 1 conversations into "+fresh) || !strings.Contains(out, "settings restored without API keys") {
		t.Fatalf("restore: %d %q %q", code, out, errOut)
	}
	if got := conversationCount(t, fresh); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("restored %q, want %q", got, want)
	}
	if cfg, err := os.ReadFile(filepath.Join(fresh, config.ConfigFile)); err != nil || strings.Contains(string(cfg), "sk-test-secret") || !strings.Contains(string(cfg), "test-model") {
		t.Errorf("restored config.json = %s, %v; want the model without the key", cfg, err)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"backup"}, "--out FILE is required"},
		{[]string{"restore"}, "give exactly one backup file"},
	} {
		if code, _, errOut := runCLI(t, append(c.args, "--data-dir", fresh)...); code != ExitUsage || !strings.Contains(errOut, c.msg) {
			t.Errorf("%q: %d %q", c.args, code, errOut)
		}
	}
}

package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/store"
)

// TestBrowserE2EConversationFiles runs the real frontend in headless Chromium against
// browser mode (frontend/e2e/conversation-files.mjs): a conversation made by a research run
// with an upload is exported from its sidebar menu (the browser downloads the file) and
// imported back through "Import…" and the page's file chooser; the copy opens with the
// research's question and answer; a file that is not a conversation file is refused with
// its reason and imports nothing; Settings → Data backs up into the Documents folder
// (browser mode has no save dialog). Screenshots of the menu and of Settings → Data, in
// English and Chinese. Then, in Go: the copy has the original's messages, events, artifact
// versions, sources and declared rows, and the backup restores into a new data directory
// with both conversations. Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2EConversationFiles(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	home := t.TempDir() // the backup goes to $HOME/Documents: never the real one
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	docs := filepath.Join(home, "Documents")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	core, srv, hs := newBrowserServer(t, apptest.NewWorld(t, "native", nil), dist)
	conv := seedResearch(t, core)

	if err := runScript(t, 4*time.Minute, "conversation-files.mjs", hs.URL+"/?token="+srv.Token(), nil,
		"AF_QUESTION="+apptest.Question, "AF_ANSWER="+apptest.FinalReply, "AF_DOCUMENTS="+docs, "AF_TMP="+t.TempDir()); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}

	ctx := context.Background()
	convs, err := core.Store().ListConversations(ctx, 0, 0)
	if err != nil || len(convs) != 2 {
		t.Fatalf("conversations after the import: %+v, %v", convs, err)
	}
	var copyID string
	for _, c := range convs {
		if c.ID != conv {
			copyID = c.ID
		}
	}
	for _, q := range []string{
		`SELECT count(*) FROM messages WHERE conversation_id = ?`,
		`SELECT count(*) FROM message_events WHERE conversation_id = ?`,
		`SELECT count(*) FROM artifact_versions WHERE session_id = ?`,
		`SELECT count(*) FROM sources WHERE conversation_id = ?`,
		`SELECT count(*) FROM artifacts WHERE session_id = ? AND json_extract(metadata, '$.blob') != ''`,
	} {
		var a, b int
		_ = core.Store().SQL().QueryRow(q, conv).Scan(&a)
		_ = core.Store().SQL().QueryRow(q, copyID).Scan(&b)
		if a == 0 || a != b {
			t.Errorf("%s: original %d, copy %d", q, a, b)
		}
	}
	backups, _ := filepath.Glob(filepath.Join(docs, "artifactflow-backup-*.zip"))
	if len(backups) != 1 {
		t.Fatalf("backups in Documents: %v", backups)
	}
	r, err := app.Restore(ctx, filepath.Join(t.TempDir(), "restored"), backups[0])
	if err != nil || r.Conversations != 2 {
		t.Fatalf("restore of the page's backup = %+v, %v", r, err)
	}
}

// seedResearch makes a conversation with an uploaded file and a whole research run in it,
// and returns its id.
func seedResearch(t *testing.T, core *app.Core) string {
	t.Helper()
	svc := core.Services()
	res, err := svc.Artifacts.Upload("", []app.UploadFile{{Name: "notes.md", Data: []byte("# Notes\n\nThe Moon is far.\n")}})
	if err != nil || res[0].Error != "" {
		t.Fatalf("upload = %+v, %v", res, err)
	}
	conv := res[0].ConversationID
	sent, err := svc.Chat.Send(app.SendRequest{ConversationID: conv, Content: apptest.Question})
	if err != nil {
		t.Fatal(err)
	}
	if r := core.Engine().Active(conv); r != nil {
		<-r.Done()
	}
	m, err := core.Store().GetMessage(context.Background(), sent.MessageID)
	if err != nil || m.Status != store.StatusComplete || !strings.Contains(m.GraphResponse, "384,400") {
		t.Fatalf("seed research: %+v, %v", m, err)
	}
	return conv
}

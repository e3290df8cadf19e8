package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/backup"
	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

// slowResearch scripts a lead that keeps a log artifact through many rounds, each reply
// streamed slowly (a few milliseconds per chunk), and holds its final answer until release
// is closed: a run that writes events the whole time a test needs it to.
func slowResearch(release <-chan struct{}) func(w *apptest.World) llmtest.Handler {
	return func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			n := len(apptest.ToolResults(req))
			var r llmtest.Reply
			switch {
			case n == 0:
				r = w.ToolCall("create_artifact", map[string]any{"id": "log", "content_type": "markdown", "title": "Log", "content": "# Log\n"})
			case n < 40:
				r = w.ToolCall("update_artifact", map[string]any{"id": "log", "old_str": "# Log\n", "new_str": fmt.Sprintf("# Log\n- step %d\n", n)})
			default:
				<-release
				r = llmtest.Reply{Content: "The log is complete."}
			}
			r.ChunkSize, r.Delay = 8, 2*time.Millisecond
			return r
		}
	}
}

// TestBackupDuringResearchRestores is the acceptance test of backups: a backup taken while
// a research run writes its events restores into a new data directory to a database that
// passes integrity_check and opens in the app: the conversation is listed, the run the
// backup caught is marked interrupted, its events are a gap-free prefix of the run's. A
// restore refuses while an app runs on the target directory and leaves it unchanged.
func TestBackupDuringResearchRestores(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	w := apptest.NewWorld(t, "native", slowResearch(release))
	core := newCore(t, w)
	res, err := (&ChatService{core}).Send(SendRequest{Content: "Keep a log"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := core.Store().SQL().QueryRow(`SELECT count(*) FROM message_events WHERE conversation_id = ? AND type = 'tool_complete'`,
			res.ConversationID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run wrote %d tool results in 30 s", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	before, _ := core.Store().MaxSeq(ctx, res.ConversationID)
	file := filepath.Join(t.TempDir(), "backup.zip")
	b, err := core.BackupFile(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := core.Store().MaxSeq(ctx, res.ConversationID)
	if core.Engine().Active(res.ConversationID) == nil {
		t.Fatal("the run ended before the backup did: the test proves nothing")
	}
	t.Logf("events while the backup was taken: seq %d → %d", before, after)
	if b.Conversations != 1 || b.SavedPath != file || b.Size == 0 {
		t.Errorf("backup = %+v", b)
	}
	free()
	waitIdle(core, res.ConversationID)

	fresh := filepath.Join(t.TempDir(), "restored")
	r, err := Restore(ctx, fresh, file)
	if err != nil {
		t.Fatal(err)
	}
	if r.Conversations != 1 || r.Interrupted != 1 || r.Aside != "" {
		t.Errorf("restore = %+v", r)
	}
	db, err := store.Open(ctx, filepath.Join(fresh, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	var n, maxSeq int
	if err := db.SQL().QueryRow(`SELECT count(*), MAX(seq) FROM message_events WHERE conversation_id = ?`, res.ConversationID).Scan(&n, &maxSeq); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if int64(maxSeq) < before || n != maxSeq {
		t.Errorf("restored events: %d up to seq %d; want a gap-free prefix reaching at least seq %d", n, maxSeq, before)
	}

	restored, err := NewCore(ctx, Options{DataDir: fresh})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close(ctx)
	list, err := (&ConversationService{restored}).List()
	if err != nil || len(list) != 1 || list[0].ID != res.ConversationID || list[0].LastStatus != store.StatusInterrupted || list[0].Running {
		t.Fatalf("conversations of the restored data = %+v, %v", list, err)
	}
	d, err := (&ConversationService{restored}).Get(res.ConversationID)
	if err != nil || len(d.Messages) != 1 || d.Messages[0].Content != "Keep a log" {
		t.Fatalf("restored conversation = %+v, %v", d, err)
	}

	inUse, err := DataDirInUse(fresh)
	if err != nil || !inUse {
		t.Fatalf("DataDirInUse with an app open = %v, %v", inUse, err)
	}
	entries := func() string {
		es, _ := os.ReadDir(fresh)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	was := entries()
	if _, err := Restore(ctx, fresh, file); !errors.Is(err, backup.ErrInUse) {
		t.Errorf("restore while the app runs = %v, want backup.ErrInUse", err)
	}
	if now := entries(); now != was {
		t.Errorf("a refused restore changed the data directory: %s, was %s", now, was)
	}
}

// TestSettingsBackup: Settings → Data's backup opens the save dialog in Documents and
// writes there what the user chose; a cancelled dialog writes nothing; browser mode, with
// no dialog, writes a new file into Documents and never over an existing one.
func TestSettingsBackup(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	docs := filepath.Join(home, "Documents")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	core := newCore(t, apptest.EchoWorld(t))
	svc := &SettingsService{core}

	first, err := svc.Backup() // browser mode
	if err != nil || filepath.Dir(first.SavedPath) != docs || !strings.HasPrefix(filepath.Base(first.SavedPath), "artifactflow-backup-") {
		t.Fatalf("backup without a dialog = %+v, %v", first, err)
	}
	second, err := svc.Backup()
	if err != nil || second.SavedPath == first.SavedPath {
		t.Fatalf("second backup = %+v, %v; want a new file", second, err)
	}
	for _, p := range []string{first.SavedPath, second.SavedPath} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("backup file %s: %v", p, err)
		}
	}

	d := &fileDialogs{}
	core.SetDialogs(d)
	if got, err := svc.Backup(); err != nil || got.SavedPath != "" {
		t.Fatalf("cancelled backup = %+v, %v", got, err)
	}
	d.saved = filepath.Join(t.TempDir(), "mine.zip")
	got, err := svc.Backup()
	if err != nil || got.SavedPath != d.saved {
		t.Fatalf("backup = %+v, %v", got, err)
	}
	if len(d.savedIn) != 2 || d.savedIn[0] != docs || d.savedIn[1] != docs {
		t.Errorf("save dialog opened in %q, want %q", d.savedIn, docs)
	}
	if err := core.revealExport(got.SavedPath, func(context.Context, string, bool) error { return nil }); err != nil {
		t.Errorf("Show in folder of the backup: %v", err)
	}
}

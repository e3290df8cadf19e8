package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/localfiles"
	"artifactflow/backend/store"
)

// folderDialogs are window dialogs whose folder dialog answers with folder ("" cancels).
type folderDialogs struct {
	fakeDialogs
	mu     sync.Mutex
	folder string
	asked  []string // the start folders it was opened in
}

func (d *folderDialogs) ChooseFolder(_, start string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, start)
	return d.folder, nil
}

// progressLog collects index_progress events.
type progressLog struct {
	mu  sync.Mutex
	evs []events.Event
	ch  chan localfiles.Progress
}

func (l *progressLog) Emit(ev events.Event) {
	if ev.Type != events.IndexProgress {
		return
	}
	var p localfiles.Progress
	_ = json.Unmarshal(ev.Data, &p)
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
	select {
	case l.ch <- p:
	default:
	}
}

// waitDone waits for an index_progress event of phase done and returns it.
func (l *progressLog) waitDone(t *testing.T) localfiles.Progress {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case p := <-l.ch:
			if p.Phase == localfiles.PhaseDone {
				return p
			}
		case <-deadline:
			t.Fatal("no index_progress event of phase done within 30 s")
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWorkspaceChooseIndexStatus: choosing a folder (desktop dialog) makes it the
// conversation's workspace and indexes it in the background with index_progress events
// (no message, never stored); the status counts the files, the failures are listed with
// their reason, Reindex reads again, ResetWorkspace goes back to the default folder, a
// cancelled dialog changes nothing, and a folder chosen with no conversation open starts
// one named after it.
func TestWorkspaceChooseIndexStatus(t *testing.T) {
	ctx := context.Background()
	core, err := NewCore(ctx, Options{DataDir: filepath.Join(t.TempDir(), "data")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	log := &progressLog{ch: make(chan localfiles.Progress, 100)}
	defer core.AddSink(log)()
	svc := &ConversationService{core}

	if err := core.db.CreateConversation(ctx, store.Conversation{ID: "c1", Title: "t"}); err != nil {
		t.Fatal(err)
	}
	st, err := svc.WorkspaceStatus("c1")
	if err != nil || st.Chosen || st.Exists || st.CanChoose || st.Files != 0 || !strings.HasSuffix(st.Folder, filepath.Join("workspaces", "c1")) {
		t.Fatalf("default status = %+v, %v", st, err)
	}
	if _, err := svc.ChooseWorkspace("c1"); !errors.Is(err, ErrNoFolderDialog) {
		t.Fatalf("ChooseWorkspace without a folder dialog: %v, want ErrNoFolderDialog", err)
	}

	dir := filepath.Join(t.TempDir(), "research")
	writeFiles(t, dir, map[string]string{"notes.md": "the okapi\n", "sub/data.csv": "a,b\nokapi,1\n", "blob.txt": "x\x00\x00y"})
	d := &folderDialogs{folder: dir}
	core.SetDialogs(d)
	st, err = svc.ChooseWorkspace("c1")
	if err != nil || !st.Chosen || st.Folder != dir || !st.Exists || !st.CanChoose {
		t.Fatalf("after choosing: %+v, %v", st, err)
	}
	p := log.waitDone(t)
	if p.Total != 3 || p.Skipped != 1 || p.Workspace != dir {
		t.Fatalf("final progress = %+v", p)
	}
	log.mu.Lock()
	for _, ev := range log.evs {
		if ev.ConversationID != "c1" || ev.MessageID != "" || ev.Seq != 0 {
			t.Fatalf("index_progress event = %+v; want conversation c1, no message, seq 0", ev)
		}
	}
	log.mu.Unlock()
	if evs, err := core.db.ListEvents(ctx, store.EventQuery{ConversationID: "c1"}); err != nil || len(evs) != 0 {
		t.Fatalf("stored events = %d, %v; index_progress must not be stored", len(evs), err)
	}
	st, err = svc.WorkspaceStatus("c1")
	if err != nil || st.Files != 2 || st.Skipped != 1 || st.ByExt["md"] != 1 || st.ByExt["csv"] != 1 || st.Indexing || st.Progress == nil {
		t.Fatalf("status after indexing = %+v, %v", st, err)
	}
	fails, err := svc.WorkspaceFailures("c1")
	if err != nil || len(fails) != 1 || fails[0].Path != "blob.txt" || fails[0].Status != "skipped" || fails[0].Reason == "" {
		t.Fatalf("failures = %+v, %v", fails, err)
	}

	// Reindex reads the skipped file again.
	writeFiles(t, dir, map[string]string{"more.md": "new file\n"})
	if _, err := svc.Reindex("c1"); err != nil {
		t.Fatal(err)
	}
	if p := log.waitDone(t); p.Changed != 2 || p.Total != 4 {
		t.Fatalf("reindex progress = %+v; want the new file and the skipped one read", p)
	}

	// A cancelled dialog changes nothing; the dialog opened in the current folder.
	d.mu.Lock()
	d.folder = ""
	d.mu.Unlock()
	if st, err := svc.ChooseWorkspace("c1"); err != nil || st.Folder != dir {
		t.Fatalf("cancelled dialog: %+v, %v", st, err)
	}
	if d.asked[len(d.asked)-1] != dir {
		t.Fatalf("the dialog opened in %q, want the current folder", d.asked[len(d.asked)-1])
	}

	st, err = svc.ResetWorkspace("c1")
	if err != nil || st.Chosen || st.Folder == dir {
		t.Fatalf("after reset: %+v, %v", st, err)
	}
	log.waitDone(t)
	if st, _ := svc.WorkspaceStatus("c1"); st.Files != 0 {
		t.Fatalf("the old folder's files are still counted: %+v", st)
	}

	// No conversation open: choosing a folder starts one.
	d.mu.Lock()
	d.folder = dir
	d.mu.Unlock()
	st, err = svc.ChooseWorkspace("")
	if err != nil || st.ConversationID == "" || st.Folder != dir {
		t.Fatalf("choose with no conversation: %+v, %v", st, err)
	}
	if c, err := core.db.GetConversation(ctx, st.ConversationID); err != nil || c.Title != "Folder: research" {
		t.Fatalf("new conversation = %+v, %v", c, err)
	}
	log.waitDone(t)

	// Deleting the conversation ends its indexing and drops its index.
	if err := svc.Delete(st.ConversationID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := core.db.SQL().QueryRow(`SELECT count(*) FROM file_index_roots WHERE conversation_id = ?`, st.ConversationID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("index roots of a deleted conversation: %d, %v", n, err)
	}
	if _, err := svc.WorkspaceStatus("nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("status of an unknown conversation: %v", err)
	}
}

// TestUploadsAreIndexed: an upload is indexed in the background right away (an
// index_progress pass with work), and the status counts it under uploads.
func TestUploadsAreIndexed(t *testing.T) {
	core, err := NewCore(context.Background(), Options{DataDir: filepath.Join(t.TempDir(), "data")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	log := &progressLog{ch: make(chan localfiles.Progress, 100)}
	defer core.AddSink(log)()
	res, err := (&ArtifactService{core}).Upload("", []UploadFile{{Name: "notes.md", Data: []byte("the quokka\n")}})
	if err != nil || len(res) != 1 || res[0].Error != "" {
		t.Fatalf("upload = %+v, %v", res, err)
	}
	if p := log.waitDone(t); p.Changed != 1 {
		t.Fatalf("progress = %+v; want the upload read", p)
	}
	st, err := (&ConversationService{core}).WorkspaceStatus(res[0].ConversationID)
	if err != nil || st.Files != 1 || st.Uploads != 1 {
		t.Fatalf("status = %+v, %v", st, err)
	}
	hits, err := core.Files().Search(context.Background(), res[0].ConversationID, "quokka", 5)
	if err != nil || len(hits) != 1 || hits[0].Path != "@uploads/notes.md" {
		t.Fatalf("hits = %+v, %v", hits, err)
	}
}

// TestRunSeesWorkspaceFiles: a research run in a conversation whose workspace holds files
// indexes them before the lead's first call, which gets the <local_files> block; the lead
// of a conversation without files does not.
func TestRunSeesWorkspaceFiles(t *testing.T) {
	var mu sync.Mutex
	var systems []string
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			mu.Lock()
			systems = append(systems, req.Messages[0].Content)
			mu.Unlock()
			return llmtest.Reply{Content: "answer"}
		}
	})
	core := newCore(t, w)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "research")
	writeFiles(t, dir, map[string]string{"a.md": "alpha\n", "b.pdf.txt": "beta\n"})
	for _, id := range []string{"with", "without"} {
		if err := core.db.CreateConversation(ctx, store.Conversation{ID: id, Title: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := core.db.SetConversationWorkspace(ctx, "with", dir); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"with", "without"} {
		res, err := core.eng.Ask(ctx, engine.Request{ConversationID: id, Content: "q"})
		if err != nil || res.Err != nil {
			t.Fatalf("run in %s: %v / %v", id, err, res.Err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(systems) != 2 || !strings.Contains(systems[0], "<local_files>") || !strings.Contains(systems[0], "2 files (1 .md, 1 .txt)") {
		t.Fatalf("lead prompt with files lacks the block:\n%s", systems[0])
	}
	if strings.Contains(systems[1], "<local_files>") {
		t.Fatal("lead prompt without files has a local_files block")
	}
}

package app

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/artifact"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

// TestArtifactVersionsAndEdits walks what the artifacts panel does after a run: list
// versions with the question that produced them, edit, a stale edit refused, restore.
func TestArtifactVersionsAndEdits(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	chat := &ChatService{core}
	sent, err := chat.Send(SendRequest{Content: apptest.Question})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(core, sent.ConversationID)
	svc := &ArtifactService{core}
	vs, err := svc.Versions(sent.ConversationID, "task_plan")
	if err != nil || len(vs) != 1 || vs[0].Version != 4 || vs[0].Message != apptest.Question || vs[0].MessageID != sent.MessageID {
		t.Fatalf("versions = %+v, %v", vs, err)
	}
	edited, err := svc.Save(sent.ConversationID, "task_plan", 4, "# My own plan")
	if err != nil || edited.Version != 5 || edited.Content != "# My own plan" {
		t.Fatalf("save = %+v, %v", edited, err)
	}
	if _, err := svc.Save(sent.ConversationID, "task_plan", 4, "stale"); !errors.Is(err, artifact.ErrConflict) {
		t.Fatalf("stale save = %v, want conflict", err)
	}
	restored, err := svc.Restore(sent.ConversationID, "task_plan", 4, 5)
	if err != nil || restored.Version != 6 || !strings.Contains(restored.Content, "- [x] Write the report") {
		t.Fatalf("restore = %+v, %v", restored, err)
	}
	v5, err := svc.Version(sent.ConversationID, "task_plan", 5)
	if err != nil || v5.Content != "# My own plan" || v5.UpdateType != "user_edit" || v5.Source != "user" {
		t.Fatalf("version 5 = %+v, %v", v5, err)
	}
	all, _ := svc.Versions(sent.ConversationID, "task_plan")
	if len(all) != 3 || all[2].UpdateType != "restore" {
		t.Fatalf("versions after edits = %+v", all)
	}
	if _, err := svc.Version(sent.ConversationID, "task_plan", 2); err == nil {
		t.Fatal("version 2 was folded into 4 by the write-back cache and must not exist")
	}
}

// waitIdle waits until conversationID has no run going.
func waitIdle(core *Core, conversationID string) {
	if r := core.eng.Active(conversationID); r != nil {
		<-r.Done()
	}
}

// TestVersionsOfAnArtifactNotYetStored: while a run goes on, the artifacts panel lists
// (and opens by default) an artifact the run created but has not stored yet: its working
// copy lives in the run's write-back cache until the run ends. Its history is then empty,
// not an error (browser mode turned the error into a 500 the page logged). An artifact
// that exists nowhere is still not found.
func TestVersionsOfAnArtifactNotYetStored(t *testing.T) {
	held := make(chan struct{})
	release := make(chan struct{})
	var heldOnce, releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if len(apptest.ToolResults(req)) == 0 {
				return w.ToolCall("create_artifact", map[string]any{"id": "draft", "content_type": "markdown",
					"title": "Draft", "content": "# Draft\n\nnot stored yet"})
			}
			heldOnce.Do(func() { close(held) })
			<-release
			return llmtest.Reply{Content: "done"}
		}
	})
	t.Cleanup(free)
	core := newCore(t, w)
	sent, err := (&ChatService{core}).Send(SendRequest{Content: "write a draft"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the run never created its draft")
	}
	svc := &ArtifactService{core}
	list, err := svc.List(sent.ConversationID)
	if err != nil || len(list) != 1 || list[0].ID != "draft" || !list[0].Unsaved {
		t.Fatalf("list during the run = %+v, %v; want the unsaved draft", list, err)
	}
	vs, err := svc.Versions(sent.ConversationID, "draft")
	if err != nil || vs == nil || len(vs) != 0 {
		t.Fatalf("versions of the unsaved draft = %#v, %v; want an empty list", vs, err)
	}
	if _, err := svc.Versions(sent.ConversationID, "no_such_artifact"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("versions of a missing artifact: %v, want not found", err)
	}
	free()
	waitIdle(core, sent.ConversationID)
	if vs, err := svc.Versions(sent.ConversationID, "draft"); err != nil || len(vs) != 1 {
		t.Fatalf("versions after the run = %+v, %v; want the stored version", vs, err)
	}
}

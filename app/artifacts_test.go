package app

import (
	"errors"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/artifact"
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

package store

import (
	"context"
	"testing"
)

// TestConversationLastStatus checks Conversation.LastStatus in GetConversation,
// ListConversations and SearchConversations: "" without messages, then the status of the
// active branch's last message as runs start and end.
func TestConversationLastStatus(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	if err := db.CreateConversation(ctx, Conversation{ID: "c", Title: "Moon distance"}); err != nil {
		t.Fatal(err)
	}
	check := func(want string) {
		t.Helper()
		got, err := db.GetConversation(ctx, "c")
		if err != nil || got.LastStatus != want {
			t.Fatalf("GetConversation LastStatus = %q (%v), want %q", got.LastStatus, err, want)
		}
		list, err := db.ListConversations(ctx, 0, 0)
		if err != nil || len(list) != 1 || list[0].LastStatus != want {
			t.Fatalf("ListConversations = %+v (%v), want LastStatus %q", list, err, want)
		}
		hits, err := db.SearchConversations(ctx, "moon", 10)
		if err != nil || len(hits) != 1 || hits[0].LastStatus != want {
			t.Fatalf("SearchConversations = %+v (%v), want LastStatus %q", hits, err, want)
		}
	}
	check("")
	steps := []struct {
		id, finish string // finish "" leaves the message running
	}{
		{"m1", StatusError},
		{"m2", ""},
		{"m2", StatusCancelled},
		{"m3", StatusComplete},
	}
	parent := ""
	for _, s := range steps {
		if s.finish == "" {
			if err := db.AddMessage(ctx, Message{ID: s.id, ConversationID: "c", ParentID: parent, Content: "moon?"}); err != nil {
				t.Fatal(err)
			}
			parent = s.id
			check(StatusRunning)
			continue
		}
		if s.id != parent {
			if err := db.AddMessage(ctx, Message{ID: s.id, ConversationID: "c", ParentID: parent, Content: "moon?"}); err != nil {
				t.Fatal(err)
			}
			parent = s.id
		}
		if err := db.FinishMessage(ctx, s.id, "", s.finish, ""); err != nil {
			t.Fatal(err)
		}
		check(s.finish)
	}
}

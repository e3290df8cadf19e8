package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"artifactflow/backend/events"
)

func TestCreateAndGetConversation(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	created := time.Date(2025, 3, 4, 5, 6, 7, 890, time.UTC)
	full := Conversation{ID: "full", Title: "Full", ActiveBranch: "", UserID: "u1",
		CreatedAt: created, UpdatedAt: created.Add(time.Second), Metadata: json.RawMessage(`{"k":[1,2]}`)}
	if err := db.CreateConversation(ctx, full); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetConversation(ctx, "full")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, full) {
		t.Errorf("GetConversation = %+v\nwant %+v", got, full)
	}

	before := now()
	if err := db.CreateConversation(ctx, Conversation{ID: "bare"}); err != nil {
		t.Fatal(err)
	}
	bare, err := db.GetConversation(ctx, "bare")
	if err != nil {
		t.Fatal(err)
	}
	if bare.CreatedAt.Before(before) || bare.UpdatedAt.Before(before) || bare.Metadata != nil {
		t.Errorf("zero times not filled with now or metadata not nil: %+v (before %v)", bare, before)
	}
	var sessions int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM artifact_sessions WHERE id IN ('full', 'bare')`).Scan(&sessions); err != nil {
		t.Fatal(err)
	}
	if sessions != 2 {
		t.Errorf("artifact_sessions rows = %d, want 2 (one per conversation)", sessions)
	}

	errTests := []struct {
		name string
		c    Conversation
		want error
	}{
		{"duplicate id", Conversation{ID: "full"}, ErrDuplicate},
		{"empty id", Conversation{}, ErrInvalid},
		{"invalid metadata", Conversation{ID: "x", Metadata: json.RawMessage(`{nope`)}, ErrInvalid},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.CreateConversation(ctx, tt.c); !errors.Is(err, tt.want) {
				t.Errorf("CreateConversation(%+v) = %v, want %v", tt.c, err, tt.want)
			}
		})
	}
	if _, err := db.GetConversation(ctx, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("failed create left a row behind: GetConversation(x) err = %v", err)
	}
}

func TestListRenameTouchConversations(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"c1", "c2", "c3"} {
		ts := base.Add(time.Duration(i) * time.Hour)
		if err := db.CreateConversation(ctx, Conversation{ID: id, CreatedAt: ts, UpdatedAt: ts}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(limit, offset int) []string {
		t.Helper()
		cs, err := db.ListConversations(ctx, limit, offset)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	tests := []struct {
		name          string
		limit, offset int
		want          []string
	}{
		{"all newest first", 0, 0, []string{"c3", "c2", "c1"}},
		{"limit", 2, 0, []string{"c3", "c2"}},
		{"limit and offset", 2, 2, []string{"c1"}},
		{"offset past end", 10, 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(tt.limit, tt.offset); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ListConversations(%d, %d) = %v, want %v", tt.limit, tt.offset, got, tt.want)
			}
		})
	}
	if _, err := db.ListConversations(ctx, 1, -1); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative offset: err = %v, want ErrInvalid", err)
	}

	if err := db.TouchConversation(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if got := ids(0, 0); !reflect.DeepEqual(got, []string{"c1", "c3", "c2"}) {
		t.Errorf("after touching c1: %v, want c1 first", got)
	}
	if err := db.RenameConversation(ctx, "c2", "新标题"); err != nil {
		t.Fatal(err)
	}
	c2, err := db.GetConversation(ctx, "c2")
	if err != nil || c2.Title != "新标题" {
		t.Errorf("after rename: %+v, %v", c2, err)
	}
	for name, err := range map[string]error{
		"rename": db.RenameConversation(ctx, "nope", "x"),
		"touch":  db.TouchConversation(ctx, "nope"),
		"delete": db.DeleteConversation(ctx, "nope"),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s of a missing conversation: err = %v, want ErrNotFound", name, err)
		}
	}
}

// countRows returns the number of rows per table belonging to conversation id.
func countRows(t *testing.T, db *DB, id string) map[string]int {
	t.Helper()
	queries := map[string]string{
		"conversations":     `SELECT count(*) FROM conversations WHERE id = ?`,
		"messages":          `SELECT count(*) FROM messages WHERE conversation_id = ?`,
		"message_events":    `SELECT count(*) FROM message_events WHERE conversation_id = ?`,
		"artifact_sessions": `SELECT count(*) FROM artifact_sessions WHERE id = ?`,
		"artifacts":         `SELECT count(*) FROM artifacts WHERE session_id = ?`,
		"artifact_versions": `SELECT count(*) FROM artifact_versions WHERE session_id = ?`,
	}
	out := map[string]int{}
	for table, q := range queries {
		var n int
		if err := db.SQL().QueryRow(q, id).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

// populate gives conversation id two messages, three events and an artifact with two versions.
func populate(t *testing.T, db *DB, id string) {
	t.Helper()
	ctx := context.Background()
	createConv(t, db, id)
	for i, parent := range []string{"", id + "-m1"} {
		if err := db.AddMessage(ctx, Message{ID: fmt.Sprintf("%s-m%d", id, i+1), ConversationID: id, ParentID: parent, Content: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	for seq := int64(1); seq <= 3; seq++ {
		if err := db.AppendEvents(ctx, events.Event{Type: events.AgentStart, ConversationID: id, MessageID: id + "-m1", Seq: seq}); err != nil {
			t.Fatal(err)
		}
	}
	w := ArtifactWrite{SessionID: id, ID: "task_plan", ContentType: "markdown", Title: "Plan", Content: "v1", Version: 1, UpdateType: UpdateCreate}
	if _, err := db.CreateArtifact(ctx, w); err != nil {
		t.Fatal(err)
	}
	w.Content, w.Version, w.UpdateType, w.ExpectedLockVersion = "v2", 2, UpdateRewrite, 1
	if _, err := db.UpdateArtifactContent(ctx, w); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteConversationCascades(t *testing.T) {
	db := openTestDB(t)
	populate(t, db, "gone")
	populate(t, db, "kept")
	full := map[string]int{"conversations": 1, "messages": 2, "message_events": 3, "artifact_sessions": 1, "artifacts": 1, "artifact_versions": 2}
	if got := countRows(t, db, "gone"); !reflect.DeepEqual(got, full) {
		t.Fatalf("before delete: %v, want %v", got, full)
	}
	if err := db.DeleteConversation(context.Background(), "gone"); err != nil {
		t.Fatal(err)
	}
	empty := map[string]int{"conversations": 0, "messages": 0, "message_events": 0, "artifact_sessions": 0, "artifacts": 0, "artifact_versions": 0}
	if got := countRows(t, db, "gone"); !reflect.DeepEqual(got, empty) {
		t.Errorf("after delete, rows of deleted conversation: %v, want all 0", got)
	}
	if got := countRows(t, db, "kept"); !reflect.DeepEqual(got, full) {
		t.Errorf("after delete, rows of the other conversation: %v, want %v", got, full)
	}
}

func TestAddMessage(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := db.CreateConversation(ctx, Conversation{ID: "c1", CreatedAt: old, UpdatedAt: old}); err != nil {
		t.Fatal(err)
	}
	createConv(t, db, "c2")
	if err := db.AddMessage(ctx, Message{ID: "other", ConversationID: "c2", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	before, err := db.GetConversation(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	m := Message{ID: "m1", ConversationID: "c1", Content: "你好", ThreadID: "c1", Metadata: json.RawMessage(`{"a":1}`)}
	if err := db.AddMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetMessage(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusRunning || got.Content != "你好" || got.ThreadID != "c1" || string(got.Metadata) != `{"a":1}` ||
		got.ParentID != "" || got.CreatedAt.IsZero() {
		t.Errorf("GetMessage = %+v", got)
	}
	after, err := db.GetConversation(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if after.ActiveBranch != "m1" || !after.UpdatedAt.After(before.UpdatedAt) {
		t.Errorf("conversation after AddMessage: active_branch %q updated_at %v (before %v)", after.ActiveBranch, after.UpdatedAt, before.UpdatedAt)
	}

	errTests := []struct {
		name string
		m    Message
		want error
	}{
		{"duplicate id", Message{ID: "m1", ConversationID: "c1"}, ErrDuplicate},
		{"missing conversation", Message{ID: "m9", ConversationID: "nope"}, ErrNotFound},
		{"parent in another conversation", Message{ID: "m9", ConversationID: "c1", ParentID: "other"}, ErrInvalid},
		{"missing parent", Message{ID: "m9", ConversationID: "c1", ParentID: "ghost"}, ErrInvalid},
		{"unknown status", Message{ID: "m9", ConversationID: "c1", Status: "done"}, ErrInvalid},
		{"empty id", Message{ConversationID: "c1"}, ErrInvalid},
		{"bad metadata", Message{ID: "m9", ConversationID: "c1", Metadata: json.RawMessage(`[`)}, ErrInvalid},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.AddMessage(ctx, tt.m); !errors.Is(err, tt.want) {
				t.Errorf("AddMessage(%+v) = %v, want %v", tt.m, err, tt.want)
			}
		})
	}
	// Failed adds must not move the active branch.
	if c, _ := db.GetConversation(ctx, "c1"); c.ActiveBranch != "m1" {
		t.Errorf("active_branch = %q after failed adds, want m1", c.ActiveBranch)
	}
	if _, err := db.GetMessage(ctx, "m9"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetMessage(m9) err = %v, want ErrNotFound", err)
	}
}

func TestListMessagesOrder(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// b and c share a timestamp: insertion order breaks the tie; a is older though added last.
	msgs := []Message{
		{ID: "b", ConversationID: "c", CreatedAt: ts.Add(time.Second)},
		{ID: "c", ConversationID: "c", CreatedAt: ts.Add(time.Second)},
		{ID: "a", ConversationID: "c", CreatedAt: ts},
	}
	for _, m := range msgs {
		if err := db.AddMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.ListMessages(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ListMessages = %v, want %v", ids, want)
	}
}

func TestMessagePath(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	createConv(t, db, "empty")
	createConv(t, db, "other")
	// tree: msg1 → msg2 → msg4, msg1 → msg3 → msg5.
	tree := [][2]string{{"msg1", ""}, {"msg2", "msg1"}, {"msg3", "msg1"}, {"msg4", "msg2"}, {"msg5", "msg3"}}
	for _, n := range tree {
		if err := db.AddMessage(ctx, Message{ID: n[0], ConversationID: "c", ParentID: n[1], Content: n[0]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AddMessage(ctx, Message{ID: "x1", ConversationID: "other", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, conv, to string
		want           []string
		wantErr        error
	}{
		{"branch via msg3", "c", "msg5", []string{"msg1", "msg3", "msg5"}, nil},
		{"branch via msg2", "c", "msg4", []string{"msg1", "msg2", "msg4"}, nil},
		{"middle", "c", "msg2", []string{"msg1", "msg2"}, nil},
		{"root", "c", "msg1", []string{"msg1"}, nil},
		{"active branch (last added)", "c", "", []string{"msg1", "msg3", "msg5"}, nil},
		{"no messages", "empty", "", nil, nil},
		{"unknown message", "c", "nope", nil, ErrNotFound},
		{"message of another conversation", "c", "x1", nil, ErrNotFound},
		{"unknown conversation", "nope", "", nil, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := db.MessagePath(ctx, tt.conv, tt.to)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("MessagePath(%q, %q) err = %v, want %v", tt.conv, tt.to, err, tt.wantErr)
			}
			var ids []string
			for _, m := range path {
				ids = append(ids, m.ID)
			}
			if !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("MessagePath(%q, %q) = %v, want %v", tt.conv, tt.to, ids, tt.want)
			}
		})
	}

	t.Run("broken and cyclic chains give errors", func(t *testing.T) {
		raw := []string{
			`INSERT INTO messages (id, conversation_id, parent_id, content) VALUES ('orphan', 'c', 'deleted', '')`,
			`INSERT INTO messages (id, conversation_id, parent_id, content) VALUES ('loopA', 'c', 'loopB', '')`,
			`INSERT INTO messages (id, conversation_id, parent_id, content) VALUES ('loopB', 'c', 'loopA', '')`,
		}
		for _, q := range raw {
			if _, err := db.SQL().Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		for _, to := range []string{"orphan", "loopA"} {
			if path, err := db.MessagePath(ctx, "c", to); err == nil {
				t.Errorf("MessagePath to %s = %d messages, want an error", to, len(path))
			}
		}
	})
}

func TestFinishMessageAndMarkRunningInterrupted(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	for _, id := range []string{"r1", "r2", "done"} {
		if err := db.AddMessage(ctx, Message{ID: id, ConversationID: "c"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.FinishMessage(ctx, "done", "the answer", StatusComplete, ""); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishMessage(ctx, "r2", "", StatusError, "model unreachable"); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishMessage(ctx, "nope", "", StatusComplete, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("FinishMessage(missing) = %v, want ErrNotFound", err)
	}
	if err := db.FinishMessage(ctx, "r1", "", "finished", ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("FinishMessage(bad status) = %v, want ErrInvalid", err)
	}

	n, err := db.MarkRunningInterrupted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("MarkRunningInterrupted = %d, want 1 (only r1 was running)", n)
	}
	want := map[string][3]string{
		"r1":   {StatusInterrupted, "", ""},
		"r2":   {StatusError, "", "model unreachable"},
		"done": {StatusComplete, "the answer", ""},
	}
	for id, w := range want {
		m, err := db.GetMessage(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := [3]string{m.Status, m.GraphResponse, m.Error}; got != w {
			t.Errorf("message %s: (status, response, error) = %q, want %q", id, got, w)
		}
	}
	if n, err := db.MarkRunningInterrupted(ctx); err != nil || n != 0 {
		t.Errorf("second MarkRunningInterrupted = %d, %v; want 0", n, err)
	}
}

package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// ids returns the id of each message.
func ids(ms []Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// branchTree builds, in conversation c, a branched tree plus an edit of the first
// question (root2) and a regenerated answer (msg6, sibling of msg4):
//
//	msg1 ── msg2 ── msg4
//	  │       └──── msg6
//	  └──── msg3 ── msg5
//	root2
//
// Creation times increase in the order listed, one second apart, except that msg4 and
// msg6 share a time (insertion order breaks the tie).
func branchTree(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	createConv(t, db, "c")
	createConv(t, db, "other")
	base := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	tree := []struct {
		id, parent string
		at         int
	}{
		{"msg1", "", 0}, {"msg2", "msg1", 1}, {"msg3", "msg1", 2}, {"msg4", "msg2", 3},
		{"msg5", "msg3", 4}, {"root2", "", 5}, {"msg6", "msg2", 3},
	}
	for _, n := range tree {
		at := base.Add(time.Duration(n.at) * time.Second)
		if err := db.AddMessage(ctx, Message{ID: n.id, ConversationID: "c", ParentID: n.parent, Content: n.id, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AddMessage(ctx, Message{ID: "x1", ConversationID: "other", Content: "x"}); err != nil {
		t.Fatal(err)
	}
}

func TestChildrenAndSiblings(t *testing.T) {
	db := openTestDB(t)
	branchTree(t, db)
	ctx := context.Background()

	children := []struct {
		name, conv, parent string
		want               []string
	}{
		{"roots (NULL parent)", "c", "", []string{"msg1", "root2"}},
		{"two answers to msg1", "c", "msg1", []string{"msg2", "msg3"}},
		{"same created_at in insertion order", "c", "msg2", []string{"msg4", "msg6"}},
		{"leaf", "c", "msg5", nil},
		{"parent of another conversation", "c", "x1", nil},
		{"unknown conversation", "nope", "", nil},
	}
	for _, tt := range children {
		t.Run("children/"+tt.name, func(t *testing.T) {
			got, err := db.Children(ctx, tt.conv, tt.parent)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids(got), tt.want) {
				t.Errorf("Children(%q, %q) = %v, want %v", tt.conv, tt.parent, ids(got), tt.want)
			}
		})
	}

	siblings := []struct {
		name, conv, msg string
		want            []string
		wantErr         error
	}{
		{"edited first question", "c", "root2", []string{"msg1", "root2"}, nil},
		{"first question", "c", "msg1", []string{"msg1", "root2"}, nil},
		{"branch", "c", "msg3", []string{"msg2", "msg3"}, nil},
		{"regenerated", "c", "msg6", []string{"msg4", "msg6"}, nil},
		{"only child", "c", "msg5", []string{"msg5"}, nil},
		{"message of another conversation", "c", "x1", nil, ErrNotFound},
		{"unknown message", "c", "nope", nil, ErrNotFound},
	}
	for _, tt := range siblings {
		t.Run("siblings/"+tt.name, func(t *testing.T) {
			got, err := db.Siblings(ctx, tt.conv, tt.msg)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Siblings(%q, %q) err = %v, want %v", tt.conv, tt.msg, err, tt.wantErr)
			}
			if !reflect.DeepEqual(ids(got), tt.want) {
				t.Errorf("Siblings(%q, %q) = %v, want %v", tt.conv, tt.msg, ids(got), tt.want)
			}
		})
	}

	tree, err := db.MessageTree(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	parents := map[string]string{}
	for _, n := range tree {
		order = append(order, n.ID)
		parents[n.ID] = n.ParentID
	}
	if want := []string{"msg1", "msg2", "msg3", "msg4", "msg6", "msg5", "root2"}; !reflect.DeepEqual(order, want) {
		t.Errorf("MessageTree order = %v, want %v", order, want)
	}
	if parents["msg6"] != "msg2" || parents["root2"] != "" || tree[0].CreatedAt.IsZero() {
		t.Errorf("MessageTree = %+v", tree)
	}
}

func TestLatestLeafAndSetActiveBranch(t *testing.T) {
	db := openTestDB(t)
	branchTree(t, db)
	ctx := context.Background()

	// AddMessage moved active_branch to each new message; the last added is msg6.
	if c, err := db.GetConversation(ctx, "c"); err != nil || c.ActiveBranch != "msg6" {
		t.Fatalf("active_branch after AddMessage = %q, %v; want msg6", c.ActiveBranch, err)
	}

	leaves := []struct {
		name, msg, want string
		wantErr         error
	}{
		{"newest child at each step", "msg1", "msg5", nil},
		{"tie on created_at: the later inserted", "msg2", "msg6", nil},
		{"branch", "msg3", "msg5", nil},
		{"a leaf is its own latest leaf", "msg4", "msg4", nil},
		{"root without answers", "root2", "root2", nil},
		{"message of another conversation", "x1", "", ErrNotFound},
		{"unknown message", "nope", "", ErrNotFound},
	}
	for _, tt := range leaves {
		t.Run("leaf/"+tt.name, func(t *testing.T) {
			got, err := db.LatestLeaf(ctx, "c", tt.msg)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("LatestLeaf(%q) err = %v, want %v", tt.msg, err, tt.wantErr)
			}
			if got.ID != tt.want {
				t.Errorf("LatestLeaf(%q) = %q, want %q", tt.msg, got.ID, tt.want)
			}
		})
	}

	before, _ := db.GetConversation(ctx, "c")
	switches := []struct {
		name, conv, msg string
		wantErr         error
		wantPath        []string
	}{
		{"to the first branch", "c", "msg4", nil, []string{"msg1", "msg2", "msg4"}},
		{"to the other answer", "c", "msg5", nil, []string{"msg1", "msg3", "msg5"}},
		{"to the edited first question", "c", "root2", nil, []string{"root2"}},
		{"to an inner message", "c", "msg2", nil, []string{"msg1", "msg2"}},
		{"message of another conversation", "c", "x1", ErrNotFound, []string{"msg1", "msg2"}},
		{"unknown message", "c", "nope", ErrNotFound, []string{"msg1", "msg2"}},
		{"unknown conversation", "nope", "msg1", ErrNotFound, []string{"msg1", "msg2"}},
		{"empty message id", "c", "", ErrInvalid, []string{"msg1", "msg2"}},
	}
	for _, tt := range switches {
		t.Run("switch/"+tt.name, func(t *testing.T) {
			if err := db.SetActiveBranch(ctx, tt.conv, tt.msg); !errors.Is(err, tt.wantErr) {
				t.Fatalf("SetActiveBranch(%q, %q) = %v, want %v", tt.conv, tt.msg, err, tt.wantErr)
			}
			path, err := db.MessagePath(ctx, "c", "")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids(path), tt.wantPath) {
				t.Errorf("active path = %v, want %v", ids(path), tt.wantPath)
			}
		})
	}
	after, _ := db.GetConversation(ctx, "c")
	if !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("switching branches changed updated_at from %v to %v", before.UpdatedAt, after.UpdatedAt)
	}

	t.Run("a parent cycle ends", func(t *testing.T) {
		for _, q := range []string{
			`INSERT INTO messages (id, conversation_id, parent_id, content, created_at) VALUES ('loopA', 'c', 'loopB', '', '2030-01-01T00:00:00.000000000Z')`,
			`INSERT INTO messages (id, conversation_id, parent_id, content, created_at) VALUES ('loopB', 'c', 'loopA', '', '2030-01-01T00:00:00.000000000Z')`,
		} {
			if _, err := db.SQL().Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.LatestLeaf(ctx, "c", "loopA"); err != nil {
			t.Errorf("LatestLeaf in a cycle = %v, want a message and no hang", err)
		}
	})
}

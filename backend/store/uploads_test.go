package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestRemoveAbandonedUploads: a conversation created for an upload is removed when it is
// still marked and empty and the instance that made it has stopped (its lock free, or no
// lock and no fresh heartbeat); it is kept when that instance may still be storing the
// file (lock held, or a fresh heartbeat with no lock to ask), when it is this instance's,
// when anything is in it (a message, an artifact, a chosen workspace folder), and when it
// was never marked or its mark was cleared after the upload stored a file.
func TestRemoveAbandonedUploads(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for _, id := range []string{"fresh", "late-locked", "dead-locked"} {
		if err := db.Heartbeat(ctx, id, 1); err != nil {
			t.Fatal(err)
		}
	}
	probe := func(owner string) (alive, known bool) {
		switch owner {
		case "me", "late-locked", "live-locked":
			return true, true
		case "dead-locked":
			return false, true
		}
		return false, false
	}
	tests := []struct {
		id, owner string // owner "" = not marked
		fill      func(t *testing.T, id string)
		removed   bool
	}{
		{id: "gone", owner: "never-registered", removed: true},
		{id: "dead-lock-fresh-beat", owner: "dead-locked", removed: true},
		{id: "fresh-beat", owner: "fresh"},
		{id: "late-beat-lock-held", owner: "late-locked"},
		{id: "lock-held", owner: "live-locked"},
		{id: "mine", owner: "me"},
		{id: "unmarked", owner: ""},
		{id: "with-message", owner: "never-registered", fill: func(t *testing.T, id string) {
			if err := db.AddMessage(ctx, Message{ID: "m-" + id, ConversationID: id, Content: "q", Status: StatusComplete}); err != nil {
				t.Fatal(err)
			}
		}},
		{id: "with-artifact", owner: "never-registered", fill: func(t *testing.T, id string) {
			if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: id, ID: "a", ContentType: "markdown", Title: "A",
				Content: "x", Version: 1, UpdateType: UpdateUpload, Source: "user_upload"}); err != nil {
				t.Fatal(err)
			}
		}},
		{id: "with-workspace", owner: "never-registered", fill: func(t *testing.T, id string) {
			if err := db.SetConversationWorkspace(ctx, id, t.TempDir()); err != nil {
				t.Fatal(err)
			}
		}},
		{id: "cleared", owner: "never-registered", fill: func(t *testing.T, id string) {
			if err := db.ClearPendingUpload(ctx, id); err != nil {
				t.Fatal(err)
			}
			if c, err := db.GetConversation(ctx, id); err != nil || c.Metadata != nil {
				t.Fatalf("metadata after ClearPendingUpload: %s, %v; want none", c.Metadata, err)
			}
		}},
	}
	var want []string
	for _, tt := range tests {
		c := Conversation{ID: tt.id, Title: "Files: " + tt.id}
		if tt.owner != "" {
			c.Metadata = PendingUploadMetadata(tt.owner)
		}
		if err := db.CreateConversation(ctx, c); err != nil {
			t.Fatal(err)
		}
		if tt.fill != nil {
			tt.fill(t, tt.id)
		}
		if tt.removed {
			want = append(want, tt.id)
		}
	}
	// "late-locked" beat an hour ago: only its lock says it lives.
	if _, err := db.exec(ctx, `UPDATE instances SET heartbeat_at = ? WHERE id = 'late-locked'`, formatTime(time.Now().Add(-time.Hour))); err != nil {
		t.Fatal(err)
	}
	got, err := db.RemoveAbandonedUploads(ctx, "me", time.Now().Add(-time.Minute), probe)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	for _, tt := range tests {
		_, err := db.GetConversation(ctx, tt.id)
		if gone := err != nil; gone != tt.removed {
			t.Errorf("%s: removed %v (%v), want %v", tt.id, gone, err, tt.removed)
		}
	}
}

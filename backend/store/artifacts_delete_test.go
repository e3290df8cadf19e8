package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// countRowsOf returns the number of rows query finds.
func countRowsOf(t *testing.T, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.sql.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestDeleteArtifact: deleting a document removes its row, every version and every draft
// runs left of it, and returns its last state; the conversation, its other artifacts and
// its search rows stay.
func TestDeleteArtifact(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	newArtifact(t, db)
	if _, err := db.UpdateArtifactContent(ctx, ArtifactWrite{SessionID: "s", ID: "doc", Content: "v2", Version: 2,
		UpdateType: UpdateUserEdit, ExpectedLockVersion: 1}); err != nil {
		t.Fatal(err)
	}
	meta := json.RawMessage(`{"sha256":"ab","blob":"ab"}`)
	if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: "s", ID: "keep", ContentType: "text", Title: "Keep",
		Content: "k", Version: 1, UpdateType: UpdateUpload, Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []Draft{
		{ConversationID: "s", ArtifactID: "doc", MessageID: "m1", ContentType: "markdown", Title: "Doc", Content: "d", Version: 3, BaseVersion: 2, UpdateType: UpdateRewrite},
		{ConversationID: "s", ArtifactID: "doc", MessageID: "m2", ContentType: "markdown", Title: "Doc", Content: "d", Version: 3, BaseVersion: 2, UpdateType: UpdateRewrite},
		{ConversationID: "s", ArtifactID: "keep", MessageID: "m1", ContentType: "text", Title: "Keep", Content: "k2", Version: 2, BaseVersion: 1, UpdateType: UpdateRewrite},
	} {
		if err := db.SaveDrafts(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	searchRows := countRowsOf(t, db, `SELECT count(*) FROM search_docs WHERE conversation_id = 's'`)

	got, err := db.DeleteArtifact(ctx, "s", "doc")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "doc" || got.Content != "v2" || got.CurrentVersion != 2 || got.Title != "Doc" {
		t.Errorf("DeleteArtifact returned %+v, want the last state (v2)", got)
	}
	if _, err := db.GetArtifact(ctx, "s", "doc"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetArtifact after delete: %v, want ErrNotFound", err)
	}
	if n := countRowsOf(t, db, `SELECT count(*) FROM artifact_versions WHERE session_id = 's' AND artifact_id = 'doc'`); n != 0 {
		t.Errorf("%d versions left", n)
	}
	if n := countRowsOf(t, db, `SELECT count(*) FROM artifact_drafts WHERE conversation_id = 's' AND artifact_id = 'doc'`); n != 0 {
		t.Errorf("%d drafts left", n)
	}
	// Everything else stays.
	if a, err := db.GetArtifact(ctx, "s", "keep"); err != nil || string(a.Metadata) != string(meta) {
		t.Errorf("other artifact: %+v, %v", a, err)
	}
	if got := versionNumbers(t, db, "s", "keep"); len(got) != 1 {
		t.Errorf("other artifact's versions: %v", got)
	}
	if n := countRowsOf(t, db, `SELECT count(*) FROM artifact_drafts WHERE artifact_id = 'keep'`); n != 1 {
		t.Errorf("other artifact's drafts: %d, want 1", n)
	}
	// Only the deleted artifact's own search document goes (migration 0007).
	if n := countRowsOf(t, db, `SELECT count(*) FROM search_docs WHERE conversation_id = 's'`); n != searchRows-1 {
		t.Errorf("search rows of the conversation: %d, want %d", n, searchRows-1)
	}
	if _, err := db.GetConversation(ctx, "s"); err != nil {
		t.Errorf("conversation: %v", err)
	}

	// The same id can be created afresh, from version 1.
	if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: "s", ID: "doc", ContentType: "markdown", Title: "New",
		Content: "n", Version: 1, UpdateType: UpdateCreate}); err != nil {
		t.Fatalf("recreate: %v", err)
	}
	if got := versionNumbers(t, db, "s", "doc"); len(got) != 1 || got[0] != 1 {
		t.Errorf("recreated versions = %v, want [1]", got)
	}

	for _, tc := range [][2]string{{"s", "nope"}, {"other", "doc"}} {
		if _, err := db.DeleteArtifact(ctx, tc[0], tc[1]); !errors.Is(err, ErrNotFound) {
			t.Errorf("DeleteArtifact(%q, %q) = %v, want ErrNotFound", tc[0], tc[1], err)
		}
	}
}

// TestUploadBySHA256 finds an upload by the hash of its bytes, in its own conversation only.
func TestUploadBySHA256(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "s")
	createConv(t, db, "t")
	for _, w := range []ArtifactWrite{
		{SessionID: "s", ID: "plain", ContentType: "text", Title: "P", Content: "x", Version: 1, UpdateType: UpdateCreate},
		{SessionID: "s", ID: "a.txt", ContentType: "text", Title: "a.txt", Content: "x", Version: 1, UpdateType: UpdateUpload,
			Metadata: json.RawMessage(`{"sha256":"aaaa","blob":"aaaa"}`)},
		{SessionID: "s", ID: "b.txt", ContentType: "text", Title: "b.txt", Content: "x", Version: 1, UpdateType: UpdateUpload,
			Metadata: json.RawMessage(`{"sha256":"bbbb","blob":"bbbb"}`)},
	} {
		if _, err := db.CreateArtifact(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := db.UploadBySHA256(ctx, "s", "bbbb"); err != nil || a.ID != "b.txt" {
		t.Errorf("UploadBySHA256(s, bbbb) = %+v, %v; want b.txt", a, err)
	}
	for _, tc := range [][2]string{{"s", "cccc"}, {"t", "aaaa"}, {"s", ""}} {
		if a, err := db.UploadBySHA256(ctx, tc[0], tc[1]); !errors.Is(err, ErrNotFound) {
			t.Errorf("UploadBySHA256(%q, %q) = %+v, %v; want ErrNotFound", tc[0], tc[1], a, err)
		}
	}
}

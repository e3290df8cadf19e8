package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestArtifactMetadata(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "s")
	meta := json.RawMessage(`{"original_name":"报告 2024.pdf","size":1234,"readable":false}`)
	a, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: "s", ID: "up", ContentType: "binary", Title: "报告 2024.pdf",
		Content: "(binary file)", Version: 1, UpdateType: UpdateUpload, Source: "user_upload", Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Metadata) != string(meta) {
		t.Errorf("CreateArtifact returned metadata %s, want %s", a.Metadata, meta)
	}
	got, err := db.GetArtifact(ctx, "s", "up")
	if err != nil || string(got.Metadata) != string(meta) {
		t.Fatalf("GetArtifact metadata = %s, %v; want %s", got.Metadata, err, meta)
	}

	// An update changes the content and keeps the metadata, even when the write carries other metadata.
	upd, err := db.UpdateArtifactContent(ctx, ArtifactWrite{SessionID: "s", ID: "up", Content: "edited", Version: 2,
		UpdateType: UpdateUserEdit, ExpectedLockVersion: a.LockVersion, Metadata: json.RawMessage(`{"other":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	if string(upd.Metadata) != string(meta) || upd.Content != "edited" {
		t.Errorf("after update: metadata %s, content %q", upd.Metadata, upd.Content)
	}
	list, err := db.ListArtifacts(ctx, "s")
	if err != nil || len(list) != 1 || string(list[0].Metadata) != string(meta) {
		t.Errorf("ListArtifacts = %+v, %v", list, err)
	}

	// No metadata stays NULL; invalid JSON is refused and writes nothing.
	plain, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: "s", ID: "plain", ContentType: "markdown", Title: "P",
		Version: 1, UpdateType: UpdateCreate})
	if err != nil || plain.Metadata != nil {
		t.Fatalf("CreateArtifact without metadata = %+v, %v", plain, err)
	}
	if got, _ := db.GetArtifact(ctx, "s", "plain"); got.Metadata != nil {
		t.Errorf("stored metadata %q, want NULL", got.Metadata)
	}
	_, err = db.CreateArtifact(ctx, ArtifactWrite{SessionID: "s", ID: "bad", ContentType: "markdown", Title: "B",
		Version: 1, UpdateType: UpdateCreate, Metadata: json.RawMessage(`{"unclosed":`)})
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid metadata: err = %v, want ErrInvalid", err)
	}
	if _, err := db.GetArtifact(ctx, "s", "bad"); !errors.Is(err, ErrNotFound) {
		t.Errorf("invalid metadata left a row: %v", err)
	}
}

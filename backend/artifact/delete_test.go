package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"artifactflow/backend/store"
)

// TestDelete: the user deletes artifacts, documents and uploads alike, while a run holds
// them in its cache; one the run is changing is refused, not lost later by a flush.
func TestDelete(t *testing.T) {
	ctx := context.Background()
	db, m, blobs := uploadSetup(t)
	data := []byte("a,b\n1,2\n")
	up, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "t.csv", Data: data}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, "report", "markdown", "Report", "# R"); err != nil {
		t.Fatal(err)
	}
	if failed := m.Flush(ctx); failed != nil {
		t.Fatal(failed)
	}
	if _, err := m.Create(ctx, "draft", "markdown", "Draft", "unsaved"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Read(ctx, "report", 0); err != nil { // cached, clean
		t.Fatal(err)
	}

	// An upload: its blob is named so the caller can remove it once unused.
	d, err := m.Delete(ctx, up.ArtifactID)
	sum := sha256.Sum256(data)
	if err != nil || d.ID != "t.csv" || d.Blob != hex.EncodeToString(sum[:]) || d.Source != SourceUpload {
		t.Fatalf("Delete(upload) = %+v, %v", d, err)
	}
	// A document the run has cached: gone for the run too.
	d, err = m.Delete(ctx, "report")
	if err != nil || d.ID != "report" || d.Blob != "" || d.Content != "# R" || d.Version != 1 {
		t.Fatalf("Delete(report) = %+v, %v", d, err)
	}
	if _, err := m.Read(ctx, "report", 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("the run still reads the deleted report: %v", err)
	}
	if _, err := db.GetArtifact(ctx, "conv", "report"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("report still stored: %v", err)
	}
	// One the run is changing right now: refused, kept.
	if _, err := m.Delete(ctx, "draft"); !errors.Is(err, ErrConflict) {
		t.Errorf("Delete(unsaved draft) = %v, want ErrConflict", err)
	}
	if _, err := m.Delete(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete(unknown) = %v, want ErrNotFound", err)
	}
	items, err := m.List(ctx)
	if err != nil || len(items) != 1 || items[0].ID != "draft" {
		t.Errorf("List after deletes = %+v, %v; want only the run's draft", items, err)
	}
	if failed := m.Flush(ctx); failed != nil {
		t.Fatal(failed)
	}
	if _, err := db.GetArtifact(ctx, "conv", "report"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the flush brought the deleted report back: %v", err)
	}
	// The same file uploaded after its deletion is a new artifact again.
	again, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "t.csv", Data: data}, 0)
	if err != nil || again.Existing || again.ArtifactID != "t.csv" {
		t.Errorf("upload after delete = %+v, %v", again, err)
	}
	// A create with a deleted id starts afresh.
	if s, err := m.Create(ctx, "report", "markdown", "Report 2", "new"); err != nil || s.Version != 1 {
		t.Errorf("create after delete = %+v, %v", s, err)
	}
}

package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/store"
)

// TestBlobLockAcrossHolders: two blobLocks on one lock file stand for two processes on
// one data dir. While one holds it the other's Lock finds it contended and waits until it
// is released; two without a file (the mutex alone, per process) do not see each other.
func TestBlobLockAcrossHolders(t *testing.T) {
	tests := []struct {
		name      string
		file      bool
		wantWaits bool
	}{
		{"lock file shared", true, true},
		{"mutex only", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file {
				path = filepath.Join(t.TempDir(), BlobLockFile)
			}
			a, b := &blobLock{path: path}, &blobLock{path: path}
			contended, locked := make(chan struct{}), make(chan struct{})
			b.contended = func() { close(contended) }
			a.Lock()
			go func() { // owned: it ends once a is unlocked below
				b.Lock()
				close(locked)
			}()
			select {
			case <-contended:
				if !tt.wantWaits {
					t.Error("the second holder waited")
				}
			case <-locked:
				if tt.wantWaits {
					t.Error("the second holder got the lock while the first held it")
				}
			}
			a.Unlock()
			<-locked
			b.Unlock()
		})
	}
}

// TestDeleteKeepsOriginalAnotherProcessReuses: while another process uploads the same
// bytes (it holds the blob lock: it found the original on disk and is about to store the
// artifact that names it), deleting the only conversation that used the original waits
// for it, then sees the new artifact and keeps the original.
func TestDeleteKeepsOriginalAnotherProcessReuses(t *testing.T) {
	w := apptest.EchoWorld(t)
	core := newCore(t, w)
	ctx := context.Background()
	data := []byte("an original both processes upload")
	sum := sha256.Sum256(data)
	blob := hex.EncodeToString(sum[:])
	res, err := (&ArtifactService{core}).Upload("", []UploadFile{{Name: "shared.txt", Data: data}})
	if err != nil || res[0].Error != "" {
		t.Fatalf("upload: %+v, %v", res, err)
	}
	gone := res[0].ConversationID
	blobPath := filepath.Join(core.DataDir(), config.BlobsDir, blob)
	if _, err := os.Stat(blobPath); err != nil {
		t.Fatal(err)
	}

	other, err := store.Open(ctx, filepath.Join(core.DataDir(), config.DBFile)) // the other process
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.CreateConversation(ctx, store.Conversation{ID: "other", Title: "other"}); err != nil {
		t.Fatal(err)
	}
	upload := &blobLock{path: filepath.Join(core.DataDir(), BlobLockFile)}
	upload.Lock()
	contended, deleted := make(chan struct{}), make(chan error, 1)
	core.blobMu.contended = func() { close(contended) }
	go func() { deleted <- (&ConversationService{core}).Delete(gone) }() // owned: waited for below
	select {
	case <-contended:
	case err := <-deleted:
		upload.Unlock()
		t.Fatalf("Delete did not wait for the other process's upload (err %v)", err)
	}
	if _, err := other.CreateArtifact(ctx, store.ArtifactWrite{SessionID: "other", ID: "shared", ContentType: "text/plain",
		Title: "shared.txt", Content: string(data), Version: 1, UpdateType: store.UpdateCreate,
		Metadata: []byte(`{"blob":"` + blob + `"}`)}); err != nil {
		upload.Unlock()
		<-deleted
		t.Fatal(err)
	}
	upload.Unlock()
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blobPath); err != nil {
		t.Fatalf("the original the other process's artifact names is gone: %v", err)
	}
}

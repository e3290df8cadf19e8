package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/store"
)

// TestStartRemovesLeftoversOfKilledUploads: uploads killed mid-way (kill -9) left, on one
// data dir, an empty "Files: …" conversation each (one from a process that died a moment
// ago, its lock file free and its heartbeat fresh; one from a process long gone and
// forgotten), a temporary file in blobs/ and an original no artifact names, both an hour
// old. Meanwhile another live process is in the middle of an upload.
//
//   - A Core starting while that upload holds the blob lock removes both dead processes'
//     conversations but keeps the live upload's own, still empty, conversation, and does
//     not touch blobs/ (the start does not wait for the lock either).
//   - Once the live upload has finished, the next Core to start removes the old temporary
//     file and the unused original; it keeps a temporary file being written now (younger
//     than LeftoverUploadAge), the originals artifacts name, conversations with messages,
//     an empty conversation not made for an upload, and a conversation whose upload had
//     stored its file before that file was deleted again.
func TestStartRemovesLeftoversOfKilledUploads(t *testing.T) {
	w := apptest.EchoWorld(t)
	ctx := context.Background()
	dir := w.DataDir
	blobs := filepath.Join(dir, config.BlobsDir)
	hourAgo := time.Now().Add(-time.Hour)
	write := func(name string, data []byte, mtime time.Time) string {
		t.Helper()
		p := filepath.Join(blobs, name)
		if err := os.MkdirAll(blobs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exists := func(p string) bool {
		_, err := os.Stat(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return err == nil
	}

	// A live process on the data dir, started before the others were killed.
	live := newCore(t, w)
	arts := &ArtifactService{live}

	// The leftovers of the killed processes, as they were on disk when killed.
	db, err := store.Open(ctx, filepath.Join(dir, config.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Heartbeat(ctx, "killed-now", 1); err != nil { // died a moment ago
		t.Fatal(err)
	}
	l, err := holdInstanceLock(dir, "killed-now")
	if err != nil {
		t.Fatal(err)
	}
	l.f.Close() // the process died: the OS dropped its lock, the file stays
	for id, owner := range map[string]string{"killed-1": "killed-now", "killed-2": "gone-long-ago"} {
		if err := db.CreateConversation(ctx, store.Conversation{ID: id, Title: "Files: report.pdf", Metadata: store.PendingUploadMetadata(owner)}); err != nil {
			t.Fatal(err)
		}
	}
	// Kept: a conversation with a message (marked too: its run, not the upload, filled
	// it) and an empty conversation made for a workspace folder.
	if err := db.CreateConversation(ctx, store.Conversation{ID: "asked", Title: "Files: asked.txt", Metadata: store.PendingUploadMetadata("killed-now")}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(ctx, store.Message{ID: "m-asked", ConversationID: "asked", Content: "q", Status: store.StatusComplete}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateConversation(ctx, store.Conversation{ID: "folder", Title: "Folder: notes"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	deadTemp := write(".upload-1234567.tmp", make([]byte, 1<<20), hourAgo)
	orphanData := []byte("an original whose artifact was never stored")
	sum := sha256.Sum256(orphanData)
	orphan := write(hex.EncodeToString(sum[:]), orphanData, hourAgo)

	// The live process: one upload that completed, one whose file was deleted again (its
	// conversation stays, empty, and is the user's), and one in the middle of storing its
	// file.
	done, err := arts.Upload("", []UploadFile{{Name: "kept.txt", Data: []byte("an upload that completed")}})
	if err != nil || done[0].Error != "" {
		t.Fatalf("upload: %+v, %v", done, err)
	}
	emptied, err := arts.Upload("", []UploadFile{{Name: "emptied.txt", Data: []byte("an upload whose file was deleted again")}})
	if err != nil || emptied[0].Error != "" {
		t.Fatalf("upload: %+v, %v", emptied, err)
	}
	if err := arts.DeleteArtifact(emptied[0].ConversationID, emptied[0].ArtifactID); err != nil {
		t.Fatal(err)
	}
	keptBlob := filepath.Join(blobs, func() string { s := sha256.Sum256([]byte("an upload that completed")); return hex.EncodeToString(s[:]) }())
	if err := os.Chtimes(keptBlob, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	other := &blobLock{path: filepath.Join(dir, BlobLockFile)} // what the upload waits for: another upload's turn
	other.Lock()
	atLock := make(chan struct{})
	live.blobMu.contended = func() { close(atLock) }
	type uploaded struct {
		res []UploadResult
		err error
	}
	inFlight := make(chan uploaded, 1)
	go func() { // owned: it ends once other is unlocked below
		res, err := arts.Upload("", []UploadFile{{Name: "in-flight.txt", Data: []byte("an upload in progress")}})
		inFlight <- uploaded{res, err}
	}()
	select {
	case <-atLock: // its conversation is made, its file not yet stored
	case u := <-inFlight:
		other.Unlock()
		t.Fatalf("the upload did not wait for the blob lock: %+v, %v", u.res, u.err)
	}
	freshTemp := write(".upload-7654321.tmp", []byte("being written"), time.Now())

	// A process starts while the upload goes on.
	starting := newCore(t, w)
	convs := func(c *Core) []string {
		t.Helper()
		list, err := c.db.ListConversations(ctx, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range list {
			ids = append(ids, c.ID)
		}
		slices.Sort(ids)
		return ids
	}
	pending := ""
	for _, id := range convs(starting) {
		if !slices.Contains([]string{"asked", "folder", "killed-1", "killed-2", done[0].ConversationID, emptied[0].ConversationID}, id) {
			pending = id
		}
	}
	want := []string{"asked", "folder", done[0].ConversationID, emptied[0].ConversationID, pending}
	slices.Sort(want)
	if got := convs(starting); pending == "" || !slices.Equal(got, want) {
		t.Errorf("after a start during the upload, conversations = %v; want the killed uploads' removed and the live upload's (%q) kept: %v", got, pending, want)
	}
	if !exists(deadTemp) || !exists(orphan) || !exists(freshTemp) {
		t.Errorf("a start while another process held the blob lock removed files from blobs/ (old temp %v, unused original %v, new temp %v)",
			exists(deadTemp), exists(orphan), exists(freshTemp))
	}

	other.Unlock()
	u := <-inFlight
	if u.err != nil || u.res[0].Error != "" || u.res[0].ConversationID != pending {
		t.Fatalf("the upload in progress: %+v, %v; want it stored in %q", u.res, u.err, pending)
	}
	if c, err := live.db.GetConversation(ctx, pending); err != nil || len(c.Metadata) != 0 {
		t.Errorf("the finished upload's conversation: metadata %s, %v; want the upload mark cleared", c.Metadata, err)
	}

	// The next start, with no upload going on.
	later := newCore(t, w)
	if exists(deadTemp) || exists(orphan) {
		t.Errorf("after a start with the blob lock free: old temp file kept %v, unused original kept %v; want both removed", exists(deadTemp), exists(orphan))
	}
	if !exists(freshTemp) || !exists(keptBlob) {
		t.Errorf("after a start: new temp file kept %v, an artifact's original kept %v; want both kept", exists(freshTemp), exists(keptBlob))
	}
	if got := convs(later); !slices.Equal(got, want) {
		t.Errorf("after the second start, conversations = %v, want %v", got, want)
	}
}

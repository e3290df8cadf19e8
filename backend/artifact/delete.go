package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// Deleted is what Delete removed: the artifact's last stored state and, for an upload,
// the file name of its original under the blobs directory (Blob; "" for other artifacts).
// The blob itself is left alone: another artifact, here or in another conversation, may
// hold the same bytes (store.BlobsInUse tells).
type Deleted struct {
	events.ArtifactSnapshot
	Blob string
}

// Delete removes artifact id for good, at the user's request (any artifact, documents,
// uploads and the task plan alike): the artifact, all its stored versions and every
// crash draft of it go, in one transaction (store.DeleteArtifact), and the manager
// forgets it, so a run holding it in its cache sees it gone from then on (a later
// create_artifact with the same id starts afresh at version 1).
//
// Errors: ErrConflict when the running research holds unsaved changes to it (nothing is
// deleted: flushing them would bring it back; wait for the run or stop it); ErrNotFound
// when the session has no stored artifact id (one that exists only in a run's cache is
// unsaved, hence ErrConflict); the context's error and store errors, wrapped.
func (m *Manager) Delete(ctx context.Context, id string) (Deleted, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirty[id] {
		return Deleted{}, fmt.Errorf("%w: the research run is changing %q right now; wait for it to finish or stop it, then delete it", ErrConflict, id)
	}
	a, err := m.st.DeleteArtifact(ctx, m.sessionID, id)
	if errors.Is(err, store.ErrNotFound) {
		return Deleted{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return Deleted{}, fmt.Errorf("artifact: delete %q: %w", id, err)
	}
	delete(m.cache, id)
	delete(m.isNew, id)
	d := Deleted{ArtifactSnapshot: events.ArtifactSnapshot{ID: a.ID, ContentType: a.ContentType, Title: a.Title,
		Content: a.Content, Version: a.CurrentVersion, Source: a.Source}}
	var meta struct {
		Blob string `json:"blob"`
	}
	if len(a.Metadata) > 0 && json.Unmarshal(a.Metadata, &meta) == nil {
		d.Blob = meta.Blob
	}
	return d, nil
}

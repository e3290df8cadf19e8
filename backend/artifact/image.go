package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// ErrNotImageUpload: an artifact named as a question's picture is not a picture the user
// uploaded into that conversation (unknown, written by an agent, or not an image).
var ErrNotImageUpload = errors.New("not an uploaded picture of this conversation")

// ImageRef returns the picture that upload artifact id of conversation sessionID holds, as
// a question records it: its file name, media type and size by its bytes, and the SHA-256
// that names its original under the blobs directory. Errors: ErrNotImageUpload (wrapped,
// naming the id) when the artifact does not exist, is not an upload or not a picture;
// store errors, wrapped.
func ImageRef(ctx context.Context, st *store.DB, sessionID, id string) (events.ImageRef, error) {
	a, err := st.GetArtifact(ctx, sessionID, id)
	if errors.Is(err, store.ErrNotFound) {
		return events.ImageRef{}, fmt.Errorf("%w: %q", ErrNotImageUpload, id)
	}
	if err != nil {
		return events.ImageRef{}, fmt.Errorf("artifact: read picture %q: %w", id, err)
	}
	var meta uploadMetadata
	if a.Source != SourceUpload || a.ContentType != ContentTypeImage || json.Unmarshal(a.Metadata, &meta) != nil || meta.Blob == "" {
		return events.ImageRef{}, fmt.Errorf("%w: %q", ErrNotImageUpload, id)
	}
	return events.ImageRef{ArtifactID: a.ID, Name: a.Title, MIME: meta.MIME, SHA256: meta.Blob, Size: meta.Size,
		Width: meta.Width, Height: meta.Height}, nil
}

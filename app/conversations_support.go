package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/store"
)

// messageOf returns message id, checking that it belongs to conversationID when that is
// set. Errors: ErrMessageNotFound.
func (c *Core) messageOf(conversationID, id string) (store.Message, error) {
	if id == "" {
		return store.Message{}, fmt.Errorf("%w: no message id given", ErrMessageNotFound)
	}
	ctx, cancel := c.ctx()
	defer cancel()
	m, err := c.db.GetMessage(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Message{}, fmt.Errorf("%w: %w", ErrMessageNotFound, err)
	}
	if err != nil {
		return store.Message{}, err
	}
	if conversationID != "" && m.ConversationID != conversationID {
		return store.Message{}, fmt.Errorf("%w: message %q is not in conversation %q", ErrMessageNotFound, id, conversationID)
	}
	return m, nil
}

// placeMessage turns a SendRequest into an engine request, resolving ParentID and EditOf
// to the parent of the new message (see SendRequest).
func (c *Core) placeMessage(req SendRequest) (engine.Request, error) {
	out := engine.Request{ConversationID: req.ConversationID, Content: req.Content, Images: req.Images}
	switch {
	case req.ParentID != "" && req.EditOf != "":
		return engine.Request{}, fmt.Errorf("%w: give parent_id or edit_of, not both", ErrInvalidRequest)
	case req.ParentID != "":
		m, err := c.messageOf(req.ConversationID, req.ParentID)
		if err != nil {
			return engine.Request{}, err
		}
		out.ConversationID, out.ParentID = m.ConversationID, m.ID
	case req.EditOf != "":
		m, err := c.messageOf(req.ConversationID, req.EditOf)
		if err != nil {
			return engine.Request{}, err
		}
		out.ConversationID, out.ParentID, out.Root = m.ConversationID, m.ParentID, m.ParentID == ""
	}
	return out, nil
}

// addBranches fills SiblingIDs and SiblingIndex of the messages of a path from the
// conversation's message tree (one query for the whole tree).
func (c *Core) addBranches(ctx context.Context, conversationID string, msgs []MessageView) error {
	if len(msgs) == 0 {
		return nil
	}
	tree, err := c.db.MessageTree(ctx, conversationID)
	if err != nil {
		return err
	}
	children := map[string][]string{}
	for _, n := range tree {
		children[n.ParentID] = append(children[n.ParentID], n.ID)
	}
	for i := range msgs {
		sib := children[msgs[i].ParentID]
		msgs[i].SiblingIDs, msgs[i].SiblingIndex = []string{msgs[i].ID}, 0
		for j, id := range sib {
			if id == msgs[i].ID {
				msgs[i].SiblingIDs, msgs[i].SiblingIndex = sib, j
				break
			}
		}
	}
	return nil
}

// blobName is the form of an upload's blob file name (SHA-256 hex, artifact.CreateFromUpload).
var blobName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// removeUnusedBlobs deletes, from the data dir's blobs/, those of blobs that no artifact
// records any more (blobs are content addressed and may be shared between conversations).
// Names that are not SHA-256 hex are never touched. Failures are logged, not returned: the
// conversation is already gone and a leftover blob only costs disk space.
//
// The check and the removal hold c.blobMu, which uploads hold while they write or reuse an
// original and store the artifact that names it; it locks the data dir's BlobLockFile too,
// so an upload of the same bytes in another process (the window and `artifactflow ask`)
// cannot reuse an original between the check and its removal either.
func (c *Core) removeUnusedBlobs(ctx context.Context, blobs []string) {
	c.blobMu.Lock() // an upload of the same file, in any process, cannot slip between the check and the removal
	defer c.blobMu.Unlock()
	inUse, err := c.db.BlobsInUse(ctx, blobs)
	if err != nil {
		c.log.Warn("could not check which upload originals are still used; keeping them", "err", err)
		return
	}
	dir := filepath.Join(c.dataDir, config.BlobsDir)
	for _, b := range blobs {
		if inUse[b] || !blobName.MatchString(b) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, b)); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.log.Warn("could not remove the original of a deleted upload", "blob", b, "err", err)
		}
	}
}

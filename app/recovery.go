package app

import (
	"fmt"
	"time"

	"artifactflow/backend/artifact"
)

// DraftView is an artifact's unsaved state that a run left behind when the app stopped
// (killed, crashed, power loss) before the run could save it: the last checkpoint, taken
// after its last completed tool round (issue 4, crash safety). BaseVersion is the stored
// version the run started from (0 = the run created the artifact); CurrentVersion the
// stored version now (0 = none); Size in bytes.
type DraftView struct {
	ArtifactID     string    `json:"artifact_id"`
	MessageID      string    `json:"message_id"`
	Title          string    `json:"title"`
	ContentType    string    `json:"content_type"`
	Content        string    `json:"content"`
	Size           int       `json:"size"`
	BaseVersion    int       `json:"base_version"`
	CurrentVersion int       `json:"current_version"`
	Question       string    `json:"question"`
	SavedAt        time.Time `json:"saved_at"`
}

// Drafts lists the recovered drafts of a conversation, newest first, so the window can
// offer to keep or discard each. Empty when nothing was lost.
func (s *ArtifactService) Drafts(conversationID string) ([]DraftView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	ds, err := s.core.db.RecoverableDrafts(ctx, conversationID)
	if err != nil {
		return nil, err
	}
	out := make([]DraftView, 0, len(ds))
	for _, d := range ds {
		v := DraftView{ArtifactID: d.ArtifactID, MessageID: d.MessageID, Title: d.Title, ContentType: d.ContentType,
			Content: d.Content, Size: len(d.Content), BaseVersion: d.BaseVersion, SavedAt: d.UpdatedAt}
		if a, err := s.core.db.GetArtifact(ctx, conversationID, d.ArtifactID); err == nil {
			v.CurrentVersion = a.CurrentVersion
		}
		if m, err := s.core.db.GetMessage(ctx, d.MessageID); err == nil {
			v.Question = m.Content
		}
		out = append(out, v)
	}
	return out, nil
}

// KeepDraft saves a recovered draft as a new version of its artifact (update_type
// "recover"), or creates the artifact when the interrupted run had created it, and
// removes the draft. Errors: no such draft (artifact.ErrNotFound); a run is changing the
// artifact right now (conflict).
func (s *ArtifactService) KeepDraft(conversationID, artifactID, messageID string) (ArtifactView, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	ds, err := s.core.db.RecoverableDrafts(ctx, conversationID)
	if err != nil {
		return ArtifactView{}, err
	}
	for _, d := range ds {
		if d.ArtifactID == artifactID && d.MessageID == messageID {
			if _, err := s.manager(conversationID).Recover(ctx, d); err != nil {
				return ArtifactView{}, err
			}
			return s.Get(conversationID, artifactID)
		}
	}
	return ArtifactView{}, fmt.Errorf("%w: no recovered draft of %q from that run", artifact.ErrNotFound, artifactID)
}

// DiscardDraft deletes a recovered draft; the stored artifact is left as it is.
func (s *ArtifactService) DiscardDraft(conversationID, artifactID, messageID string) error {
	if messageID == "" {
		return fmt.Errorf("%w: discard draft of %q: which run's draft (message id) is missing", artifact.ErrNotFound, artifactID)
	}
	ctx, cancel := s.core.ctx()
	defer cancel()
	return s.core.db.DeleteDraft(ctx, conversationID, artifactID, messageID)
}

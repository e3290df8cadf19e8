package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"artifactflow/backend/artifact"
	"artifactflow/backend/events"
	"artifactflow/backend/imaging"
	"artifactflow/backend/llm"
)

// MaxImages is how many pictures one question may carry.
const MaxImages = 8

// ErrBadImages: a question's pictures cannot be attached: more than MaxImages, one that is
// not a picture uploaded into the conversation (artifact.ErrNotImageUpload), or pictures
// given for a conversation that does not exist yet (they are uploaded into it first).
var ErrBadImages = errors.New("the question's pictures cannot be attached")

// imageRefs resolves the upload artifact ids of a question's pictures in conversation
// convID, in order, each id once. Errors: ErrBadImages (wrapped, saying why); store errors.
func (e *Engine) imageRefs(ctx context.Context, convID string, ids []string) ([]events.ImageRef, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if convID == "" {
		return nil, fmt.Errorf("%w: upload them into a conversation first", ErrBadImages)
	}
	var refs []events.ImageRef
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if len(refs) == MaxImages {
			return nil, fmt.Errorf("%w: at most %d pictures per question", ErrBadImages, MaxImages)
		}
		ref, err := artifact.ImageRef(ctx, e.cfg.Store, convID, id)
		if errors.Is(err, artifact.ErrNotImageUpload) {
			return nil, fmt.Errorf("%w: %w", ErrBadImages, err)
		}
		if err != nil {
			return nil, err
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// messageMetadata is the messages.metadata of a question with pictures refs (nil: none).
func messageMetadata(refs []events.ImageRef) json.RawMessage {
	if len(refs) == 0 {
		return nil
	}
	return events.MustData(events.MessageMetadata{Images: refs})
}

// questionImages returns the pictures refs as the lead's model is sent them, and the
// warnings the user sees under the question: with vision off (Deps.Vision) none is sent
// and one warning says so; with vision on, each picture is read from its original under
// Config.BlobsDir and fitted into a request (imaging.ForModel: at most 2048 pixels a side
// and 4 MB); one that cannot be read or fitted is left out with a warning naming it and why.
func (e *Engine) questionImages(refs []events.ImageRef, vision bool, model string) ([]llm.Image, []string) {
	if len(refs) == 0 {
		return nil, nil
	}
	if !vision {
		names := make([]string, len(refs))
		for i, r := range refs {
			names[i] = fmt.Sprintf("%q", r.Name)
		}
		return nil, []string{fmt.Sprintf("The model %s is not shown pictures (its vision switch is off in Settings → Model), so %s "+
			"was kept with the question and among the uploads, but not sent to it as a picture; the agents can read only its description.",
			model, strings.Join(names, ", "))}
	}
	var out []llm.Image
	var warnings []string
	for _, r := range refs {
		im, err := e.loadImage(r)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("The picture %q was kept with the question but not sent to the model: %v.", r.Name, err))
			continue
		}
		out = append(out, im)
	}
	return out, warnings
}

// loadImage reads the original of picture r and fits it into a request. Errors: a missing
// blobs directory or original; imaging.ErrTooLarge or imaging.ErrNotImage, wrapped.
func (e *Engine) loadImage(r events.ImageRef) (llm.Image, error) {
	if e.cfg.BlobsDir == "" || !validBlob(r.SHA256) {
		return llm.Image{}, errors.New("its original file is not available")
	}
	data, err := os.ReadFile(filepath.Join(e.cfg.BlobsDir, r.SHA256))
	if err != nil {
		return llm.Image{}, fmt.Errorf("its original file cannot be read: %w", err)
	}
	out, mime, _, err := imaging.ForModel(data)
	if err != nil {
		return llm.Image{}, err
	}
	return llm.Image{MIME: mime, Data: out}, nil
}

// validBlob reports whether name is a SHA-256 in lowercase hex, the only blob names read.
func validBlob(name string) bool {
	if len(name) != 64 {
		return false
	}
	for _, c := range name {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// withImagesNote returns a question's text as the lead reads it: content, then a line
// naming its pictures and the uploads that keep them, so the agents can refer to them
// (read_artifact gives a picture's description). Without pictures it is content itself.
func withImagesNote(content string, refs []events.ImageRef) string {
	if len(refs) == 0 {
		return content
	}
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = fmt.Sprintf("%q (%d×%d, upload artifact %q)", r.Name, r.Width, r.Height, r.ArtifactID)
	}
	return content + "\n\n[Pictures attached by the user: " + strings.Join(parts, ", ") + "]"
}

// question is the user's message as the lead's model is sent it: its text with the line
// naming its pictures, and the pictures themselves when the model sees them.
type question struct {
	text   string
	images []llm.Image
}

// MaxHistoryImages is how many pictures of earlier questions a model request carries again
// at most: the newest ones (the current question's own pictures, up to MaxImages, come on
// top). Older pictures stay named by their question's line, so a long conversation of
// picture questions neither outgrows a provider's limit on pictures per request nor re-reads
// every picture it ever held at each call.
const MaxHistoryImages = MaxImages

// pendingImage marks a placeholder picture in a history being built: its MIME is this
// prefix and the index of the question's pictures in historyPictures.refs.
const pendingImage = "pending-picture:"

// historyPictures collects the pictures of earlier questions while a history is built
// (hold), then loads only the newest MaxHistoryImages of them into it (resolve).
type historyPictures struct {
	e    *Engine
	refs [][]events.ImageRef
}

// hold records refs and returns one placeholder per picture, resolved later.
func (h *historyPictures) hold(refs []events.ImageRef) []llm.Image {
	k := len(h.refs)
	h.refs = append(h.refs, refs)
	out := make([]llm.Image, len(refs))
	for i := range out {
		out[i] = llm.Image{MIME: pendingImage + strconv.Itoa(k)}
	}
	return out
}

// resolve replaces the placeholders of history: newest question first, each question's
// pictures are loaded while the budget of MaxHistoryImages lasts; the older questions
// keep no picture (their line still names each).
func (h *historyPictures) resolve(history []llm.Message) {
	budget := MaxHistoryImages
	for i := len(history) - 1; i >= 0; i-- {
		m := &history[i]
		if len(m.Images) == 0 || !strings.HasPrefix(m.Images[0].MIME, pendingImage) {
			continue
		}
		k, err := strconv.Atoi(strings.TrimPrefix(m.Images[0].MIME, pendingImage))
		if err != nil || k < 0 || k >= len(h.refs) || len(h.refs[k]) > budget {
			m.Images, budget = nil, 0
			continue
		}
		budget -= len(h.refs[k])
		m.Images = h.e.historyImages(h.refs[k])
	}
}

// historyImages returns the pictures of an earlier question to send with it again, as
// questionImages fits them; one that cannot be read or fitted is left out (the question's
// line still names it) and logged.
func (e *Engine) historyImages(refs []events.ImageRef) []llm.Image {
	var out []llm.Image
	for _, r := range refs {
		im, err := e.loadImage(r)
		if err != nil {
			e.cfg.Logger.Warn("a picture of an earlier question is not sent again", "name", r.Name, "err", err)
			continue
		}
		out = append(out, im)
	}
	return out
}

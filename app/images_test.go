package app

import (
	"encoding/base64"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

// imageParts returns the image_url parts of the user messages of req.
func imageParts(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, m := range req.Messages {
		for _, p := range m.MultiContent {
			if m.Role == "user" && p.Type == openai.ChatMessagePartTypeImageURL && p.ImageURL != nil {
				out = append(out, p.ImageURL.URL)
			}
		}
	}
	return out
}

// The vision switch saved in Settings decides whether a question's picture reaches the
// model: "test-model" has no vision by its name, so the picture stays out of the request
// and the question shows a warning; switched on, the request carries it as an image part.
// The question lists its picture either way.
func TestSendPictureFollowsVisionSwitch(t *testing.T) {
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return func(openai.ChatCompletionRequest, int) llmtest.Reply {
			return llmtest.Reply{Content: "A tiny picture."}
		}
	})
	core := newCore(t, w)
	chat, arts, convs, settings := &ChatService{core}, &ArtifactService{core}, &ConversationService{core}, &SettingsService{core}
	up, err := arts.Upload("", []UploadFile{{Name: "shot.png", Data: tinyPNG(t)}})
	if err != nil || up[0].Error != "" {
		t.Fatalf("upload = %+v, %v", up, err)
	}
	conv, pic := up[0].ConversationID, up[0].ArtifactID
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG(t))

	v, err := settings.Get()
	if err != nil || v.Vision || v.VisionByName {
		t.Fatalf("settings of test-model: vision %v by name %v, %v", v.Vision, v.VisionByName, err)
	}
	sent, err := chat.Send(SendRequest{ConversationID: conv, Content: "What does it show?", Images: []string{pic}})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(core, conv)
	reqs := w.Model.Requests()
	if got := imageParts(reqs[len(reqs)-1]); len(got) != 0 {
		t.Errorf("vision off: the request carries %d pictures", len(got))
	}
	d, err := convs.Get(conv)
	if err != nil || len(d.Messages) != 1 || len(d.Messages[0].Images) != 1 || d.Messages[0].Images[0].ArtifactID != pic {
		t.Fatalf("conversation = %+v, %v", d, err)
	}
	evs, err := core.db.ListEvents(t.Context(), store.EventQuery{ConversationID: conv, MessageID: sent.MessageID})
	if err != nil || len(evs) == 0 || !strings.Contains(string(evs[0].Data), "not sent to it as a picture") {
		t.Errorf("the run's metadata event does not warn: %v", err)
	}

	in := inputFromView(v)
	on := true
	in.Vision = &on
	if v, err = settings.Save(in); err != nil || !v.Vision {
		t.Fatalf("save vision on: %v, %v", v.Vision, err)
	}
	if s, err := config.Load(w.DataDir); err != nil || !s.VisionFor("test-model") {
		t.Fatalf("config.json: vision for test-model not stored (%v)", err)
	}
	if _, err := chat.Send(SendRequest{ConversationID: conv, Content: "And now?", Images: []string{pic}}); err != nil {
		t.Fatal(err)
	}
	waitIdle(core, conv)
	reqs = w.Model.Requests()
	if got := imageParts(reqs[len(reqs)-1]); len(got) != 2 || got[0] != dataURL || got[1] != dataURL {
		t.Errorf("vision on: pictures in the request = %d, want the earlier and the new question's", len(got))
	}
	im, err := arts.Image(conv, pic)
	if err != nil || im.MIME != "image/png" || im.Width != 3 || im.Height != 2 || im.Name != "shot.png" {
		t.Errorf("Image = %+v, %v", im, err)
	}
	if _, err := arts.Image(conv, "nope.png"); ToAppError(err).Code != CodeNotFound {
		t.Errorf("Image of an unknown artifact: %v", err)
	}
}

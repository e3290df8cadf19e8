package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"artifactflow/backend/artifact"
	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// imageWorld is an engine over a fresh database and a real model client streaming from an
// in-process OpenAI-compatible server, with the uploads' originals in blobs; vision is the
// lead model's vision switch for the next run.
type imageWorld struct {
	e      *Engine
	db     *store.DB
	srv    *llmtest.Server
	rec    *recorder
	blobs  string
	dbPath string
	vision bool
}

func newImageWorld(t *testing.T) *imageWorld {
	t.Helper()
	w := &imageWorld{blobs: filepath.Join(t.TempDir(), "blobs"), rec: &recorder{}}
	w.srv = llmtest.NewServer(t, func(openai.ChatCompletionRequest, int) llmtest.Reply { return llmtest.Reply{Content: "A red square."} })
	model, err := llm.New(llm.Config{BaseURL: w.srv.URL(), Model: "m", RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w.dbPath = filepath.Join(t.TempDir(), "af.db")
	w.db, err = store.Open(context.Background(), w.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.db.Close() })
	w.e, err = New(Config{Store: w.db, Sink: w.rec.sink, BlobsDir: w.blobs, Deps: func() (Deps, error) {
		return Deps{Model: model, ModelName: "m", Mode: toolcall.ModeNative, Searcher: fakeSearch{}, Vision: w.vision}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.e.Close(context.Background()) })
	return w
}

// upload stores a w×h red PNG named name as an upload of conversation conv and returns its
// artifact id and bytes.
func (w *imageWorld) upload(t *testing.T, conv, name string, width, height int) (string, []byte) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			img.Set(x, y, color.RGBA{200, byte(x), byte(y), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	res, err := artifact.NewManager(w.db, conv, "").CreateFromUpload(context.Background(), w.blobs, artifact.Upload{Name: name, Data: buf.Bytes()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res.ArtifactID, buf.Bytes()
}

// userParts returns the parts of the last user message of a request as "text:…" and
// "image:<data URL>", or its plain content as "plain:…".
func userParts(req openai.ChatCompletionRequest, nth int) []string {
	var users []openai.ChatCompletionMessage
	for _, m := range req.Messages {
		if m.Role == "user" {
			users = append(users, m)
		}
	}
	if nth >= len(users) {
		return nil
	}
	m := users[nth]
	if len(m.MultiContent) == 0 {
		return []string{"plain:" + m.Content}
	}
	var out []string
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeImageURL && p.ImageURL != nil {
			out = append(out, "image:"+p.ImageURL.URL)
		} else {
			out = append(out, "text:"+p.Text)
		}
	}
	return out
}

// A question's picture goes to a model that sees pictures as an image part after the
// question's text, and again with that question in the history of a follow-up; a model
// without vision gets the text alone, naming the picture, and the run warns that the
// picture was not shown. Either way the picture is recorded with the message and in the
// metadata event, and stays there when the database is opened again.
func TestQuestionImagesOnTheWire(t *testing.T) {
	ctx := context.Background()
	w := newImageWorld(t)
	if err := w.db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "pictures"}); err != nil {
		t.Fatal(err)
	}
	id, data := w.upload(t, "c", "square.png", 40, 30)
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	note := `[Pictures attached by the user: "square.png" (40×30, upload artifact "square.png")]`

	w.vision = true
	first, err := w.e.Ask(ctx, Request{ConversationID: "c", Content: "What is in this picture?", Images: []string{id}})
	if err != nil || first.Status != events.Complete {
		t.Fatalf("Ask = %+v, %v", first, err)
	}
	reqs := w.srv.Requests()
	want := []string{"text:What is in this picture?\n\n" + note, "image:" + dataURL}
	if got := userParts(reqs[len(reqs)-1], 0); !reflect.DeepEqual(got, want) {
		t.Errorf("vision model: the question went out as %.300q, want %.300q", got, want)
	}
	// A follow-up sends the earlier question with its picture again.
	if _, err := w.e.Ask(ctx, Request{ConversationID: "c", Content: "And its colour?"}); err != nil {
		t.Fatal(err)
	}
	reqs = w.srv.Requests()
	if got := userParts(reqs[len(reqs)-1], 0); !reflect.DeepEqual(got, want) {
		t.Errorf("follow-up: the earlier question went out as %.300q, want %.300q", got, want)
	}
	if got := userParts(reqs[len(reqs)-1], 1); !reflect.DeepEqual(got, []string{"plain:And its colour?"}) {
		t.Errorf("follow-up question = %q", got)
	}

	w.vision = false
	blind, err := w.e.Ask(ctx, Request{ConversationID: "c", Content: "Describe it.", Images: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	reqs = w.srv.Requests()
	last := reqs[len(reqs)-1]
	for i := 0; i < 3; i++ {
		for _, p := range userParts(last, i) {
			if strings.HasPrefix(p, "image:") || strings.Contains(p, "base64") {
				t.Errorf("model without vision: user message %d carries a picture", i)
			}
		}
	}
	if got := userParts(last, 2); !reflect.DeepEqual(got, []string{"plain:Describe it.\n\n" + note}) {
		t.Errorf("model without vision: the question went out as %q", got)
	}
	meta := metadataOf(t, w.db, blind.ConversationID, blind.MessageID)
	if len(meta.Warnings) != 1 || !strings.Contains(meta.Warnings[0], `"square.png"`) || !strings.Contains(meta.Warnings[0], "not sent") {
		t.Errorf("warnings without vision = %q", meta.Warnings)
	}
	if ws := metadataOf(t, w.db, first.ConversationID, first.MessageID).Warnings; len(ws) != 0 {
		t.Errorf("warnings with vision = %q", ws)
	}

	wantRef := events.ImageRef{ArtifactID: id, Name: "square.png", MIME: "image/png", SHA256: sha(data), Size: len(data), Width: 40, Height: 30}
	if got := meta.Images; !reflect.DeepEqual(got, []events.ImageRef{wantRef}) {
		t.Errorf("metadata event images = %+v", got)
	}
	// Kept with the message, across a reopening of the database.
	_ = w.e.Close(ctx)
	w.db.Close()
	db, err := store.Open(ctx, w.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	msgs, err := db.MessagePath(ctx, "c", blind.MessageID)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("path = %+v, %v", msgs, err)
	}
	for i, wantImages := range [][]events.ImageRef{{wantRef}, nil, {wantRef}} {
		if got := events.ImagesOf(msgs[i].Metadata); !reflect.DeepEqual(got, wantImages) {
			t.Errorf("message %d (%q) images = %+v, want %+v", i, msgs[i].Content, got, wantImages)
		}
	}
}

// A question cannot carry what is not a picture uploaded into its conversation, nor
// pictures for a conversation that does not exist yet; nothing is recorded then.
func TestQuestionImagesRefused(t *testing.T) {
	ctx := context.Background()
	w := newImageWorld(t)
	for _, id := range []string{"c", "d"} {
		if err := w.db.CreateConversation(ctx, store.Conversation{ID: id, Title: id}); err != nil {
			t.Fatal(err)
		}
	}
	pic, _ := w.upload(t, "d", "other.png", 4, 4)
	if _, err := artifact.NewManager(w.db, "c", "").CreateFromUpload(ctx, w.blobs, artifact.Upload{Name: "notes.txt", Data: []byte("text")}, 0); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 0, MaxImages+1)
	for i := 0; i <= MaxImages; i++ {
		id, _ := w.upload(t, "c", "p"+string(rune('a'+i))+".png", 4+i, 4)
		many = append(many, id)
	}
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"unknown artifact", Request{ConversationID: "c", Content: "q", Images: []string{"nope.png"}}},
		{"a text upload", Request{ConversationID: "c", Content: "q", Images: []string{"notes.txt"}}},
		{"another conversation's picture", Request{ConversationID: "c", Content: "q", Images: []string{pic}}},
		{"no conversation yet", Request{Content: "q", Images: []string{pic}}},
		{"too many", Request{ConversationID: "c", Content: "q", Images: many}},
	} {
		_, err := w.e.Start(ctx, tc.req)
		if !errors.Is(err, ErrBadImages) {
			t.Errorf("%s: err = %v, want ErrBadImages", tc.name, err)
		}
	}
	if n := w.srv.Calls(); n != 0 {
		t.Errorf("%d model calls", n)
	}
	if msgs, err := w.db.MessageTree(ctx, "c"); err != nil || len(msgs) != 0 {
		t.Errorf("messages recorded: %+v, %v", msgs, err)
	}
	// The question with no conversation yet made none.
	if convs, err := w.db.ListConversations(ctx, 0, 0); err != nil || len(convs) != 2 {
		t.Errorf("conversations after the refusals = %d (%v), want the two made here", len(convs), err)
	}
}

// sha is the SHA-256 of data in hex.
func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// metadataOf returns the data of run messageID's metadata event.
func metadataOf(t *testing.T, db *store.DB, conv, messageID string) events.DataMetadata {
	t.Helper()
	evs, err := db.ListEvents(context.Background(), store.EventQuery{ConversationID: conv, MessageID: messageID})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == events.Metadata {
			var d events.DataMetadata
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("no metadata event for %s", messageID)
	return events.DataMetadata{}
}

// A conversation of picture questions sends again only the newest earlier pictures, at
// most MaxHistoryImages of them (whole questions, newest first): older questions keep their
// line naming the pictures but carry none, so requests stay within providers' limits.
func TestHistoryPicturesCapped(t *testing.T) {
	ctx := context.Background()
	w := newImageWorld(t)
	if err := w.db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "pictures"}); err != nil {
		t.Fatal(err)
	}
	w.vision = true
	for q := 0; q < 3; q++ {
		var ids []string
		for i := 0; i < 6; i++ {
			id, _ := w.upload(t, "c", fmt.Sprintf("p%d-%d.png", q, i), 10+q, 10+i)
			ids = append(ids, id)
		}
		if _, err := w.e.Ask(ctx, Request{ConversationID: "c", Content: fmt.Sprintf("Question %d", q), Images: ids}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.e.Ask(ctx, Request{ConversationID: "c", Content: "And now?"}); err != nil {
		t.Fatal(err)
	}
	reqs := w.srv.Requests()
	last := reqs[len(reqs)-1]
	var pictures []int
	for i := 0; i < 3; i++ {
		n := 0
		for _, p := range userParts(last, i) {
			if strings.HasPrefix(p, "image:") {
				n++
			}
		}
		pictures = append(pictures, n)
	}
	// Question 2's six fit the budget of eight; question 1's six would not, nor question 0's.
	if want := []int{0, 0, 6}; !reflect.DeepEqual(pictures, want) {
		t.Errorf("pictures sent again per earlier question = %v, want %v (at most %d, newest first)", pictures, want, MaxHistoryImages)
	}
	for i := 0; i < 3; i++ {
		parts := userParts(last, i)
		if len(parts) == 0 || !strings.Contains(parts[0], fmt.Sprintf("p%d-0.png", i)) {
			t.Errorf("earlier question %d lost the line naming its pictures: %.200q", i, parts)
		}
	}
}

package app

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
)

// TestFeedbackFollowsBranches: a rating with a note given through ConversationService is
// shown on its run by Get; after edit-and-resend the new branch's run has none of it, and
// switching back to the first branch shows it again, as it does after switching away and
// back once more; a changed rating replaces it and a cleared one removes it. Every sink
// hears each rating as a feedback event. Bad ratings and unknown messages are refused
// with the page's error codes.
func TestFeedbackFollowsBranches(t *testing.T) {
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(openai.ChatCompletionRequest, int) llmtest.Reply { return llmtest.Reply{Content: "An answer."} }
	})
	core := newCore(t, w)
	var mu sync.Mutex
	var heard []events.DataFeedback
	defer core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type != events.Feedback {
			return
		}
		var d events.DataFeedback
		_ = json.Unmarshal(ev.Data, &d)
		mu.Lock()
		heard = append(heard, d)
		mu.Unlock()
	}))()
	chat, convs := &ChatService{core}, &ConversationService{core}
	first, err := chat.Send(SendRequest{Content: "Which is the largest moon?"})
	if err != nil {
		t.Fatal(err)
	}
	conv := first.ConversationID
	waitIdle(core, conv)

	fb, err := convs.SetFeedback(conv, first.MessageID, "up", "  Short and right. ")
	if err != nil || fb.Rating != "up" || fb.Note != "Short and right." || fb.At.IsZero() {
		t.Fatalf("SetFeedback = %+v, %v", fb, err)
	}
	shown := func(want string) {
		t.Helper()
		d, err := convs.Get(conv)
		if err != nil {
			t.Fatal(err)
		}
		got := "none"
		if f := d.Messages[0].Feedback; f != nil {
			got = f.Rating + ":" + f.Note
		}
		if got != want {
			t.Fatalf("feedback of message %s = %q, want %q", d.Messages[0].ID, got, want)
		}
	}
	shown("up:Short and right.")

	second, err := chat.Send(SendRequest{ConversationID: conv, Content: "Which is the smallest moon?", EditOf: first.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(core, conv)
	shown("none") // the new branch's run is not rated
	for range 2 {
		if _, err := convs.SwitchBranch(conv, first.MessageID); err != nil {
			t.Fatal(err)
		}
		shown("up:Short and right.")
		if _, err := convs.SwitchBranch(conv, second.MessageID); err != nil {
			t.Fatal(err)
		}
		shown("none")
	}
	if _, err := convs.SetFeedback(conv, second.MessageID, "down", ""); err != nil {
		t.Fatal(err)
	}
	shown("down:")
	if fb, err := convs.SetFeedback(conv, second.MessageID, "", ""); err != nil || fb.Rating != "" || !fb.At.IsZero() {
		t.Fatalf("clearing = %+v, %v", fb, err)
	}
	shown("none")
	d, err := convs.SwitchBranch(conv, first.MessageID)
	if err != nil || d.Messages[0].Feedback == nil || d.Messages[0].Feedback.Rating != "up" {
		t.Fatalf("first branch after the second was rated and cleared = %+v, %v", d.Messages, err)
	}

	for _, tc := range []struct {
		name, msg, rating, note, code string
	}{
		{"bad rating", first.MessageID, "love", "", CodeInvalidRequest},
		{"note without rating", first.MessageID, "", "hm", CodeInvalidRequest},
		{"unknown message", "no-such-message", "up", "", CodeNotFound},
	} {
		_, err := convs.SetFeedback(conv, tc.msg, tc.rating, tc.note)
		var ae *AppError
		if !errors.As(ToAppError(err), &ae) || ae.Code != tc.code {
			t.Errorf("%s: %v, want code %s", tc.name, err, tc.code)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 3 || heard[0].Rating != "up" || heard[1].Rating != "down" || heard[2].Rating != "" {
		t.Errorf("sinks heard %+v, want the 3 ratings given", heard)
	}
}

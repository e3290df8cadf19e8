package windowtest

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm/llmtest"
)

// questionGrey is the light theme's background of a question's bubble.
var questionGrey = func(c color.Color) bool { return sameColour(c, 237, 237, 237) }

// jumpArea is where "Jump to latest" floats, centred at the foot of the conversation column;
// the long answer of TestWindowDefects (a list of short items) leaves it blank otherwise.
var jumpArea = image.Rect(470, 680, 665, 762)

// TestWindowDefects checks two fixed defects in the real window.
//
// The phantom question: in a new conversation, Regenerate (by keyboard from the composer),
// then switching to a new research and back, then editing the question and resending it each
// leave exactly one question bubble on screen (the defect showed the original question again
// below the new branch, with a "Starting…" line that never ended).
//
// Jump to latest: after a follow-up whose answer is longer than the window, scrolling up
// with the mouse wheel shows the button at the column's foot, and clicking it brings the
// view back to the end; sending a question while scrolled up scrolls to the new question.
//
// Screenshots: window-defects-*.png.
func TestWindowDefects(t *testing.T) {
	s := newSession(t, 3*time.Minute)
	var long strings.Builder
	long.WriteString("The readings, one a line:\n\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&long, "- %d\n", i)
	}
	w := newWorld(t, func(w *world) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if agentOf(req) != "lead_agent" {
				return llmtest.Reply{Content: "nothing to do"}
			}
			if strings.Contains(lastUser(req), "readings") {
				return llmtest.Reply{Content: long.String()}
			}
			return llmtest.Reply{Content: "The Moon is about 384,400 km away."}
		}
	})
	s.launch(w.args()...)
	s.ask(question)
	db := openDB(t, w.dataDir)
	waitRuns(s.ctx, t, db, 1, 30*time.Second)
	bubbles := func(img image.Image) []image.Rectangle { return blobs(img, column, questionGrey, 1500) }
	// oneQuestion waits for the window to settle, then checks it shows one question, also a
	// second later (a stale pending question came back after the refresh).
	oneQuestion := func(name, after string) image.Rectangle {
		t.Helper()
		img := s.waitSettled(name, column, 10*time.Second, "the conversation", func(image.Image) bool { return true })
		time.Sleep(time.Second)
		again := s.shoot(name)
		for _, shot := range []image.Image{img, again} {
			if b := bubbles(shot); len(b) != 1 {
				t.Fatalf("%s: %d question bubbles %v, want 1 (%s)", after, len(b), b, name)
			}
		}
		return bubbles(again)[0]
	}
	first := oneQuestion("window-defects-asked.png", "after the first answer")

	// Regenerate, from the composer: back over the rating's two thumbs (👎, 👍) to Regenerate.
	s.xdo("key", "shift+Tab", "shift+Tab", "shift+Tab", "Return")
	waitRuns(s.ctx, t, db, 2, 30*time.Second)
	oneQuestion("window-defects-regenerated.png", "after Regenerate")

	s.xdo("key", "ctrl+n")
	s.waitSettled("window-defects-new.png", column, 10*time.Second, "a new research", func(img image.Image) bool { return len(bubbles(img)) == 0 })
	s.xdo("mousemove", "100", "210", "click", "1") // the conversation, first in the sidebar
	first = oneQuestion("window-defects-back.png", "after switching to a new research and back")

	// Edit (the pencil under the bubble's right end) and resend.
	s.xdo("mousemove", fmt.Sprint(first.Max.X-13), fmt.Sprint(first.Max.Y+17), "click", "1")
	time.Sleep(500 * time.Millisecond)
	s.xdo("key", "ctrl+a")
	s.xdo("type", "--delay", "10", question+" In miles, please.")
	s.xdo("key", "Return")
	waitRuns(s.ctx, t, db, 3, 30*time.Second)
	oneQuestion("window-defects-edited.png", "after edit and resend")

	// A follow-up with a long answer; the view follows it to the end.
	s.xdo("mousemove", "540", "801", "click", "1")
	s.xdo("type", "--delay", "10", "List the readings")
	s.xdo("key", "Return")
	waitRuns(s.ctx, t, db, 4, 30*time.Second)
	s.xdo("mousemove", "567", "400")
	bottom := s.waitSettled("window-defects-bottom.png", column, 10*time.Second, "the long answer", func(image.Image) bool { return true })

	s.xdo("click", "--repeat", "6", "--delay", "50", "4") // wheel up
	jump := s.waitSettled("window-defects-jump.png", column, 10*time.Second, "Jump to latest while scrolled up", func(img image.Image) bool {
		return countPixels(img, jumpArea, func(c color.Color) bool { return !white(c) }) > 200
	})
	button := bounds(jump, jumpArea, func(c color.Color) bool { r, g, b, _ := c.RGBA(); return r>>8 < 160 && g>>8 < 160 && b>>8 < 160 })
	s.xdo("mousemove", fmt.Sprint(button.Min.X+button.Dx()/2), fmt.Sprint(button.Min.Y+button.Dy()/2), "click", "1")
	s.xdo("mousemove", "567", "400")
	s.waitSettled("window-defects-jumped.png", column, 10*time.Second, "Jump to latest to bring the view back to the end", func(img image.Image) bool {
		return changedPixels(bottom, img, column) < 200
	})

	// Scrolled to the top, a new question scrolls the view down to it.
	s.xdo("click", "--repeat", "40", "--delay", "20", "4")
	top := s.waitSettled("window-defects-top.png", column, 10*time.Second, "the conversation's top", func(img image.Image) bool {
		b := bubbles(img)
		return len(b) > 0 && b[0].Min.Y < 200 // the first question, under the header
	})
	s.xdo("mousemove", "540", "801", "click", "1")
	s.xdo("type", "--delay", "10", "And in kilometres?")
	s.xdo("key", "Return")
	s.waitSettled("window-defects-follow.png", column, 15*time.Second, "sending while scrolled up to scroll to the new question", func(img image.Image) bool {
		return len(bubbles(img)) > 0 && changedPixels(top, img, image.Rect(column.Min.X, 80, column.Max.X, 200)) > 1000
	})
	waitRuns(s.ctx, t, db, 5, 30*time.Second)
}

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

// everydayAnswer is the scripted answer of TestWindowEveryday: "Moon" three times in
// prose (and once in the question), and a code block.
const everydayAnswer = "The Moon is about 384,400 km away. The Moon's orbit is elliptical.\n\n```python\nprint(384400)\n```\n\nSee the Moon report."

// answerWorld returns a world whose lead answers every question with answer at once.
func answerWorld(t *testing.T, answer string) *world {
	t.Helper()
	return newWorld(t, func(w *world) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if agentOf(req) != "lead_agent" {
				return llmtest.Reply{Content: "nothing to do"}
			}
			return llmtest.Reply{Content: answer}
		}
	})
}

// The conversation column of the default layout (sidebar 252 px, panel from 883 px), below
// its header and above the composer.
var column = image.Rect(260, 75, 880, 760)

// Colours of the light theme the tests look for.
var (
	codeBlock   = func(c color.Color) bool { return sameColour(c, 243, 243, 243) }    // a code block's background
	okGreen     = func(c color.Color) bool { return near(c, 0x24, 0x85, 0x5a, 30) }   // "Copied" (--ok)
	logoBlue    = func(c color.Color) bool { return sameColour(c, 0x3a, 0x5b, 0xc7) } // the sidebar's logo
	findMatch   = func(c color.Color) bool { return near(c, 255, 236, 140, 12) }      // ::highlight(af-find) on white
	findCurrent = func(c color.Color) bool { return near(c, 250, 160, 40, 30) }       // ::highlight(af-find-current)
	anyMatch    = func(c color.Color) bool { return findMatch(c) || findCurrent(c) }
)

// TestWindowEveryday checks the everyday actions in the real window, where WebKitGTK, not
// Chromium, handles the keys and the clipboard:
//   - copy: the answer's Copy button reached from the composer with Shift+Tab and pressed
//     with Enter puts the answer's Markdown on the X clipboard (read with xclip) and turns
//     green ("Copied"); a code block's own Copy button, shown on hover, copies the code only;
//   - find: Ctrl+F and typing "moon" paints the find highlight on exactly the four matches
//     (one current), each the width of the word; Esc removes every highlight;
//   - zoom: Ctrl+= makes the sidebar's logo (a fixed-size icon) larger in pixels, Ctrl+-
//     twice smaller than at first, Ctrl+0 gives back the original size. WebKitGTK has no
//     zoom keys of its own; the page's handler (useZoom) gets them, but the window repaints
//     up to a second later, so each step waits for the pixels.
//
// Screenshots: window-everyday-copied.png, window-everyday-find.png, window-everyday-zoom.png.
func TestWindowEveryday(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	w := answerWorld(t, everydayAnswer)
	s.launch(w.args()...)
	s.ask("How far is the Moon?")
	waitRuns(s.ctx, t, openDB(t, w.dataDir), 1, 30*time.Second)
	time.Sleep(1500 * time.Millisecond) // the answer renders
	before := s.shoot("window-everyday-answer.png")
	if n := countPixels(before, column, okGreen); n > 0 {
		t.Fatalf("%d pixels of the conversation are already Copied-green (window-everyday-answer.png)", n)
	}

	// Copy answer, by keyboard: the composer has the focus after sending; Shift+Tab goes
	// back over the rating's two thumbs and Regenerate to Copy.
	s.xdo("key", "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab", "Return")
	waitFor(s.ctx, t, 5*time.Second, "the answer on the clipboard", func() bool {
		return s.clipboard() == strings.TrimSpace(everydayAnswer)
	})
	s.waitShot("window-everyday-copied.png", 5*time.Second, "the Copy button to turn green (Copied)", func(img image.Image) bool {
		return countPixels(img, column, okGreen) >= 30
	})

	// A code block's Copy button: top right of the block, shown on hover.
	blocks := blobs(before, column, codeBlock, 5000)
	if len(blocks) != 1 {
		t.Fatalf("want one code block in the conversation, found grey areas %v (window-everyday-answer.png)", blocks)
	}
	pre := blocks[0]
	s.xdo("mousemove", fmt.Sprint(pre.Min.X+200), fmt.Sprint(pre.Min.Y+pre.Dy()/2))
	time.Sleep(300 * time.Millisecond)
	s.xdo("mousemove", fmt.Sprint(pre.Max.X-25), fmt.Sprint(pre.Min.Y+16), "click", "1")
	waitFor(s.ctx, t, 5*time.Second, "the code alone on the clipboard", func() bool {
		return s.clipboard() == "print(384400)\n"
	})
	s.xdo("mousemove", "600", "600")

	// Find.
	if n := countPixels(before, column, anyMatch); n > 0 {
		t.Fatalf("%d find-highlight pixels before any find (window-everyday-answer.png)", n)
	}
	s.xdo("key", "ctrl+f")
	s.xdo("type", "--delay", "50", "moon")
	var why string
	_, ok := s.pollShot("window-everyday-find.png", 5*time.Second, func(img image.Image) bool {
		spans, current := blobs(img, column, anyMatch, 40), blobs(img, column, findCurrent, 40)
		if len(spans) != 4 || len(current) != 1 {
			why = fmt.Sprintf("%d highlighted spans %v, %d current", len(spans), spans, len(current))
			return false
		}
		for _, b := range spans {
			// One "Moon" is about 40 px wide; a highlight of part of the word is stale.
			if b.Dx() < 36 || b.Dx() > 48 {
				why = fmt.Sprintf("the highlighted span %v is %d px wide, not one \"Moon\" (about 40 px)", b, b.Dx())
				return false
			}
		}
		return true
	})
	if !ok {
		t.Errorf("Ctrl+F, typing \"moon\": want the four matches highlighted whole, one as current; after 5 s %s (window-everyday-find.png)", why)
	}
	s.xdo("key", "Escape")
	s.waitShot("window-everyday-find-closed.png", 5*time.Second, "Esc to remove every find highlight", func(img image.Image) bool {
		return countPixels(img, column, anyMatch) == 0
	})

	// Zoom: the logo's height in pixels, waited for at each step.
	logoHeight := func(img image.Image) int {
		return bounds(img, image.Rect(0, 20, 80, 100), logoBlue).Dy()
	}
	base := logoHeight(before)
	if base < 20 {
		t.Fatalf("no logo at the sidebar's top left (window-everyday-answer.png)")
	}
	s.xdo("key", "ctrl+equal")
	s.waitShot("window-everyday-zoom.png", 5*time.Second, "Ctrl+= to make the logo larger", func(img image.Image) bool {
		return logoHeight(img) > base
	})
	s.xdo("key", "ctrl+minus")
	s.xdo("key", "ctrl+minus")
	s.waitShot("window-everyday-zoom-out.png", 5*time.Second, "Ctrl+- twice to make the logo smaller than at first", func(img image.Image) bool {
		return logoHeight(img) < base
	})
	s.xdo("key", "ctrl+0")
	s.waitShot("window-everyday-zoom-reset.png", 5*time.Second, "Ctrl+0 to give the logo its first size", func(img image.Image) bool {
		return logoHeight(img) == base
	})
}

package windowtest

import (
	"fmt"
	"image"
	"image/color"
	"net/http"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm/llmtest"
)

// waitPage waits up to 30 s for the page to show the sidebar's logo: on a busy machine the
// page loads well after the window maps, and keys typed before that are lost.
func waitPage(s *session) {
	s.t.Helper()
	s.waitShot("window-find-start.png", 30*time.Second, "the page to load", func(img image.Image) bool {
		return countPixels(img, logoArea, logoBlue) > 0
	})
	time.Sleep(500 * time.Millisecond) // its scripts settle
}

// The answer of TestWindowEveryday's world below the question: its three "Moon"s, the code
// block and the run's figures ("156 ms", "test-model"), where highlights of the partial
// queries "m" and "mo" would be left behind.
var answerArea = image.Rect(260, 180, 880, 760)

// spansOf describes the find highlights in r: how many spans are highlighted (current
// included), how many are the current match, and the first span not as wide as one
// "Moon" (about 40 px: a highlight of part of a word is stale), if any.
func spansOf(img image.Image, r image.Rectangle) (spans, current []image.Rectangle, odd string) {
	spans, current = blobs(img, r, anyMatch, 40), blobs(img, r, findCurrent, 40)
	for _, b := range spans {
		if b.Dx() < 36 || b.Dx() > 48 {
			odd = fmt.Sprintf("the span %v is %d px wide", b, b.Dx())
		}
	}
	return spans, current, odd
}

// TestWindowFindRepaint checks that find's highlights follow the query in the real window.
// WebKitGTK repaints the text of a range only when it is taken out of a registered
// highlight, not when the highlight is replaced or deleted (Chromium repaints both), so
// the page updates its highlights in place:
//   - typing "moon" one letter at a time leaves no highlight of "m" or "mo" (in "156 ms"
//     and "test-model" of the run's figures): exactly the answer's three "Moon"s;
//   - Enter three times moves the current match: one current span, on the answer's last "Moon";
//   - "moonx" (no match) and a query emptied with Ctrl+A and BackSpace leave no highlight;
//   - Esc leaves none.
//
// Screenshots: window-find-typed.png, window-find-next.png, window-find-none.png,
// window-find-empty.png.
func TestWindowFindRepaint(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	w := answerWorld(t, everydayAnswer)
	s.launch(w.args()...)
	waitPage(s)
	s.ask("How far is the Moon?")
	waitRuns(s.ctx, t, openDB(t, w.dataDir), 1, 30*time.Second)
	time.Sleep(1500 * time.Millisecond) // the answer renders
	if n := countPixels(s.shoot("window-find-answer.png"), answerArea, anyMatch); n > 0 {
		t.Fatalf("%d find-highlight pixels before any find (window-find-answer.png)", n)
	}

	s.xdo("key", "ctrl+f")
	s.xdo("type", "--delay", "80", "moon")
	var why string
	wholeMoons := func(wantCurrentX int) func(image.Image) bool {
		return func(img image.Image) bool {
			spans, current, odd := spansOf(img, answerArea)
			switch {
			case len(spans) != 3:
				why = fmt.Sprintf("%d highlighted spans %v", len(spans), spans)
			case odd != "":
				why = odd
			case wantCurrentX > 0 && (len(current) != 1 || current[0].Min.X < wantCurrentX-30 || current[0].Min.X > wantCurrentX+30):
				why = fmt.Sprintf("current spans %v, want one near x=%d", current, wantCurrentX)
			default:
				return true
			}
			return false
		}
	}
	if _, ok := s.pollShot("window-find-typed.png", 5*time.Second, wholeMoons(0)); !ok {
		t.Fatalf("typing \"moon\": want the answer's three \"Moon\"s highlighted whole and nothing else; after 5 s %s (window-find-typed.png)", why)
	}
	first, _, _ := spansOf(s.shoot("window-find-typed.png"), answerArea)
	third := first[0].Min.X // the answer's "See the Moon report": spans are listed top to bottom
	for _, b := range first {
		if b.Min.Y > first[0].Min.Y+20 {
			third = b.Min.X
		}
	}
	s.xdo("key", "Return", "Return", "Return") // the question's "Moon" is the first match
	if _, ok := s.pollShot("window-find-next.png", 5*time.Second, wholeMoons(third)); !ok {
		t.Errorf("Enter three times: want the current match on the answer's last \"Moon\" alone; after 5 s %s (window-find-next.png)", why)
	}

	noHighlight := func(img image.Image) bool {
		n := countPixels(img, answerArea, anyMatch)
		why = fmt.Sprintf("%d highlighted pixels, spans %v", n, blobs(img, answerArea, anyMatch, 40))
		return n == 0
	}
	s.xdo("type", "x")
	if _, ok := s.pollShot("window-find-none.png", 5*time.Second, noHighlight); !ok {
		t.Errorf("\"moonx\" matches nothing: want no highlight left; after 5 s %s (window-find-none.png)", why)
	}
	s.xdo("key", "BackSpace")
	if _, ok := s.pollShot("window-find-again.png", 5*time.Second, wholeMoons(0)); !ok {
		t.Errorf("back to \"moon\": after 5 s %s (window-find-again.png)", why)
	}
	s.xdo("key", "ctrl+a", "BackSpace")
	if _, ok := s.pollShot("window-find-empty.png", 5*time.Second, noHighlight); !ok {
		t.Errorf("an emptied query: want no highlight left; after 5 s %s (window-find-empty.png)", why)
	}
	s.xdo("type", "moon")
	s.waitShot("window-find-again.png", 5*time.Second, "the three Moons again", wholeMoons(0))
	s.xdo("key", "Escape")
	if _, ok := s.pollShot("window-find-closed.png", 5*time.Second, noHighlight); !ok {
		t.Errorf("Esc: want no highlight left; after 5 s %s (window-find-closed.png)", why)
	}
}

// readerReport is the report of TestWindowFindInReader: "perilune" twice, and nowhere in
// the conversation, in two paragraphs (highlights on adjacent lines would touch).
const readerReport = "# Lunar survey\n\nAt perilune the orbiter dips to 15 km above the Moon.\n\nIts passes repeat every two hours; each Perilune lasts minutes."

// The panel's artifact view in the default layout (below its toolbar), and the Reader
// button of that toolbar.
var (
	previewArea  = image.Rect(895, 450, 1270, 870)
	readerButton = image.Point{X: 1168, Y: 431}
	logoArea     = image.Rect(0, 20, 80, 100)
)

// TestWindowFindInReader checks find in a report in the real window: with the Reader open,
// Ctrl+F opens a find bar inside it and typing "perilune" highlights the report's two
// matches; Esc closes the bar and leaves the Reader open, a second Esc closes the Reader.
// With the focus in the panel's artifact view (a click on it), Ctrl+F searches the report
// there, not the conversation.
//
// Screenshots: window-find-reader.png, window-find-view.png.
func TestWindowFindInReader(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	w := newWorld(t, func(w *world) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if agentOf(req) != "lead_agent" {
				return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "unknown agent"}
			}
			if len(toolResults(req)) == 0 {
				return w.toolCall("create_artifact", map[string]any{"id": "lunar_report", "content_type": "markdown", "title": "Lunar survey", "content": readerReport})
			}
			return llmtest.Reply{Content: "See the lunar report."}
		}
	})
	s.launch(w.args()...)
	waitPage(s)
	s.ask("How low does the orbiter go?")
	waitRuns(s.ctx, t, openDB(t, w.dataDir), 1, 30*time.Second)
	logo := func(img image.Image) int { return countPixels(img, logoArea, logoBlue) }
	s.waitShot("window-find-report.png", 10*time.Second, "the report in the panel", func(img image.Image) bool {
		return countPixels(img, previewArea, func(c color.Color) bool { return near(c, 0x1f, 0x1f, 0x1f, 60) }) > 500 && logo(img) > 0
	})

	// The Reader.
	s.xdo("mousemove", fmt.Sprint(readerButton.X), fmt.Sprint(readerButton.Y), "click", "1")
	s.waitShot("window-find-reader-open.png", 5*time.Second, "the Reader to cover the window", func(img image.Image) bool { return logo(img) == 0 })
	s.xdo("key", "ctrl+f")
	s.xdo("type", "--delay", "50", "perilune")
	whole := image.Rect(0, 20, screenW, screenH)
	var why string
	twoMatches := func(r image.Rectangle) func(image.Image) bool {
		return func(img image.Image) bool {
			spans, current := blobs(img, r, anyMatch, 40), blobs(img, r, findCurrent, 40)
			why = fmt.Sprintf("%d highlighted spans %v, %d current", len(spans), spans, len(current))
			return len(spans) == 2 && len(current) == 1
		}
	}
	if _, ok := s.pollShot("window-find-reader.png", 5*time.Second, twoMatches(whole)); !ok {
		t.Fatalf("Ctrl+F in the Reader, typing \"perilune\": want its two matches highlighted, one current; after 5 s %s (window-find-reader.png)", why)
	}
	s.xdo("key", "Escape")
	s.waitShot("window-find-reader-closed.png", 5*time.Second, "Esc to remove the highlights and keep the Reader", func(img image.Image) bool {
		return countPixels(img, whole, anyMatch) == 0 && logo(img) == 0
	})
	s.xdo("key", "Escape")
	s.waitShot("window-find-reader-gone.png", 5*time.Second, "a second Esc to close the Reader", func(img image.Image) bool { return logo(img) > 0 })

	// The artifact view in the panel.
	s.xdo("mousemove", "1080", "700", "click", "1")
	s.xdo("key", "ctrl+f")
	s.xdo("type", "--delay", "50", "perilune")
	if _, ok := s.pollShot("window-find-view.png", 5*time.Second, twoMatches(previewArea)); !ok {
		t.Fatalf("Ctrl+F in the artifact view, typing \"perilune\": want the report's two matches highlighted; after 5 s %s (window-find-view.png)", why)
	}
	s.xdo("key", "Escape")
	s.waitShot("window-find-view-closed.png", 5*time.Second, "Esc to remove the highlights", func(img image.Image) bool {
		return countPixels(img, whole, anyMatch) == 0
	})
}

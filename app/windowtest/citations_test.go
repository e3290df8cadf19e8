package windowtest

import (
	"fmt"
	"image"
	"strings"
	"testing"
	"time"
)

// TestWindowCitations drives a cited research in the real desktop window under Xvfb: the
// scripted lead (world.citingResearch) sends the search agent to a local SearXNG and the
// crawl agent to a local page, and answers citing [1] and [2]. The test finds chip [1] in
// the window's pixels (the first accent-coloured pixel of the conversation column under its
// header), moves the mouse over it and checks that the hover card appeared (the pixels
// under the chip changed, the chip filled), then clicks it: the system browser is asked to
// open the page. It also checks the window's title and, in the database, the two sources
// and the stored answer's footer. The screenshot with the card is window-citations.png
// (docs/window-citations.png comes from here).
func TestWindowCitations(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	w := newWorld(t, (*world).citingResearch)
	s.launch(w.args("--allow-private-network")...)
	s.ask(question)

	db := openDB(t, w.dataDir)
	waitRuns(s.ctx, t, db, 1, 60*time.Second)
	var response string
	if err := db.QueryRowContext(s.ctx, `SELECT graph_response FROM messages`).Scan(&response); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(response, "[1]") || !strings.Contains(response, "\n---\n**Sources**\n- [1] [Moon facts](<"+w.pageURL+">)") {
		t.Fatalf("stored answer has no footer listing [1]:\n%s", response)
	}
	var fetched, listed int
	if err := db.QueryRowContext(s.ctx, `SELECT count(*) FILTER (WHERE fetched = 1), count(*) FILTER (WHERE fetched = 0) FROM sources`).Scan(&fetched, &listed); err != nil {
		t.Fatal(err)
	}
	if fetched != 1 || listed != 1 {
		t.Fatalf("sources: %d fetched, %d listed; want 1 and 1", fetched, listed)
	}
	time.Sleep(1500 * time.Millisecond) // the answer and its chips render

	before := s.shoot("window-citations-before.png")
	chip, ok := firstAccentPixel(before, image.Rect(252, 60, 883, 800))
	if !ok {
		t.Fatal("no citation chip found in the conversation column (window-citations-before.png)")
	}
	// The digit's first pixel is near the chip's top; its middle is a few pixels lower.
	x, y := chip.X+2, chip.Y+4
	s.xdo("mousemove", fmt.Sprint(x), fmt.Sprint(y))
	// The card opens under the chip (or above it near the bottom): many pixels there change.
	card := image.Rect(x-40, y+10, x+360, y+150).Intersect(before.Bounds())
	if y > 600 {
		card = image.Rect(x-40, y-150, x+360, y-10).Intersect(before.Bounds())
	}
	after, _ := s.pollShot("window-citations.png", 5*time.Second, func(img image.Image) bool {
		return changedPixels(before, img, card) >= 3000
	})
	if n := changedPixels(before, after, card); n < 3000 {
		t.Fatalf("hovering chip [1] at (%d, %d) changed %d pixels where the card should be: no hover card", x, y, n)
	}
	// The hovered chip fills with the accent colour.
	if n := changedPixels(before, after, image.Rect(chip.X-8, chip.Y-4, chip.X+10, chip.Y+14)); n < 40 {
		t.Errorf("chip [1] did not change on hover (%d pixels)", n)
	}

	s.xdo("click", "1")
	s.waitOpened(w.pageURL)
	if got := strings.TrimSpace(s.run("xdotool", "search", "--onlyvisible", "--name", "^ArtifactFlow$", "getwindowname")); got != "ArtifactFlow" {
		t.Errorf("window title %q", got)
	}
}

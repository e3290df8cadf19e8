package windowtest

import (
	"image"
	"testing"
	"time"
)

// TestWindowLayout drives the layout controls in the real desktop window under Xvfb, after
// the scripted research: Ctrl+B and Ctrl+J hide the sidebar and the panel (the conversation
// then fills the window: window-layout-collapsed.png), the same keys show them again, and
// dragging the panel's splitter with the mouse from 883 px to 560 px widens the panel as
// far as the chat column's 380 px minimum allows, to 648 px (window-layout-wide.png). The
// window is then closed and started again: the wide panel and the conversation are back
// (the last one open reopens). Column edges are read from the pixels: the sidebar's
// background colour and the panel's left border on a row of the screenshot. The session's
// own XDG_DATA_HOME holds WebKit's storage, so the test starts from the default layout and
// leaves none behind.
func TestWindowLayout(t *testing.T) {
	s := newSession(t, 3*time.Minute)
	w := newWorld(t, nil)
	s.launch(w.args("--allow-private-network")...)
	s.ask(question)
	db := openDB(t, w.dataDir)
	waitRuns(s.ctx, t, db, 1, 60*time.Second)
	s.xdo("mousemove", "640", "600")
	time.Sleep(1500 * time.Millisecond)

	const row = 600 // a row of the window below the answer and above the composer
	before := s.shoot("window-layout-default.png")
	if !sidebarShown(before, row) {
		t.Fatal("the sidebar's colour is not at the window's left edge (window-layout-default.png)")
	}
	if x := panelEdge(before, row); x < 880 || x > 885 {
		t.Fatalf("the panel starts at x=%d, want 883 (1280 - 397; window-layout-default.png)", x)
	}

	s.xdo("key", "ctrl+b")
	s.xdo("key", "ctrl+j")
	collapsed, _ := s.pollShot("window-layout-collapsed.png", 5*time.Second, func(img image.Image) bool {
		return !sidebarShown(img, row) && panelEdge(img, row) == -1
	})
	if sidebarShown(collapsed, row) {
		t.Error("Ctrl+B: the sidebar is still shown (window-layout-collapsed.png)")
	}
	if x := panelEdge(collapsed, row); x != -1 {
		t.Errorf("Ctrl+J: a panel edge is still at x=%d (window-layout-collapsed.png)", x)
	}

	s.xdo("key", "ctrl+b")
	s.xdo("key", "ctrl+j")
	time.Sleep(800 * time.Millisecond)
	// Drag the panel's splitter (centred on its left edge) to the left.
	s.xdo("mousemove", "883", "450", "mousedown", "1")
	for _, x := range []string{"850", "760", "660", "560"} {
		s.xdo("mousemove", x, "450")
		time.Sleep(60 * time.Millisecond)
	}
	s.xdo("mouseup", "1")
	s.xdo("mousemove", "400", "600")
	wide, _ := s.pollShot("window-layout-wide.png", 5*time.Second, func(img image.Image) bool {
		x := panelEdge(img, row)
		return sidebarShown(img, row) && x >= 630 && x <= 634
	})
	if !sidebarShown(wide, row) {
		t.Error("Ctrl+B again: the sidebar did not come back (window-layout-wide.png)")
	}
	if x := panelEdge(wide, row); x < 630 || x > 634 {
		t.Fatalf("after the drag the panel starts at x=%d, want 632 (1280 - 648; window-layout-wide.png)", x)
	}

	// Closed and started again: the wide panel and the conversation come back.
	time.Sleep(1500 * time.Millisecond) // WebKit writes local storage on a timer
	s.quit()
	s.launch(w.args("--allow-private-network")...)
	s.xdo("mousemove", "400", "600")
	again, _ := s.pollShot("window-layout-restarted.png", 5*time.Second, func(img image.Image) bool {
		x := panelEdge(img, row)
		return x >= 630 && x <= 634 && changedPixels(wide, img, image.Rect(260, 60, 620, 560)) <= 400
	})
	if x := panelEdge(again, row); x < 630 || x > 634 {
		t.Errorf("after a restart the panel starts at x=%d, want 632 (window-layout-restarted.png)", x)
	}
	// The conversation column shows the same conversation (the empty state would differ).
	if n := changedPixels(wide, again, image.Rect(260, 60, 620, 560)); n > 400 {
		t.Errorf("after a restart %d pixels of the conversation differ: the last conversation did not reopen (window-layout-restarted.png)", n)
	}
}

// sidebarShown reports whether the sidebar's light-theme background (#f0f0ed) fills the
// start of row y.
func sidebarShown(img image.Image, y int) bool {
	for x := 2; x < 40; x++ {
		if !sameColour(img.At(x, y), 0xf0, 0xf0, 0xed) {
			return false
		}
	}
	return true
}

// panelEdge returns the x of the panel's left border (#e3e3de) on row y, the first such
// pixel right of the sidebar, or -1 when the row has none.
func panelEdge(img image.Image, y int) int {
	for x := 300; x < img.Bounds().Max.X-2; x++ {
		if sameColour(img.At(x, y), 0xe3, 0xe3, 0xde) {
			return x
		}
	}
	return -1
}

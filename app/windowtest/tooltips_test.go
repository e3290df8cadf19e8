package windowtest

import (
	"fmt"
	"image"
	"image/color"
	"testing"
	"time"
)

// The Settings button at the bottom of the sidebar, and the area around it where a tooltip
// of that button shows.
var (
	settingsButton  = image.Point{X: 60, Y: 853}
	settingsTipArea = image.Rect(0, 760, 400, 880)
	wholeWindow     = image.Rect(0, 20, screenW, 880)
)

var (
	appTooltip = func(c color.Color) bool { return sameColour(c, 0x2b, 0x2f, 0x36) } // .af-tooltip's background
	// GTK's own tooltip (the engine's, for a title attribute) is a black box.
	gtkTooltip = func(c color.Color) bool { return near(c, 0, 0, 0, 6) }
)

// tooltipBoxes returns the boxes of at least 400 pixels of the colour match accepts in r:
// a tooltip, not the dots of text.
func tooltipBoxes(img image.Image, r image.Rectangle, match func(color.Color) bool) []image.Rectangle {
	return blobs(img, r, match, 400)
}

// TestWindowTooltips checks tooltips in the real window, where WebKitGTK shows the tooltip
// of the element last under the pointer half a second after the pointer moved there, also
// when a click in the meantime opened a dialog: it stayed over the dialog. The page draws
// its tooltips itself (tooltips.ts), so:
//   - moving onto Settings and clicking at once opens the dialog with no tooltip over it,
//     neither GTK's nor the app's, two seconds later;
//   - resting on the Settings button shows the app's tooltip, not GTK's black one.
//
// Screenshots: window-tooltip-hover.png, window-tooltip-dialog.png.
func TestWindowTooltips(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	w := answerWorld(t, everydayAnswer)
	s.launch(w.args()...)
	waitPage(s)

	s.xdo("mousemove", fmt.Sprint(settingsButton.X), fmt.Sprint(settingsButton.Y), "click", "1")
	time.Sleep(2 * time.Second) // GTK shows a pending tooltip after half a second
	img := s.shoot("window-tooltip-dialog.png")
	if boxes := tooltipBoxes(img, wholeWindow, gtkTooltip); len(boxes) > 0 {
		t.Errorf("a click on Settings opened the dialog with GTK's tooltip %v over it (window-tooltip-dialog.png)", boxes)
	}
	if boxes := tooltipBoxes(img, wholeWindow, appTooltip); len(boxes) > 0 {
		t.Errorf("a click on Settings opened the dialog with the app's tooltip %v over it (window-tooltip-dialog.png)", boxes)
	}
	s.xdo("key", "Escape")
	s.xdo("mousemove", "640", "600")
	time.Sleep(700 * time.Millisecond)

	s.xdo("mousemove", fmt.Sprint(settingsButton.X), fmt.Sprint(settingsButton.Y))
	img = s.waitShot("window-tooltip-hover.png", 5*time.Second, "the app's tooltip on the Settings button", func(img image.Image) bool {
		return len(tooltipBoxes(img, settingsTipArea, appTooltip)) == 1
	})
	if boxes := tooltipBoxes(img, wholeWindow, gtkTooltip); len(boxes) > 0 {
		t.Errorf("GTK's own tooltip %v shows beside the app's (window-tooltip-hover.png)", boxes)
	}
}

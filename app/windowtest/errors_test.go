package windowtest

import (
	"fmt"
	"image"
	"image/color"
	"net"
	"testing"
	"time"
)

// deadEndpoint returns an OpenAI-style base URL on loopback where nothing listens: every
// connection is refused.
func deadEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	return url
}

// Colours of the light theme's error box (--err-soft, --err) and of an outlined button's face.
var (
	errSoft     = func(c color.Color) bool { return sameColour(c, 0xfd, 0xf1, 0xf0) }
	errRed      = func(c color.Color) bool { return near(c, 0xc2, 0x3a, 0x32, 30) }
	accent      = func(c color.Color) bool { return sameColour(c, 0x3a, 0x5b, 0xc7) }
	white       = func(c color.Color) bool { return sameColour(c, 255, 255, 255) }
	sidebarList = image.Rect(0, 150, 250, 400) // the sidebar's conversation list
)

// TestWindowErrors checks a typed error in the real window: the model's endpoint refuses
// connections, so the run fails with model_unreachable (the database has the message in
// status error). The conversation shows the error box (its soft red area with the red title)
// holding a filled "Open settings" button and an outlined "Retry" beside it; the sidebar's
// row gets the red Failed badge. A click on Open settings opens the Settings dialog (a large
// part of the window changes; Escape closes it and the error box is back); a click on Retry
// runs the question again (a second failed attempt in the database). Screenshots:
// window-errors.png, window-errors-settings.png.
func TestWindowErrors(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	dataDir := t.TempDir()
	s.launch("--data-dir", dataDir, "--base-url", deadEndpoint(t), "--model", "test-model", "--api-key", "sk-test")
	s.ask(question)
	db := openDB(t, dataDir)
	failed := func(n int) func() bool {
		return func() bool {
			var got int
			return db.QueryRowContext(s.ctx, `SELECT count(*) FROM messages WHERE status = 'error'`).Scan(&got) == nil && got == n
		}
	}
	waitFor(s.ctx, t, 40*time.Second, "the run to fail", failed(1))

	var box, open image.Rectangle
	var why string
	defer func() {
		if t.Failed() && why != "" {
			t.Log("last check:", why)
		}
	}()
	shot := s.waitShot("window-errors.png", 10*time.Second, "the error box with Open settings and Retry, and the Failed badge", func(img image.Image) bool {
		areas := blobs(img, column, errSoft, 5000)
		if len(areas) != 1 {
			why = fmt.Sprintf("error-box areas %v", areas)
			return false
		}
		box = areas[0]
		if countPixels(img, box, errRed) < 100 {
			why = "no red title in the error box"
			return false
		}
		buttons := blobs(img, box, accent, 800)
		if len(buttons) != 1 {
			why = fmt.Sprintf("filled buttons in the error box: %v", buttons)
			return false
		}
		open = buttons[0]
		// Retry: an outlined (white) button on the same row, right of Open settings.
		row := image.Rect(open.Max.X, open.Min.Y, box.Max.X, open.Max.Y)
		if faces := blobs(img, row, white, 400); len(faces) != 1 {
			why = fmt.Sprintf("outlined buttons beside Open settings: %v", faces)
			return false
		}
		if n := countPixels(img, sidebarList, errRed); n < 20 {
			why = fmt.Sprintf("%d red pixels in the sidebar: no Failed badge", n)
			return false
		}
		return true
	})

	// Open settings: the Settings dialog covers the middle of the window, the error box
	// included, with its filled Save button at the bottom.
	center := func(r image.Rectangle) (string, string) {
		return fmt.Sprint(r.Min.X + r.Dx()/2), fmt.Sprint(r.Min.Y + r.Dy()/2)
	}
	x, y := center(open)
	s.xdo("mousemove", x, y, "click", "1")
	s.waitShot("window-errors-settings.png", 10*time.Second, "Open settings to open the Settings dialog over the error box", func(img image.Image) bool {
		covered := countPixels(img, box, errSoft) < box.Dx()*box.Dy()/20
		save := blobs(img, image.Rect(box.Min.X, 700, 1020, 880), accent, 800) // the 760 px dialog ends at x 1020
		return covered && len(save) == 1
	})
	s.xdo("key", "Escape")
	s.waitShot("window-errors-closed.png", 10*time.Second, "Escape to close the dialog and show the error box again", func(img image.Image) bool {
		return countPixels(img, box, errSoft) > box.Dx()*box.Dy()/2
	})

	// Retry: the question runs again and fails again.
	row := image.Rect(open.Max.X, open.Min.Y, box.Max.X, open.Max.Y)
	retry := blobs(shot, row, white, 400)[0]
	x, y = center(retry)
	s.xdo("mousemove", x, y, "click", "1")
	waitFor(s.ctx, t, 40*time.Second, "Retry to run the question again (a second failed run)", failed(2))
}

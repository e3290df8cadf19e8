package windowtest

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// The window the tests drive: Xvfb's screen is 1280x900 and the app's window fills it.
const (
	screenW = 1280
	screenH = 900
)

// windowBinary returns the absolute path of the build named by AF_WINDOW_BIN, and skips the
// test without one or off Linux (the tests drive X11).
func windowBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("AF_WINDOW_BIN")
	if bin == "" {
		t.Skip("set AF_WINDOW_BIN to a desktop build of artifactflow (make window-test does)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the window tests drive X11")
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// session is one test's private X server and the environment the app and the X tools run
// in: DISPLAY, XDG folders of its own (WebKit's local storage starts empty and is left
// behind with the test), GTK's built-in input method, the C locale (English), and a stand-in
// xdg-open first on PATH that records what it was asked to open instead of starting a browser.
type session struct {
	t      *testing.T
	ctx    context.Context
	bin    string
	env    []string
	shots  string // where screenshots go: AF_WINDOW_SHOTS, else a temporary folder
	opened string // the stand-in xdg-open's record
	app    *exec.Cmd
}

// newSession starts Xvfb for t with the window binary; everything it starts ends with the
// test, which must be done within limit. extraEnv is appended to the environment (later
// entries win), for example a locale.
func newSession(t *testing.T, limit time.Duration, extraEnv ...string) *session {
	t.Helper()
	bin := windowBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	s := &session{t: t, ctx: ctx, bin: bin, shots: os.Getenv("AF_WINDOW_SHOTS")}
	if s.shots == "" {
		s.shots = t.TempDir()
	}

	bindir := t.TempDir()
	s.opened = filepath.Join(t.TempDir(), "opened.txt")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + s.opened + "'\n"
	for _, name := range []string{"xdg-open", "x-www-browser", "www-browser"} {
		if err := os.WriteFile(filepath.Join(bindir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	s.env = append(os.Environ(), "DISPLAY="+s.startXvfb(),
		"PATH="+bindir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		// GTK's own input method: under a Chinese or Japanese locale GTK would pick XIM, and
		// with no XIM server running (a desktop has IBus or Fcitx) xdotool's typing is lost.
		"GTK_IM_MODULE=gtk-im-context-simple",
		// English whatever the machine's locale (the tests read English pixels), unless a
		// test passes its own locale in extraEnv.
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "LANGUAGE=")
	s.env = append(s.env, extraEnv...)
	return s
}

// startXvfb starts a private X server and returns its display (":N"); the server stops
// with the test.
func (s *session) startXvfb() string {
	t := s.t
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(s.ctx, "Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", screenW, screenH), "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb (install xvfb: scripts/setup.sh test): %v", err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb did not report its display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// run runs a command in the session's environment and returns its output, failing the
// test if it fails.
func (s *session) run(name string, args ...string) string {
	s.t.Helper()
	cmd := exec.CommandContext(s.ctx, name, args...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// xdo runs xdotool with args (keys, mouse, typing).
func (s *session) xdo(args ...string) { s.t.Helper(); s.run("xdotool", args...) }

// start starts a command in the background in the session's environment; it is killed
// when the test ends.
func (s *session) start(name string, args ...string) *exec.Cmd {
	s.t.Helper()
	cmd := exec.CommandContext(s.ctx, name, args...)
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", name, err)
	}
	s.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// waitWindow waits up to 30 s for a visible window whose name matches the regular
// expression name.
func (s *session) waitWindow(name string) {
	s.t.Helper()
	waitFor(s.ctx, s.t, 30*time.Second, "a window named "+name, func() bool {
		cmd := exec.CommandContext(s.ctx, "xdotool", "search", "--onlyvisible", "--name", name)
		cmd.Env = s.env
		out, err := cmd.Output()
		return err == nil && strings.TrimSpace(string(out)) != ""
	})
}

// launch starts the app with args (the binary hands the window to artifactflow-window
// beside it), waits for its window and gives the page time to load after the window maps.
func (s *session) launch(args ...string) {
	s.t.Helper()
	s.app = s.start(s.bin, args...)
	s.waitWindow("^ArtifactFlow$")
	time.Sleep(3 * time.Second) // the page loads after the window maps
}

// quit closes the app with SIGTERM, as the desktop does, and waits up to 15 s for it to end.
func (s *session) quit() {
	s.t.Helper()
	_ = s.app.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.app.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		s.t.Fatal("the window did not close on SIGTERM")
	}
}

// ask starts a new conversation (Ctrl+N) and sends question from the composer.
func (s *session) ask(question string) {
	s.t.Helper()
	s.xdo("key", "ctrl+n")
	time.Sleep(500 * time.Millisecond)
	s.xdo("type", "--delay", "20", question)
	s.xdo("key", "Return")
}

// shoot saves a screenshot of the whole screen as name in the shots folder and returns it.
func (s *session) shoot(name string) image.Image {
	s.t.Helper()
	path := filepath.Join(s.shots, name)
	s.run("import", "-window", "root", path)
	f, err := os.Open(path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		s.t.Fatalf("decode %s: %v", path, err)
	}
	return img
}

// waitOpened waits up to 10 s until the stand-in system browser was asked to open url.
func (s *session) waitOpened(url string) {
	s.t.Helper()
	waitFor(s.ctx, s.t, 10*time.Second, "the system browser to be asked to open "+url, func() bool {
		b, _ := os.ReadFile(s.opened)
		return strings.Contains(string(b), url)
	})
}

// clipboard returns the X clipboard's text (xclip), or "" when it holds none.
func (s *session) clipboard() string {
	s.t.Helper()
	cmd := exec.CommandContext(s.ctx, "xclip", "-o", "-selection", "clipboard")
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		if _, lookErr := exec.LookPath("xclip"); lookErr != nil {
			s.t.Fatalf("xclip is not installed (scripts/setup.sh test): %v", lookErr)
		}
		return ""
	}
	return string(out)
}

// fieldText returns the text of the focused input by the clipboard: it puts a marker on the
// clipboard, presses Ctrl+A and Ctrl+C, and waits (up to 2 s) for the clipboard to change.
// An empty field copies nothing, so the marker stays and fieldText returns "". Waiting for
// the change, not a fixed pause, keeps a slow machine from reading the previous copy.
func (s *session) fieldText() string {
	s.t.Helper()
	marker := fmt.Sprintf("artifactflow-test-marker-%d", time.Now().UnixNano())
	set := exec.CommandContext(s.ctx, "xclip", "-i", "-selection", "clipboard")
	set.Env = s.env
	set.Stdin = strings.NewReader(marker)
	if err := set.Run(); err != nil {
		s.t.Fatalf("xclip -i: %v", err)
	}
	s.xdo("key", "ctrl+a", "ctrl+c")
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if got := s.clipboard(); got != marker {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
	return ""
}

// openDB opens the app's database in dataDir read-only, as another process would.
func openDB(t *testing.T, dataDir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dataDir, "artifactflow.db")+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// waitRuns waits up to limit until n messages in db are complete.
func waitRuns(ctx context.Context, t *testing.T, db *sql.DB, n int, limit time.Duration) {
	t.Helper()
	waitFor(ctx, t, limit, "the run to complete", func() bool {
		var got int
		return db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE status = 'complete'`).Scan(&got) == nil && got == n
	})
}

// waitFor polls cond every 200 ms until it holds, failing the test after limit (or when
// ctx ends) with what it waited for.
func waitFor(ctx context.Context, t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if cond() {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("waited %v for %s", limit, what)
}

// firstAccentPixel scans r row by row for the first pixel close to the light theme's
// accent colour (#3a5bc7), the colour of a chip's digit or a link's icon, and returns it.
func firstAccentPixel(img image.Image, r image.Rectangle) (image.Point, bool) {
	return firstPixel(img, r, func(c color.Color) bool { return near(c, 0x3a, 0x5b, 0xc7, 24) })
}

// firstPixel scans r row by row for the first pixel that match accepts.
func firstPixel(img image.Image, r image.Rectangle, match func(color.Color) bool) (image.Point, bool) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if match(img.At(x, y)) {
				return image.Point{X: x, Y: y}, true
			}
		}
	}
	return image.Point{}, false
}

// countPixels counts the pixels of r that match accepts.
func countPixels(img image.Image, r image.Rectangle, match func(color.Color) bool) int {
	r = r.Intersect(img.Bounds())
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if match(img.At(x, y)) {
				n++
			}
		}
	}
	return n
}

// near reports whether c is within tol of the colour (r, g, b) in each channel (0-255).
func near(c color.Color, r, g, b, tol int) bool {
	cr, cg, cb, _ := c.RGBA()
	d := func(v uint32, want int) bool { x := int(v>>8) - want; return x > -tol && x < tol }
	return d(cr, r) && d(cg, g) && d(cb, b)
}

// sameColour reports whether c is (r, g, b) give or take 3 in each channel.
func sameColour(c color.Color, r, g, b int) bool { return near(c, r, g, b, 4) }

// changedPixels counts the pixels of r that differ between a and b.
func changedPixels(a, b image.Image, r image.Rectangle) int {
	r = r.Intersect(a.Bounds()).Intersect(b.Bounds())
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				n++
			}
		}
	}
	return n
}

// bounds returns the smallest rectangle holding every pixel of r that match accepts (empty
// when none does).
func bounds(img image.Image, r image.Rectangle, match func(color.Color) bool) image.Rectangle {
	r = r.Intersect(img.Bounds())
	var b image.Rectangle
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if match(img.At(x, y)) {
				b = b.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return b
}

// blobs returns the bounding rectangles of the 8-connected groups of pixels of r that match
// accepts, leaving out groups of fewer than minPixels pixels (anti-aliasing specks).
func blobs(img image.Image, r image.Rectangle, match func(color.Color) bool, minPixels int) []image.Rectangle {
	r = r.Intersect(img.Bounds())
	seen := map[image.Point]bool{}
	var out []image.Rectangle
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := image.Point{X: x, Y: y}
			if seen[p] || !match(img.At(x, y)) {
				continue
			}
			seen[p] = true
			stack, n, b := []image.Point{p}, 0, image.Rectangle{}
			for len(stack) > 0 {
				q := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				n++
				b = b.Union(image.Rect(q.X, q.Y, q.X+1, q.Y+1))
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						nb := image.Point{X: q.X + dx, Y: q.Y + dy}
						if nb.In(r) && !seen[nb] && match(img.At(nb.X, nb.Y)) {
							seen[nb] = true
							stack = append(stack, nb)
						}
					}
				}
			}
			if n >= minPixels {
				out = append(out, b)
			}
		}
	}
	return out
}

// waitShot takes screenshots (saved as name, the last one kept) until cond holds for one,
// and returns it; after limit it fails the test with what it waited for. The window
// repaints some time after an input event (a zoom lays out the whole page again), so
// the tests wait for the pixels they expect instead of sleeping a fixed time.
func (s *session) waitShot(name string, limit time.Duration, what string, cond func(image.Image) bool) image.Image {
	s.t.Helper()
	img, ok := s.pollShot(name, limit, cond)
	if !ok {
		s.t.Fatalf("waited %v for %s (%s)", limit, what, name)
	}
	return img
}

// pollShot is waitShot that reports a timeout instead of failing: it returns the last
// screenshot and whether cond held for it.
func (s *session) pollShot(name string, limit time.Duration, cond func(image.Image) bool) (image.Image, bool) {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		img := s.shoot(name)
		if cond(img) {
			return img, true
		}
		if time.Now().After(deadline) || s.ctx.Err() != nil {
			return img, false
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// shiftedDiff compares region r of a with the same-sized region of b moved by up to
// maxShift pixels each way, and returns the fewest pixels that differ by more than tol in
// a channel over those shifts: the same words drawn a pixel or two lower (another font's
// line height above them) count as the same.
func shiftedDiff(a, b image.Image, r image.Rectangle, maxShift, tol int) int {
	best := -1
	for dy := -maxShift; dy <= maxShift; dy++ {
		for dx := -maxShift; dx <= maxShift; dx++ {
			n := 0
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					ar, ag, ab, _ := a.At(x, y).RGBA()
					if !near(b.At(x+dx, y+dy), int(ar>>8), int(ag>>8), int(ab>>8), tol) {
						n++
					}
				}
			}
			if best < 0 || n < best {
				best = n
			}
		}
	}
	return best
}

// waitSettled takes screenshots until two in a row show the same pixels in r and cond
// holds for the last, and returns it (saved as name); after limit it fails the test.
func (s *session) waitSettled(name string, r image.Rectangle, limit time.Duration, what string, cond func(image.Image) bool) image.Image {
	s.t.Helper()
	var prev image.Image
	return s.waitShot(name, limit, what+", and the window to settle", func(img image.Image) bool {
		settled := prev != nil && changedPixels(prev, img, r) == 0
		prev = img
		return settled && cond(img)
	})
}

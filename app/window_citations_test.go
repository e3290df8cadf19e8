package app

import (
	"context"
	"database/sql"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWindowCitations drives a cited research in the real desktop window under Xvfb
// (issue 9): the scripted lead (world.citingResearch) sends the search agent to a local
// SearXNG and the crawl agent to a local page, and answers citing [1] and [2]. The test
// finds chip [1] in the window's pixels (the first accent-coloured pixel of the
// conversation column under its header), moves the mouse over it with xdotool and checks
// that the hover card appeared (the pixels under the chip changed, the chip filled), then
// clicks it: the system browser (a stand-in xdg-open first on PATH) is asked to open the
// page. It also checks the window's title and, in the database, the two sources and the
// stored answer's footer. The screenshot with the card is window-citations.png in
// AF_WINDOW_SHOTS (docs/window-citations.png comes from here), else in a temporary folder.
func TestWindowCitations(t *testing.T) {
	bin := windowBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t, "native", (*world).citingResearch)

	// A stand-in for xdg-open: it writes what it was asked to open.
	bindir, opened := t.TempDir(), filepath.Join(t.TempDir(), "opened.txt")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + opened + "'\n"
	for _, name := range []string{"xdg-open", "x-www-browser", "www-browser"} {
		if err := os.WriteFile(filepath.Join(bindir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	display := startXvfb(ctx, t)
	env := append(os.Environ(), "DISPLAY="+display, "PATH="+bindir+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	shots := os.Getenv("AF_WINDOW_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	shoot := func(name string) image.Image {
		t.Helper()
		path := filepath.Join(shots, name)
		run("import", "-window", "root", path)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("decode %s: %v", path, err)
		}
		return img
	}

	app := exec.CommandContext(ctx, bin, w.args("--allow-private-network")...)
	app.Env = env
	app.Stdout, app.Stderr = os.Stderr, os.Stderr
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Process.Kill(); _ = app.Wait() })
	waitFor(ctx, t, 30*time.Second, "the window", func() bool {
		cmd := exec.CommandContext(ctx, "xdotool", "search", "--onlyvisible", "--name", "^ArtifactFlow$")
		cmd.Env = env
		out, err := cmd.Output()
		return err == nil && strings.TrimSpace(string(out)) != ""
	})
	time.Sleep(3 * time.Second) // the page loads after the window maps

	run("xdotool", "key", "ctrl+n")
	time.Sleep(500 * time.Millisecond)
	run("xdotool", "type", "--delay", "20", question)
	run("xdotool", "key", "Return")

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(w.dataDir, "artifactflow.db")+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitFor(ctx, t, 60*time.Second, "the run to complete", func() bool {
		var n int
		return db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE status = 'complete'`).Scan(&n) == nil && n == 1
	})
	var response string
	if err := db.QueryRowContext(ctx, `SELECT graph_response FROM messages`).Scan(&response); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(response, "[1]") || !strings.Contains(response, "\n---\n**Sources**\n- [1] [Moon facts](<"+w.pageURL+">)") {
		t.Fatalf("stored answer has no footer listing [1]:\n%s", response)
	}
	var fetched, listed int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE fetched = 1), count(*) FILTER (WHERE fetched = 0) FROM sources`).Scan(&fetched, &listed); err != nil {
		t.Fatal(err)
	}
	if fetched != 1 || listed != 1 {
		t.Fatalf("sources: %d fetched, %d listed; want 1 and 1", fetched, listed)
	}
	time.Sleep(1500 * time.Millisecond) // the answer and its chips render

	before := shoot("window-citations-before.png")
	chip, ok := firstAccentPixel(before, image.Rect(252, 60, 883, 800))
	if !ok {
		t.Fatal("no citation chip found in the conversation column (window-citations-before.png)")
	}
	// The digit's first pixel is near the chip's top; its middle is a few pixels lower.
	x, y := chip.X+2, chip.Y+4
	run("xdotool", "mousemove", fmt.Sprint(x), fmt.Sprint(y))
	time.Sleep(800 * time.Millisecond)
	after := shoot("window-citations.png")

	// The card opens under the chip (or above it near the bottom): many pixels there change.
	card := image.Rect(x-40, y+10, x+360, y+150).Intersect(after.Bounds())
	if y > 600 {
		card = image.Rect(x-40, y-150, x+360, y-10).Intersect(after.Bounds())
	}
	if n := changedPixels(before, after, card); n < 3000 {
		t.Fatalf("hovering chip [1] at (%d, %d) changed %d pixels where the card should be: no hover card", x, y, n)
	}
	// The hovered chip fills with the accent colour.
	if n := changedPixels(before, after, image.Rect(chip.X-8, chip.Y-4, chip.X+10, chip.Y+14)); n < 40 {
		t.Errorf("chip [1] did not change on hover (%d pixels)", n)
	}

	run("xdotool", "click", "1")
	waitFor(ctx, t, 10*time.Second, "the system browser to be asked to open source [1]", func() bool {
		b, _ := os.ReadFile(opened)
		return strings.Contains(string(b), w.pageURL)
	})
	if got := strings.TrimSpace(run("xdotool", "search", "--onlyvisible", "--name", "^ArtifactFlow$", "getwindowname")); got != "ArtifactFlow" {
		t.Errorf("window title %q", got)
	}
}

// firstAccentPixel scans r row by row for the first pixel close to the light theme's
// accent colour (#3a5bc7), the colour of a chip's digit, and returns it.
func firstAccentPixel(img image.Image, r image.Rectangle) (image.Point, bool) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(cr>>8, 0x3a) && near(cg>>8, 0x5b) && near(cb>>8, 0xc7) {
				return image.Point{X: x, Y: y}, true
			}
		}
	}
	return image.Point{}, false
}

func near(v uint32, want int) bool {
	d := int(v) - want
	return d > -24 && d < 24
}

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

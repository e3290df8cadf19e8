package app

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestWindowFileDrop drives the real desktop window under Xvfb: a file manager's drag of two
// files (an X11 drag source, scripts/dragsrc.py) dropped on the window becomes two uploaded
// artifacts, and a second drop of another file adds just that one (no stale paths from the
// first). It catches what no browser test can: the web view not being a drop target
// (Wails' DisableWebViewDrop on Linux) and drops lost between GTK and the page.
//
// AF_WINDOW_BIN names a desktop build (`make build` gives build/bin/artifactflow); skipped
// without it. Needs Xvfb, xdotool and Debian's python3-gi with gir1.2-gtk-3.0
// (scripts/setup.sh test installs them).
func TestWindowFileDrop(t *testing.T) {
	bin := windowBinary(t)
	_, self, _, _ := runtime.Caller(0)
	dragsrc := filepath.Join(filepath.Dir(self), "..", "scripts", "dragsrc.py")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	display := startXvfb(ctx, t)
	env := append(os.Environ(), "DISPLAY="+display)
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
	start := func(name string, args ...string) *exec.Cmd {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	waitWindow := func(name string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			cmd := exec.CommandContext(ctx, "xdotool", "search", "--onlyvisible", "--name", name)
			cmd.Env = env
			if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) != "" {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("no window named %q appeared", name)
	}

	dataDir := t.TempDir()
	files := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	logPath := write("garage test log.md", "# Garage test log\n\n| Date | Low (°C) |\n|---|---|\n| 12 Jan | -18 |\n")
	csvPath := write("readings.csv", "date,temp_c\n2026-01-12,-18\n")
	notesPath := write("notes.txt", "Check the heater's draw.\n")

	start(bin, "--data-dir", dataDir)
	waitWindow("ArtifactFlow")
	time.Sleep(3 * time.Second) // the page loads after the window maps

	drop := func(paths ...string) {
		t.Helper()
		src := start("/usr/bin/python3", append([]string{dragsrc, "560", "500"}, paths...)...)
		waitWindow("drag source")
		time.Sleep(500 * time.Millisecond)
		run("xdotool", "mousemove", "640", "525")
		time.Sleep(200 * time.Millisecond)
		run("xdotool", "mousedown", "1")
		for i := 1; i <= 30; i++ {
			run("xdotool", "mousemove", fmt.Sprint(640-3*i), fmt.Sprint(525-5*i))
			time.Sleep(40 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		run("xdotool", "mouseup", "1")
		time.Sleep(300 * time.Millisecond)
		_ = src.Process.Kill()
	}

	drop(logPath, csvPath)
	waitUploads(ctx, t, dataDir, []string{"garage_test_log.md", "readings.csv"})
	drop(notesPath)
	waitUploads(ctx, t, dataDir, []string{"garage_test_log.md", "notes.txt", "readings.csv"})
}

// windowBinary returns the absolute path of the desktop build named by AF_WINDOW_BIN, and
// skips the test without one or off Linux (the window tests drive X11).
func windowBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("AF_WINDOW_BIN")
	if bin == "" {
		t.Skip("set AF_WINDOW_BIN to a desktop build of artifactflow")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the window test drives X11")
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// startXvfb starts a private X server and returns its display (":N"); the server stops
// with the test.
func startXvfb(ctx context.Context, t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "Xvfb", "-displayfd", "3", "-screen", "0", "1280x900x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb (install xvfb): %v", err)
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

// waitUploads waits up to 15 s until the uploaded artifacts in dataDir are exactly want
// (sorted ids), and fails with what is there otherwise.
func waitUploads(ctx context.Context, t *testing.T, dataDir string, want []string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dataDir, "artifactflow.db")+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got []string
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		got = got[:0]
		rows, err := db.QueryContext(ctx, `SELECT id FROM artifacts WHERE source = 'user_upload'`)
		if err == nil {
			for rows.Next() {
				var id string
				if rows.Scan(&id) == nil {
					got = append(got, id)
				}
			}
			rows.Close()
		}
		sort.Strings(got)
		if strings.Join(got, ",") == strings.Join(want, ",") {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("uploaded artifacts = %v, want %v", got, want)
}

package windowtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
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
// (Wails' DisableWebViewDrop on Linux) and drops lost between GTK and the page. Needs
// Debian's python3-gi with gir1.2-gtk-3.0 besides Xvfb and xdotool (scripts/setup.sh test).
func TestWindowFileDrop(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	_, self, _, _ := runtime.Caller(0)
	dragsrc := filepath.Join(filepath.Dir(self), "..", "..", "scripts", "dragsrc.py")

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

	s.launch("--data-dir", dataDir)

	drop := func(paths ...string) {
		t.Helper()
		src := s.start("/usr/bin/python3", append([]string{dragsrc, "560", "500"}, paths...)...)
		s.waitWindow("drag source")
		time.Sleep(500 * time.Millisecond)
		s.xdo("mousemove", "640", "525")
		time.Sleep(200 * time.Millisecond)
		s.xdo("mousedown", "1")
		for i := 1; i <= 30; i++ {
			s.xdo("mousemove", fmt.Sprint(640-3*i), fmt.Sprint(525-5*i))
			time.Sleep(40 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		s.xdo("mouseup", "1")
		time.Sleep(300 * time.Millisecond)
		_ = src.Process.Kill()
	}

	drop(logPath, csvPath)
	waitUploads(s.ctx, t, dataDir, []string{"garage_test_log.md", "readings.csv"})
	drop(notesPath)
	waitUploads(s.ctx, t, dataDir, []string{"garage_test_log.md", "notes.txt", "readings.csv"})
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

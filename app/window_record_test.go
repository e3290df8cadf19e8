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

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm/llmtest"
)

// recordedURL is the dataset page the scripted lead records in TestWindowRecordArtifact.
const recordedURL = "https://data.example.org/global-temperature"

// TestWindowRecordArtifact drives a research run in the real desktop window under Xvfb: the
// scripted model's lead calls record_artifact for a dataset's page, the link appears in
// the panel's "Links & files", and a click on it opens the URL in the system browser (a
// stand-in xdg-open first on PATH records what it was asked to open; the app itself never
// requests the URL). AF_WINDOW_SHOTS, when set, names a folder for the screenshot.
func TestWindowRecordArtifact(t *testing.T) {
	bin := windowBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	model := llmtest.NewServer(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if len(toolResults(req)) == 0 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_rec", Name: "record_artifact",
				Arguments: `{"title":"Global temperature dataset","url":"` + recordedURL + `","kind":"link","description":"Monthly anomalies since 1850","metadata":{"resourceType":"dataset"}}`}}}
		}
		return llmtest.Reply{Content: "I recorded the global temperature dataset in Links & files."}
	})

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
	xdo := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, "xdotool", args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xdotool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	dataDir := t.TempDir()
	app := exec.CommandContext(ctx, bin, "--data-dir", dataDir, "--base-url", model.URL(), "--model", "test-model", "--api-key", "sk-test")
	app.Env = env
	app.Stdout, app.Stderr = os.Stderr, os.Stderr
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Process.Kill(); _ = app.Wait() })
	waitFor(ctx, t, 30*time.Second, "the window", func() bool {
		cmd := exec.CommandContext(ctx, "xdotool", "search", "--onlyvisible", "--name", "ArtifactFlow")
		cmd.Env = env
		out, err := cmd.Output()
		return err == nil && strings.TrimSpace(string(out)) != ""
	})
	time.Sleep(3 * time.Second) // the page loads after the window maps

	xdo("key", "ctrl+n")
	time.Sleep(500 * time.Millisecond)
	xdo("type", "--delay", "20", "Where can I get global temperature data?")
	xdo("key", "Return")

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dataDir, "artifactflow.db")+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitFor(ctx, t, 30*time.Second, "the recorded link in the database", func() bool {
		var n int
		return db.QueryRowContext(ctx, `SELECT count(*) FROM declared_artifacts WHERE url = ? AND source = 'tool' AND tool_name = 'record_artifact'`, recordedURL).Scan(&n) == nil && n == 1
	})
	waitFor(ctx, t, 30*time.Second, "the run to complete", func() bool {
		var n int
		return db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE status = 'complete'`).Scan(&n) == nil && n == 1
	})
	time.Sleep(time.Second) // the panel applies the event

	shots := os.Getenv("AF_WINDOW_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	path := filepath.Join(shots, "window-record-artifact.png")
	shot := exec.CommandContext(ctx, "import", "-window", "root", path)
	shot.Env = env
	if out, err := shot.CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}

	// The link is the only item of Links & files in the right column of the 1280x900
	// window (docs/window-record-artifact.png). Its icon is the first accent-coloured
	// pixel of the column's left edge below the panel's header rows (the Research folder
	// bar, the task plan and the tabs move it as the panel grows); its title sits on the
	// same row, about 125 px right of the icon.
	icon, ok := firstAccentPixel(img, image.Rect(895, 250, 935, 800))
	if !ok {
		t.Fatalf("no link icon in Links & files (%s)", path)
	}
	xdo("mousemove", fmt.Sprint(icon.X+125), fmt.Sprint(icon.Y+6))
	xdo("click", "1")
	waitFor(ctx, t, 10*time.Second, "the system browser to be asked to open the link", func() bool {
		b, _ := os.ReadFile(opened)
		return strings.Contains(string(b), recordedURL)
	})
}

// waitFor polls cond every 200 ms until it holds, failing the test after limit with what
// it waited for.
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

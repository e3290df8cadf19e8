package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
)

// wineTimeout bounds one start of the Windows build under Wine. Wine's first start in a
// fresh WINEPREFIX (wineboot) takes about 30 s on a CI machine; a run takes seconds more.
const wineTimeout = 4 * time.Minute

// windowsPath turns an absolute Unix path into the path a Windows program under Wine sees
// it at: Wine maps / to drive Z: in every prefix.
func windowsPath(p string) string {
	return `Z:` + strings.ReplaceAll(p, "/", `\`)
}

// TestWineAsk runs the Windows build's command line (AF_WINDOWS_EXE, the console
// artifactflow.exe of `make windows`) under Wine: `ask` against the scripted model on a
// loopback port must print the model's answer on stdout and leave it, as a complete
// message under the question, in the SQLite file of its data directory, which this test
// opens with go-sqlite3. AF_WINE_PREFIX names the WINEPREFIX to use (`make wine-test`
// gives one holding the ProcessPrng stand-in, packaging/wine); otherwise a temporary one
// is made. Skipped when AF_WINDOWS_EXE is unset; when it names a program without .exe (a
// Linux build), that program is run directly, which checks this test's own logic without
// Wine.
func TestWineAsk(t *testing.T) {
	exe := os.Getenv("AF_WINDOWS_EXE")
	if exe == "" {
		t.Skip("AF_WINDOWS_EXE is unset: `make wine-test` builds artifactflow.exe and runs this test under Wine")
	}
	exe, err := filepath.Abs(exe)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(exe); err != nil {
		t.Fatalf("AF_WINDOWS_EXE: %v", err)
	}
	underWine := strings.HasSuffix(strings.ToLower(exe), ".exe") && runtime.GOOS != "windows"
	hostPath := func(p string) string { return p }
	var argv0 []string
	env := os.Environ()
	if underWine {
		wine, err := exec.LookPath("wine")
		if err != nil {
			t.Fatalf("AF_WINDOWS_EXE is a Windows program and no wine is installed (Debian: apt install wine wine64): %v", err)
		}
		argv0 = []string{wine, exe}
		hostPath = windowsPath
		prefix := os.Getenv("AF_WINE_PREFIX")
		if prefix == "" {
			prefix = t.TempDir()
		}
		env = append(env, "WINEPREFIX="+prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")
	} else {
		argv0 = []string{exe}
	}

	const (
		question = "How far is the Moon? (Wine test)"
		answer   = "About 384,400 km on average — 约三十八万公里."
	)
	model := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Content: answer}))
	dataDir := t.TempDir()
	args := append(argv0[1:], "ask", "--data-dir", hostPath(dataDir), "--base-url", model.URL(),
		"--model", "test-model", "--api-key", "sk-test", question)

	ctx, cancel := context.WithTimeout(context.Background(), wineTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv0[0], args...)
	cmd.Env = env
	cmd.Dir = dataDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	t.Logf("%s ask took %v", filepath.Base(exe), time.Since(start).Round(time.Millisecond))
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("ask did not end within %v; stderr:\n%s", wineTimeout, stderr.String())
	case errors.As(err, &exitErr):
		t.Fatalf("ask exited %d; stdout:\n%s\nstderr:\n%s", exitErr.ExitCode(), stdout.String(), stderr.String())
	case err != nil:
		t.Fatalf("run %s: %v", exe, err)
	}
	// A Windows console program may end lines with CRLF.
	if got := strings.TrimSpace(strings.ReplaceAll(stdout.String(), "\r\n", "\n")); got != answer {
		t.Fatalf("stdout = %q, want the model's answer %q; stderr:\n%s", got, answer, stderr.String())
	}
	if model.Calls() != 1 {
		t.Fatalf("the model was called %d times, want 1", model.Calls())
	}

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dataDir, config.DBFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var content, response, status string
	if err := db.QueryRow(`SELECT content, graph_response, status FROM messages`).Scan(&content, &response, &status); err != nil {
		t.Fatalf("the database ask wrote: %v", err)
	}
	if content != question || response != answer || status != "complete" {
		t.Fatalf("message = (%q, %q, %q), want (%q, %q, complete)", content, response, status, question, answer)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"artifactflow/app/cli"
	"artifactflow/backend/sandbox"
)

// The two executables of `make build`: the window-less build that the command line runs
// and that hands the window over (launcher.go), and the desktop build.
var (
	lightTags  = []string{"-tags", "nowindow,sqlite_fts5", "-ldflags", "-w -s"}
	windowTags = []string{"-tags", "desktop,production,webkit2_41,sqlite_fts5", "-ldflags", "-w -s"}
)

// builtBinaries returns the window-less build and the desktop build (window is "" when
// there is none to test). AF_WINDOW_BIN names the first when set (`make window-test`:
// build/bin/artifactflow, with artifactflow-window beside it); otherwise both are built
// into a temporary directory, the desktop build only on Linux with WebKitGTK 4.1's headers
// and not with -short. Skips when no cgo toolchain can build them.
func builtBinaries(t *testing.T) (light, window string) {
	t.Helper()
	if bin := os.Getenv("AF_WINDOW_BIN"); bin != "" {
		light, err := filepath.Abs(bin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(windowPath(light)); err == nil {
			window = windowPath(light)
		}
		return light, window
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binaries with")
	}
	out, err := exec.Command(gobin, "env", "CGO_ENABLED", "CC").Output()
	if f := strings.Fields(string(out)); err != nil || len(f) < 2 || f[0] != "1" {
		t.Skip("cgo is off: go-sqlite3 cannot be built")
	} else if _, err := exec.LookPath(f[1]); err != nil {
		t.Skipf("no C compiler for cgo (%s): %v", f[1], err)
	}
	dir := t.TempDir()
	build := func(out string, flags []string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, gobin, append(append([]string{"build"}, flags...), "-o", out, ".")...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", strings.Join(flags, " "), err, msg)
		}
	}
	light = filepath.Join(dir, "artifactflow"+exeSuffix())
	build(light, lightTags)
	switch {
	case testing.Short():
		t.Log("-short: the desktop build is not built")
	case runtime.GOOS != "linux":
		t.Log("the desktop build is built here only on Linux")
	case exec.Command("pkg-config", "--exists", "webkit2gtk-4.1", "gtk+-3.0").Run() != nil:
		t.Log("no WebKitGTK 4.1 headers: the desktop build is not built")
	default:
		window = windowPath(light)
		build(window, windowTags)
	}
	return light, window
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// result is what runBin saw of one process: its output, exit code, pid and peak RSS in KB
// (0 where unknown).
type result struct {
	stdout, stderr string
	code, pid      int
	peakKB         int64
}

// runBin runs bin with args, stdin (nil: none) and extraEnv added to the environment.
func runBin(t *testing.T, stdin []byte, extraEnv []string, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	r := result{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode(), pid: cmd.Process.Pid}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peakKB = int64(ru.Maxrss) // kilobytes on Linux
	}
	return r
}

// link puts the executable src at dst (a hard link, else a copy).
func link(t *testing.T, src, dst string) {
	t.Helper()
	if os.Link(src, dst) == nil {
		return
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLauncher checks the window-less build as `make build` installs it: --help and bad
// flags never start the window; asked for the window without artifactflow-window beside
// it, it says so and exits 1; with one beside it (a script here that prints its
// arguments, pid and job host), it becomes that program in the same process (same pid,
// exit code passed through) with ARTIFACTFLOW_JOB_HOST naming itself, also when started
// through a symbolic link; a sandbox job it does not serve ends as a job error. With the
// desktop build, that build runs commands on its own and both serve the parsers' jobs.
func TestLauncher(t *testing.T) {
	light, window := builtBinaries(t)

	t.Run("help", func(t *testing.T) {
		r := runBin(t, nil, nil, light, "--help")
		if r.code != cli.ExitUsage || !strings.Contains(r.stdout, "artifactflow ask [flags]") {
			t.Fatalf("--help: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		t.Logf("%s --help: peak RSS %d KB", filepath.Base(light), r.peakKB)
	})

	t.Run("no window", func(t *testing.T) {
		dir := t.TempDir()
		alone := filepath.Join(dir, "artifactflow"+exeSuffix())
		link(t, light, alone)
		resolved, err := filepath.EvalSymlinks(alone)
		if err != nil {
			t.Fatal(err)
		}
		r := runBin(t, nil, nil, alone, "--data-dir", filepath.Join(dir, "data"))
		want := "the window is not installed next to " + resolved + "; `artifactflow serve` opens the same UI in your browser"
		if r.code != cli.ExitError || !strings.Contains(r.stderr, want) {
			t.Fatalf("no window: exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
			t.Error("the data directory was created before the window was found")
		}
	})

	t.Run("unknown job", func(t *testing.T) {
		r := runBin(t, nil, []string{"ARTIFACTFLOW_SANDBOX_JOB=no.such.job"}, light)
		if r.code != 3 || !strings.Contains(r.stdout, `has no job "no.such.job"`) {
			t.Fatalf("unknown job: exit %d, stdout %q, stderr %q; want exit 3 (a job error)", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("hands over", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("the stand-in window is a shell script")
		}
		dir := t.TempDir()
		launcher := filepath.Join(dir, "artifactflow")
		link(t, light, launcher)
		script := "#!/bin/sh\necho \"args: $*\"\necho \"pid: $$\"\necho \"host: $ARTIFACTFLOW_JOB_HOST\"\nexit 7\n"
		if err := os.WriteFile(filepath.Join(dir, windowName), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		resolved, err := filepath.EvalSymlinks(launcher)
		if err != nil {
			t.Fatal(err)
		}
		elsewhere := filepath.Join(t.TempDir(), "af")
		if err := os.Symlink(launcher, elsewhere); err != nil {
			t.Fatal(err)
		}
		for _, bin := range []string{launcher, elsewhere} {
			r := runBin(t, nil, []string{sandbox.EnvJobHost + "=/somewhere/else"}, bin, "--data-dir", "/tmp/af data", "--api-addr", "127.0.0.1:0")
			want := "args: --data-dir /tmp/af data --api-addr 127.0.0.1:0\npid: " + strconv.Itoa(r.pid) + "\nhost: " + resolved + "\n"
			if r.code != 7 || r.stdout != want {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 7 and %q", bin, r.code, r.stdout, r.stderr, want)
			}
		}
		// Usage and flag errors are answered by the launcher itself.
		for _, args := range [][]string{{"--help"}, {"--no-such-flag"}, {"--api-addr", "0.0.0.0:80"}} {
			r := runBin(t, nil, nil, launcher, args...)
			if r.code != cli.ExitUsage || strings.Contains(r.stdout, "pid:") {
				t.Errorf("%v: exit %d, stdout %q; want exit 2 without the window", args, r.code, r.stdout)
			}
		}
	})

	t.Run("desktop build", func(t *testing.T) {
		if window == "" {
			t.Skip("no desktop build (AF_WINDOW_BIN without artifactflow-window beside it, -short, or no WebKitGTK)")
		}
		r := runBin(t, nil, nil, window, "--help")
		if r.code != cli.ExitUsage || !strings.Contains(r.stdout, "artifactflow ask [flags]") {
			t.Fatalf("%s --help: exit %d, stdout %q, stderr %q", window, r.code, r.stdout, r.stderr)
		}
		t.Logf("%s --help: peak RSS %d KB", filepath.Base(window), r.peakKB)
		// The HTML converter's job (backend/web: a request line, then the page), served by
		// either binary; the peak RSS is what one converting child costs.
		page := []byte(`{"content_type":"text/html; charset=utf-8","base_url":"https://example.org/a"}` + "\n" +
			"<html><head><title>Tide tables</title></head><body><article><h1>Tide tables</h1>" +
			strings.Repeat("<p>High water at Brest comes about six hours after low water, twice a day.</p>", 40) +
			"</article></body></html>")
		for _, bin := range []string{light, window} {
			r := runBin(t, page, []string{"ARTIFACTFLOW_SANDBOX_JOB=web.html"}, bin)
			var doc struct{ Title, Text string }
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil || doc.Title != "Tide tables" || !strings.Contains(doc.Text, "High water at Brest") {
				t.Fatalf("%s as the web.html job: exit %d, stdout %.300q, stderr %.300q", bin, r.code, r.stdout, r.stderr)
			}
			t.Logf("%s as the web.html job: peak RSS %d KB", filepath.Base(bin), r.peakKB)
		}
	})
}

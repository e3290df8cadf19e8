package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The test binary serves these jobs when Run starts it again (see Handle).
func init() {
	Handle("test.upper", func(in []byte) ([]byte, error) { return bytes.ToUpper(in), nil })
	Handle("test.fail", func([]byte) ([]byte, error) { return nil, errors.New("this file is broken: page 3") })
	Handle("test.panic", func([]byte) ([]byte, error) { panic("index out of range") })
	Handle("test.loop", func([]byte) ([]byte, error) {
		for x := 0; ; x++ { // a parser caught in a reference cycle
			_ = x
		}
	})
	Handle("test.huge", func([]byte) ([]byte, error) {
		s := make([]string, 0, 2_000_000_000) // a page count taken from a hostile file
		return []byte{byte(len(s))}, nil
	})
	Handle("test.grow", func([]byte) ([]byte, error) {
		var keep [][]byte
		for {
			keep = append(keep, bytes.Repeat([]byte{'x'}, 1<<20)) // padding written cell by cell
		}
	})
	Handle("test.exit", func([]byte) ([]byte, error) { os.Exit(7); return nil, nil })
	Handle("test.flood", func([]byte) ([]byte, error) { return bytes.Repeat([]byte{'y'}, 3<<20), nil })
	Handle("test.env", func([]byte) ([]byte, error) { return []byte(strings.Join(os.Environ(), "\n")), nil })
	Handle("test.exe", func([]byte) ([]byte, error) {
		exe, err := os.Executable()
		return []byte(exe), err
	})
}

func TestRun(t *testing.T) {
	small := Limits{Timeout: 20 * time.Second, MaxMemory: 256 << 20, MaxOutput: 1 << 20}
	tests := []struct {
		job     string
		lim     Limits
		want    string // output, when the job succeeds
		wantErr error  // sentinel, when it fails
		errHas  string
	}{
		{job: "test.upper", lim: small, want: "HELLO PDF"},
		{job: "test.fail", lim: small, errHas: "this file is broken: page 3"},
		{job: "test.panic", lim: small, errHas: "the reader failed on this file (index out of range)"},
		{job: "test.loop", lim: Limits{Timeout: time.Second}, wantErr: ErrTimeout, errHas: "took too long"},
		{job: "test.huge", lim: small, wantErr: ErrOutOfMemory, errHas: "over 256 MB"},
		{job: "test.grow", lim: small, wantErr: ErrOutOfMemory},
		{job: "test.exit", lim: small, wantErr: ErrCrashed, errHas: "exit status 7"},
		{job: "test.flood", lim: small, wantErr: ErrOutputTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.job, func(t *testing.T) {
			out, err := Run(context.Background(), tc.job, []byte("hello pdf"), tc.lim)
			if tc.want != "" {
				if err != nil || string(out) != tc.want {
					t.Fatalf("Run = %q, %v; want %q", out, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Run = %q, want an error", out)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %q does not wrap %q", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("error %q does not say %q", err, tc.errHas)
			}
		})
	}
}

// TestRunEnvironment checks that a child gets no secret of the parent's environment (an
// API key, a proxy) but what it needs to run.
func TestRunEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-parent-secret")
	t.Setenv("HTTPS_PROXY", "http://proxy.example:3128")
	out, err := Run(context.Background(), "test.env", nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	env := string(out)
	if strings.Contains(env, "sk-parent-secret") || strings.Contains(env, "proxy.example") {
		t.Errorf("the child inherited secrets:\n%s", env)
	}
	if !strings.Contains(env, "PATH=") || !strings.Contains(env, "MALLOC_ARENA_MAX=1") || !strings.Contains(env, envJob+"=test.env") {
		t.Errorf("the child lacks PATH, MALLOC_ARENA_MAX or its job:\n%s", env)
	}
}

// TestRunCancel checks that the caller's Stop kills a child caught in a loop at once and
// that the error is the context's, not a timeout.
func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, "test.loop", nil, Limits{Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 1300*time.Millisecond {
		t.Errorf("Run returned %v after the cancel, want within a second", d-300*time.Millisecond)
	}
}

// TestHandleIgnoresOtherJobs checks that Handle does nothing in a process that is not a
// child for that job (this test binary would have exited otherwise).
func TestHandleIgnoresOtherJobs(t *testing.T) {
	t.Setenv(envJob, "test.other")
	Handle("test.upper", func([]byte) ([]byte, error) { t.Fatal("job ran"); return nil, nil })
}

// TestJobHost checks that Run starts the job host named by ARTIFACTFLOW_JOB_HOST (here a
// copy of this test binary, which serves the same jobs), that the variable is taken out
// of the environment so no child inherits it, and that a host that is missing, relative,
// a directory or not executable leaves Run on os.Executable().
func TestJobHost(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	host := filepath.Join(dir, "artifactflow")
	if runtime.GOOS == "windows" {
		host += ".exe"
	}
	copyFile(t, self, host, 0o755)
	plain := filepath.Join(dir, "not-executable")
	copyFile(t, self, plain, 0o644)

	t.Setenv(EnvJobHost, host)
	if got := takeJobHost(); got != host {
		t.Fatalf("takeJobHost = %q, want %q", got, host)
	}
	if v, ok := os.LookupEnv(EnvJobHost); ok {
		t.Fatalf("%s is still in the environment (%q)", EnvJobHost, v)
	}
	t.Setenv(EnvJobHost, host) // as if it had been kept: Run must still not pass it on

	setHost := func(h string) {
		old := jobHost
		jobHost = h
		t.Cleanup(func() { jobHost = old })
	}
	ran := func() string {
		t.Helper()
		out, err := Run(context.Background(), "test.exe", nil, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	same := func(a, b string) bool {
		fa, errA := os.Stat(a)
		fb, errB := os.Stat(b)
		return errA == nil && errB == nil && os.SameFile(fa, fb)
	}

	setHost(host)
	if got := ran(); !same(got, host) {
		t.Errorf("with the job host %s set, the child ran %s", host, got)
	}
	out, err := Run(context.Background(), "test.env", nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), EnvJobHost) {
		t.Errorf("the child inherited %s:\n%s", EnvJobHost, out)
	}

	// UseJobHost (the window build started directly names the light build beside it):
	// a host named at start-up wins; with none, the one named is used.
	setHost(host)
	UseJobHost(plain)
	if jobHost != host {
		t.Errorf("UseJobHost replaced the job host named at start-up: %q", jobHost)
	}
	setHost("")
	UseJobHost(host)
	if got := ran(); !same(got, host) {
		t.Errorf("after UseJobHost(%s), the child ran %s", host, got)
	}

	for _, h := range []string{filepath.Join(dir, "missing"), "artifactflow", dir, plain} {
		if h == plain && runtime.GOOS == "windows" {
			continue // no executable bit there
		}
		setHost(h)
		if got := ran(); !same(got, self) {
			t.Errorf("with the job host %q, the child ran %s, want this test binary %s", h, got, self)
		}
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
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

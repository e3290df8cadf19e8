// Package sandbox runs a parser of untrusted input (a PDF fetched from the web or dropped
// on the window) in a child process of the running executable, so that the parser's
// failures stay there: a deadline or the caller's Stop kills the child, a memory cap ends
// it before it can exhaust the machine, and its crash (a panic, "fatal error: out of
// memory", an endless loop) becomes an error instead of taking the app down.
//
// A job is a pure function from input bytes to output bytes, registered by name from the
// init function of the package that owns it:
//
//	func init() { sandbox.Handle("web.pdf", pdfJob) }
//
// Run starts os.Executable() again with the job's name in the environment. The child runs
// package initialisation as any start of the program does; when it reaches the package
// that registered the job, Handle sees the name, reads the input from stdin, runs the job
// under the limits and exits, before main (or a test binary's testing.M) runs. Every
// binary that links the owning package, the app and each test binary alike, can therefore
// serve its jobs without further set-up. Handle costs one environment lookup when the
// variable is not set.
//
// A process may name another executable as its job host: ARTIFACTFLOW_JOB_HOST, set to an
// absolute path, makes Run start that file instead (when it is a regular executable file;
// otherwise Run falls back to os.Executable()). The window-less `artifactflow` sets it to
// itself when it hands the window to `artifactflow-window`, so that every parser's child
// starts the light binary instead of one that links WebKitGTK (about 48 MB of RSS before
// main). The variable is read once, when this package initialises, and removed from the
// process's environment then, so no child, hook or browser the app starts inherits it.
// Both binaries are built from the same source and serve the same jobs; a host that does
// not know a job exits through CheckUnhandled with a job error.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Environment variables that turn a start of the executable into a job's child process.
const (
	envJob    = "ARTIFACTFLOW_SANDBOX_JOB"
	envMemory = "ARTIFACTFLOW_SANDBOX_MEMORY"
	envLow    = "ARTIFACTFLOW_SANDBOX_LOW" // "1": the child lowers its CPU priority first (Limits.LowPriority)
	// EnvJobHost names the executable that Run starts for a job, when it is not this one.
	EnvJobHost = "ARTIFACTFLOW_JOB_HOST"
)

// jobHost is the value of EnvJobHost at start-up (takeJobHost).
var jobHost = takeJobHost()

// takeJobHost returns EnvJobHost's value and removes it from the environment.
func takeJobHost() string {
	h := os.Getenv(EnvJobHost)
	if h != "" {
		_ = os.Unsetenv(EnvJobHost)
	}
	return h
}

// UseJobHost makes path the job host when none was named at start-up (EnvJobHost): the
// window build, started directly by the desktop entry rather than handed the window by the
// window-less build, names the window-less build it finds beside itself, so the parsers'
// children run that light binary as they do after the hand-over. Run still falls back to
// os.Executable() when path is not an absolute path to a regular executable file. Call it
// before any job runs (main does, first thing); a host named at start-up wins.
func UseJobHost(path string) {
	if jobHost == "" {
		jobHost = path
	}
}

// executable returns the file a job's child runs: host when it is an absolute path to a
// regular executable file, else os.Executable().
func executable(host string) (string, error) {
	if host != "" && filepath.IsAbs(host) {
		if fi, err := os.Stat(host); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0) {
			return host, nil
		}
	}
	return os.Executable()
}

// Exit codes of a child process besides 0 (the output is the job's result).
const (
	exitJobError = 3 // the job returned an error; stdout holds its message
	exitNoMemory = 4 // the memory watchdog ended the job; see watchMemory
)

// Defaults for Limits fields left zero.
const (
	// DefaultTimeout bounds one job from start to exit.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxMemory caps a child's heap, in bytes.
	DefaultMaxMemory = 768 << 20
	// DefaultMaxOutput caps a job's output, in bytes.
	DefaultMaxOutput = 64 << 20
)

// Sentinel errors of Run; each error Run returns for a failed child wraps one of them (or
// the context's error when the caller cancelled).
var (
	// ErrTimeout: the job did not finish within Limits.Timeout and was killed.
	ErrTimeout = errors.New("took too long and was stopped")
	// ErrOutOfMemory: the job needed more memory than Limits.MaxMemory.
	ErrOutOfMemory = errors.New("needed too much memory and was stopped")
	// ErrCrashed: the child died another way (a runtime fatal error, a signal).
	ErrCrashed = errors.New("crashed")
	// ErrOutputTooLarge: the job wrote more than Limits.MaxOutput bytes.
	ErrOutputTooLarge = errors.New("produced too much output")
	// ErrStart: the child could not be started (the executable is gone or not runnable).
	ErrStart = errors.New("could not start the worker process")
)

// Func is a job: it turns its input into its output, or fails with an error whose message
// is shown to the user. It runs in the child process and must not rely on any state of the
// parent beyond its input.
type Func func(input []byte) ([]byte, error)

// Limits bound one Run. Zero fields take the defaults above.
type Limits struct {
	// Timeout bounds the child from start to exit.
	Timeout time.Duration
	// MaxMemory caps the child's memory, in bytes: the Go heap limit is set to it, a
	// watchdog ends the child once the runtime holds more than it, and on Linux the
	// data segment limit (RLIMIT_DATA) is set to twice it so a single huge allocation
	// fails at once.
	MaxMemory int64
	// MaxOutput caps the output read back, in bytes.
	MaxOutput int64
	// LowPriority runs the child at the lowest CPU priority (nice 19 on Linux, every
	// thread of it; elsewhere as it is), for work done in the background that must never
	// slow what the user is doing.
	LowPriority bool
}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	return l
}

// slots bounds the children running at once, so a burst of uploads cannot start one
// parser per file.
var slots = make(chan struct{}, max(2, runtime.NumCPU()))

// Handle registers fn as the job called name. Call it from an init function. In the parent
// it only looks the environment up; in a child started by Run for name it serves the job
// and exits the process.
func Handle(name string, fn Func) {
	if os.Getenv(envJob) != name {
		return
	}
	if os.Getenv(envLow) == "1" {
		lowerPriority()
	}
	os.Exit(serve(fn, os.Stdin, os.Stdout, os.Getenv(envMemory)))
}

// CheckUnhandled ends a process started for a job that no package registered (a job host
// built from other sources): it writes a job error and exits, so that the child never
// runs the program itself. main calls it first; it costs one environment lookup.
func CheckUnhandled() {
	if name := os.Getenv(envJob); name != "" {
		fmt.Fprintf(os.Stdout, "this program has no job %q (is %s from another version?)", name, filepath.Base(os.Args[0]))
		os.Exit(exitJobError)
	}
}

// serve runs fn on all of in under the memory cap (bytes, in decimal) and writes its output
// or error message to out; it returns the process exit code.
func serve(fn Func, in io.Reader, out io.Writer, memory string) int {
	limit, _ := strconv.ParseInt(memory, 10, 64)
	if limit <= 0 {
		limit = DefaultMaxMemory
	}
	debug.SetMemoryLimit(limit)
	limitData(2 * limit)
	go watchMemory(limit) // ends with the process
	input, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(out, "read the input: %v", err)
		return exitJobError
	}
	res, err := runJob(fn, input)
	if err != nil {
		io.WriteString(out, err.Error())
		return exitJobError
	}
	if _, err := out.Write(res); err != nil {
		return exitJobError
	}
	return 0
}

// runJob calls fn, turning a panic into an error.
func runJob(fn Func, input []byte) (res []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("the reader failed on this file (%v)", r)
		}
	}()
	return fn(input)
}

// Run runs the job called name in a child process (of the job host, else of this
// executable) with input on its stdin and returns the job's output. The child is killed when ctx is done (Run then returns ctx's error,
// wrapped) or when lim.Timeout passes (ErrTimeout). A job error comes back with the job's
// message; a child that exceeds lim.MaxMemory gives ErrOutOfMemory, one that dies
// otherwise ErrCrashed with the last line of its stderr, more than lim.MaxOutput bytes of
// output ErrOutputTooLarge, and a child that cannot be started ErrStart. These messages
// say what happened to the job ("took too long and was stopped after 30s") without naming
// it, so the caller can put its own name first ("the PDF reader took too long ...").
// At most max(2, NumCPU) children run at once; Run waits for a slot (or ctx).
func Run(ctx context.Context, name string, input []byte, lim Limits) ([]byte, error) {
	lim = lim.withDefaults()
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped: %w", ctx.Err())
	}
	exe, err := executable(jobHost)
	if err != nil {
		return nil, fmt.Errorf("%w (%s): %w", ErrStart, name, err)
	}
	runCtx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, exe)
	cmd.Env = append(childEnv(), envJob+"="+name, envMemory+"="+strconv.FormatInt(lim.MaxMemory, 10))
	if lim.LowPriority {
		cmd.Env = append(cmd.Env, envLow+"=1")
	}
	cmd.Stdin = bytes.NewReader(input)
	stdout := &capBuffer{max: lim.MaxOutput}
	stderr := &capBuffer{max: 4 << 10} // a Go runtime crash says why in its first lines
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second // pipes of a killed child are closed after this
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("stopped: %w", ctx.Err())
	case runCtx.Err() != nil:
		return nil, fmt.Errorf("%w after %v", ErrTimeout, lim.Timeout)
	case stdout.over:
		return nil, fmt.Errorf("%w (over %d MB)", ErrOutputTooLarge, lim.MaxOutput>>20)
	case err == nil:
		return stdout.buf.Bytes(), nil
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return nil, fmt.Errorf("%w (%s): %w", ErrStart, name, err)
	}
	switch code := exitErr.ExitCode(); {
	case code == exitJobError:
		return nil, &JobError{Msg: stdout.buf.String()}
	case code == exitNoMemory || strings.Contains(stderr.buf.String(), "out of memory"):
		return nil, fmt.Errorf("%w (over %d MB)", ErrOutOfMemory, lim.MaxMemory>>20)
	default:
		return nil, fmt.Errorf("%w (%v: %s)", ErrCrashed, exitErr, firstLine(stderr.buf.String()))
	}
}

// keptEnv are the environment variables a child keeps: what the Go runtime, the C
// library and temporary files need. Everything else (API keys such as OPENAI_API_KEY,
// proxies, tokens) stays with the parent: a parser has no use for it.
var keptEnv = []string{"PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LC_ALL", "SYSTEMROOT", "SystemRoot", "WINDIR", "GODEBUG", "GOTRACEBACK"}

// childEnv returns the environment of a child: the keptEnv variables that are set, and
// MALLOC_ARENA_MAX=1 (glibc reserves 64 MB of address space per thread that calls malloc;
// the child needs none of that, and it counts against a `ulimit -v`).
func childEnv() []string {
	env := []string{"MALLOC_ARENA_MAX=1"}
	for _, k := range keptEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// JobError is the error a job returned in its child; Msg is its message.
type JobError struct{ Msg string }

// Error returns the job's message.
func (e *JobError) Error() string { return e.Msg }

// firstLine returns the line of s that says what went wrong: the Go runtime's "fatal
// error:" or "panic:" line when there is one, else the first non-empty line; at most 200
// bytes.
func firstLine(s string) string {
	pick := ""
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
			pick = l
			break
		}
		if pick == "" {
			pick = l
		}
	}
	if len(pick) > 200 {
		pick = pick[:200]
	}
	return pick
}

// capBuffer keeps up to max bytes and drops the rest, noting that it did (so the child is
// never blocked on a full pipe).
type capBuffer struct {
	buf  bytes.Buffer
	max  int64
	over bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if room := c.max - int64(c.buf.Len()); int64(len(p)) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

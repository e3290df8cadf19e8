package main

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"artifactflow/app/cli"
)

// Start-up budgets: no package of ours or of a dependency may take more than
// 5 ms or 5 MB in its init.
const (
	maxInitBytes = 5 << 20
	maxInitClock = 5 * time.Millisecond
)

// envStrictInitClock, set to 1, makes TestInitCost assert maxInitClock too. Clock time
// depends on the machine and its load (a busy 2-core runner multiplies it several times),
// so by default the test asserts only the allocated bytes, which are the same on every run,
// and logs the clock. The go-dateparser tables this budget was written against took
// 135-240 ms and 78 MB.
const envStrictInitClock = "AF_STRICT_INIT_CLOCK"

// initRecord is one line of GODEBUG=inittrace=1.
type initRecord struct {
	pkg    string
	clock  time.Duration
	bytes  int64
	allocs int64
}

// initLine matches "init <pkg> @<start> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs".
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, (\d+) bytes, (\d+) allocs$`)

// parseInitTrace returns the init records in trace (other lines are ignored).
func parseInitTrace(trace []byte) ([]initRecord, error) {
	var out []initRecord
	sc := bufio.NewScanner(bytes.NewReader(trace))
	for sc.Scan() {
		m := initLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		ms, err1 := strconv.ParseFloat(m[2], 64)
		b, err2 := strconv.ParseInt(m[3], 10, 64)
		a, err3 := strconv.ParseInt(m[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("bad init line %q", sc.Text())
		}
		out = append(out, initRecord{pkg: m[1], clock: time.Duration(ms * float64(time.Millisecond)), bytes: b, allocs: a})
	}
	return out, sc.Err()
}

// traceInits runs this test binary again with GODEBUG=inittrace=1 and no test selected, so
// that it only initialises its packages (this package's imports: package app, every backend
// package and every dependency, Wails' public packages included), and returns the records.
func traceInits(t *testing.T) []initRecord {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", exe, err, stderr.Bytes())
	}
	inits, err := parseInitTrace(stderr.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return inits
}

func TestParseInitTrace(t *testing.T) {
	trace := "init runtime @0.025 ms, 0.10 ms clock, 0 bytes, 0 allocs\n" +
		"PASS\n" +
		"init github.com/markusmobius/go-dateparser/internal/data @7.2 ms, 135 ms clock, 78295848 bytes, 335834 allocs\n"
	got, err := parseInitTrace([]byte(trace))
	if err != nil {
		t.Fatal(err)
	}
	want := []initRecord{
		{"runtime", 100 * time.Microsecond, 0, 0},
		{"github.com/markusmobius/go-dateparser/internal/data", 135 * time.Millisecond, 78295848, 335834},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseInitTrace = %+v, want %+v", got, want)
	}
}

// TestInitCost checks the start-up rule on every package this binary initialises:
// none allocates more than maxInitBytes in its init (and, with AF_STRICT_INIT_CLOCK=1,
// none takes more than maxInitClock). The slowest and largest inits are logged (go test
// -v). Wails' desktop internals, linked only with the production tag, are not in a test
// binary: `make startup` traces the built binary itself.
func TestInitCost(t *testing.T) {
	inits := traceInits(t)
	ours := 0
	for _, in := range inits {
		if strings.HasPrefix(in.pkg, "artifactflow/") {
			ours++
		}
	}
	if len(inits) < 50 || ours < 5 {
		t.Fatalf("the trace has %d inits (%d of ours): GODEBUG=inittrace=1 did not take effect", len(inits), ours)
	}
	strict := os.Getenv(envStrictInitClock) == "1"
	for _, in := range inits {
		if in.bytes > maxInitBytes {
			t.Errorf("init of %s allocates %.1f MB (%d allocations, %v), over the %d MB budget", in.pkg, float64(in.bytes)/(1<<20), in.allocs, in.clock, maxInitBytes>>20)
		}
		if strict && in.clock > maxInitClock {
			t.Errorf("init of %s takes %v, over the %v budget", in.pkg, in.clock, maxInitClock)
		}
	}
	var total time.Duration
	var totalBytes int64
	for _, in := range inits {
		total += in.clock
		totalBytes += in.bytes
	}
	t.Logf("%d inits (%d of ours): %v and %d KB in all", len(inits), ours, total.Round(10*time.Microsecond), totalBytes>>10)
	slices.SortFunc(inits, func(a, b initRecord) int { return cmp.Compare(b.clock, a.clock) })
	for _, in := range inits[:5] {
		t.Logf("slowest: %-50s %8v %8d bytes", in.pkg, in.clock, in.bytes)
	}
	slices.SortFunc(inits, func(a, b initRecord) int { return cmp.Compare(b.bytes, a.bytes) })
	for _, in := range inits[:5] {
		t.Logf("largest: %-50s %8v %8d bytes", in.pkg, in.clock, in.bytes)
	}
}

// BenchmarkStartup measures starting a process and exiting at once: this test binary
// with no test selected (this package's inits only) and, when `make build` has built them,
// the window-less binary (artifactflow) and the desktop one (artifactflow-window) with
// --help. Besides
// the time per start it reports the peak resident set size of the process (peak-RSS-KB).
func BenchmarkStartup(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	targets := []struct {
		name  string
		argv  []string
		usage bool // exits 2 after printing the usage (cli.ExitUsage)
	}{
		{"test-binary", []string{exe, "-test.run=^$", "-test.count=1"}, false},
		{"artifactflow--help", []string{filepath.Join("build", "bin", "artifactflow"), "--help"}, true},
		{"artifactflow-window--help", []string{filepath.Join("build", "bin", "artifactflow-window"), "--help"}, true},
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			if _, err := os.Stat(tg.argv[0]); err != nil {
				b.Skipf("%s: not built", tg.argv[0])
			}
			var peak int64
			for b.Loop() {
				cmd := exec.Command(tg.argv[0], tg.argv[1:]...)
				out, err := cmd.CombinedOutput()
				if err != nil && !(tg.usage && cmd.ProcessState.ExitCode() == cli.ExitUsage) {
					b.Fatalf("%s: %v\n%s", tg.argv[0], err, out)
				}
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					peak = max(peak, ru.Maxrss) // kilobytes on Linux
				}
			}
			b.ReportMetric(float64(peak), "peak-RSS-KB")
		})
	}
}

// Command measure is `make bench`: it runs the Go benchmarks that have a budget and the
// process-level measurements of the built binaries, and writes bench/results.json and
// bench/results.md, a Markdown table with each figure beside its budget. A figure over its
// budget is flagged in the table, never a failure: the command exits non-zero only when a
// measurement cannot be taken at all.
//
// Usage (from the module root, after `make build`):
//
//	go run -tags sqlite_fts5 ./bench/cmd/measure [-bin build/bin/artifactflow] [-window-bin build/bin/artifactflow-window] [-hello-bin build/bin/wailshello] [-out bench]
//	go run -tags sqlite_fts5 ./bench/cmd/measure -timeline 3    # the start-up timeline, printed
//	go run -tags sqlite_fts5 ./bench/cmd/measure -ratio-only    # the launch ratio alone, printed
//
// The window rows need Xvfb; without it they are reported as not measured. The launch mark is
// the line "artifactflow: usable" that the page prints once through the Wails runtime's
// LogPrint after its first data (the conversation list) has rendered
// (frontend/src/launchMark.ts); launch-to-usable is the time from starting the binary to
// reading that line on its output. The launch ratio compares that time, for the window
// build started as the desktop entry starts it (-window-bin: no hand-over from the
// window-less build), with an empty Wails window's (internal/bench/wailshello, built beside
// the app by `make bench`) to its first frame, launched interleaved with the app (launch.go).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"artifactflow/bench/fixture"
)

// openRuns is how many timed openings of the fixture conversation the median is taken over.
const openRuns = 7

// launchMark is frontend/src/launchMark.ts's LAUNCH_MARK.
const launchMark = "artifactflow: usable"

// errNotMeasured marks a row that could not be measured on this machine (a missing tool or
// benchmark); the row is written with its note instead of a figure.
var errNotMeasured = errors.New("not measured")

// Row is one figure: Value in Unit beside Budget (0: no budget); Over is true when Value
// exceeds Budget. Note says how it was measured, or why it was not (Value then null).
type Row struct {
	Name     string   `json:"name"`
	Value    *float64 `json:"value"`
	Unit     string   `json:"unit"`
	Budget   float64  `json:"budget,omitempty"`
	Over     bool     `json:"over"`
	Note     string   `json:"note,omitempty"`
	Measured bool     `json:"measured"`
}

// Results is bench/results.json: when and where the run was made, and its rows.
type Results struct {
	Date    string `json:"date"`
	Commit  string `json:"commit"`
	LoadAvg string `json:"loadavg"` // /proc/loadavg at the start and at the end of the run
	CPUs    int    `json:"cpus"`
	Rows    []Row  `json:"rows"`
}

func main() {
	bin := flag.String("bin", "build/bin/artifactflow", "the command-line binary (built with tag nowindow)")
	winBin := flag.String("window-bin", "build/bin/artifactflow-window", "the window binary")
	out := flag.String("out", "bench", "folder for results.json and results.md")
	openOnly := flag.Bool("open-only", false, "measure only the opening of the 10,000-event conversation; print, write nothing")
	researchOnly := flag.Bool("research-only", false, "measure only the research speed (parallel tool calls); print, write nothing")
	hello := flag.String("hello-bin", "build/bin/wailshello", "the empty Wails window (internal/bench/wailshello) the launch ratio compares with")
	ratioOnly := flag.Bool("ratio-only", false, "measure only the launch ratio to the empty Wails window; print, write nothing")
	pdfOnly := flag.Bool("pdf-first", false, "measure only the first and second PDF read after a fresh install, serve started 10 s before; print, write nothing")
	timelineRuns := flag.Int("timeline", 0, "launch the window this many times with ARTIFACTFLOW_TIMELINE=1 and print the start-up timeline (medians); write nothing")
	flag.Parse()
	copies, err := freshCopies(bin, winBin, hello)
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(copies)
	// os.Exit skips deferred calls: exit removes the copies first.
	exit := func(code int) {
		os.RemoveAll(copies)
		os.Exit(code)
	}
	if !builtWithFTS5 {
		// Without the tag every fixture row would read "not measured: no such module: fts5".
		fmt.Fprintln(os.Stderr, "measure: build with -tags sqlite_fts5 (go run -tags sqlite_fts5 ./bench/cmd/measure; make bench does)")
		exit(2)
	}
	if *researchOnly {
		measureResearch(func(r Row) { fmt.Printf("%s: %s %s (%s)\n", r.Name, fmtVal(r), r.Unit, r.Note) })
		return
	}
	if *timelineRuns > 0 {
		if err := printTimeline(os.Stdout, *bin, *timelineRuns); err != nil {
			fmt.Fprintln(os.Stderr, "measure:", err)
			exit(1)
		}
		return
	}
	if *pdfOnly {
		first, second, err := pdfFirst(*bin, 10*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "measure:", err)
			exit(1)
		}
		fmt.Printf("first PDF read %.3f s, second %.3f s (second/first %.2f)\n", first, second, second/first)
		return
	}
	if *ratioOnly {
		measureLaunchRatio(*winBin, *hello, func(r Row) { fmt.Printf("%s: %s %s (%s)\n", r.Name, fmtVal(r), r.Unit, r.Note) })
		return
	}
	if *openOnly {
		measureOpen(*bin, func(r Row) { fmt.Printf("%s: %s %s (%s)\n", r.Name, fmtVal(r), r.Unit, r.Note) })
		return
	}
	res := Results{Date: time.Now().UTC().Format(time.RFC3339), Commit: gitCommit(), LoadAvg: loadavg(), CPUs: numCPU()}
	add := func(r Row) {
		if r.Value != nil && r.Budget > 0 && *r.Value > r.Budget {
			r.Over = true
		}
		r.Measured = r.Value != nil
		res.Rows = append(res.Rows, r)
		fmt.Fprintf(os.Stderr, "measure: %s: %s %s (%s)\n", r.Name, fmtVal(r), r.Unit, r.Note)
	}
	for i, b := range []string{*bin, *winBin} {
		name := filepath.Base(b)
		// The issue's --help budgets are for artifactflow; the window binary's are shown beside.
		wallBudget, rssBudget := 20.0, 30.0
		if i > 0 {
			wallBudget, rssBudget = 0, 0
		}
		wall, rss, err := helpRuns(b, 20)
		add(row(name+" --help wall time (median of 20)", wall, err, "ms", wallBudget, "exit status 2 (usage) expected"))
		add(row(name+" --help peak RSS (max of 20)", rss, err, "MB", rssBudget, "wait4 rusage ru_maxrss"))
		ms, pkg, err := maxInit(b)
		add(row(name+" max init (GODEBUG=inittrace=1)", ms, err, "ms", 5, pkg))
		size, err := fileMB(b)
		add(row(name+" stripped size", size, err, "MB", 25, "built with -ldflags \"-w -s\""))
	}
	rss, err := serveRSS(*bin, 10*time.Second)
	add(row("serve idle RSS after 10 s", rss, err, "MB", 40, "VmRSS of the serve process, empty data folder"))
	// Launch-to-usable: the median of 3 launches, each with an empty data folder; the last
	// stays open for the idle RSS.
	var usable []float64
	var w windowFigures
	err = nil
	for i := 0; i < 3 && err == nil; i++ {
		w, err = windowRun(*bin, 10*time.Second, i == 2)
		usable = append(usable, w.usable)
	}
	add(row("window launch-to-usable (Xvfb, median of 3)", median(usable), err, "s", 1.0, "start of "+filepath.Base(*bin)+" to the page's launch mark on its output"))
	add(row("window Go process idle RSS after 10 s (Xvfb)", w.goRSS, err, "MB", 120, "VmRSS"))
	add(row("window WebKit processes RSS after 10 s (Xvfb)", w.webkitRSS, err, "MB", 0, w.webkitNote))
	measureLaunchRatio(*winBin, *hello, add) // as the desktop entry starts it
	measurePDFFirst(*bin, add)
	benches := []struct {
		name, pkg, pattern, want string
		nsBudget, allocBudget    float64
	}{
		{"engine BenchmarkToolRound", "./backend/engine/", "^BenchmarkToolRound$", `^BenchmarkToolRound$`, 1e6, 2000},
		{"textmatch Layer 1, 1 MB", "./backend/textmatch/", "Layer1", `^BenchmarkLayer1\w*1MB$`, 5e6, 0},
		{"textmatch Layer 2, 1 KB in 200 KB", "./backend/textmatch/", "Layer2", `^BenchmarkLayer2_200KB_1KB$`, 3e6, 0},
	}
	for _, b := range benches {
		name, ns, allocs, err := goBench(b.pkg, b.pattern, regexp.MustCompile(b.want))
		add(row(b.name+" time (median of 5)", scale(ns, 1e-6), err, "ms", b.nsBudget/1e6, name))
		if b.allocBudget > 0 {
			add(row(b.name+" allocations (median of 5)", allocs, err, "allocs", b.allocBudget, name))
		}
	}
	measureOpen(*bin, add)
	measureResearch(add)
	res.LoadAvg += " -> " + loadavg()
	if err := write(*out, res); err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		exit(1)
	}
}

// measureOpen adds the rows of opening the 10,000-event conversation: open-to-first-paint in
// browser mode (bin serve on the bench/fixture conversation, driven by
// bench/openconv/open.mjs in headless Chromium) with its backend and render parts, and the
// Go calls' benchmark (BenchmarkOpenConversation10k).
func measureOpen(bin string, add func(Row)) {
	o, err := openConversation(bin, openRuns, fixture.Research)
	note := fmt.Sprintf("625 research exchanges; browser mode, headless Chromium, median of %d after a warm-up; %s", openRuns, o.note())
	add(row("open a 10,000-event conversation to first paint", o.Total, err, "ms", 300, note))
	add(row("open a 10,000-event conversation: backend part (median)", o.Backend, err, "ms", 0, "click to the end of ConversationService.Get and ArtifactService.List over HTTP"))
	add(row("open a 10,000-event conversation: render part (median)", o.Render, err, "ms", 0, "the rest: React render, layout, paint, other calls handled on the page"))
	c, err := openConversation(bin, openRuns, fixture.Chat)
	note = fmt.Sprintf("2,000 short exchanges, 40 in the newest History page: the list is virtualized at once; median of %d; %s", openRuns, c.note())
	add(row("open a 10,000-event conversation of short exchanges to first paint", c.Total, err, "ms", 300, note))
	name, ns, allocs, err := goBench("./bench/fixture/", "^BenchmarkOpenConversation10k$", regexp.MustCompile(`^BenchmarkOpenConversation10k$`))
	add(row("open a 10,000-event conversation, Go calls time (median of 5)", scale(ns, 1e-6), err, "ms", 0, name+"; Get, newest History page of 200, artifact list"))
	add(row("open a 10,000-event conversation, Go calls allocations (median of 5)", allocs, err, "allocs", 0, name))
}

// pdfFirstBudget is the PDF rows' budget: after the idle warm-up, the first PDF read after a
// fresh install and the second may differ by at most this factor (the slower over the faster).
const pdfFirstBudget = 1.2

// measurePDFFirst adds the rows of the first and second PDF read after a fresh install
// (pdfFirst: serve with empty cache folders, idle 10 s, then two uploads): the slower over
// the faster against pdfFirstBudget, and each time.
func measurePDFFirst(bin string, add func(Row)) {
	first, second, err := pdfFirst(bin, 10*time.Second)
	spread := 0.0
	if err == nil && first > 0 && second > 0 {
		spread = max(first, second) / min(first, second)
	}
	note := fmt.Sprintf("serve started with empty cache folders, idle 10 s (the warm-up compiles PDFium), then %s and %s uploaded: %.3f s, %.3f s",
		filepath.Base(pdfFirstFiles[0]), filepath.Base(pdfFirstFiles[1]), first, second)
	add(row("first and second PDF read after a fresh install, slower / faster", spread, err, "ratio", pdfFirstBudget, note))
	add(row("first PDF read after a fresh install", first, err, "s", 0, "ArtifactService.Upload in browser mode, which reads the text before it returns"))
	add(row("second PDF read", second, err, "s", 0, "the next upload, another PDF"))
}

// researchBudget is the research-speed row's budget: three sub-agents asked in one reply
// must take at most this share of the wall time of the same research asked one per reply.
const researchBudget = 0.45

// measureResearch adds the research-speed rows (BenchmarkResearchSpeed in backend/engine,
// run once: the llmtest model server answering each reply in 0.6 s, pages served in 0.6 s):
// the ratio of the two wall times against researchBudget, and each wall time.
func measureResearch(add func(Row)) {
	cmd := exec.Command("go", "test", "-tags", "sqlite_fts5", "-run", "^$", "-bench", "^BenchmarkResearchSpeed$", "-benchtime", "1x", "-count", "1", "./backend/engine/")
	out, err := cmd.CombinedOutput()
	var m map[string]float64
	if err != nil {
		err = fmt.Errorf("go test -bench BenchmarkResearchSpeed: %w\n%s", err, out)
	} else {
		m, err = benchMetrics(string(out), regexp.MustCompile(`^BenchmarkResearchSpeed$`))
	}
	together, oneByOne := m["together-s"], m["one-by-one-s"]
	note := fmt.Sprintf("a lead reading 3 pages through crawl_agent, model replies 0.6 s over HTTP (llmtest server), pages 0.6 s (real fetcher): 3 sub-agents in one reply %.2f s, one per reply %.2f s; BenchmarkResearchSpeed", together, oneByOne)
	add(row("research speed: 3 sub-agents in one reply / one per reply", m["ratio"], err, "ratio", researchBudget, note))
	add(row("research speed: 3 sub-agents in one reply, wall time", together, err, "s", 0, "BenchmarkResearchSpeed together-s"))
	add(row("research speed: one sub-agent per reply, wall time", oneByOne, err, "s", 0, "BenchmarkResearchSpeed one-by-one-s"))
}

// benchMetrics reads `go test -bench` output: the metrics of the first benchmark whose name
// (without the -GOMAXPROCS suffix) matches want, each the median of its runs, by unit. A
// benchmark that matches nothing gives an error wrapping errNotMeasured.
func benchMetrics(out string, want *regexp.Regexp) (map[string]float64, error) {
	var name string
	all := map[string][]float64{}
	for _, l := range strings.Split(out, "\n") {
		m := benchLine.FindStringSubmatch(l)
		if m == nil || !want.MatchString(m[1]) || (name != "" && m[1] != name) {
			continue
		}
		name = m[1]
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, _ := strconv.ParseFloat(f[i], 64)
			all[f[i+1]] = append(all[f[i+1]], v)
		}
	}
	if name == "" {
		return nil, fmt.Errorf("no benchmark matching %s: %w", want, errNotMeasured)
	}
	out2 := make(map[string]float64, len(all))
	for u, vs := range all {
		out2[u] = median(vs)
	}
	return out2, nil
}

func row(name string, v float64, err error, unit string, budget float64, note string) Row {
	r := Row{Name: name, Unit: unit, Budget: budget, Note: note}
	if err != nil {
		r.Note = "not measured: " + oneLine(err.Error(), 300)
		return r
	}
	r.Value = &v
	return r
}

// oneLine collapses s's white space and keeps at most n bytes of it.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func scale(v, f float64) float64 { return v * f }

func fmtVal(r Row) string {
	if r.Value == nil {
		return "-"
	}
	return strconv.FormatFloat(*r.Value, 'f', precision(*r.Value), 64)
}

func precision(v float64) int {
	switch {
	case v >= 100:
		return 0
	case v >= 10:
		return 1
	case v >= 1:
		return 2
	}
	return 3
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// helpRuns runs bin --help n times: the median wall time in ms and the largest peak RSS in MB.
func helpRuns(bin string, n int) (wallMS, rssMB float64, err error) {
	var walls []float64
	for i := 0; i < n; i++ {
		cmd := exec.Command(bin, "--help")
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return 0, 0, fmt.Errorf("run %s --help: %w", bin, err)
		}
		walls = append(walls, float64(wall.Microseconds())/1000)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rssMB = max(rssMB, float64(ru.Maxrss)/1024) // Linux: KB
		}
	}
	return median(walls), rssMB, nil
}

var initLine = regexp.MustCompile(`^init (\S+) @[\d.]+ ms, ([\d.]+) ms clock`)

// maxInit runs bin --help with GODEBUG=inittrace=1: the longest package init in ms and its name.
func maxInit(bin string) (float64, string, error) {
	cmd := exec.Command(bin, "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput()
	best, pkg := -1.0, ""
	for _, l := range strings.Split(string(out), "\n") {
		if m := initLine.FindStringSubmatch(l); m != nil {
			if v, _ := strconv.ParseFloat(m[2], 64); v > best {
				best, pkg = v, m[1]
			}
		}
	}
	if best < 0 {
		return 0, "", fmt.Errorf("no inittrace line from %s: %w", bin, errNotMeasured)
	}
	return best, pkg, nil
}

func fileMB(p string) (float64, error) {
	st, err := os.Stat(p)
	if err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return float64(st.Size()) / (1 << 20), nil
}

// freshCopies copies each binary the flags name into one new temporary folder (returned,
// for the caller to remove) under its own file name, and points the flags at the copies, so
// every run measures files new to the page cache. A binary the machine has run for a while
// can sit in the page cache as transparent huge pages (the kernel collapses read-only file
// pages when it is built with CONFIG_READ_ONLY_THP_FOR_FS), and a process mapping it is
// then charged whole 2 MB pages in its RSS: artifactflow --help peaked at 33.8 MB from a
// build/bin file where a fresh copy of the same file peaked at 21.3 MB. Copies keep their
// names, so artifactflow still finds artifactflow-window beside it. A path that does not
// exist is left as it is (its rows then say why they were not measured).
func freshCopies(paths ...*string) (string, error) {
	dir, err := os.MkdirTemp("", "measure-bin-")
	if err != nil {
		return "", fmt.Errorf("fresh copies: %w", err)
	}
	for _, p := range paths {
		src, err := os.Open(*p)
		if err != nil {
			continue
		}
		dst := filepath.Join(dir, filepath.Base(*p))
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
		if err == nil {
			_, err = io.Copy(out, src)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		src.Close()
		if err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("fresh copy of %s: %w", *p, err)
		}
		*p = dst
	}
	return dir, nil
}

// isolatedEnv is the environment with XDG folders under a new temporary directory (removed
// by the returned func), so the run sees no existing conversations or settings.
func isolatedEnv(extra ...string) ([]string, func(), error) {
	home, err := os.MkdirTemp("", "af-bench-")
	if err != nil {
		return nil, nil, fmt.Errorf("temp dir: %w", err)
	}
	env := append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "HOME="+home, "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	return append(env, extra...), func() { _ = os.RemoveAll(home) }, nil
}

// rssMB reads VmRSS of pid from /proc, in MB.
func rssMB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read status: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d: %w", pid, errNotMeasured)
}

func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// serveRSS starts bin serve on a free loopback port and reads its RSS after idle.
func serveRSS(bin string, idle time.Duration) (float64, error) {
	env, cleanup, err := isolatedEnv()
	if err != nil {
		return 0, err
	}
	defer cleanup()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start serve: %w", err)
	}
	defer stop(cmd)
	time.Sleep(idle)
	return rssMB(cmd.Process.Pid)
}

type windowFigures struct {
	usable, goRSS, webkitRSS float64
	webkitNote               string
}

// startXvfb starts a private X server; its display and the process.
func startXvfb() (string, *exec.Cmd, error) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		return "", nil, fmt.Errorf("no Xvfb: %w", errNotMeasured)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, fmt.Errorf("pipe: %w", err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x900x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start Xvfb: %w", err)
	}
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return "", nil, fmt.Errorf("Xvfb display: %w", err)
	}
	return ":" + strings.TrimSpace(line), cmd, nil
}

// windowRun opens the window through bin under Xvfb: the time to the launch mark in seconds,
// then with withRSS, idle after the start, the RSS of the process and the sum of its WebKit
// descendants' RSS in MB.
func windowRun(bin string, idle time.Duration, withRSS bool) (windowFigures, error) {
	var f windowFigures
	l, err := launch(bin, launchMark, nil, nil)
	if err != nil {
		return f, err
	}
	defer l.stop()
	f.usable = l.toMark.Seconds()
	start, cmd := l.start, l.cmd
	if !withRSS {
		return f, nil
	}
	time.Sleep(time.Until(start.Add(idle)))
	pid := cmd.Process.Pid
	if f.goRSS, err = rssMB(pid); err != nil {
		return f, err
	}
	var names []string
	for _, p := range descendants(pid) {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p))
		name := strings.TrimSpace(string(comm))
		if !strings.HasPrefix(name, "WebKit") {
			continue
		}
		if mb, err := rssMB(p); err == nil {
			f.webkitRSS += mb
			names = append(names, fmt.Sprintf("%s %.0f MB", name, mb))
		}
	}
	if len(names) == 0 {
		return f, fmt.Errorf("no WebKit child process: %w", errNotMeasured)
	}
	f.webkitNote = "sum of VmRSS: " + strings.Join(names, ", ")
	return f, nil
}

// descendants lists every process under pid, from /proc/*/stat's parent field.
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	sort.Ints(out)
	return out
}

var benchLine = regexp.MustCompile(`^(Benchmark\S*?)(?:-\d+)?\s+\d+\s+(.*)$`)

// goBench runs pattern's benchmarks in pkg five times and returns the first one whose name
// matches want, with its median time and allocations per unit of work: ns/round and
// allocs/round when the benchmark reports them (BenchmarkToolRound: one op is 50 rounds),
// else ns/op and allocs/op.
func goBench(pkg, pattern string, want *regexp.Regexp) (string, float64, float64, error) {
	cmd := exec.Command("go", "test", "-tags", "sqlite_fts5", "-run", "^$", "-bench", pattern, "-benchmem", "-count", "5", pkg)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", 0, 0, fmt.Errorf("go test -bench %s %s: %w\n%s", pattern, pkg, err, out)
	}
	return parseBench(string(out), want)
}

// parseBench reads `go test -bench` output: the first benchmark whose name (without the
// -GOMAXPROCS suffix) matches want, its median time in ns and its median allocations, per
// round when it reports ns/round and allocs/round, else per op; the name says which units.
// A benchmark that matches nothing gives an error wrapping errNotMeasured.
func parseBench(out string, want *regexp.Regexp) (string, float64, float64, error) {
	metrics := map[string]map[string][]float64{} // benchmark -> unit -> values
	var names []string
	for _, l := range strings.Split(out, "\n") {
		m := benchLine.FindStringSubmatch(l)
		if m == nil || !want.MatchString(m[1]) {
			continue
		}
		if metrics[m[1]] == nil {
			names = append(names, m[1])
			metrics[m[1]] = map[string][]float64{}
		}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, _ := strconv.ParseFloat(f[i], 64)
			metrics[m[1]][f[i+1]] = append(metrics[m[1]][f[i+1]], v)
		}
	}
	if len(names) == 0 {
		return "", 0, 0, fmt.Errorf("no benchmark matching %s: %w", want, errNotMeasured)
	}
	n, mm := names[0], metrics[names[0]]
	pick := func(units ...string) (float64, string) {
		for _, u := range units {
			if len(mm[u]) > 0 {
				return median(mm[u]), u
			}
		}
		return 0, ""
	}
	ns, nsUnit := pick("ns/round", "ns/op")
	allocs, allocUnit := pick("allocs/round", "allocs/op")
	return fmt.Sprintf("%s (%s, %s)", n, nsUnit, allocUnit), ns, allocs, nil
}

// gitCommit is HEAD's short hash, with the number of paths that differ from it (the run
// measures the working tree).
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	if n := strings.Count(string(st), "\n"); err == nil && n > 0 {
		c += fmt.Sprintf(" + %d uncommitted paths", n)
	}
	return c
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}

// write writes results.json and results.md into dir.
func write(dir string, res Results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results folder: %w", err)
	}
	j, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(j, '\n'), 0o644); err != nil {
		return fmt.Errorf("write results.json: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# make bench results\n\n%s, commit %s, %d CPUs, load average %s (start -> end).\n", res.Date, res.Commit, res.CPUs, res.LoadAvg)
	b.WriteString("Over-budget rows are flagged, not failed. Written by `go run -tags sqlite_fts5 ./bench/cmd/measure`.\n\n")
	b.WriteString("| Measurement | Figure | Budget | Status | Note |\n|---|---|---|---|---|\n")
	for _, r := range res.Rows {
		fig, budget, status := "-", "-", "ok"
		if r.Value != nil {
			fig = fmtVal(r) + " " + r.Unit
		} else {
			status = "not measured"
		}
		if r.Budget > 0 {
			budget = "≤ " + strconv.FormatFloat(r.Budget, 'f', -1, 64) + " " + r.Unit
		} else if r.Value != nil {
			status = "no budget"
		}
		if r.Over {
			status = "**OVER BUDGET**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Name, fig, budget, status, strings.ReplaceAll(strings.ReplaceAll(r.Note, "|", "\\|"), "\n", " "))
	}
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write results.md: %w", err)
	}
	return nil
}

// openFigures is what bench/openconv/open.mjs prints: medians in ms of the time from the
// click on the conversation to the paint of its newest exchange (Total), of the part spent
// waiting for the Go calls (Backend) and of the rest (Render), and every run.
type openFigures struct {
	Total   float64 `json:"total"`
	Backend float64 `json:"backend"`
	Render  float64 `json:"render"`
	// Settled is the median time to the paint after the newest History page replaced the
	// few exchanges shown while it loaded; nil when no run saw that.
	Settled *float64 `json:"settled"`
	Runs    []struct {
		Total     float64 `json:"total"`
		Exchanges int     `json:"exchanges"`
	} `json:"runs"`
}

// note lists the runs' totals and how many exchanges were on the page at the paint.
func (o openFigures) note() string {
	if len(o.Runs) == 0 {
		return "no run"
	}
	var ts []string
	for _, r := range o.Runs {
		ts = append(ts, strconv.FormatFloat(r.Total, 'f', 0, 64))
	}
	n := fmt.Sprintf("runs %s ms; %d exchanges in the list at the paint", strings.Join(ts, ", "), o.Runs[len(o.Runs)-1].Exchanges)
	if o.Settled != nil {
		n += fmt.Sprintf("; newest History page painted at %.0f ms", *o.Settled)
	}
	return n
}

// parseOpen reads open.mjs's output: its last line is the JSON object of openFigures.
func parseOpen(out []byte) (openFigures, error) {
	var o openFigures
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &o); err != nil {
		return o, fmt.Errorf("open.mjs printed no figures (%w): %s", err, oneLine(string(out), 300))
	}
	if len(o.Runs) == 0 || o.Total <= 0 {
		return o, fmt.Errorf("open.mjs measured no run: %s: %w", oneLine(string(out), 300), errNotMeasured)
	}
	return o, nil
}

// openConversation writes the 10,000-event fixture conversation of shape into a new data
// folder, serves it with bin serve and runs bench/openconv/open.mjs on it (runs timed
// openings).
// Node, frontend/node_modules (playwright-core) and Chromium are needed; without them the
// error wraps errNotMeasured.
func openConversation(bin string, runs int, shape fixture.Shape) (openFigures, error) {
	if _, err := exec.LookPath("node"); err != nil {
		return openFigures{}, fmt.Errorf("no node: %w", errNotMeasured)
	}
	if _, err := os.Stat("frontend/node_modules/playwright-core"); err != nil {
		return openFigures{}, fmt.Errorf("no frontend/node_modules/playwright-core (make frontend-deps): %w", errNotMeasured)
	}
	env, cleanup, err := isolatedEnv()
	if err != nil {
		return openFigures{}, err
	}
	defer cleanup()
	var home string
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "HOME="); ok {
			home = v
		}
	}
	dir := filepath.Join(home, "af-data")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	n := fixture.Exchanges(shape)
	if err := fixture.WriteDir(ctx, dir, n, shape); err != nil {
		return openFigures{}, err
	}
	url, stopServe, err := startServe(bin, env, "--data-dir", dir)
	if err != nil {
		return openFigures{}, err
	}
	defer stopServe()
	last := strings.SplitN(fixture.Question(n-1), ":", 2)[0] + ":"
	out, err := exec.CommandContext(ctx, "node", "bench/openconv/open.mjs", url, fixture.Title, last, strconv.Itoa(runs)).CombinedOutput()
	if err != nil {
		return openFigures{}, fmt.Errorf("node bench/openconv/open.mjs: %w: %s", err, oneLine(string(out), 300))
	}
	return parseOpen(out)
}

// startServe starts bin serve on a free loopback port with env and the extra args and
// waits (at most 30 s) for the browser-mode URL it prints, which it returns (with its
// token) with the function that stops the process. The goroutine reading the output ends
// when stop closes it.
func startServe(bin string, env []string, args ...string) (string, func(), error) {
	cmd := exec.Command(bin, append(append([]string{"serve"}, args...), "--addr", "127.0.0.1:0")...)
	cmd.Env = env
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "browser mode: "); ok {
				select {
				case urls <- strings.TrimSpace(u):
				default:
				}
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		pw.Close()
		return "", nil, fmt.Errorf("start serve: %w", err)
	}
	stopServe := func() { stop(cmd); pw.Close() }
	select {
	case u := <-urls:
		return u, stopServe, nil
	case <-time.After(30 * time.Second):
		stopServe()
		return "", nil, fmt.Errorf("serve printed no URL within 30 s: %w", errNotMeasured)
	}
}

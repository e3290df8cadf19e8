package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// helloMark is internal/bench/wailshello's Mark: the empty Wails window's first frame.
const helloMark = "wailshello: usable"

// ratioRuns is how many launches of each window the launch ratio takes the median of.
const ratioRuns = 5

// ratioBudget is the most the app's launch-to-first-data may be, as a multiple of the
// empty Wails window's launch-to-first-frame on the same machine at the same time.
const ratioBudget = 1.3

// launched is a window started under its own Xvfb by launch: when it was started, how long
// it took to print its mark, and stop, which ends it, its Xvfb and its data folder.
type launched struct {
	start  time.Time
	toMark time.Duration
	cmd    *exec.Cmd
	stop   func()
}

// launch starts bin (no arguments) under a new Xvfb with empty XDG folders and extra in its
// environment, and waits (at most 30 s) for a line of its output containing mark. Every
// line read until then is passed to lines (nil: none) with the moment it was read. The
// caller calls stop.
func launch(bin, mark string, extra []string, lines func(line string, at time.Time)) (launched, error) {
	var l launched
	display, xvfb, err := startXvfb()
	if err != nil {
		return l, err
	}
	env, cleanup, err := isolatedEnv(append([]string{"DISPLAY=" + display, "GTK_IM_MODULE=gtk-im-context-simple"}, extra...)...)
	if err != nil {
		_ = xvfb.Process.Kill()
		_ = xvfb.Wait()
		return l, err
	}
	cmd := exec.Command(bin)
	cmd.Env = env
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	marked := make(chan time.Time, 1)
	// lines is called from this goroutine only, and never after the mark is sent: the
	// caller may read what it gathered once launch returns.
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 4<<20) // the page's timeline is one long line
		done := false
		for sc.Scan() {
			at := time.Now()
			if done {
				continue
			}
			if lines != nil {
				lines(sc.Text(), at)
			}
			if strings.Contains(sc.Text(), mark) {
				done = true
				select {
				case marked <- at:
				default:
				}
			}
		}
	}()
	stopAll := func() {
		stop(cmd)
		pw.Close()
		_ = xvfb.Process.Kill()
		_ = xvfb.Wait()
		cleanup()
	}
	l.start = time.Now()
	if err := cmd.Start(); err != nil {
		pw.Close()
		_ = xvfb.Process.Kill()
		_ = xvfb.Wait()
		cleanup()
		return l, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	l.cmd, l.stop = cmd, stopAll
	select {
	case at := <-marked:
		l.toMark = at.Sub(l.start)
	case <-time.After(30 * time.Second):
		stopAll()
		return l, fmt.Errorf("no %q from %s within 30 s: %w", mark, filepath.Base(bin), errNotMeasured)
	}
	return l, nil
}

// launchRatio launches the empty Wails window (hello) and the app (bin: the window build, as
// the desktop entry starts it) runs times each, interleaved (the order flips every round, so
// neither always follows the other), each with new data folders, and returns the seconds
// to each one's mark.
func launchRatio(bin, hello string, runs int) (app, empty []float64, err error) {
	if _, err := os.Stat(hello); err != nil {
		return nil, nil, fmt.Errorf("no empty Wails window %s (make bench builds it): %w", hello, errNotMeasured)
	}
	one := func(b, mark string) (float64, error) {
		l, err := launch(b, mark, nil, nil)
		if err != nil {
			return 0, err
		}
		l.stop()
		return l.toMark.Seconds(), nil
	}
	for i := 0; i < runs; i++ {
		order := []string{hello, bin}
		if i%2 == 1 {
			order = []string{bin, hello}
		}
		for _, b := range order {
			if b == hello {
				s, err := one(hello, helloMark)
				if err != nil {
					return nil, nil, err
				}
				empty = append(empty, s)
			} else {
				s, err := one(bin, launchMark)
				if err != nil {
					return nil, nil, err
				}
				app = append(app, s)
			}
		}
	}
	return app, empty, nil
}

// measureLaunchRatio adds the launch ratio row (the app's median launch-to-first-data over
// the empty Wails window's median launch-to-first-frame, against ratioBudget, with every
// run in its note) and the two medians as information.
func measureLaunchRatio(bin, hello string, add func(Row)) {
	app, empty, err := launchRatio(bin, hello, ratioRuns)
	var ratio float64
	note := ""
	if err == nil {
		ratio = median(app) / median(empty)
		note = fmt.Sprintf("median of %d interleaved launches each, new data folders, one Xvfb each: %s to the launch mark, runs %s s; empty Wails window (internal/bench/wailshello, same Wails and tags) to its first frame, runs %s s",
			ratioRuns, filepath.Base(bin), secs(app), secs(empty))
	}
	add(row("window launch-to-first-data / empty Wails window (Xvfb)", ratio, err, "ratio", ratioBudget, note))
	add(row("window launch-to-first-data (Xvfb, median of 5 interleaved)", median(app), err, "s", 0, "information: the ratio above is what is held"))
	add(row("empty Wails window launch-to-first-frame (Xvfb, median of 5 interleaved)", median(empty), err, "s", 0, "information"))
}

func secs(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strings.Join(parts, ", ")
}

// step is one moment of the start-up timeline, in ms after the start of the process.
type step struct {
	Name string
	MS   float64
}

var goStep = regexp.MustCompile(`msg=timeline step=("(?:[^"\\]|\\.)*"|\S+) at_us=(\d+)`)

// parseTimeline reads the timeline from the window's output lines: the Go side's
// "msg=timeline step=… at_us=…" lines and the page's "artifactflow: timeline [...]" line,
// each made relative to start.
func parseTimeline(lines []string, start time.Time) ([]step, error) {
	var out []step
	t0 := float64(start.UnixMicro()) / 1000
	for _, l := range lines {
		if m := goStep.FindStringSubmatch(l); m != nil {
			name := m[1]
			if u, err := strconv.Unquote(name); err == nil {
				name = u
			}
			us, _ := strconv.ParseFloat(m[2], 64)
			out = append(out, step{name, us/1000 - t0})
			continue
		}
		if _, js, ok := strings.Cut(l, "artifactflow: timeline "); ok {
			var page []struct {
				Step string  `json:"step"`
				At   float64 `json:"at"`
			}
			if err := json.Unmarshal([]byte(js), &page); err != nil {
				return nil, fmt.Errorf("the page's timeline: %w", err)
			}
			for _, p := range page {
				out = append(out, step{p.Step, p.At - t0})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no timeline in the output (is ARTIFACTFLOW_TIMELINE honoured?): %w", errNotMeasured)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].MS < out[j].MS })
	return out, nil
}

// printTimeline launches the app runs times with ARTIFACTFLOW_TIMELINE=1 and prints, for
// every step, its median time after the process start and its time in each run, then the
// launch mark's.
func printTimeline(w io.Writer, bin string, runs int) error {
	all := map[string][]float64{}
	order := map[string]float64{}
	var marks []float64
	for i := 0; i < runs; i++ {
		var lines []string
		l, err := launch(bin, "artifactflow: timeline ", []string{"ARTIFACTFLOW_TIMELINE=1"}, func(line string, _ time.Time) {
			lines = append(lines, line)
		})
		if err != nil {
			return err
		}
		l.stop()
		steps, err := parseTimeline(lines, l.start)
		if err != nil {
			return err
		}
		for _, s := range steps {
			all[s.Name] = append(all[s.Name], s.MS)
			order[s.Name] += s.MS
		}
		marks = append(marks, l.toMark.Seconds()*1000)
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return median(all[names[i]]) < median(all[names[j]]) })
	fmt.Fprintf(w, "| step | median ms after process start | runs (ms) |\n|---|---|---|\n")
	for _, n := range names {
		fmt.Fprintf(w, "| %s | %.0f | %s |\n", n, median(all[n]), msList(all[n]))
	}
	fmt.Fprintf(w, "| timeline line read (just after the launch mark) | %.0f | %s |\n", median(marks), msList(marks))
	return nil
}

func msList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(parts, ", ")
}

// Package timeline logs the moments of the window's start-up, for finding where the time
// from process start to the first painted data goes (docs/ARCHITECTURE.md, "Start-up").
// It is off unless the environment sets ARTIFACTFLOW_TIMELINE=1; then Mark writes one line
// per step to standard error through log/slog:
//
//	time=… level=INFO msg=timeline step="database open" at_us=1764412345678901 pid=1234
//
// at_us is the wall clock in microseconds since the Unix epoch, the clock the page's marks
// use too (performance.timeOrigin + performance.now()), so `measure -timeline`
// (bench/cmd/measure) can put both on one line from the process start. Off, Mark costs
// one boolean test.
package timeline

import (
	"log/slog"
	"os"
	"time"
)

// Env is the environment variable that turns the timeline on ("1").
const Env = "ARTIFACTFLOW_TIMELINE"

// PagePrefix starts the line the page prints through the Wails runtime's LogPrint with its
// own marks (frontend/src/launchMark.ts): the prefix, a space, then a JSON array of
// {"step": name, "at": epoch milliseconds}. The window prints it only while the timeline
// is on.
const PagePrefix = "artifactflow: timeline"

// on is read once, at package initialisation: the hand-over to the window keeps the
// environment, so both processes of one launch agree.
var on = os.Getenv(Env) == "1"

// started is the earliest moment this package sees: its own initialisation, which runs
// before main and before most other packages' (it imports only the standard library).
var started = time.Now()

var log = slog.New(slog.NewTextHandler(os.Stderr, nil))

// On reports whether the timeline is being logged.
func On() bool { return on }

// Mark logs step at the current time when the timeline is on.
func Mark(step string) { MarkAt(step, time.Now()) }

// MarkAt logs step at t when the timeline is on.
func MarkAt(step string, t time.Time) {
	if !on {
		return
	}
	log.Info("timeline", "step", step, "at_us", t.UnixMicro(), "pid", os.Getpid())
}

// Started logs the moment this package was initialised as step "<name>: Go initialised",
// name being the program (artifactflow or artifactflow-window), when the timeline is on.
func Started(name string) { MarkAt(name+": Go initialised", started) }

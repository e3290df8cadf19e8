// Command wailshello is the empty Wails window `make bench` measures the app's launch
// against (bench/cmd/measure, "window launch-to-first-data, ratio to an empty Wails
// window"): the same Wails module as the app (go.mod's version), built with the same tags
// (desktop,production,webkit2_41,sqlite_fts5), a window of the app's size whose page, on its
// first frame, prints Mark through the Wails runtime's LogPrint, as the app's page prints
// its launch mark (frontend/src/launchMark.ts). It has no Go code of the app's and no
// frontend build: the page is the string below, so it builds offline from the module cache.
//
//	go build -tags desktop,production,webkit2_41,sqlite_fts5 -ldflags "-w -s" -o build/bin/wailshello ./internal/bench/wailshello
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

// started is as early as this program can read the clock (package initialisation).
var started = time.Now()

// timelineOn is ARTIFACTFLOW_TIMELINE=1: then the program logs its start-up steps in the
// app's timeline format (internal/timeline: `msg=timeline step="…" at_us=…` on standard
// error, and the page's "artifactflow: timeline [...]" line after the mark), so
// `measure -timeline N -bin build/bin/wailshello` lays the empty window's start-up beside
// the app's, step by step.
var timelineOn = os.Getenv("ARTIFACTFLOW_TIMELINE") == "1"

// mark logs one start-up step at t when the timeline is on.
func mark(step string, t time.Time) {
	if timelineOn {
		fmt.Fprintf(os.Stderr, "msg=timeline step=%q at_us=%d\n", step, t.UnixMicro())
	}
}

// Mark is the line the page prints once it has painted its first frame.
const Mark = "wailshello: usable"

// page prints Mark on the frame after its first paint; the Wails runtime (window.runtime)
// is injected into the page's head before this script runs.
const page = `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"/><title>Hello</title></head>
<body><p>Hello</p>
<script>
var marks = [{ step: 'page script started', at: performance.timeOrigin + performance.now() }];
function mark() {
  if (window.runtime && window.runtime.LogPrint) {
    marks.push({ step: 'first frame', at: performance.timeOrigin + performance.now() });
    window.runtime.LogPrint(` + "`" + Mark + "`" + `);
    if (TIMELINE) window.runtime.LogPrint('artifactflow: timeline ' + JSON.stringify(marks));
  } else requestAnimationFrame(mark);
}
requestAnimationFrame(mark);
</script>
</body></html>`

func main() {
	mark("wailshello: Go initialised", started)
	body := strings.Replace(page, "TIMELINE", strconv.FormatBool(timelineOn), 1)
	mark("wails.Run", time.Now())
	err := wails.Run(&options.App{
		Title:     "Hello",
		Width:     1280,
		Height:    860,
		MinWidth:  960,
		MinHeight: 600,
		OnStartup: func(context.Context) { mark("Wails OnStartup", time.Now()) },
		AssetServer: &assetserver.Options{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mark("asset asked: "+r.URL.Path, time.Now())
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, body)
		})},
		BackgroundColour: &options.RGBA{R: 248, G: 249, B: 251, A: 1},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "wailshello:", err)
		os.Exit(1)
	}
}

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
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

// Mark is the line the page prints once it has painted its first frame.
const Mark = "wailshello: usable"

// page prints Mark on the frame after its first paint; the Wails runtime (window.runtime)
// is injected into the page's head before this script runs.
const page = `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8"/><title>Hello</title></head>
<body><p>Hello</p>
<script>
function mark() {
  if (window.runtime && window.runtime.LogPrint) window.runtime.LogPrint(` + "`" + Mark + "`" + `);
  else requestAnimationFrame(mark);
}
requestAnimationFrame(mark);
</script>
</body></html>`

func main() {
	err := wails.Run(&options.App{
		Title:     "Hello",
		Width:     1280,
		Height:    860,
		MinWidth:  960,
		MinHeight: 600,
		AssetServer: &assetserver.Options{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, page)
		})},
		BackgroundColour: &options.RGBA{R: 248, G: 249, B: 251, A: 1},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "wailshello:", err)
		os.Exit(1)
	}
}

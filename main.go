// Command artifactflow is the ArtifactFlow Desktop window and its command line
// (DESIGN.md, "Command line"). All logic lives in package app and backend/; this package
// only wires Wails (window.go), which no other package imports.
//
// Built with the tag nowindow (nowindow.go), it is the command line and browser mode alone:
// no Wails, GTK or WebKit is linked, so a command such as `ask` or `--help` starts in about
// a third of the memory (WebKitGTK's libraries cost about 48 MB of RSS to any process that
// links them, before main runs; see docs/ARCHITECTURE.md, "Start-up").
package main

import (
	"context"
	"embed"
	"io/fs"
	"os"

	"artifactflow/app"
)

//go:embed all:frontend/dist
var assets embed.FS

func main() {
	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	os.Exit(app.Main(context.Background(), app.Env{
		Args: os.Args[1:], Stdout: os.Stdout, Stderr: os.Stderr, Assets: dist, Window: window,
	}))
}

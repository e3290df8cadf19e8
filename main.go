// Command artifactflow is the ArtifactFlow Desktop window and its command line. All
// logic lives in package app (the bound services), app/cli (the commands),
// app/browser (browser mode) and backend/; this package only wires Wails
// (window.go), which no other package imports.
//
// Built with the tag nowindow (nowindow.go), it is the command line and browser mode alone:
// no Wails, GTK or WebKit is linked, so a command such as `ask` or `--help` starts in about
// a third of the memory (WebKitGTK's libraries cost about 48 MB of RSS to any process that
// links them, before main runs; see docs/ARCHITECTURE.md, "Start-up"). `make build`
// installs that build as `artifactflow` and the desktop build beside it as
// `artifactflow-window`; asked for the window, the first hands over to the second
// (launcher.go), and the parsers' child processes run the first.
package main

import (
	"context"
	"embed"
	"io/fs"
	"os"
	"path/filepath"

	"artifactflow/app/cli"
	"artifactflow/app/gzfs"
	"artifactflow/backend/sandbox"
	"artifactflow/internal/timeline"
)

// assetsGz is frontend/distgz: the built frontend gzip-compressed, file by file, as `npm
// run build` writes it beside frontend/dist (frontend/scripts/gzip-dist.mjs); 0.4 MB in
// the binary instead of 2.2 MB.
//
//go:embed all:frontend/distgz
var assetsGz embed.FS

// assets is the built frontend with index.html at its root, decompressed as it is read.
var assets = func() fs.FS {
	sub, err := fs.Sub(assetsGz, "frontend/distgz")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return gzfs.New(sub)
}()

func main() {
	sandbox.CheckUnhandled() // a parser's child for a job this build does not serve
	useLightJobHost()        // the window build started directly: jobs run in the light build beside it
	if timeline.On() {
		name := filepath.Base(os.Args[0])
		timeline.Started(name)
		timeline.Mark(name + ": main")
	}
	dist := assets
	os.Exit(cli.Main(context.Background(), cli.Env{
		Args: os.Args[1:], Stdout: os.Stdout, Stderr: os.Stderr, Assets: dist, Window: window,
		LaunchWindow: launch, StartFailed: showStartError,
	}))
}

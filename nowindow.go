//go:build nowindow

package main

import "artifactflow/app/cli"

// window is nil in a build without the desktop window (tag nowindow): asked for the
// window, this build hands it to artifactflow-window beside it (launchWindow), or says the
// window is not installed.
var window cli.WindowFunc

// launch hands the window to artifactflow-window (launcher.go).
var launch cli.LaunchFunc = launchWindow

// showStartError is nil: this build shows start errors on stderr only (the window process,
// artifactflow-window, shows its own).
var showStartError func(error)

// useLightJobHost does nothing here: this build is the light job host itself.
func useLightJobHost() {}

//go:build nowindow

package main

import "artifactflow/app"

// window is nil in a build without the desktop window (tag nowindow): asked for the
// window, this build hands it to artifactflow-window beside it (launchWindow), or says the
// window is not installed.
var window app.WindowFunc

// launch hands the window to artifactflow-window (launcher.go).
var launch app.LaunchFunc = launchWindow

//go:build nowindow

package main

import "artifactflow/app"

// window is nil in a build without the desktop window (tag nowindow): opening the window
// then fails with "this build has no window; use ask or serve" (app.Main).
var window app.WindowFunc

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"artifactflow/backend/sandbox"
)

// windowName is the desktop build that the window-less build (tag nowindow, installed as
// `artifactflow`) hands the window to; it lies beside it (`make build` gives both).
const windowName = "artifactflow-window"

// launchWindow is the window-less build's cli.LaunchFunc: it finds artifactflow-window
// beside this executable (symbolic links resolved) and runs it with the same arguments in
// this process's place (execWindow: on Unix the same process, by execve; on Windows a
// child whose exit code becomes ours). ARTIFACTFLOW_JOB_HOST names this executable, so the
// window's parsers run in children of this light binary rather than of the one that links
// WebKitGTK (backend/sandbox).
func launchWindow(args []string) (int, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err == nil {
		self, err = filepath.Abs(self)
	}
	if err != nil {
		return 0, fmt.Errorf("cannot find this executable to start the window beside it: %w", err)
	}
	win := windowPath(self)
	if fi, err := os.Stat(win); err != nil || !fi.Mode().IsRegular() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("the window is not installed next to %s; `artifactflow serve` opens the same UI in your browser", self)
		}
		return 0, fmt.Errorf("the window %s: %w", win, err)
	}
	return execWindow(win, args, withEnv(os.Environ(), sandbox.EnvJobHost, self))
}

// windowPath returns where the window build lies for the executable self.
func windowPath(self string) string {
	name := windowName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(filepath.Dir(self), name)
}

// withEnv returns env with key set to value (any earlier setting of key dropped).
func withEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == key || (runtime.GOOS == "windows" && strings.EqualFold(k, key)) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+value)
}

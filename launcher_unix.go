//go:build !windows

package main

import (
	"fmt"
	"syscall"

	"artifactflow/internal/timeline"
)

// execWindow replaces this process with the window build at path (execve): the same pid,
// the same standard streams, so whoever started `artifactflow` (a terminal, a desktop
// entry, a test that signals the pid) now holds the window. It returns only on failure.
func execWindow(path string, args, env []string) (int, error) {
	timeline.Mark("exec hand-over")
	err := syscall.Exec(path, append([]string{path}, args...), env)
	return 0, fmt.Errorf("start the window %s: %w", path, err)
}

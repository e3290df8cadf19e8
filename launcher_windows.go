//go:build windows

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// execWindow runs the window build at path as a child with this process's standard
// streams and returns its exit code (Windows has no execve). Ctrl-C reaches the child,
// which is in the same console; this process waits for it instead of ending first.
func execWindow(path string, args, env []string) (int, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start the window %s: %w", path, err)
	}
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("the window %s: %w", path, err)
	}
	return 0, nil
}

//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// killGroup starts the hook in a process group of its own and makes the cancellation of
// its context (timeout or Stop) kill the whole group, so a script's children (a sleep, a
// pipeline) die with it instead of holding its pipes open.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}

//go:build windows

package procgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// createNewProcessGroup is CREATE_NEW_PROCESS_GROUP: the child does not get the console's
// Ctrl-C meant for the app, and leads the tree Kill ends.
const createNewProcessGroup = 0x00000200

func own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: createNewProcessGroup}
}

// killGroup ends the process tree of pid with the system's taskkill (/T: the process and
// every process it started, /F: at once).
func killGroup(pid int) error {
	taskkill := filepath.Join(os.Getenv("SystemRoot"), "System32", "taskkill.exe")
	if os.Getenv("SystemRoot") == "" {
		taskkill = "taskkill.exe"
	}
	kill := exec.Command(taskkill, "/T", "/F", "/PID", strconv.Itoa(pid))
	kill.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
	return kill.Run()
}

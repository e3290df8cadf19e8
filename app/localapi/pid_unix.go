//go:build unix

package localapi

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this id exists (signal 0 reaches it, or it
// exists but belongs to someone else).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

//go:build !unix

package localapi

import "os"

// pidAlive reports whether a process with this id exists: on Windows, FindProcess opens
// the process and fails when there is none.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

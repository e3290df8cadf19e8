//go:build !windows

package netcause

import "syscall"

// refused reports a connection refused (ECONNREFUSED).
func refused(err error) bool { return errnoIs(err, syscall.ECONNREFUSED) }

// unreachable reports a network or host that cannot be reached.
func unreachable(err error) bool {
	return errnoIs(err, syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.ENETDOWN, syscall.EHOSTDOWN)
}

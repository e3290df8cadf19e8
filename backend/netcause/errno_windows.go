//go:build windows

package netcause

import "golang.org/x/sys/windows"

// refused reports a connection refused (WSAECONNREFUSED: "No connection could be made
// because the target machine actively refused it").
func refused(err error) bool { return errnoIs(err, windows.WSAECONNREFUSED) }

// unreachable reports a network or host that cannot be reached.
func unreachable(err error) bool {
	return errnoIs(err, windows.WSAENETUNREACH, windows.WSAEHOSTUNREACH, windows.WSAENETDOWN, windows.WSAEHOSTDOWN)
}

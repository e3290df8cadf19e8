//go:build !windows && !(darwin && cgo)

package netproxy

import "golang.org/x/net/http/httpproxy"

// systemConfig returns nil: on Linux and the BSDs the system proxy is the environment
// variables, which Resolve reads before it asks the system.
func systemConfig() *httpproxy.Config { return nil }

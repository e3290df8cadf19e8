//go:build windows || (darwin && cgo)

package netproxy

import (
	"sync"

	"github.com/mattn/go-ieproxy"
	"golang.org/x/net/http/httpproxy"
)

// systemMu serializes reading the system setting: ieproxy keeps what it read in a package
// variable without a lock.
var systemMu sync.Mutex

// systemConfig reads the system's static proxy setting now (Windows: WinHTTP's view of the
// user's Internet Options, else the registry; macOS: CFNetwork's system proxy settings),
// or returns nil when none is set.
func systemConfig() *httpproxy.Config {
	systemMu.Lock()
	defer systemMu.Unlock()
	s := ieproxy.ReloadConf().Static
	return staticConfig(s.Active, s.Protocols, s.NoProxy)
}

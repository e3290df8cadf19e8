package app

import (
	"net/http"
	"net/url"
	"sync"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/netproxy"
)

// proxyOf is the proxy function of the settings' proxy (config.Settings.Proxy, resolved
// by netproxy.Resolve against this process's environment and, for "", the system's
// setting now). A setting that does not resolve (a hand-edited config.json is not
// validated on load) gives a function that fails every request with the reason, so the
// user sees what to fix instead of requests going out another way.
func proxyOf(s config.Settings) (netproxy.Func, netproxy.Source) {
	f, src, err := netproxy.Resolve(s.Proxy, nil)
	if err != nil {
		err = &proxySettingError{err: err}
		return func(*http.Request) (*url.URL, error) { return nil, err }, netproxy.Source{Kind: "invalid"}
	}
	return f, src
}

// proxySettingError is the error of every request while the proxy setting is invalid.
type proxySettingError struct{ err error }

func (e *proxySettingError) Error() string {
	return "the proxy in Settings cannot be used (" + e.err.Error() + ")"
}
func (e *proxySettingError) Unwrap() error { return e.err }

// transports holds one transport per proxy in effect, shared by every model and search
// client made while that proxy stays the same, so their connections are pooled as they
// were on http.DefaultTransport.
var transports struct {
	sync.Mutex
	m map[string]*http.Transport
}

// proxyClient returns an http.Client with timeout (0: none) whose requests go through the
// settings' proxy (proxyOf): model calls and web searches. Requests to loopback addresses
// never do.
func proxyClient(s config.Settings, timeout time.Duration) *http.Client {
	f, src := proxyOf(s)
	key := netproxy.Normalize(s.Proxy) + "\x00" + src.Kind + "\x00" + src.Proxy
	transports.Lock()
	defer transports.Unlock()
	t := transports.m[key]
	if t == nil || src.Kind == "invalid" {
		if transports.m == nil {
			transports.m = map[string]*http.Transport{}
		}
		t = netproxy.Transport(f)
		transports.m[key] = t
	}
	return &http.Client{Timeout: timeout, Transport: t}
}

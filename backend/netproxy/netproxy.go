// Package netproxy chooses the proxy of every outgoing request of the app: page fetches,
// web searches and model calls (docs/ARCHITECTURE.md, "Security" and "Settings and
// models"). The choice is one setting, config.json's "proxy":
//
//   - "" (the default) follows the system: the HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and
//     NO_PROXY environment variables (upper or lower case) when any proxy variable is set,
//     else on macOS and Windows the proxy set in the system's network settings (a static
//     HTTP, HTTPS or SOCKS proxy; an automatic-configuration script is not run), else none;
//   - "direct" (or "none") uses no proxy at all;
//   - an http://, https://, socks5:// or socks5h:// URL with a host sends every request
//     through that proxy.
//
// Requests to localhost and loopback addresses never go through a proxy (a local model
// server or SearXNG is reached directly), and neither do hosts NO_PROXY lists.
package netproxy

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// Values of the proxy setting besides a URL.
const (
	// System follows the environment variables, else the operating system's setting.
	System = ""
	// Direct uses no proxy; None is another spelling of it.
	Direct = "direct"
	None   = "none"
)

// ErrInvalid is wrapped by every error for a proxy setting that is neither System, Direct,
// None nor a usable proxy URL.
var ErrInvalid = errors.New("invalid proxy")

// Func is the proxy function of an http.Transport: the proxy URL for a request, or nil for
// a direct connection.
type Func = func(*http.Request) (*url.URL, error)

// Validate checks a proxy setting: "", "direct", "none" (any case, surrounding space
// ignored) or an absolute URL whose scheme is http, https, socks5 or socks5h, with a host,
// a port (when written) from 1 to 65535, and no path, query or fragment. Errors wrap
// ErrInvalid, name what is wrong and never quote a password the URL holds.
func Validate(setting string) error {
	_, err := parse(setting)
	return err
}

// Normalize returns the setting as stored: trimmed, Direct for "direct" and "none" in any
// case, else the setting itself. It does not validate.
func Normalize(setting string) string {
	s := strings.TrimSpace(setting)
	switch strings.ToLower(s) {
	case Direct, None:
		return Direct
	}
	return s
}

// Redacted returns the setting for display: a proxy URL with its password replaced by
// "xxxxx" (url.URL.Redacted), anything else as it is.
func Redacted(setting string) string {
	if u, err := parse(setting); err == nil && u != nil {
		return u.Redacted()
	}
	return setting
}

// parse returns the proxy URL of a URL setting, nil for System and Direct.
func parse(setting string) (*url.URL, error) {
	s := Normalize(setting)
	if s == System || s == Direct {
		return nil, nil
	}
	if !strings.Contains(s, "://") {
		shown := s
		if i := strings.LastIndex(s, "@"); i >= 0 {
			shown = s[i+1:] // without the user name and password
		}
		return nil, fmt.Errorf("%w: %q has no scheme; write http://%s or socks5://%s", ErrInvalid, shown, shown, shown)
	}
	u, err := url.Parse(s)
	if err != nil {
		reason := err.Error()
		var ue *url.Error
		if errors.As(err, &ue) {
			reason = ue.Err.Error() // without the URL, which may hold a password
		}
		return nil, fmt.Errorf("%w: not a URL (%s); write http://host:port, socks5://host:port, direct or leave it empty for the system's", ErrInvalid, reason)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("%w: scheme %q is not http, https, socks5 or socks5h", ErrInvalid, u.Scheme)
	}
	if u.Hostname() == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%w: %s has no host", ErrInvalid, u.Redacted())
	}
	if p := u.Port(); p != "" {
		if n, err := net.LookupPort("tcp", p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: %s: port %q is not 1–65535", ErrInvalid, u.Redacted(), p)
		}
	}
	if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: %s must not have a path, query or fragment", ErrInvalid, u.Redacted())
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Path = ""
	return u, nil
}

// Source says where the proxy of a setting comes from, for the Settings dialog.
type Source struct {
	// Kind is "direct" (no proxy), "environment" (proxy variables), "system" (the
	// operating system's setting) or "setting" (the URL of the setting).
	Kind string
	// Proxy is the proxy used for https URLs (else for http ones) with any password
	// redacted, or "" when requests go direct.
	Proxy string
}

// Resolve returns the proxy function of setting, and where its proxy comes from. getenv
// reads the environment (os.Getenv when nil). For System the operating system's setting
// is read now, so a proxy switched on or off in the system applies to the clients made
// after it. Errors: those of Validate.
func Resolve(setting string, getenv func(string) string) (Func, Source, error) {
	u, err := parse(setting)
	if err != nil {
		return nil, Source{}, err
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	noProxy := firstEnv(getenv, "NO_PROXY", "no_proxy")
	switch {
	case Normalize(setting) == Direct:
		return direct, Source{Kind: "direct"}, nil
	case u != nil:
		cfg := &httpproxy.Config{HTTPProxy: u.String(), HTTPSProxy: u.String(), NoProxy: noProxy}
		return funcOf(cfg), Source{Kind: "setting", Proxy: u.Redacted()}, nil
	}
	if cfg := envConfig(getenv); cfg != nil {
		return funcOf(cfg), Source{Kind: "environment", Proxy: shown(cfg)}, nil
	}
	if cfg := systemConfig(); cfg != nil {
		return funcOf(cfg), Source{Kind: "system", Proxy: shown(cfg)}, nil
	}
	return direct, Source{Kind: "direct"}, nil
}

// envConfig reads the proxy variables, or returns nil when none of HTTPS_PROXY, HTTP_PROXY
// and ALL_PROXY (upper or lower case) is set. ALL_PROXY stands in for whichever of the
// other two is not set, as curl reads it; REQUEST_METHOD set (a CGI program) makes
// HTTP_PROXY ignored, as net/http does.
func envConfig(getenv func(string) string) *httpproxy.Config {
	all := firstEnv(getenv, "ALL_PROXY", "all_proxy")
	cfg := &httpproxy.Config{
		HTTPProxy:  firstEnv(getenv, "HTTP_PROXY", "http_proxy"),
		HTTPSProxy: firstEnv(getenv, "HTTPS_PROXY", "https_proxy"),
		NoProxy:    firstEnv(getenv, "NO_PROXY", "no_proxy"),
		CGI:        getenv("REQUEST_METHOD") != "",
	}
	if cfg.CGI {
		cfg.HTTPProxy = ""
	}
	if cfg.HTTPProxy == "" && cfg.HTTPSProxy == "" && all == "" {
		return nil
	}
	if cfg.HTTPProxy == "" && !cfg.CGI {
		cfg.HTTPProxy = all
	}
	if cfg.HTTPSProxy == "" {
		cfg.HTTPSProxy = all
	}
	return cfg
}

// firstEnv returns the first of names that is set, or "".
func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// funcOf adapts an httpproxy configuration (which never proxies localhost and loopback
// addresses) to a Transport's proxy function.
func funcOf(cfg *httpproxy.Config) Func {
	f := cfg.ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return f(r.URL) }
}

// direct is the proxy function of Direct.
func direct(*http.Request) (*url.URL, error) { return nil, nil }

// shown is the proxy cfg uses for an https URL, else for an http URL, with any password
// redacted, as httpproxy reads it ("host:port" means http://host:port).
func shown(cfg *httpproxy.Config) string {
	for _, target := range []string{"https://example.com", "http://example.com"} {
		u, _ := url.Parse(target)
		if p, err := cfg.ProxyFunc()(u); err == nil && p != nil {
			return p.Redacted()
		}
	}
	return ""
}

// Transport returns a transport like http.DefaultTransport (its timeouts, keep-alives and
// HTTP/2) whose proxy is proxy (nil: none).
func Transport(proxy Func) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = proxy
	return t
}

// Client returns an http.Client with timeout (0: none) on Transport(proxy).
func Client(proxy Func, timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: Transport(proxy)}
}

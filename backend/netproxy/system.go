package netproxy

import (
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// staticConfig turns the operating system's static proxy setting into an httpproxy
// configuration, or nil when it is off or names no proxy. protocols maps a scheme to
// "host:port" as the system lists it: "http", "https", "socks", or "" for every scheme
// (Windows' single "host:port"); a SOCKS proxy is used only when no HTTP(S) one is set.
// bypass is the system's exception list, comma-separated; Windows' "<local>" (names
// without a dot) is left out, loopback is never proxied anyway.
func staticConfig(active bool, protocols map[string]string, bypass string) *httpproxy.Config {
	if !active {
		return nil
	}
	pick := func(scheme string) string {
		if v := strings.TrimSpace(protocols[scheme]); v != "" {
			return v
		}
		return strings.TrimSpace(protocols[""])
	}
	cfg := &httpproxy.Config{HTTPProxy: pick("http"), HTTPSProxy: pick("https")}
	if cfg.HTTPProxy == "" && cfg.HTTPSProxy == "" {
		socks := strings.TrimSpace(protocols["socks"])
		if socks == "" {
			return nil
		}
		if !strings.Contains(socks, "://") {
			socks = "socks5://" + socks
		}
		cfg.HTTPProxy, cfg.HTTPSProxy = socks, socks
	}
	var keep []string
	for _, h := range strings.FieldsFunc(bypass, func(r rune) bool { return r == ',' || r == ';' }) {
		if h = strings.TrimSpace(h); h != "" && !strings.EqualFold(h, "<local>") {
			keep = append(keep, h)
		}
	}
	cfg.NoProxy = strings.Join(keep, ",")
	return cfg
}

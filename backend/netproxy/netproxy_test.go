package netproxy

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		setting string
		ok      bool
		says    string // part of the error
	}{
		{"", true, ""},
		{"direct", true, ""},
		{" None ", true, ""},
		{"DIRECT", true, ""},
		{"http://127.0.0.1:7890", true, ""},
		{"https://proxy.corp.example:8443", true, ""},
		{"socks5://127.0.0.1:1080", true, ""},
		{"socks5h://user:pw@[::1]:1080/", true, ""},
		{"HTTP://Proxy:3128", true, ""},
		{"127.0.0.1:7890", false, "has no scheme"},
		{"ftp://proxy:21", false, `scheme "ftp"`},
		{"http://", false, "has no host"},
		{"http://proxy:99999", false, "is not 1–65535"},
		{"http://proxy:0", false, "is not 1–65535"},
		{"http://proxy:8080/path", false, "must not have a path"},
		{"http://user:secret@proxy:8080/?q=1", false, "must not have a path"},
		{"http://pro xy:80", false, "not a URL"},
		{"system", false, "has no scheme"},
		{"me:secret@proxy:3128", false, "http://proxy:3128"},
	}
	for _, tc := range tests {
		t.Run(tc.setting, func(t *testing.T) {
			err := Validate(tc.setting)
			if tc.ok {
				if err != nil {
					t.Fatalf("Validate(%q) = %v, want nil", tc.setting, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Validate(%q) = %v, want ErrInvalid saying %q", tc.setting, err, tc.says)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error quotes the password: %v", err)
			}
		})
	}
}

func TestNormalizeAndRedacted(t *testing.T) {
	if got := Normalize(" NONE "); got != Direct {
		t.Errorf("Normalize(NONE) = %q", got)
	}
	if got := Normalize(" http://p:1 "); got != "http://p:1" {
		t.Errorf("Normalize(url) = %q", got)
	}
	if got := Redacted("http://user:secret@p:1"); got != "http://user:xxxxx@p:1" {
		t.Errorf("Redacted = %q", got)
	}
	if got := Redacted("direct"); got != "direct" {
		t.Errorf("Redacted(direct) = %q", got)
	}
}

// proxyOf returns the proxy f picks for target ("" for direct).
func proxyOf(t *testing.T, f Func, target string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := f(req)
	if err != nil {
		t.Fatalf("proxy for %s: %v", target, err)
	}
	if u == nil {
		return ""
	}
	return u.String()
}

func TestResolve(t *testing.T) {
	type pick struct{ target, proxy string }
	tests := []struct {
		name    string
		setting string
		env     map[string]string
		kind    string
		shown   string
		picks   []pick
	}{
		{name: "nothing set", kind: "direct", picks: []pick{{"https://api.openai.com/v1", ""}}},
		{name: "https_proxy", env: map[string]string{"HTTPS_PROXY": "http://127.0.0.1:7890"}, kind: "environment",
			shown: "http://127.0.0.1:7890", picks: []pick{
				{"https://api.openai.com/v1", "http://127.0.0.1:7890"},
				{"http://example.com/", ""}, // HTTP_PROXY not set
				{"http://localhost:11434/v1", ""},
				{"https://127.0.0.1:8888/search", ""},
			}},
		{name: "lower case and no_proxy", env: map[string]string{"https_proxy": "http://p:1", "http_proxy": "http://p:2", "no_proxy": ".corp.example"},
			kind: "environment", shown: "http://p:1", picks: []pick{
				{"https://news.example/", "http://p:1"},
				{"http://news.example/", "http://p:2"},
				{"https://wiki.corp.example/", ""},
			}},
		{name: "all_proxy fills in", env: map[string]string{"ALL_PROXY": "socks5://127.0.0.1:1080", "HTTP_PROXY": "http://p:2"},
			kind: "environment", shown: "socks5://127.0.0.1:1080", picks: []pick{
				{"https://news.example/", "socks5://127.0.0.1:1080"},
				{"http://news.example/", "http://p:2"},
			}},
		{name: "direct wins over the environment", setting: "direct", env: map[string]string{"HTTPS_PROXY": "http://p:1"}, kind: "direct",
			picks: []pick{{"https://news.example/", ""}}},
		{name: "none is direct", setting: "none", env: map[string]string{"ALL_PROXY": "http://p:1"}, kind: "direct",
			picks: []pick{{"http://news.example/", ""}}},
		{name: "setting wins over the environment", setting: "socks5://127.0.0.1:1080", env: map[string]string{"HTTPS_PROXY": "http://p:1", "NO_PROXY": "intranet.example"},
			kind: "setting", shown: "socks5://127.0.0.1:1080", picks: []pick{
				{"https://news.example/", "socks5://127.0.0.1:1080"},
				{"http://news.example/", "socks5://127.0.0.1:1080"},
				{"http://localhost:11434/v1", ""},
				{"http://[::1]:8888/", ""},
				{"https://intranet.example/", ""},
			}},
		{name: "password redacted in what is shown", setting: "http://me:secret@proxy.example:3128", kind: "setting",
			shown: "http://me:xxxxx@proxy.example:3128", picks: []pick{{"https://news.example/", "http://me:secret@proxy.example:3128"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, src, err := Resolve(tc.setting, func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if src.Kind != tc.kind || src.Proxy != tc.shown {
				t.Errorf("source = %+v, want %s %q", src, tc.kind, tc.shown)
			}
			for _, p := range tc.picks {
				if got := proxyOf(t, f, p.target); got != p.proxy {
					t.Errorf("proxy for %s = %q, want %q", p.target, got, p.proxy)
				}
			}
		})
	}
	if _, _, err := Resolve("127.0.0.1:7890", nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Resolve of an invalid setting: %v", err)
	}
}

// TestStaticConfig covers how the macOS and Windows system settings (as go-ieproxy lists
// them) become a proxy choice.
func TestStaticConfig(t *testing.T) {
	tests := []struct {
		name      string
		active    bool
		protocols map[string]string
		bypass    string
		picks     map[string]string // target → proxy
	}{
		{"off", false, map[string]string{"": "127.0.0.1:7890"}, "", nil},
		{"one for all (Windows)", true, map[string]string{"": "127.0.0.1:7890"}, "<local>;*.corp.example",
			map[string]string{"https://news.example/": "http://127.0.0.1:7890", "http://news.example/": "http://127.0.0.1:7890",
				"https://wiki.corp.example/": "", "http://printer/": "http://127.0.0.1:7890"}},
		{"per scheme (macOS)", true, map[string]string{"http": "10.1.1.1:3128", "https": "10.1.1.1:3129"}, "*.local,169.254.0.0/16",
			map[string]string{"https://news.example/": "http://10.1.1.1:3129", "http://news.example/": "http://10.1.1.1:3128",
				"http://nas.local/": "", "http://169.254.1.1/": ""}},
		{"socks only", true, map[string]string{"socks": "127.0.0.1:1080"}, "",
			map[string]string{"https://news.example/": "socks5://127.0.0.1:1080"}},
		{"active without a proxy", true, map[string]string{}, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := staticConfig(tc.active, tc.protocols, tc.bypass)
			if tc.picks == nil {
				if cfg != nil {
					t.Fatalf("config = %+v, want none", cfg)
				}
				return
			}
			if cfg == nil {
				t.Fatal("no config")
			}
			for target, want := range tc.picks {
				if got := proxyOf(t, funcOf(cfg), target); got != want {
					t.Errorf("proxy for %s = %q, want %q", target, got, want)
				}
			}
		})
	}
}

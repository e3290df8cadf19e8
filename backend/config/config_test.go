package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSaveLoadRoundTripAndMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	in := Settings{BaseURL: "http://localhost:11434/v1", APIKey: "sk-secret", Model: "qwen3", ToolCallMode: "xml", SearxngURL: "http://localhost:8888"}
	if err := Save(dir, in); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("config.json mode = %v, want 0600", st.Mode().Perm())
	}
	out, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: got %+v want %+v", out, in)
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		content *string
		wantErr bool
	}{
		{"missing file is empty settings", nil, false},
		{"valid", ptr(`{"model":"m"}`), false},
		{"broken json", ptr(`{"model":`), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.content != nil {
				if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(*tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		s    Settings
		ok   bool
	}{
		{"empty ok", Settings{}, true},
		{"good", Settings{BaseURL: "https://api.deepseek.com/v1", ToolCallMode: "native"}, true},
		{"bad base url", Settings{BaseURL: "localhost:1234"}, false},
		{"ftp base url", Settings{BaseURL: "ftp://x/v1"}, false},
		{"bad searxng", Settings{SearxngURL: "nope"}, false},
		{"bad mode", Settings{ToolCallMode: "json"}, false},
		{"upload limit", Settings{MaxUploadMB: 100}, true},
		{"context and compaction", Settings{ContextWindow: 8192, CompactAtPercent: 70}, true},
		{"tiny context window", Settings{ContextWindow: 100}, false},
		{"compaction too late", Settings{CompactAtPercent: 99}, false},
		{"confirm web_fetch", Settings{ToolPermissions: map[string]string{"web_fetch": "confirm"}}, true},
		{"unknown policy", Settings{ToolPermissions: map[string]string{"web_fetch": "ask"}}, false},
		{"negative upload limit", Settings{MaxUploadMB: -1}, false},
		{"huge upload limit", Settings{MaxUploadMB: MaxUploadMBLimit + 1}, false},
		{"images ask", Settings{LoadRemoteImages: LoadImagesAsk}, true},
		{"images always", Settings{LoadRemoteImages: LoadImagesAlways}, true},
		{"images unknown", Settings{LoadRemoteImages: "never"}, false},
		{"proxy system", Settings{Proxy: ""}, true},
		{"proxy direct", Settings{Proxy: "direct"}, true},
		{"proxy none", Settings{Proxy: "none"}, true},
		{"proxy http", Settings{Proxy: "http://127.0.0.1:7890"}, true},
		{"proxy socks5", Settings{Proxy: "socks5://127.0.0.1:1080"}, true},
		{"proxy without scheme", Settings{Proxy: "127.0.0.1:7890"}, false},
		{"proxy ftp", Settings{Proxy: "ftp://proxy:21"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if tc.ok != (err == nil) {
				t.Fatalf("Validate() = %v, ok want %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
	if err := Save(t.TempDir(), Settings{ToolCallMode: "bad"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Save of invalid settings = %v, want ErrInvalid", err)
	}
}

func TestMergeAndDataDir(t *testing.T) {
	base := Settings{BaseURL: "http://a/v1", Model: "m1", APIKey: "k1"}
	got := base.Merge(Settings{Model: "m2", AllowPrivateNetwork: true, Proxy: "direct"})
	want := Settings{BaseURL: "http://a/v1", Model: "m2", APIKey: "k1", AllowPrivateNetwork: true, Proxy: "direct"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Merge = %+v want %+v", got, want)
	}
	t.Setenv("ARTIFACTFLOW_HOME", "/tmp/af-env")
	if d, _ := DataDir(""); d != "/tmp/af-env" {
		t.Fatalf("DataDir from env = %q", d)
	}
	if d, _ := DataDir("/tmp/af-flag"); d != "/tmp/af-flag" {
		t.Fatalf("DataDir flag = %q", d)
	}
	t.Setenv("ARTIFACTFLOW_HOME", "")
	if d, err := DataDir(""); err != nil || filepath.Base(d) != "ArtifactFlow" {
		t.Fatalf("DataDir default = %q, %v", d, err)
	}
}

func ptr(s string) *string { return &s }

// TestModelContext covers a threshold per model: each model keeps its own
// window and threshold, models without an entry follow the Settings-wide values and then
// the defaults, a zero entry is removed, and Merge lays flag entries over the file's.
func TestModelContext(t *testing.T) {
	s := Settings{CompactAtPercent: 75}.
		WithModelContext("qwen3:8b", ModelContext{ContextWindow: 40_960, CompactAtPercent: 70}).
		WithModelContext(" gpt-4o ", ModelContext{ContextWindow: 100_000})
	tests := []struct {
		model       string
		window, pct int
	}{
		{"qwen3:8b", 40_960, 70},
		{"gpt-4o", 100_000, 75},  // its own window, the Settings-wide threshold
		{" gpt-4o", 100_000, 75}, // names are trimmed
		{"deepseek-chat", 0, 75}, // no entry: by model name, Settings-wide threshold
	}
	for _, tc := range tests {
		w, p := s.ContextFor(tc.model)
		if w != tc.window || p != tc.pct {
			t.Errorf("ContextFor(%q) = %d, %d; want %d, %d", tc.model, w, p, tc.window, tc.pct)
		}
	}
	if w, p := (Settings{}).ContextFor("x"); w != 0 || p != DefaultCompactAtPercent {
		t.Errorf("empty settings: ContextFor = %d, %d; want 0, %d", w, p, DefaultCompactAtPercent)
	}
	cleared := s.WithModelContext("qwen3:8b", ModelContext{})
	if _, ok := cleared.Models["qwen3:8b"]; ok {
		t.Error("a zero ModelContext should remove the entry")
	}
	if _, ok := s.Models["qwen3:8b"]; !ok {
		t.Error("WithModelContext changed the settings it was called on")
	}
	merged := s.Merge(Settings{Models: map[string]ModelContext{"qwen3:8b": {ContextWindow: 8192}}})
	if w, _ := merged.ContextFor("qwen3:8b"); w != 8192 {
		t.Errorf("Merge: qwen3:8b window = %d, want 8192", w)
	}
	if w, _ := merged.ContextFor("gpt-4o"); w != 100_000 {
		t.Errorf("Merge lost gpt-4o's entry: %d", w)
	}
	bad := Settings{Models: map[string]ModelContext{"m": {ContextWindow: 100}, "n": {CompactAtPercent: 20}, " ": {}}}
	err := bad.Validate()
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("Validate of bad model entries = %v", err)
	}
	for _, want := range []string{"models: m: context_window", "models: n: compact_at_percent", "model name is empty"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestLoadMovesOldContextIntoModel: a config.json from before per-model settings keeps the
// user's window and threshold, now under the model that was chosen then.
func TestLoadMovesOldContextIntoModel(t *testing.T) {
	dir := t.TempDir()
	old := `{"model":"qwen3:8b","context_window":16384,"compact_at_percent":60}`
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w, p := s.ContextFor("qwen3:8b"); w != 16384 || p != 60 {
		t.Fatalf("qwen3:8b = %d, %d; want 16384, 60", w, p)
	}
	if w, p := s.ContextFor("other"); w != 0 || p != DefaultCompactAtPercent {
		t.Fatalf("another model inherited the old values: %d, %d", w, p)
	}
}

// TestUploadLimitBounded checks that an upload limit in a hand-edited config.json is held
// within 1–MaxUploadMBLimit MiB when the settings are used (the dialog refuses such
// values; the file is not validated on load).
func TestUploadLimitBounded(t *testing.T) {
	tests := []struct {
		file string
		want int
	}{
		{`{"max_upload_mb": 100000}`, MaxUploadMBLimit},
		{`{"max_upload_mb": 1024}`, MaxUploadMBLimit},
		{`{"max_upload_mb": -5}`, DefaultMaxUploadMB},
		{`{"max_upload_mb": 0}`, DefaultMaxUploadMB},
		{`{"max_upload_mb": 64}`, 64},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(tc.file), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.WithDefaults().MaxUploadMB; got != tc.want {
			t.Errorf("%s: MaxUploadMB = %d, want %d", tc.file, got, tc.want)
		}
	}
	if MaxUploadMBLimit<<20 >= 1_000_000_000/2 {
		t.Errorf("MaxUploadMBLimit %d MiB leaves no room under SQLite's 1e9-byte value limit", MaxUploadMBLimit)
	}
}

// The UI language is one of en, zh-CN or "" (the system's), kept in config.json;
// anything else is invalid_settings naming the language field.
func TestLanguageSetting(t *testing.T) {
	for _, lang := range []string{"", LanguageEnglish, LanguageChinese} {
		if err := (Settings{Language: lang}).Validate(); err != nil {
			t.Errorf("Validate(language %q) = %v, want nil", lang, err)
		}
	}
	for _, lang := range []string{"zh", "fr", "EN", "zh-TW"} {
		err := (Settings{Language: lang}).Validate()
		var inv *InvalidError
		if !errors.As(err, &inv) {
			t.Fatalf("Validate(language %q) = %v, want *InvalidError", lang, err)
		}
		if msg, ok := inv.Fields()["language"]; !ok || !strings.Contains(msg, lang) {
			t.Errorf("language %q: fields %v, want a language entry quoting the value", lang, inv.Fields())
		}
	}
	dir := t.TempDir()
	if err := Save(dir, Settings{Model: "m", Language: LanguageChinese}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"language": "zh-CN"`) {
		t.Errorf("config.json = %s, want the language field", b)
	}
	got, err := Load(dir)
	if err != nil || got.Language != LanguageChinese {
		t.Fatalf("Load = %+v, %v; want language zh-CN", got, err)
	}
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, tc := range []struct {
		lang string
		env  map[string]string
		want string
	}{
		{"zh-CN", map[string]string{"LANG": "en_US.UTF-8"}, "zh-CN"},
		{"en", map[string]string{"LANG": "zh_CN.UTF-8"}, "en"},
		{"", map[string]string{"LANG": "zh_CN.UTF-8"}, "zh-CN"},
		{"", map[string]string{"LC_ALL": "en_GB.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"},
		{"", map[string]string{"LC_MESSAGES": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh-CN"},
		{"", map[string]string{"LANG": "C.UTF-8"}, ""},
		{"", nil, ""},
	} {
		if got := UILanguage(tc.lang, env(tc.env)); got != tc.want {
			t.Errorf("UILanguage(%q, %v) = %q, want %q", tc.lang, tc.env, got, tc.want)
		}
	}
	for lang, want := range map[string]string{"": "", "en": "English (en)", "zh-CN": "简体中文 (zh-CN)", "fr": ""} {
		if got := LanguageName(lang); got != want {
			t.Errorf("LanguageName(%q) = %q, want %q", lang, got, want)
		}
	}
}

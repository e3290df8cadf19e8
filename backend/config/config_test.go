package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
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
	got := base.Merge(Settings{Model: "m2", AllowPrivateNetwork: true})
	want := Settings{BaseURL: "http://a/v1", Model: "m2", APIKey: "k1", AllowPrivateNetwork: true}
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

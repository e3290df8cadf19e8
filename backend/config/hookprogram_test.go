package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// onPath puts an empty executable file of each name in a new folder and makes that folder
// all of PATH for the test, so hooks naming them load; it returns the folder.
func onPath(t *testing.T, names ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, name := range names {
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		if err := os.WriteFile(filepath.Join(bin, name), nil, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	return bin
}

// TestLoadRefusesHookProgramsFromTheWorkspace: a hook runs in the conversation's workspace
// folder, which a downloaded repository controls, so its program must be an absolute path
// or a bare name found on PATH. A config.json with a relative path (or a bare name PATH
// does not have, or has only in a relative folder) is refused at load with ErrBadFile and
// ErrHookProgram, naming the hook by event, index and name; the file is not changed and a
// Save refuses to replace it. Absolute paths and names on PATH load.
func TestLoadRefusesHookProgramsFromTheWorkspace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the paths below are Unix paths")
	}
	bin := onPath(t, "notify-send")
	tests := []struct {
		name  string
		hooks string
		want  []string // "" = loads
	}{
		{"relative path", `{"Stop": [{"name": "notify", "command": ["tools/notify.sh", "done"]}]}`,
			[]string{`hooks.Stop[0] ("notify"): "tools/notify.sh" is a relative path`, "workspace folder"}},
		{"dot path, no name", `{"PostToolUse": [{"command": ["/bin/true"]}, {"matcher": "web_fetch", "command": ["./links.sh"]}]}`,
			[]string{`hooks.PostToolUse[1] ("links.sh"): "./links.sh" is a relative path`}},
		{"parent path", `{"Stop": [{"name": "up", "command": ["../bin/notify"]}]}`,
			[]string{`hooks.Stop[0] ("up"): "../bin/notify" is a relative path`}},
		{"bare name not on PATH", `{"Stop": [{"name": "mail", "command": ["mailx"]}]}`,
			[]string{`hooks.Stop[0] ("mail"): program "mailx" is not found on PATH`}},
		{"two bad hooks", `{"PostToolUse": [{"command": ["a/b"]}], "Stop": [{"command": ["c/d"]}]}`,
			[]string{`hooks.PostToolUse[0] ("b")`, `hooks.Stop[0] ("d")`}},
		{"absolute path", `{"Stop": [{"name": "notify", "command": ["/opt/notify/bin/notify", "done"]}]}`, nil},
		{"bare name on PATH", `{"Stop": [{"name": "notify", "command": ["notify-send", "done"]}]}`, nil},
		{"absolute path of a PATH program", `{"Stop": [{"command": ["` + filepath.Join(bin, "notify-send") + `"]}]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ConfigFile)
			content := []byte(`{"model": "m", "hooks": ` + tt.hooks + "}\n")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Load(dir)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if s.Model != "m" || len(s.Hooks[HookStop]) != 1 {
					t.Fatalf("Load = %+v", s)
				}
				return
			}
			var fe *FileError
			if !errors.Is(err, ErrBadFile) || !errors.Is(err, ErrHookProgram) || !errors.As(err, &fe) {
				t.Fatalf("Load error = %v, want a *FileError wrapping ErrBadFile and ErrHookProgram", err)
			}
			for _, want := range append(tt.want, "the settings file "+path, "fix it in a text editor", "it was not changed") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not contain %q", err, want)
				}
			}
			if err := Save(dir, Settings{Model: "other"}); !errors.Is(err, ErrBadFile) {
				t.Errorf("Save over the refused file = %v, want ErrBadFile", err)
			}
			if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, content) {
				t.Errorf("config.json changed: %q (%v)", b, err)
			}
		})
	}
}

// TestHookProgram: HookProgram gives the file a hook runs, an absolute path in every case,
// and refuses relative paths, names PATH lacks, and names found only through a relative
// PATH entry (which would resolve against the current folder).
func TestHookProgram(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the paths below are Unix paths")
	}
	bin := onPath(t, "notify-send")
	cwd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, "rel"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "rel", "here"), nil, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"rel")
	tests := []struct {
		name, want, wantErr string
	}{
		{"/usr/local/bin/x", "/usr/local/bin/x", ""},
		{"notify-send", filepath.Join(bin, "notify-send"), ""},
		{"tools/notify.sh", "", "is a relative path"},
		{"./notify-send", "", "is a relative path"},
		{"missing", "", "is not found on PATH"},
		{"here", "", "relative to the current one"},
	}
	for _, tt := range tests {
		got, err := HookProgram(tt.name)
		if tt.wantErr == "" {
			if err != nil || got != tt.want {
				t.Errorf("HookProgram(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, ErrHookProgram) || !strings.Contains(err.Error(), tt.wantErr) || got != "" {
			t.Errorf("HookProgram(%q) = %q, %v; want ErrHookProgram saying %q", tt.name, got, err, tt.wantErr)
		}
	}
}

// TestSaveRefusesAHookLoadWouldRefuse: Save never writes a config.json that Load would
// then refuse: a hook whose program PATH lacks is invalid settings naming the entry's
// command, and nothing is written.
func TestSaveRefusesAHookLoadWouldRefuse(t *testing.T) {
	onPath(t)
	dir := t.TempDir()
	err := Save(dir, Settings{Hooks: Hooks{HookStop: {{Command: []string{"/bin/true"}}, {Command: []string{"not-installed"}}}}})
	var ie *InvalidError
	if !errors.As(err, &ie) || ie.Fields()["hooks.Stop[1].command"] == "" {
		t.Fatalf("Save = %v, want invalid settings naming hooks.Stop[1].command", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("config.json was written: %v", err)
	}
}

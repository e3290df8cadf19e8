package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestHooksRoundTrip: the hooks of issue 8 are saved to config.json under "hooks" with
// the documented keys and read back unchanged.
func TestHooksRoundTrip(t *testing.T) {
	dir := t.TempDir()
	onPath(t, "audit")
	in := Settings{Model: "m", Hooks: Hooks{
		HookPostToolUse: {
			{Name: "links", Matcher: "web_fetch", Command: []string{"/usr/local/bin/links", "--json"}, TimeoutSeconds: 2.5},
			{Matcher: "*", Command: []string{"audit"}},
		},
		HookStop: {{Command: []string{"/opt/notify", "done"}, TimeoutSeconds: 30}},
	}}
	if err := Save(dir, in); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"hooks"`, `"PostToolUse"`, `"Stop"`, `"matcher": "web_fetch"`, `"timeout_seconds": 2.5`, `"command": [`, `"name": "links"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("config.json lacks %s:\n%s", want, raw)
		}
	}
	out, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: got %+v want %+v", out.Hooks, in.Hooks)
	}
	merged := (Settings{Hooks: Hooks{HookStop: {{Command: []string{"a"}}}}}).Merge(Settings{Model: "x"})
	if len(merged.Hooks[HookStop]) != 1 {
		t.Fatalf("Merge without hooks dropped the file's hooks: %+v", merged.Hooks)
	}
}

// TestHooksValidate: Validate refuses every bad hook entry and names the field.
func TestHooksValidate(t *testing.T) {
	ok := []string{"/bin/true"}
	tests := []struct {
		name  string
		hooks Hooks
		field string // "" = valid
	}{
		{"valid", Hooks{HookPostToolUse: {{Matcher: "web_(fetch|search)", Command: ok, TimeoutSeconds: 0.2}}, HookStop: {{Command: ok}}}, ""},
		{"star matcher", Hooks{HookPostToolUse: {{Matcher: "*", Command: ok}}}, ""},
		{"empty command", Hooks{HookPostToolUse: {{Command: nil}}}, "hooks.PostToolUse[0].command"},
		{"blank program", Hooks{HookStop: {{Command: ok}, {Command: []string{"  ", "x"}}}}, "hooks.Stop[1].command"},
		{"nul in argument", Hooks{HookStop: {{Command: []string{"/bin/echo", "a\x00b"}}}}, "hooks.Stop[0].command"},
		{"negative timeout", Hooks{HookPostToolUse: {{Command: ok, TimeoutSeconds: -1}}}, "hooks.PostToolUse[0].timeout_seconds"},
		{"huge timeout", Hooks{HookPostToolUse: {{Command: ok, TimeoutSeconds: MaxHookTimeoutSeconds + 1}}}, "hooks.PostToolUse[0].timeout_seconds"},
		{"bad regexp", Hooks{HookPostToolUse: {{Matcher: "web_(fetch", Command: ok}}}, "hooks.PostToolUse[0].matcher"},
		{"matcher on Stop", Hooks{HookStop: {{Matcher: "web_fetch", Command: ok}}}, "hooks.Stop[0].matcher"},
		{"unknown event", Hooks{"PreToolUse": {{Command: ok}}}, "hooks.PreToolUse"},
		{"bad name", Hooks{HookStop: {{Name: "two\nlines", Command: ok}}}, "hooks.Stop[0].name"},
		{"bare program name", Hooks{HookStop: {{Command: []string{"notify-send", "done"}}}}, ""},
		{"relative program", Hooks{HookStop: {{Command: ok}, {Command: []string{"tools/notify.sh"}}}}, "hooks.Stop[1].command"},
		{"dot program", Hooks{HookPostToolUse: {{Command: []string{"./notify"}}}}, "hooks.PostToolUse[0].command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Settings{Hooks: tc.hooks}.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want ok", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate() = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tc.field+":") {
				t.Fatalf("error %q does not name %s", err, tc.field)
			}
		})
	}
	if err := Save(t.TempDir(), Settings{Hooks: Hooks{HookStop: {{}}}}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Save of an empty hook command = %v, want ErrInvalid", err)
	}
}

// TestCompileMatcher: "" and "*" match every tool; anything else is anchored to the whole
// name.
func TestCompileMatcher(t *testing.T) {
	tests := []struct {
		matcher, tool string
		match         bool
	}{
		{"", "web_fetch", true},
		{"*", "anything", true},
		{"web_fetch", "web_fetch", true},
		{"web_fetch", "web_fetch_more", false},
		{"fetch", "web_fetch", false},
		{"web_.*", "web_search", true},
		{"create_artifact|record_artifact", "record_artifact", true},
		{"create_artifact|record_artifact", "xrecord_artifact", false},
	}
	for _, tc := range tests {
		re, err := CompileMatcher(tc.matcher)
		if err != nil {
			t.Fatal(err)
		}
		if got := re == nil || re.MatchString(tc.tool); got != tc.match {
			t.Errorf("matcher %q on %q = %v, want %v", tc.matcher, tc.tool, got, tc.match)
		}
	}
}

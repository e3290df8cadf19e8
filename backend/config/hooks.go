package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hook events (issue 8): the keys of Settings.Hooks.
const (
	// HookPostToolUse runs after every tool call of every agent completes, successful or
	// not, for the entries whose Matcher matches the tool's name.
	HookPostToolUse = "PostToolUse"
	// HookStop runs once after a run has ended (complete, cancelled or error).
	HookStop = "Stop"
)

// HookEvents lists the known hook events, in the order they are documented.
var HookEvents = []string{HookPostToolUse, HookStop}

// Limits of a hook entry.
const (
	// DefaultHookTimeoutSeconds is a hook's time limit when TimeoutSeconds is 0; a hook
	// still running then is killed.
	DefaultHookTimeoutSeconds = 10
	// MaxHookTimeoutSeconds is the largest TimeoutSeconds a user may set.
	MaxHookTimeoutSeconds = 600
	// MaxHookNameRunes bounds Hook.Name, which is shown as the artifact's hookName.
	MaxHookNameRunes = 100
)

// Hooks lists the commands to run per hook event, keyed by HookPostToolUse or HookStop
// (config.json: "hooks": {"PostToolUse": [entry, ...], "Stop": [entry, ...]}). The entries
// of one event run one after another in this order; the artifacts they declare are
// concatenated (seed 002: hookSpecificOutput.artifacts of several hooks are concatenated,
// not last-writer-wins).
type Hooks map[string][]Hook

// Hook is one command run on a hook event.
//
// Command is the program and its arguments (argv), run without a shell: no globbing,
// no variables, no pipes; a program without a path separator is looked up in PATH, and
// a relative path is taken from the conversation's workspace folder, which is the
// command's working directory (an absolute path is the safe choice). Matcher selects
// PostToolUse entries by tool name: "" or "*" matches every tool, anything else is a Go
// regular expression (RE2 syntax) that must match the whole name, so an exact name such as
// "web_fetch" matches only that tool and "web_.*" both web tools; Stop entries take no
// matcher. TimeoutSeconds is the time limit in seconds (fractions allowed; 0 means
// DefaultHookTimeoutSeconds, at most MaxHookTimeoutSeconds). Name is shown as the
// hookName of the artifacts the hook declares; "" means the base name of Command[0].
type Hook struct {
	Name           string   `json:"name,omitempty"`
	Matcher        string   `json:"matcher,omitempty"`
	Command        []string `json:"command"`
	TimeoutSeconds float64  `json:"timeout_seconds,omitempty"`
}

// CompileMatcher compiles a PostToolUse matcher: nil (every tool) for "" or "*", else the
// regular expression anchored to the whole tool name. Errors: the expression does not
// compile (regexp's error, wrapped).
func CompileMatcher(m string) (*regexp.Regexp, error) {
	m = strings.TrimSpace(m)
	if m == "" || m == "*" {
		return nil, nil
	}
	re, err := regexp.Compile(`^(?:` + m + `)$`)
	if err != nil {
		return nil, fmt.Errorf("matcher %q: %w", m, err)
	}
	return re, nil
}

// validHooks checks every entry of h and returns one problem per bad field, each naming it
// as hooks.<Event>[<index>].<field>.
func validHooks(h Hooks) []string {
	var problems []string
	events := make([]string, 0, len(h))
	for ev := range h {
		events = append(events, ev)
	}
	slices.Sort(events)
	for _, ev := range events {
		if !slices.Contains(HookEvents, ev) {
			problems = append(problems, fmt.Sprintf("hooks.%s: unknown hook event (known: %s)", ev, strings.Join(HookEvents, ", ")))
			continue
		}
		for i, e := range h[ev] {
			problems = append(problems, hookProblems(ev, i, e)...)
		}
	}
	return problems
}

// ValidateHook checks one entry of event (HookPostToolUse or HookStop) at index i of its
// list, as Settings.Validate does; the error wraps ErrInvalid and names each bad field as
// hooks.<event>[<i>].<field>.
func ValidateHook(event string, i int, h Hook) error {
	var problems []string
	if !slices.Contains(HookEvents, event) {
		problems = []string{fmt.Sprintf("hooks.%s: unknown hook event (known: %s)", event, strings.Join(HookEvents, ", "))}
	} else {
		problems = hookProblems(event, i, h)
	}
	if len(problems) > 0 {
		return &InvalidError{Problems: problems}
	}
	return nil
}

// hookProblems returns one problem per bad field of entry i of event ev.
func hookProblems(ev string, i int, e Hook) []string {
	var problems []string
	at := fmt.Sprintf("hooks.%s[%d].", ev, i)
	switch {
	case len(e.Command) == 0 || strings.TrimSpace(e.Command[0]) == "":
		problems = append(problems, at+"command: must name a program, as [\"/path/to/program\", \"arg\", ...]")
	case slices.ContainsFunc(e.Command, func(a string) bool { return strings.ContainsRune(a, 0) }):
		problems = append(problems, at+"command: an argument contains a NUL character")
	}
	if e.TimeoutSeconds < 0 || e.TimeoutSeconds > MaxHookTimeoutSeconds || e.TimeoutSeconds != e.TimeoutSeconds {
		problems = append(problems, fmt.Sprintf("%stimeout_seconds: %v is outside 0–%d (0 means %d)", at, e.TimeoutSeconds,
			MaxHookTimeoutSeconds, DefaultHookTimeoutSeconds))
	}
	if ev == HookStop {
		if m := strings.TrimSpace(e.Matcher); m != "" && m != "*" {
			problems = append(problems, at+"matcher: Stop hooks take no matcher")
		}
	} else if _, err := CompileMatcher(e.Matcher); err != nil {
		problems = append(problems, at+"matcher: not a valid regular expression: "+err.Error())
	}
	if e.Name != "" && (utf8.RuneCountInString(e.Name) > MaxHookNameRunes || strings.TrimSpace(e.Name) == "" ||
		strings.IndexFunc(e.Name, unicode.IsControl) >= 0) {
		problems = append(problems, fmt.Sprintf("%sname: must be one line of 1–%d characters", at, MaxHookNameRunes))
	}
	return problems
}

package config

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
// no variables, no pipes. The program (Command[0]) is an absolute path, or a bare name
// (no path separator) looked up in PATH (HookProgram). A relative path such as
// "tools/notify.sh" is refused: the hook's working directory is the conversation's
// workspace folder, whose files a downloaded repository or an agent may have written, so
// it would run a program of theirs. Load refuses a config.json with such a hook, or with
// a bare name PATH does not have; Validate refuses the relative path. Matcher selects
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
	case !filepath.IsAbs(e.Command[0]) && !bareProgram(e.Command[0]):
		problems = append(problems, at+"command: "+relativeProgram(e.Command[0]))
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

// ErrHookProgram is wrapped by HookProgram's errors, and by Load's *FileError for a
// config.json with a hook whose program it refuses.
var ErrHookProgram = errors.New("a hook's program must be an absolute path or a program name found on PATH")

// HookProgram returns the file a hook whose Command[0] is name runs: name itself when it
// is an absolute path; for a bare name (no path separator, no drive), the absolute path
// exec.LookPath finds in PATH. Anything else is refused, above all a relative path such
// as "tools/notify.sh", which the hook's working directory, the conversation's workspace
// folder, would resolve to a file a downloaded repository or an agent may have written; so
// is a bare name that PATH does not have, or has only in a folder relative to the current
// one. The errors wrap ErrHookProgram and say which of these it is.
func HookProgram(name string) (string, error) {
	path, problem := hookProgram(name)
	if problem != "" {
		return "", fmt.Errorf("%w: %s", ErrHookProgram, problem)
	}
	return path, nil
}

// hookProgram is HookProgram, giving its refusal as a sentence ("" when name is fine).
func hookProgram(name string) (path, problem string) {
	switch {
	case filepath.IsAbs(name):
		return name, ""
	case !bareProgram(name):
		return "", relativeProgram(name)
	}
	path, err := exec.LookPath(name)
	switch {
	case errors.Is(err, exec.ErrDot) || (err == nil && !filepath.IsAbs(path)):
		return "", fmt.Sprintf("program %q is found on PATH only in a folder relative to the current one; give its absolute path", name)
	case err != nil:
		return "", fmt.Sprintf("program %q is not found on PATH; give its absolute path, or install it", name)
	}
	return path, ""
}

// bareProgram reports whether name is a program name without a folder: not empty, with no
// path separator ("/", and on Windows a backslash too) and no drive ("C:").
func bareProgram(name string) bool {
	return name != "" && !strings.ContainsRune(name, '/') && !strings.ContainsRune(name, os.PathSeparator) &&
		filepath.VolumeName(name) == ""
}

// relativeProgram is the refusal of a program given by a relative path.
func relativeProgram(name string) string {
	return fmt.Sprintf("%q is a relative path, which would run a program from the conversation's workspace folder; "+
		"give an absolute path, or a program name found on PATH", name)
}

// hookProgramProblem is a hook entry whose program hookProgram refuses: at is
// "hooks.<event>[<i>]", name the entry's Name or its program's base name (as the runner
// shows it), why the refusal.
type hookProgramProblem struct{ at, name, why string }

// String is the problem as Load's error names it: hooks.<event>[<i>] ("<name>"): <why>.
func (p hookProgramProblem) String() string { return fmt.Sprintf("%s (%q): %s", p.at, p.name, p.why) }

// hookProgramProblems checks the program of every entry of h that names one (an entry
// without a program is left out by the runner, as Validate would refuse it) with
// hookProgram, and returns the refused entries. Events come in HookEvents order, unknown
// ones after them, sorted.
func hookProgramProblems(h Hooks) []hookProgramProblem {
	events := slices.Clone(HookEvents)
	var other []string
	for ev := range h {
		if !slices.Contains(HookEvents, ev) {
			other = append(other, ev)
		}
	}
	slices.Sort(other)
	var problems []hookProgramProblem
	for _, ev := range append(events, other...) {
		for i, e := range h[ev] {
			if len(e.Command) == 0 || strings.TrimSpace(e.Command[0]) == "" {
				continue
			}
			if _, why := hookProgram(e.Command[0]); why != "" {
				name := strings.TrimSpace(e.Name)
				if name == "" {
					name = filepath.Base(e.Command[0])
				}
				problems = append(problems, hookProgramProblem{at: fmt.Sprintf("hooks.%s[%d]", ev, i), name: name, why: why})
			}
		}
	}
	return problems
}

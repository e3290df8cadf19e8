// Package hooks runs the user's hook commands: after each tool call (PostToolUse,
// selected by a matcher on the tool's name) and after each run (Stop). A hook is a
// program the user listed in config.json ("hooks", see config.Hooks); it runs as the
// user, without a shell, in the conversation's workspace folder, with a time limit, and
// gets one JSON object on stdin (Input). What it prints on stdout may declare artifacts
// in hookSpecificOutput:
//
//	{"hookSpecificOutput": {"artifacts": [{"title": "...", "url": "https://..."}, ...]}}
//
// Each item has the record_artifact input's shape (kind, storage, title, description,
// workspacePath, managedId, url, mimeType, metadata); the source is always "hook" and the
// hook's name and the triggering tool call are set here, never read from the output. The
// artifacts of several hooks of one event are concatenated, in the order of the settings.
// The caller stores them with declared.Service.Upsert without strict, so invalid items
// are logged and dropped there.
//
// The program is an absolute path or a name found on PATH (config.HookProgram), resolved
// before each start; a relative path, which would be taken from the workspace folder, is
// never run.
//
// A hook never breaks a run: one that cannot start, exits non-zero, outlives its timeout
// (it is killed, with its process group on Unix) or prints anything but a JSON object
// comes back as an Outcome with OK false and an Error; it is logged with slog, and the
// engine shows it as a hook_result event. Output past MaxOutput is not read.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/procgroup"
)

// Limits.
const (
	// DefaultTimeout is a hook's time limit when its entry sets none.
	DefaultTimeout = config.DefaultHookTimeoutSeconds * time.Second
	// MaxOutput is the most of a hook's stdout that is read, in bytes; longer output is
	// an error and declares nothing.
	MaxOutput = 1 << 20
	// MaxArtifacts is the most artifacts one hook may declare per event; the rest are
	// dropped (the declared store keeps at most 200 per conversation anyway).
	MaxArtifacts = declared.MaxPerConversation
	// stderrTail is how much of the end of a hook's stderr is kept for the error.
	stderrTail = 2 << 10
	// waitDelay bounds the wait for a hook's pipes after it exited or was killed (a
	// process it left behind may hold them open).
	waitDelay = time.Second
)

// Input is the JSON object a hook reads on stdin. Every hook gets HookEventName,
// ConversationID, MessageID (the run's message) and Workspace (the absolute path of the
// conversation's workspace folder, also the hook's working directory; "" when the app
// has none). PostToolUse adds AgentName, ToolName, ToolCallID, ToolInput (the call's
// parameters, a JSON object) and ToolResult; Stop adds Status (complete, cancelled or
// error), Answer (the final answer, "" when there is none) and Error.
type Input struct {
	HookEventName  string `json:"hook_event_name"`
	ConversationID string `json:"conversation_id"`
	MessageID      string `json:"message_id,omitempty"`
	Workspace      string `json:"workspace"`

	AgentName  string          `json:"agent_name,omitempty"`
	ToolName   string          `json:"tool_name,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolInput  json.RawMessage `json:"tool_input,omitempty"`
	ToolResult *ToolResult     `json:"tool_result,omitempty"`

	Status string `json:"status,omitempty"`
	Answer string `json:"answer,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ToolResult is the outcome of the tool call a PostToolUse hook runs after: Result is the
// text the model was given on success, Error the message on failure.
type ToolResult struct {
	Success bool   `json:"success"`
	Result  string `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Outcome is what one hook did. Artifacts are the inputs its stdout declared, with Source
// "hook", HookName and (PostToolUse) ToolCallID and ToolName set; Dropped counts items
// that could not be read as an artifact or were past MaxArtifacts. Err is nil when OK.
type Outcome struct {
	Hook      string
	Event     string
	OK        bool
	Err       error
	Artifacts []declared.Input
	Dropped   int
	Duration  time.Duration
}

// Sentinel errors of an Outcome, for callers and tests that branch on the kind of failure.
var (
	// ErrTimeout: the hook ran past its timeout and was killed.
	ErrTimeout = errors.New("timed out")
	// ErrExit: the hook exited with a non-zero status.
	ErrExit = errors.New("failed")
	// ErrOutput: the hook's stdout was not a JSON object, or was too long.
	ErrOutput = errors.New("bad output")
	// ErrStart: the hook could not be started (program not found, not executable) or its
	// workspace could not be prepared.
	ErrStart = errors.New("could not start")
)

// Options configure a Runner.
type Options struct {
	// Workspace returns the absolute path of a conversation's workspace folder; the
	// Runner creates it (mode 0700) before a hook runs. nil: hooks run in the app's
	// working directory and get workspace "".
	Workspace func(ctx context.Context, conversationID string) (string, error)
	// Logger receives a warning per failed hook; nil means slog.Default().
	Logger *slog.Logger
}

// entry is one usable hook.
type entry struct {
	name    string
	match   *regexp.Regexp // nil: every tool
	argv    []string
	timeout time.Duration
}

// Runner runs the hooks of one settings snapshot. It holds no goroutines: Run returns
// when every hook it started has exited or been killed. Safe for concurrent use.
type Runner struct {
	byEvent map[string][]entry
	opts    Options
}

// New returns a Runner for h. Entries that config.Settings.Validate would refuse (a
// hand-edited config.json is not validated on load) are left out, and the error, which
// wraps config.ErrInvalid and names each such entry, says which; the Runner is usable
// all the same.
func New(h config.Hooks, opts Options) (*Runner, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &Runner{byEvent: map[string][]entry{}, opts: opts}
	var problems []error
	for _, ev := range config.HookEvents {
		for i, e := range h[ev] {
			if err := config.ValidateHook(ev, i, e); err != nil {
				problems = append(problems, fmt.Errorf("hook left out: %w", err))
				continue
			}
			re, _ := config.CompileMatcher(e.Matcher) // Validate compiled it
			if ev == config.HookStop {
				re = nil
			}
			timeout := time.Duration(e.TimeoutSeconds * float64(time.Second))
			if timeout <= 0 {
				timeout = DefaultTimeout
			}
			name := strings.TrimSpace(e.Name)
			if name == "" {
				name = filepath.Base(e.Command[0])
			}
			r.byEvent[ev] = append(r.byEvent[ev], entry{name: name, match: re, argv: append([]string(nil), e.Command...), timeout: timeout})
		}
	}
	return r, errors.Join(problems...)
}

// Matching returns the number of hooks Run would start for event and toolName (toolName
// is ignored for Stop).
func (r *Runner) Matching(event, toolName string) int {
	if r == nil {
		return 0
	}
	n := 0
	for _, e := range r.byEvent[event] {
		if e.match == nil || e.match.MatchString(toolName) {
			n++
		}
	}
	return n
}

// Run runs the hooks of in.HookEventName that match in.ToolName, one after another in the
// order of the settings, and returns one Outcome per hook started. Each gets in on stdin
// (with Workspace filled in), runs in the workspace folder and is killed at its timeout
// or when ctx ends; hooks not yet started when ctx ends are not started. Failures are
// logged and returned in the Outcomes, never as an error.
func (r *Runner) Run(ctx context.Context, in Input) []Outcome {
	if r.Matching(in.HookEventName, in.ToolName) == 0 {
		return nil
	}
	var startErr error
	if r.opts.Workspace != nil {
		in.Workspace, startErr = r.workspace(ctx, in.ConversationID)
	}
	stdin, err := json.Marshal(in)
	if err != nil && startErr == nil {
		startErr = fmt.Errorf("encode stdin: %w", err)
	}
	var out []Outcome
	for _, e := range r.byEvent[in.HookEventName] {
		if e.match != nil && !e.match.MatchString(in.ToolName) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		var o Outcome
		if startErr != nil {
			o = Outcome{Hook: e.name, Event: in.HookEventName, Err: fmt.Errorf("%w: %w", ErrStart, startErr)}
		} else {
			o = r.runOne(ctx, e, in, stdin)
		}
		if !o.OK {
			r.opts.Logger.Warn("hook failed", "hook", o.Hook, "event", o.Event, "tool", in.ToolName,
				"conversation", in.ConversationID, "err", o.Err, "duration", o.Duration)
		}
		out = append(out, o)
	}
	return out
}

// workspace resolves the conversation's workspace folder to an absolute path and creates
// it with mode 0700.
func (r *Runner) workspace(ctx context.Context, conversationID string) (string, error) {
	dir, err := r.opts.Workspace(ctx, conversationID)
	if err != nil {
		return "", fmt.Errorf("workspace of conversation %s: %w", conversationID, err)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create workspace: %w", err)
	}
	return dir, nil
}

// hookEnv is the environment of a hook: the app's, without the model's API key
// (OPENAI_API_KEY, which the app reads as the key) and the app's own ARTIFACTFLOW_*
// variables. A hook is the user's command, but it has no business with the key.
func hookEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "OPENAI_API_KEY") || strings.HasPrefix(strings.ToUpper(k), "ARTIFACTFLOW_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// runOne runs one hook to its end and reads what it declared.
func (r *Runner) runOne(ctx context.Context, e entry, in Input, stdin []byte) Outcome {
	o := Outcome{Hook: e.name, Event: in.HookEventName}
	start := time.Now()
	defer func() { o.Duration = time.Since(start) }()

	hctx, cancel := context.WithTimeoutCause(ctx, e.timeout, ErrTimeout)
	defer cancel()
	// The program is resolved here, never against the working directory: a relative path
	// would run a file of the workspace (config.HookProgram).
	prog, err := config.HookProgram(e.argv[0])
	if err != nil {
		o.Err = fmt.Errorf("%w: %w", ErrStart, err)
		return o
	}
	cmd := exec.CommandContext(hctx, prog, e.argv[1:]...)
	cmd.Args[0] = e.argv[0] // the program sees its name as written in the settings
	cmd.Dir = in.Workspace
	cmd.Env = hookEnv()
	cmd.Stdin = bytes.NewReader(stdin)
	stdout := &capped{max: MaxOutput}
	stderr := &tail{max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	procgroup.Own(cmd) // a timeout or Stop kills the hook's children with it

	err = cmd.Run()
	switch {
	case errors.Is(context.Cause(hctx), ErrTimeout):
		o.Err = fmt.Errorf("%w after %v; it was killed%s", ErrTimeout, e.timeout, stderr.suffix())
		return o
	case ctx.Err() != nil:
		o.Err = fmt.Errorf("cancelled: %w", context.Cause(ctx))
		return o
	case err != nil && cmd.ProcessState == nil:
		o.Err = fmt.Errorf("%w: %w", ErrStart, err)
		return o
	case err != nil && !cmd.ProcessState.Success():
		o.Err = fmt.Errorf("%w: %s%s", ErrExit, cmd.ProcessState, stderr.suffix())
		return o
	}
	// err is nil, or exec.ErrWaitDelay from a process the hook left behind holding its
	// stdout: the hook itself succeeded and what it wrote so far is read.
	if stdout.over {
		o.Err = fmt.Errorf("%w: more than %d bytes on stdout", ErrOutput, MaxOutput)
		return o
	}
	o.Artifacts, o.Dropped, o.Err = parseOutput(stdout.buf.Bytes(), e.name, in)
	if o.Err != nil {
		o.Err = fmt.Errorf("%w: %w", ErrOutput, o.Err)
		return o
	}
	if o.Dropped > 0 {
		r.opts.Logger.Warn("hook artifacts dropped", "hook", e.name, "event", in.HookEventName, "dropped", o.Dropped)
	}
	o.OK = true
	return o
}

// parseOutput reads a hook's stdout: nothing, or a JSON object whose
// hookSpecificOutput.artifacts (when present) lists artifacts. Other fields are ignored.
// Items that are not artifact objects, and items past MaxArtifacts, are counted as
// dropped; the rest get the hook's source fields.
func parseOutput(b []byte, hook string, in Input) ([]declared.Input, int, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, 0, nil
	}
	var out struct {
		Specific *struct {
			Artifacts json.RawMessage `json:"artifacts"`
		} `json:"hookSpecificOutput"`
	}
	if b[0] != '{' || json.Unmarshal(b, &out) != nil {
		return nil, 0, fmt.Errorf("stdout is not a JSON object: %q", clip(string(b), 80))
	}
	if out.Specific == nil || len(out.Specific.Artifacts) == 0 || string(out.Specific.Artifacts) == "null" {
		return nil, 0, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(out.Specific.Artifacts, &items); err != nil {
		return nil, 0, errors.New("hookSpecificOutput.artifacts is not a list")
	}
	var arts []declared.Input
	dropped := 0
	for _, raw := range items {
		var a declared.Input
		if t := bytes.TrimSpace(raw); len(arts) >= MaxArtifacts || len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &a) != nil {
			dropped++
			continue
		}
		a.Source, a.HookName = declared.SourceHook, hook
		a.ToolCallID, a.ToolName = in.ToolCallID, in.ToolName
		a.ClientID, a.TrustedPublisher = "", false
		arts = append(arts, a)
	}
	return arts, dropped, nil
}

// capped keeps the first max bytes written and notes whether more came. It never fails
// a write, so the hook is not killed by a broken pipe for printing too much.
type capped struct {
	max  int
	buf  bytes.Buffer
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

// tail keeps the last max bytes written.
type tail struct {
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// suffix returns ": <last line(s) of stderr>" for an error message, "" when stderr was
// empty.
func (t *tail) suffix() string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(t.b), "�"))
	if s == "" {
		return ""
	}
	return ": " + clip(strings.Join(strings.Fields(s), " "), 300)
}

// clip shortens s to at most n runes, marking a cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

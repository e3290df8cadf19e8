package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
)

// Exit codes of the command line.
const (
	ExitOK        = 0   // the run completed
	ExitError     = 1   // the run ended with an error, or a command failed
	ExitUsage     = 2   // bad flags or arguments
	ExitCancelled = 130 // the run was cancelled (Ctrl-C)
)

// WindowFunc opens the desktop window on core and blocks until it closes. main supplies it
// because only main imports Wails.
type WindowFunc func(core *Core) error

// Env is what Main needs from its process: arguments without the program name, the
// standard streams, the frontend's built files (for browser mode) and the window opener.
type Env struct {
	Args   []string
	Stdout io.Writer
	Stderr io.Writer
	Assets fs.FS
	Window WindowFunc
}

// globalFlags are the flags every command takes (DESIGN.md, "Command line").
type globalFlags struct {
	dataDir string
	s       config.Settings
}

func (g *globalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.dataDir, "data-dir", "", "data directory (default $ARTIFACTFLOW_HOME or the user config dir)")
	fs.StringVar(&g.s.BaseURL, "base-url", "", "OpenAI-compatible base URL, e.g. http://localhost:11434/v1")
	fs.StringVar(&g.s.APIKey, "api-key", "", "API key (default $OPENAI_API_KEY or the stored key)")
	fs.StringVar(&g.s.Model, "model", "", "model name")
	fs.StringVar(&g.s.ToolCallMode, "tool-call-mode", "", "tool-call format: native or xml")
	fs.StringVar(&g.s.SearxngURL, "searxng-url", "", "SearXNG base URL for web_search")
	fs.BoolVar(&g.s.AllowPrivateNetwork, "allow-private-network", false, "let web_fetch reach loopback and private addresses")
}

// Main runs the command line and returns the process exit code:
//
//	artifactflow [flags]                       the desktop window
//	artifactflow ask [flags] "question"        one research run, answer on stdout
//	artifactflow serve [flags] --addr ADDR     browser mode on a loopback address
//
// Errors are printed to Stderr as one line starting with "artifactflow: ".
func Main(ctx context.Context, env Env) int {
	args := env.Args
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "":
		return runWindow(ctx, env, args)
	case "ask":
		return runAsk(ctx, env, args)
	case "serve":
		return runServe(ctx, env, args)
	case "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: unknown command %q (try: ask, serve, help)\n", cmd)
		return ExitUsage
	}
}

const usage = `ArtifactFlow Desktop: local research with artifacts.

Usage:
  artifactflow [flags]                     open the window
  artifactflow ask [flags] "question"      run one research question headless
        --json               write events as JSON lines to stdout
        --conversation ID    continue a conversation
        --approve-tools      approve tools set to confirm in Settings (default: deny)
  artifactflow serve [flags] [--addr 127.0.0.1:PORT]   browser mode

Flags for every command:
  --data-dir DIR  --base-url URL  --api-key KEY  --model NAME
  --tool-call-mode native|xml  --searxng-url URL  --allow-private-network
`

func parse(env Env, name string, args []string, extra func(*flag.FlagSet)) (*globalFlags, *flag.FlagSet, bool) {
	g := &globalFlags{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, usage)
		} else {
			fmt.Fprintf(env.Stderr, "artifactflow: %s: %v\n", name, err)
		}
		return nil, nil, false
	}
	return g, fs, true
}

func openCore(ctx context.Context, env Env, g *globalFlags) (*Core, bool) {
	dir, err := config.DataDir(g.dataDir)
	if err == nil {
		var core *Core
		core, err = NewCore(ctx, Options{DataDir: dir, Overrides: g.s, Logger: slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		if err == nil {
			return core, true
		}
	}
	fmt.Fprintf(env.Stderr, "artifactflow: %v\n", oneLine(err))
	return nil, false
}

func closeCore(core *Core) {
	ctx, cancel := context.WithTimeout(context.Background(), flushWait)
	defer cancel()
	_ = core.Close(ctx)
}

// flushWait bounds how long closing waits for runs to flush and end.
const flushWait = 35 * time.Second // longer than the engine's flush timeout

func runWindow(ctx context.Context, env Env, args []string) int {
	g, _, ok := parse(env, "artifactflow", args, nil)
	if !ok {
		return ExitUsage
	}
	if env.Window == nil {
		fmt.Fprintln(env.Stderr, "artifactflow: this build has no window; use ask or serve")
		return ExitError
	}
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	if err := env.Window(core); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: window: %v\n", oneLine(err))
		return ExitError
	}
	return ExitOK
}

func runAsk(ctx context.Context, env Env, args []string) int {
	var asJSON, approve bool
	var convID string
	g, fs, ok := parse(env, "ask", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "write events as JSON lines to stdout")
		fs.StringVar(&convID, "conversation", "", "continue this conversation")
		fs.BoolVar(&approve, "approve-tools", false, "approve calls of tools set to confirm (otherwise ask denies them)")
	})
	if !ok {
		return ExitUsage
	}
	// Model output reaches both streams (the answer, sub-agent instructions, tool
	// parameters, server messages in errors): strip terminal control sequences from all
	// human-readable output, to a terminal or not, since a file written now is shown on a
	// terminal later. --json output stays as it is: JSON escapes every control character.
	env.Stderr = termSafe{env.Stderr}
	if !asJSON {
		env.Stdout = termSafe{env.Stdout}
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if question == "" {
		fmt.Fprintln(env.Stderr, `artifactflow: ask: no question given (usage: artifactflow ask [flags] "question")`)
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)

	var sink EventSink
	if asJSON {
		sink = jsonLines(env.Stdout)
	} else {
		sink = &progress{w: env.Stderr}
	}
	defer core.AddSink(sink)()
	defer core.AddSink(SinkFunc(func(ev events.Event) {
		// Nobody can click in a terminal run: tools set to confirm are decided by the flag.
		if ev.Type != events.PermissionRequest {
			return
		}
		var d events.DataPermissionRequest
		_ = json.Unmarshal(ev.Data, &d)
		decision := events.DecisionDeny
		if approve {
			decision = events.DecisionApprove
		} else {
			fmt.Fprintf(env.Stderr, "artifactflow: %s is set to confirm; denied (pass --approve-tools to allow it in ask)\n", d.Tool)
		}
		if _, err := core.eng.Respond(ev.ConversationID, d.RequestID, decision); err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: permission for %s: %v\n", d.Tool, oneLine(err))
		}
	}))()
	res, err := core.eng.Ask(ctx, engine.Request{ConversationID: convID, Content: question})
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", oneLine(err))
		return ExitError
	}
	switch res.Status {
	case events.Complete:
		if !asJSON {
			fmt.Fprintln(env.Stdout, res.Response)
		}
		return ExitOK
	case events.Cancelled:
		fmt.Fprintf(env.Stderr, "artifactflow: cancelled: %v\n", oneLine(res.Err))
		return ExitCancelled
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", oneLine(res.Err))
		return ExitError
	}
}

// jsonLines writes each event as one JSON line, from any goroutine. C1 controls and DEL,
// which encoding/json leaves raw inside strings, are written as \u escapes (jsonSafe).
func jsonLines(w io.Writer) EventSink {
	var mu sync.Mutex
	enc := json.NewEncoder(jsonSafe{w})
	return SinkFunc(func(ev events.Event) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(ev)
	})
}

// progress prints a short human-readable line per agent step and tool call.
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

// Emit prints ev if it is worth a line.
func (p *progress) Emit(ev events.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Type {
	case events.SubagentInstruction:
		var d events.DataSubagentInstruction
		_ = json.Unmarshal(ev.Data, &d)
		fmt.Fprintf(p.w, "→ %s: %s\n", d.Target, clip(d.Instruction, 100))
	case events.ToolStart:
		var d events.DataToolStart
		_ = json.Unmarshal(ev.Data, &d)
		if d.Tool != "call_subagent" {
			fmt.Fprintf(p.w, "  %s · %s %s\n", ev.AgentName, d.Tool, clip(string(d.Params), 100))
		}
	case events.ToolComplete:
		var d events.DataToolComplete
		_ = json.Unmarshal(ev.Data, &d)
		if !d.Success {
			fmt.Fprintf(p.w, "  %s · %s failed: %s\n", ev.AgentName, d.Tool, clip(d.Error, 160))
		}
	case events.ArtifactChanged:
		var d events.DataArtifactChanged
		_ = json.Unmarshal(ev.Data, &d)
		fmt.Fprintf(p.w, "  artifact %s v%d (%s)\n", d.Artifact.ID, d.Artifact.Version, d.Artifact.UpdateType)
	}
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// oneLine flattens an error to a single line for the terminal.
func oneLine(err error) string {
	if err == nil {
		return "unknown error"
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

// termSafe writes to w with terminal control sequences and characters removed
// (stripControls), so that text from a model or a server cannot drive the terminal it is
// shown on. Each Write is cleaned on its own: a sequence split across two Writes loses
// its control bytes all the same, leaving at most harmless printable text.
type termSafe struct{ w io.Writer }

// Write writes p without its control sequences and reports len(p) on success.
func (t termSafe) Write(p []byte) (int, error) {
	if _, err := t.w.Write(stripControls(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// jsonSafe writes JSON text to w with DEL and C1 controls (U+007F-U+009F), which
// encoding/json leaves raw inside strings, written as \u007f-\u009f escapes instead: the
// JSON decodes to the same value, and a terminal shown it meets no 8-bit CSI or OSC.
// Every Write must hold whole runes, as json.Encoder's one Write per value does.
type jsonSafe struct{ w io.Writer }

// Write writes p with DEL and C1 controls escaped and reports len(p) on success.
func (j jsonSafe) Write(p []byte) (int, error) {
	if _, err := j.w.Write(escapeJSONControls(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeJSONControls replaces DEL and the UTF-8 encodings of U+0080-U+009F in JSON text
// with \u escapes. They can only occur inside strings: JSON's own syntax is ASCII.
func escapeJSONControls(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		var r byte
		switch {
		case b[i] == 0x7f:
			r = 0x7f
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			r = b[i+1]
		default:
			continue
		}
		out = append(out, b[last:i]...)
		out = fmt.Appendf(out, `\u%04x`, r)
		if r != 0x7f {
			i++
		}
		last = i + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// C1 controls (U+0080-U+009F, or raw bytes 0x80-0x9F) with a meaning beyond themselves.
const (
	c1DCS = 0x90 // device control string
	c1SOS = 0x98 // start of string
	c1CSI = 0x9b // control sequence introducer
	c1ST  = 0x9c // string terminator
	c1OSC = 0x9d // operating system command
	c1PM  = 0x9e // privacy message
	c1APC = 0x9f // application program command
)

// stripControls returns b without terminal control sequences and control characters,
// keeping all other text, \n and \t:
//   - ESC sequences: CSI (ESC [ parameters intermediates final), the strings OSC, DCS,
//     SOS, PM and APC (ESC ] P X ^ _ up to BEL or ST, or up to CAN, SUB, ESC or the end
//     when unterminated), escape sequences with intermediates (ESC ( B), two-character
//     escapes (ESC c, ESC 7), and a lone ESC;
//   - C1 controls, as UTF-8 (U+0080-U+009F) or as raw bytes: 8-bit CSI and the 8-bit
//     string introducers with what they introduce, others alone;
//   - other C0 controls (\r included) and DEL.
//
// Invalid UTF-8 bytes outside 0x80-0x9F become U+FFFD. b itself is returned when it
// holds nothing to remove.
func stripControls(b []byte) []byte {
	if clean(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f):
			out = append(out, c)
			i++
		case c == 0x1b:
			i = skipEscape(b, i+1)
		case c < 0x80: // other C0 controls and DEL
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			switch {
			case r == utf8.RuneError && size == 1 && c >= 0x80 && c <= 0x9f: // raw 8-bit C1
				i = skipC1(b, i+1, c)
			case r >= 0x80 && r <= 0x9f:
				i = skipC1(b, i+size, byte(r))
			case r == utf8.RuneError && size == 1:
				out = utf8.AppendRune(out, utf8.RuneError)
				i++
			default:
				out = append(out, b[i:i+size]...)
				i += size
			}
		}
	}
	return out
}

// clean reports whether b is valid UTF-8 without control characters other than \n and
// \t, which stripControls leaves as it is.
func clean(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 || r <= 0x9f {
			return false
		}
		i += size
	}
	return true
}

// skipEscape returns the index after the escape sequence whose ESC is just before b[i].
func skipEscape(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch c := b[i]; {
	case c == '[':
		return skipCSI(b, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(b, i+1)
	case c >= 0x20 && c <= 0x2f: // intermediates, then one final byte
		for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
			i++
		}
		if i < len(b) && b[i] >= 0x30 && b[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e: // two-character escape
		return i + 1
	default: // a lone ESC: what follows is handled on its own
		return i
	}
}

// skipC1 returns the index after the C1 control c whose encoding ends just before b[i],
// including the sequence or string it introduces.
func skipC1(b []byte, i int, c byte) int {
	switch c {
	case c1CSI:
		return skipCSI(b, i)
	case c1OSC, c1DCS, c1SOS, c1PM, c1APC:
		return skipString(b, i)
	default:
		return i
	}
}

// skipCSI returns the index after the control sequence whose introducer ends just before
// b[i]: parameter and intermediate bytes (0x20-0x3F), then a final byte (0x40-0x7E). A
// sequence cut short by any other byte ends before it.
func skipCSI(b []byte, i int) int {
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x3f {
		i++
	}
	if i < len(b) && b[i] >= 0x40 && b[i] <= 0x7e {
		i++
	}
	return i
}

// skipString returns the index after the control string whose introducer ends just
// before b[i]: it ends with BEL or ST (ESC and a backslash, or C1 ST as UTF-8 or as a
// raw byte), both consumed, or before CAN, SUB or another ESC, or at the end of b. UTF-8
// in the string is skipped whole, so a continuation byte 0x9C is not taken for ST.
func skipString(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		switch {
		case c == 0x07:
			return i + 1
		case c == 0x1b:
			if i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
			return i
		case c == 0x18 || c == 0x1a:
			return i + 1
		case c < 0x80:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == c1ST || (r == utf8.RuneError && size == 1 && c == c1ST) {
				return i + size
			}
			i += size
		}
	}
	return i
}

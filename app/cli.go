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

// jsonLines writes each event as one JSON line, from any goroutine.
func jsonLines(w io.Writer) EventSink {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
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

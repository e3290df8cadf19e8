// Package cli is ArtifactFlow's command line (contract in docs/ARCHITECTURE.md, "Contracts
// other code relies on"): Main parses the command and its flags and runs the window
// (through the WindowFunc or LaunchFunc that package main supplies), ask, serve (browser
// mode, package app/browser, with the local API), artifacts (declared artifacts through the
// running app's local API or the database), eval (eval.go) and mcp serve (the research
// library as an MCP server, mcpserve.go). It drives package app's Core
// and services; package app never imports it.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/app/localapi"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
	"artifactflow/internal/timeline"
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
type WindowFunc func(core *app.Core) error

// LaunchFunc hands the window request to the executable that has the window, with the
// same arguments. It returns only when that process did not take this one's place: with
// its exit code once it ended (Windows, where it runs as a child), or with an error when
// it could not be started (its message is shown as is).
type LaunchFunc func(args []string) (int, error)

// Env is what Main needs from its process: arguments without the program name, the
// standard streams, the frontend's built files (for browser mode) and the window opener,
// or, in a build without the window, what hands the window to the executable that has it.
type Env struct {
	Args []string
	// Stdin is what `mcp serve` reads the client's messages from; nil means os.Stdin.
	Stdin        io.Reader
	Stdout       io.Writer
	Stderr       io.Writer
	Assets       fs.FS
	Window       WindowFunc
	LaunchWindow LaunchFunc
	// StartFailed, when set, is told why the window could not start (the data directory,
	// config.json or the database could not be opened, or the local API could not listen)
	// after the message is printed to Stderr: started from a desktop launcher there is no
	// terminal to read it, so the window build shows it (window.go). It returns once the
	// user has seen it. Not called for ask, serve or the other commands.
	StartFailed func(err error)
}

// globalFlags are the flags every command takes.
type globalFlags struct {
	dataDir   string
	s         config.Settings
	searchKey string // --search-key, stored under --search-provider's id once parsed
}

func (g *globalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.dataDir, "data-dir", "", "data directory (default $ARTIFACTFLOW_HOME or the user config dir)")
	fs.StringVar(&g.s.BaseURL, "base-url", "", "OpenAI-compatible base URL, e.g. http://localhost:11434/v1")
	fs.StringVar(&g.s.APIKey, "api-key", "", "API key (default $OPENAI_API_KEY or the stored key)")
	fs.StringVar(&g.s.Model, "model", "", "model name")
	fs.StringVar(&g.s.ToolCallMode, "tool-call-mode", "", "tool-call format: native or xml")
	fs.StringVar(&g.s.SearxngURL, "searxng-url", "", "SearXNG base URL for web_search")
	fs.BoolVar(&g.s.AllowPrivateNetwork, "allow-private-network", false, "let web_fetch reach loopback and private addresses")
	fs.StringVar(&g.s.Proxy, "proxy", "", "proxy of every request: direct, or an http(s):// or socks5:// URL (default the stored one, else the system's)")
	fs.StringVar(&g.s.Search.Provider, "search-provider", "", "web search provider: "+strings.Join(config.SearchProviders(), ", "))
	fs.StringVar(&g.searchKey, "search-key", "", "API key of --search-provider (default the stored key)")
	fs.StringVar(&g.s.Lead.Model, "lead-model", "", "the lead agent's model (default --model)")
	fs.StringVar(&g.s.SubAgents.Model, "sub-model", "", "the search and crawl agents' model (default --model)")
}

// finish checks the flags that depend on each other after parsing: --search-key needs
// --search-provider, whose key it is.
func (g *globalFlags) finish() error {
	g.s.Search.Provider = strings.ToLower(strings.TrimSpace(g.s.Search.Provider))
	if g.searchKey == "" {
		return nil
	}
	if g.s.Search.Provider == "" {
		return errors.New("--search-key needs --search-provider (the provider the key is for)")
	}
	g.s.Search = g.s.Search.WithKey(g.s.Search.Provider, g.searchKey)
	return nil
}

// Main runs the command line and returns the process exit code:
//
//	artifactflow [flags]                       the desktop window
//	artifactflow ask [flags] "question"        one research run, answer on stdout
//	artifactflow serve [flags] --addr ADDR     browser mode on a loopback address
//	artifactflow artifacts list|add|rm ...     declared artifacts, through the running
//	                                           app's local API or the database
//	artifactflow eval [flags] questions.jsonl  runs a question set headless, writes a
//	                                           table of measures (app/cli/eval.go)
//	artifactflow mcp list|test NAME            the MCP servers of config.json: their state
//	                                           and tools; test starts one (app/cli/mcp.go)
//	artifactflow mcp serve [--allow-research]  the research library as an MCP server
//	                                           over stdio (app/cli/mcpserve.go)
//	artifactflow conversations export|import   one conversation to a file and back
//	                                           (conversations.go)
//	artifactflow backup | restore              the whole data directory (backup.go)
//
// The window and serve also start the local API (package localapi) on --api-addr, a
// random 127.0.0.1 port by default, and write <data-dir>/api.json while they run.
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
	case "artifacts":
		return runArtifacts(ctx, env, args)
	case "eval":
		return runEval(ctx, env, args)
	case "mcp":
		return runMCP(ctx, env, args)
	case "conversations":
		return runConversations(ctx, env, args)
	case "backup":
		return runBackup(ctx, env, args)
	case "restore":
		return runRestore(ctx, env, args)
	case "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: unknown command %q (try: ask, serve, artifacts, eval, mcp, conversations, backup, restore, help)\n", cmd)
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
        --api-addr 127.0.0.1:PORT   local API address (window and serve; default a random port)
  artifactflow artifacts list --conversation ID [--json]
  artifactflow artifacts add --conversation ID --title T (--url U | --workspace-path P | --managed-id M)
        [--kind K] [--description D] [--mime-type M] [--metadata k=v]... [--client-id C] [--json]
  artifactflow artifacts rm --conversation ID [--client-id C] [--json] ARTIFACT_ID
        declared artifacts (links and files) of a conversation, through the running app's
        local API (<data-dir>/api.json) or, when no app runs, the database
  artifactflow eval [flags] [--out DIR] [--judge] [--concurrency N] questions.jsonl
        runs each question (JSONL: {"id", "question", "reference"?, "tags"?}) as a new
        conversation and writes a table (time, tokens, rounds, searches, fetches, sources,
        citations, report length) to DIR/eval-<timestamp>.md and .json and to stdout
        --judge              grade each answer against its reference with the same model
        --approve-tools      approve tools set to confirm in Settings (default: deny)
  artifactflow mcp list [--json] [--no-start]
        the MCP servers of config.json (mcp_servers): transport, state, agents, permission
        and tools; the servers are started first unless --no-start
  artifactflow mcp test NAME
        starts the MCP server NAME and lists its tools (calls none); exit 1 with the reason
        when it fails
  artifactflow mcp serve [flags] [--allow-research]
        the research library as an MCP server over stdio, for Claude Desktop, Cursor,
        qwen-code or any MCP client: tools search_research, list_conversations,
        read_artifact, list_sources; resources artifactflow://conversation/ID and
        artifactflow://artifact/CONVERSATION/ID. Reads the data dir while the app runs.
        --allow-research     also offer ask_research, which runs a research on your
                             settings (model calls, web requests)
  artifactflow conversations export ID --out FILE
        writes one conversation (every branch, events, artifacts with every version,
        sources, declared links and files, uploaded originals) to one file
  artifactflow conversations import FILE
        stores a conversation file as a new conversation (new ids: never merged)
  artifactflow backup --out FILE
        backs up the whole data directory while the app runs (without API keys)
  artifactflow restore FILE
        replaces the data directory with a backup (checked first; the previous data is
        kept in before-restore-<time>/); refuses while ArtifactFlow runs on it

Flags for every command:
  --data-dir DIR  --base-url URL  --api-key KEY  --model NAME
  --tool-call-mode native|xml  --searxng-url URL  --allow-private-network
  --search-provider duckduckgo|wikipedia|searxng|tavily|brave|bocha|exa  --search-key KEY
  --lead-model NAME  --sub-model NAME   the lead's and the search/crawl agents' models
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
	if err := g.finish(); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %s: %v\n", name, err)
		return nil, nil, false
	}
	return g, fs, true
}

// openCore opens the Core of the command's data directory, or prints why it could not (one
// line, e.g. the damaged database's path and what to do, from store.CorruptError or
// config.FileError) and returns false.
func openCore(ctx context.Context, env Env, g *globalFlags) (*app.Core, bool) {
	return openCoreWith(ctx, env, g, false)
}

// openCoreWith is openCore for a UI (the window, browser mode): follow sets
// app.Options.FollowOtherRuns, so runs other processes hold show there and can be stopped.
func openCoreWith(ctx context.Context, env Env, g *globalFlags, follow bool) (*app.Core, bool) {
	core, err := newCore(ctx, env, g, follow)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
		return nil, false
	}
	return core, true
}

// newCore resolves the data directory and opens its Core; follow is
// app.Options.FollowOtherRuns (true for a UI).
func newCore(ctx context.Context, env Env, g *globalFlags, follow bool) (*app.Core, error) {
	dir, err := config.DataDir(g.dataDir)
	if err != nil {
		return nil, err
	}
	level := slog.LevelWarn
	if follow { // a UI also says what its warm-up did (app.Core.StartWarmup)
		level = slog.LevelInfo
	}
	return app.NewCore(ctx, app.Options{DataDir: dir, Overrides: g.s, FollowOtherRuns: follow,
		Logger: slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))})
}

// startFailed prints why the window could not start and, in the window build, shows it
// (Env.StartFailed).
func startFailed(env Env, err error) int {
	fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
	if env.StartFailed != nil {
		env.StartFailed(err)
	}
	return ExitError
}

func closeCore(core *app.Core) {
	ctx, cancel := context.WithTimeout(context.Background(), flushWait)
	defer cancel()
	_ = core.Close(ctx)
}

// flushWait bounds how long closing waits for runs to flush and end.
const flushWait = 35 * time.Second // longer than the engine's flush timeout

func runWindow(ctx context.Context, env Env, args []string) int {
	var apiAddr string
	g, _, ok := parse(env, "artifactflow", args, apiAddrFlag(&apiAddr))
	if !ok {
		return ExitUsage
	}
	if err := localapi.CheckAddr(apiAddr); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: --api-addr: %v\n", err)
		return ExitUsage
	}
	if env.Window == nil && env.LaunchWindow != nil {
		// The flags are checked above, so --help and typos never start the window.
		code, err := env.LaunchWindow(env.Args)
		if err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
			return ExitError
		}
		return code
	}
	if env.Window == nil {
		fmt.Fprintln(env.Stderr, "artifactflow: this build has no window; use ask or serve")
		return ExitError
	}
	timeline.Mark("core: open")
	core, err := newCore(ctx, env, g, true)
	if err != nil {
		return startFailed(env, err)
	}
	defer closeCore(core)
	timeline.Mark("core: ready")
	api, err := core.StartLocalAPI(ctx, apiAddr)
	if err != nil {
		return startFailed(env, err)
	}
	defer core.StopLocalAPI(api)
	timeline.Mark("local API started")
	// After the first paint, once idle: what the first PDF, token count and converter
	// child would otherwise wait for (app.Core.StartWarmup; logged at Info).
	core.StartWarmup(app.DefaultWarmupIdle)
	if err := env.Window(core); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: window: %v\n", text.OneLine(err))
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

	var sink app.EventSink
	if asJSON {
		sink = jsonLines(env.Stdout)
	} else {
		sink = &progress{w: env.Stderr}
	}
	defer core.AddSink(sink)()
	defer core.AddSink(app.SinkFunc(func(ev events.Event) {
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
		if _, err := core.Engine().Respond(ev.ConversationID, d.RequestID, decision); err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: permission for %s: %v\n", d.Tool, text.OneLine(err))
		}
	}))()
	res, err := core.Engine().Ask(ctx, engine.Request{ConversationID: convID, Content: question})
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
		return ExitError
	}
	switch res.Status {
	case events.Complete:
		if !asJSON {
			fmt.Fprintln(env.Stdout, res.Response)
		}
		return ExitOK
	case events.Cancelled:
		fmt.Fprintf(env.Stderr, "artifactflow: cancelled: %v\n", text.OneLine(res.Err))
		return ExitCancelled
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(res.Err))
		return ExitError
	}
}

// jsonLines writes each event as one JSON line, from any goroutine. C1 controls and DEL,
// which encoding/json leaves raw inside strings, are written as \u escapes (jsonSafe).
func jsonLines(w io.Writer) app.EventSink {
	var mu sync.Mutex
	enc := json.NewEncoder(jsonSafe{w})
	return app.SinkFunc(func(ev events.Event) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(ev)
	})
}

// progress prints a short human-readable line per agent step and tool call, and the
// run's warnings (a skipped agent file) as "warning: …" lines.
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

// Emit prints ev if it is worth a line.
func (p *progress) Emit(ev events.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Type {
	case events.Metadata:
		var d events.DataMetadata
		_ = json.Unmarshal(ev.Data, &d)
		for _, w := range d.Warnings { // a skipped agent file: the run goes on without it
			fmt.Fprintf(p.w, "warning: %s\n", text.Clip(w, 300))
		}
	case events.SubagentInstruction:
		var d events.DataSubagentInstruction
		_ = json.Unmarshal(ev.Data, &d)
		fmt.Fprintf(p.w, "→ %s: %s\n", d.Target, text.Clip(d.Instruction, 100))
	case events.ToolStart:
		var d events.DataToolStart
		_ = json.Unmarshal(ev.Data, &d)
		if d.Tool != "call_subagent" {
			fmt.Fprintf(p.w, "  %s · %s %s\n", ev.AgentName, d.Tool, text.Clip(string(d.Params), 100))
		}
	case events.ToolComplete:
		var d events.DataToolComplete
		_ = json.Unmarshal(ev.Data, &d)
		if !d.Success {
			fmt.Fprintf(p.w, "  %s · %s failed: %s\n", ev.AgentName, d.Tool, text.Clip(d.Error, 160))
		}
	case events.ArtifactChanged:
		var d events.DataArtifactChanged
		_ = json.Unmarshal(ev.Data, &d)
		fmt.Fprintf(p.w, "  artifact %s v%d (%s)\n", d.Artifact.ID, d.Artifact.Version, d.Artifact.UpdateType)
	}
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

// apiAddrFlag registers --api-addr, the local API's address (window and serve).
func apiAddrFlag(addr *string) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) {
		fs.StringVar(addr, "api-addr", localapi.DefaultAddr, "local API address, 127.0.0.1:PORT (port 0: a random one)")
	}
}

// declaredStore is what `artifacts` needs of declared artifacts: *localapi.Client (the
// running app) and dbArtifacts (the database) both provide it. clientID "" means
// localapi.AnonymousClient.
type declaredStore interface {
	List(ctx context.Context, conversationID string) ([]declared.Artifact, error)
	Add(ctx context.Context, conversationID, clientID string, inputs []declared.Input) ([]declared.Change, error)
	// RemoveResult removes one artifact, or only lifts the client's retention when other
	// clients still retain it (Released).
	RemoveResult(ctx context.Context, conversationID, artifactID, clientID string) (localapi.MutationResult, error)
}

// dbArtifacts reaches declared artifacts through the database when no app runs. Its
// caller is a client, as over the local API: never the user, so a client-retained
// artifact is removed only by a client that retains it.
type dbArtifacts struct{ svc *declared.Service }

// List returns the conversation's artifacts (declared.Service.List).
func (d dbArtifacts) List(ctx context.Context, conversationID string) ([]declared.Artifact, error) {
	return d.svc.List(ctx, conversationID)
}

// Add registers inputs as client clientID, strictly (declared.Service.Upsert).
func (d dbArtifacts) Add(ctx context.Context, conversationID, clientID string, inputs []declared.Input) ([]declared.Change, error) {
	if clientID == "" {
		clientID = localapi.AnonymousClient
	}
	for i := range inputs {
		inputs[i].Source, inputs[i].ClientID = declared.SourceClient, clientID
	}
	return d.svc.Upsert(ctx, conversationID, inputs, true)
}

// RemoveResult removes one artifact as client clientID (declared.Service.RemoveReport),
// answered as the local API would.
func (d dbArtifacts) RemoveResult(ctx context.Context, conversationID, artifactID, clientID string) (localapi.MutationResult, error) {
	if clientID == "" {
		clientID = localapi.AnonymousClient
	}
	rep, err := d.svc.RemoveReport(ctx, conversationID, artifactID, clientID)
	if err != nil {
		return localapi.MutationResult{}, err
	}
	return localapi.MutationResult{V: localapi.Version, SessionID: conversationID, Changes: rep.Changes, Released: rep.Released}, nil
}

// metadataFlag collects repeated --metadata key=value flags; values that read as JSON
// numbers or as true/false become numbers and booleans, others stay strings.
type metadataFlag map[string]any

// String returns the flags as k=v pairs (flag.Value).
func (m metadataFlag) String() string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	return strings.Join(parts, ",")
}

// reJSONNumber matches a JSON number ("007" and "1." are strings).
var reJSONNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// Set adds one key=value (flag.Value). Errors: no "=", an empty key, a repeated key.
func (m metadataFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return errors.New("want key=value")
	}
	if _, dup := m[k]; dup {
		return fmt.Errorf("key %q given twice", k)
	}
	switch {
	case v == "true" || v == "false":
		m[k] = v == "true"
	case reJSONNumber.MatchString(v):
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) {
			m[k] = v
		} else {
			m[k] = f
		}
	default:
		m[k] = v
	}
	return nil
}

// runArtifacts runs `artifactflow artifacts list|add|rm`: declared artifacts of one
// conversation, through the running app's local API when <data-dir>/api.json names a
// live process whose API answers, else through the database. Exit codes: 0 ok, 1 error
// (the field named for a validation failure), 2 bad usage.
func runArtifacts(ctx context.Context, env Env, args []string) int {
	env.Stderr = termSafe{env.Stderr}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(env.Stderr, "artifactflow: artifacts: missing subcommand: list, add or rm (see artifactflow help)")
		return ExitUsage
	}
	sub, args := args[0], args[1:]
	var conv, clientID string
	var asJSON bool
	var in declared.Input
	meta := metadataFlag{}
	switch sub {
	case "list", "add", "rm":
	case "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: artifacts: unknown subcommand %q (list, add or rm)\n", sub)
		return ExitUsage
	}
	g, pos, ok := parseInterleaved(env, "artifacts "+sub, args, func(fs *flag.FlagSet) {
		fs.StringVar(&conv, "conversation", "", "the conversation (session) id")
		fs.BoolVar(&asJSON, "json", false, "write the API's JSON answer to stdout")
		if sub == "list" {
			return
		}
		fs.StringVar(&clientID, "client-id", "", "the client id to register or remove as (default "+localapi.AnonymousClient+")")
		if sub == "rm" {
			return
		}
		fs.StringVar(&in.Title, "title", "", "title (plain text, one line)")
		fs.StringVar(&in.URL, "url", "", "http(s) URL of the resource")
		fs.StringVar(&in.WorkspacePath, "workspace-path", "", "file path relative to the conversation's workspace folder")
		fs.StringVar(&in.ManagedID, "managed-id", "", "id of an app-managed file")
		fs.StringVar(&in.Kind, "kind", "", "html, image, video, audio, pdf, notebook, file, link or other (default: inferred)")
		fs.StringVar(&in.Description, "description", "", "description (plain text)")
		fs.StringVar(&in.MimeType, "mime-type", "", "MIME type")
		fs.Var(meta, "metadata", "key=value (repeatable; numbers and true/false are parsed)")
	})
	if !ok {
		return ExitUsage
	}
	name := "artifactflow: artifacts " + sub
	switch {
	case strings.TrimSpace(conv) == "":
		fmt.Fprintf(env.Stderr, "%s: --conversation ID is required\n", name)
		return ExitUsage
	case sub == "rm" && len(pos) != 1:
		fmt.Fprintf(env.Stderr, "%s: give exactly one artifact id (artifactflow artifacts rm --conversation ID ARTIFACT_ID)\n", name)
		return ExitUsage
	case sub != "rm" && len(pos) != 0:
		fmt.Fprintf(env.Stderr, "%s: unexpected argument %q\n", name, pos[0])
		return ExitUsage
	case sub == "add" && strings.TrimSpace(in.Title) == "":
		fmt.Fprintf(env.Stderr, "%s: --title is required\n", name)
		return ExitUsage
	case sub == "add" && countSet(in.URL, in.WorkspacePath, in.ManagedID) != 1:
		fmt.Fprintf(env.Stderr, "%s: give exactly one of --url, --workspace-path or --managed-id\n", name)
		return ExitUsage
	}
	if clientID != "" {
		if err := localapi.CheckClientID(clientID); err != nil {
			fmt.Fprintf(env.Stderr, "%s: --client-id: %v\n", name, err)
			return ExitUsage
		}
	}
	if len(meta) > 0 {
		in.Metadata = meta
	}

	dir, err := config.DataDir(g.dataDir)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
		return ExitError
	}
	var st declaredStore
	c, err := localapi.Discover(ctx, dir)
	switch {
	case err == nil:
		defer c.Close()
		st = c
	case !errors.Is(err, localapi.ErrNoServer): // an app runs but did not answer: never write behind its back
		fmt.Fprintf(env.Stderr, "artifactflow: artifacts: %v; try again, or close the app\n", text.OneLine(err))
		return ExitError
	default:
		core, ok := openCore(ctx, env, g)
		if !ok {
			return ExitError
		}
		defer closeCore(core)
		st = dbArtifacts{core.Declared()}
	}

	out := termSafe{env.Stdout}
	var (
		changes  []declared.Change
		released bool
	)
	switch sub {
	case "list":
		arts, err := st.List(ctx, conv)
		if err != nil {
			return artifactsError(env, name, conv, err)
		}
		if arts == nil {
			arts = []declared.Artifact{}
		}
		if asJSON {
			return writeJSONOut(env, localapi.ArtifactsEnvelope{V: localapi.Version, SessionID: conv, Artifacts: arts})
		}
		printArtifacts(out, env.Stderr, conv, arts)
		return ExitOK
	case "add":
		changes, err = st.Add(ctx, conv, clientID, []declared.Input{in})
	case "rm":
		var res localapi.MutationResult
		res, err = st.RemoveResult(ctx, conv, pos[0], clientID)
		changes, released = res.Changes, res.Released
	}
	if err != nil {
		return artifactsError(env, name, conv, err)
	}
	if changes == nil {
		changes = []declared.Change{}
	}
	if asJSON {
		return writeJSONOut(env, localapi.MutationResult{V: localapi.Version, SessionID: conv, Changes: changes, Released: released})
	}
	switch {
	case len(changes) == 0 && sub == "add":
		fmt.Fprintln(out, "unchanged: this location is already registered")
	case released:
		fmt.Fprintf(out, "released %s: other clients still retain it, so it stays listed\n", pos[0])
	case len(changes) == 0:
		fmt.Fprintf(out, "%s: no such artifact; nothing removed\n", pos[0])
	}
	for _, c := range changes {
		title := ""
		if c.Artifact != nil {
			title = text.Clip(c.Artifact.Title, 60)
		}
		line := c.Action + " " + c.ArtifactID + "  " + title
		if c.Reason != "" {
			line += " (" + c.Reason + ")"
		}
		fmt.Fprintln(out, line)
	}
	return ExitOK
}

// parseInterleaved parses flags and positional arguments in any order (flags may follow
// an artifact id); everything after "--" is positional.
func parseInterleaved(env Env, name string, args []string, extra func(*flag.FlagSet)) (*globalFlags, []string, bool) {
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	g, fs, ok := parse(env, name, args, extra)
	if !ok {
		return nil, nil, false
	}
	var pos []string
	for fs.NArg() > 0 {
		pos = append(pos, fs.Arg(0))
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: %s: %v\n", name, err)
			return nil, nil, false
		}
	}
	if err := g.finish(); err != nil { // flags after the positional arguments
		fmt.Fprintf(env.Stderr, "artifactflow: %s: %v\n", name, err)
		return nil, nil, false
	}
	return g, append(pos, rest...), true
}

func countSet(values ...string) int {
	n := 0
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	return n
}

// artifactsError prints err of an artifacts command on one line, naming the field of a
// validation failure, and returns ExitError.
func artifactsError(env Env, name, conv string, err error) int {
	var fe *declared.FieldError
	var ae *localapi.APIError
	switch {
	case errors.As(err, &fe):
		fmt.Fprintf(env.Stderr, "%s: invalid %s: %s\n", name, fe.Field, fe.Message)
	case errors.As(err, &ae) && ae.Field != "":
		fmt.Fprintf(env.Stderr, "%s: invalid %s: %s\n", name, ae.Field, ae.Message)
	case errors.Is(err, store.ErrNotFound):
		fmt.Fprintf(env.Stderr, "%s: no conversation %q\n", name, conv)
	case errors.Is(err, declared.ErrForbidden):
		fmt.Fprintf(env.Stderr, "%s: another client retains this artifact; pass --client-id of a client that retains it (or remove it in the app)\n", name)
	default:
		fmt.Fprintf(env.Stderr, "%s: %s\n", name, text.OneLine(err))
	}
	return ExitError
}

// writeJSONOut writes v as one JSON line to stdout (C1 controls escaped).
func writeJSONOut(env Env, v any) int {
	if err := json.NewEncoder(jsonSafe{env.Stdout}).Encode(v); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
		return ExitError
	}
	return ExitOK
}

// printArtifacts prints arts as a table: id, kind, source, status, title, location.
func printArtifacts(out, errOut io.Writer, conv string, arts []declared.Artifact) {
	if len(arts) == 0 {
		fmt.Fprintf(errOut, "no declared artifacts in conversation %s\n", conv)
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSOURCE\tSTATUS\tTITLE\tLOCATION")
	for _, a := range arts {
		loc := a.URL
		switch {
		case a.WorkspacePath != "":
			loc = a.WorkspacePath
		case loc == "" && a.ManagedID != "":
			loc = "managed:" + a.ManagedID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Kind, a.Source, a.Status, tabFree(text.Clip(a.Title, 60)), tabFree(loc))
	}
	_ = tw.Flush()
}

// tabFree replaces tabs, which would break the table, with spaces.
func tabFree(s string) string { return strings.ReplaceAll(s, "\t", " ") }

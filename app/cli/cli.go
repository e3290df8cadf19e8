// Package cli is ArtifactFlow's command line (contract in docs/ARCHITECTURE.md, "Contracts
// other code relies on"): Main parses the command and its flags and runs the window
// (through the WindowFunc or LaunchFunc that package main supplies), ask, serve (browser
// mode, package app/browser, with the local API), artifacts (declared artifacts through the
// running app's local API or the database), eval, mcp (the configured MCP servers, and the
// research library as an MCP server), conversations, backup and restore. It drives package
// app's Core and services; package app never imports it.
//
// One file per command or command family: window.go, ask.go, serve.go, artifacts.go,
// eval*.go (eval.go the command, eval_questions.go the question file, eval_run.go the runs,
// eval_measure.go the measures, eval_judge.go the judge, eval_report.go the totals and
// table, eval_files.go the output files), mcp.go, mcpserve.go, conversations.go and
// backup.go. This file holds the dispatcher, the usage text and the helpers every command
// shares (flags, opening the Core); termsafe.go the output filters.
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
	"strings"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/app/localapi"
	"artifactflow/backend/config"
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
//	                                           table of measures (eval.go)
//	artifactflow mcp list|test NAME            the MCP servers of config.json: their state
//	                                           and tools; test starts one (mcp.go)
//	artifactflow mcp serve [--allow-research]  the research library as an MCP server
//	                                           over stdio (mcpserve.go)
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
        the table and the JSON also count the thumbs up and down (and notes) given in the
        app to the runs of the data directory, by model and run kind
  artifactflow eval --feedback [--json]
        only those feedback counts (first question, follow-up, edit, regenerate), as a
        table or, with --json, as JSON
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
// app.Options.FollowOtherRuns and app.Options.Suggest (true for a UI).
func newCore(ctx context.Context, env Env, g *globalFlags, follow bool) (*app.Core, error) {
	dir, err := config.DataDir(g.dataDir)
	if err != nil {
		return nil, err
	}
	level := slog.LevelWarn
	if follow { // a UI also says what its warm-up did (app.Core.StartWarmup)
		level = slog.LevelInfo
	}
	return app.NewCore(ctx, app.Options{DataDir: dir, Overrides: g.s, FollowOtherRuns: follow, Suggest: follow,
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

// apiAddrFlag registers --api-addr, the local API's address (window and serve).
func apiAddrFlag(addr *string) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) {
		fs.StringVar(addr, "api-addr", localapi.DefaultAddr, "local API address, 127.0.0.1:PORT (port 0: a random one)")
	}
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

// writeJSONOut writes v as one JSON line to stdout (C1 controls escaped).
func writeJSONOut(env Env, v any) int {
	if err := json.NewEncoder(jsonSafe{env.Stdout}).Encode(v); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
		return ExitError
	}
	return ExitOK
}

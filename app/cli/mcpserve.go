package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/mcpserve"
	"artifactflow/backend/store"
)

// runMCPServe runs `artifactflow mcp serve [--allow-research]`: the research library as an
// MCP server over stdio (package mcpserve; docs/ARCHITECTURE.md, "The research library
// over MCP") until the client closes stdin or the process is interrupted. Stdout carries
// only protocol messages; logs and errors go to stderr.
//
// Without --allow-research it opens the database alone, as any command does (the window
// may hold the data dir: WAL lets it read while the window writes), and only reads it:
// no Core, so no instance lock, heartbeat or run sweep, and ask_research is neither
// listed nor run. With it, it opens a Core on the user's settings (flags over
// config.json, as ask), and ask_research runs research there; tools set to confirm are
// denied, as in ask without --approve-tools, since nobody is there to click.
//
// Exit codes: 0 when the client closed the connection or on SIGINT/SIGTERM, 1 when the
// data dir or database cannot be opened or the session failed, 2 for bad usage.
func runMCPServe(ctx context.Context, env Env, args []string) int {
	var allowResearch bool
	g, fs, ok := parse(env, "mcp serve", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&allowResearch, "allow-research", false, "offer ask_research, which runs research on the user's settings")
	})
	if !ok {
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "artifactflow: mcp serve: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage
	}
	env.Stderr = termSafe{env.Stderr}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := mcpserve.Options{Version: buildVersion(), Logger: logger}

	var db *store.DB
	var dir string
	if allowResearch {
		core, ok := openCore(ctx, env, g)
		if !ok {
			return ExitError
		}
		defer closeCore(core)
		db, dir = core.Store(), core.DataDir()
		opts.Research = &coreResearcher{core: core, log: logger}
	} else {
		var err error
		if dir, err = config.DataDir(g.dataDir); err == nil {
			db, err = store.Open(ctx, filepath.Join(dir, config.DBFile))
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: mcp serve: %v\n", text.OneLine(err))
			return ExitError
		}
		defer db.Close()
	}
	opts.Workspace = declared.DefaultWorkspace(db, dir)

	var in io.ReadCloser = os.Stdin
	if env.Stdin != nil {
		in = io.NopCloser(env.Stdin)
	}
	err := mcpserve.New(db, opts).Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopWriteCloser{env.Stdout}})
	switch {
	case err == nil, ctx.Err() != nil, errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed):
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: mcp serve: %v\n", text.OneLine(err))
		return ExitError
	}
}

// nopWriteCloser is a Writer whose Close does nothing: the process's stdout outlives the
// MCP session.
type nopWriteCloser struct{ io.Writer }

// Close does nothing.
func (nopWriteCloser) Close() error { return nil }

// buildVersion is the module version the binary was built at ("(devel)" for a plain go
// build from a work tree), for the MCP handshake.
func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "dev"
}

// coreResearcher runs ask_research's research on a Core, as `artifactflow ask` does.
type coreResearcher struct {
	core *app.Core
	log  *slog.Logger
}

// Research starts question in conversationID (a new conversation when "") and waits for
// the run's end (mcpserve.Researcher). onEvent gets the run's events in order, those
// emitted before Start returned included; permission requests of tools set to confirm are
// denied. Cancelling ctx stops the run; Research still waits for it to end (its artifacts
// flushed) before returning.
func (r *coreResearcher) Research(ctx context.Context, conversationID, question string, onEvent func(events.Event)) (engine.Result, error) {
	// The run's message id is known only once Start returns, and the run emits events
	// before that: hold them until then. mu also keeps onEvent's calls one at a time and
	// in order (engine.Respond does not emit, so calling it under mu cannot deadlock).
	var (
		mu      sync.Mutex
		runID   string
		pending []events.Event
	)
	// ended is closed once the run's terminal event has been handled: the sinks may hear
	// it after Wait returns, and the progress must not lose its last message.
	ended := make(chan struct{})
	endedClosed := false
	handle := func(ev events.Event) { // under mu
		if ev.MessageID != runID {
			return
		}
		if ev.Type == events.PermissionRequest {
			var d events.DataPermissionRequest
			_ = json.Unmarshal(ev.Data, &d)
			if _, err := r.core.Engine().Respond(ev.ConversationID, d.RequestID, events.DecisionDeny); err != nil {
				r.log.Warn("ask_research: could not deny a permission request", "tool", d.Tool, "err", err)
			}
		}
		onEvent(ev)
		if ev.Type.Terminal() && !endedClosed {
			endedClosed = true
			close(ended)
		}
	}
	defer r.core.AddSink(app.SinkFunc(func(ev events.Event) {
		mu.Lock()
		defer mu.Unlock()
		if runID == "" {
			pending = append(pending, ev)
			return
		}
		handle(ev)
	}))()
	run, err := r.core.Engine().Start(ctx, engine.Request{ConversationID: conversationID, Content: question})
	if err != nil {
		return engine.Result{}, err
	}
	mu.Lock()
	runID = run.MessageID
	for _, ev := range pending {
		handle(ev)
	}
	pending = nil
	mu.Unlock()
	res, err := run.Wait(context.WithoutCancel(ctx))
	select {
	case <-ended:
	case <-time.After(terminalWait):
		r.log.Warn("ask_research: the run's terminal event did not reach the progress in time", "message", runID)
	}
	return res, err
}

// terminalWait bounds how long ask_research waits, after the run has ended, for its
// terminal event to reach the progress notifications.
const terminalWait = 5 * time.Second

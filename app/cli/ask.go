package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
)

// This file is `artifactflow ask`: one research run headless, with its progress on
// stderr (or its events as JSON lines) and the answer on stdout.

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

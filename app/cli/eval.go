package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/backend/events"
	"artifactflow/backend/llm"
)

// This file is `artifactflow eval`: every question of a JSONL file is run headless as
// its own new conversation, then measured from what the run stored, and the measures
// are written as a Markdown table and as JSON.

// Limits of `eval`.
const (
	maxEvalLine        = 1 << 20 // bytes in one line of a question file
	maxEvalConcurrency = 16      // --concurrency
	judgeAnswerRunes   = 12000   // runes of the answer, and of the report, shown to the judge
	judgeRawRunes      = 200     // runes of a malformed grade kept in the table
	judgeReasonRunes   = 300     // runes of a judge's reason kept
	measureTimeout     = 30 * time.Second
)

// Statuses of an eval row: the run's terminal event (events.Complete, events.Cancelled,
// events.Error). A run that could not start is an error.
const (
	evalComplete  = string(events.Complete)
	evalCancelled = string(events.Cancelled)
	evalError     = string(events.Error)
)

// evalReport is the whole result, as written to eval-<timestamp>.json. Questions is the
// number of questions in the file; Results holds the ones run, in the file's order
// (Interrupted: the user stopped the eval before all ran). Model is the lead's model,
// SubAgentModel the sub-agents' when it differs. Endpoint is the model's base
// URL without user name, password, fragment or query values (redactURL); no key is ever
// written.
type evalReport struct {
	StartedAt     time.Time  `json:"started_at"`
	FinishedAt    time.Time  `json:"finished_at"`
	QuestionsFile string     `json:"questions_file"`
	Questions     int        `json:"questions"`
	Model         string     `json:"model"`
	SubAgentModel string     `json:"sub_agent_model,omitempty"`
	Endpoint      string     `json:"endpoint"`
	Judge         bool       `json:"judge"`
	Interrupted   bool       `json:"interrupted"`
	Results       []evalRow  `json:"results"`
	Totals        evalTotals `json:"totals"`
	// Feedback counts the thumbs up and down the user gave in the app to the runs of the
	// data directory's conversations, by model and run kind, when the eval started.
	Feedback *feedbackCounts `json:"feedback,omitempty"`
}

// runEval runs `artifactflow eval [flags] questions.jsonl`: each question as a new
// conversation, --concurrency at a time (default 1), then its measures (evalRow). The
// table so far is rewritten to <out>/eval-<timestamp>.md and .json after every question,
// and printed to stdout at the end. Ctrl-C (or SIGTERM) cancels the runs going, starts no
// more and writes the table of what ran.
//
// The report also counts the feedback given in the app (feedbackCounts). With --feedback
// there is no question file: only that count is printed, as a Markdown table or, with
// --json, as one JSON object.
//
// Exit codes: 0 every question completed; 1 a run ended with an error (or the eval could
// not start or write its files); 2 bad usage or a bad question file (nothing runs);
// 130 cancelled.
func runEval(ctx context.Context, env Env, args []string) int {
	var outDir string
	var judge, approve, feedbackOnly, asJSON bool
	concurrency := 1
	g, pos, ok := parseInterleaved(env, "eval", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&feedbackOnly, "feedback", false, "only count the thumbs up and down given in the app, by model and run kind")
		fs.BoolVar(&asJSON, "json", false, "with --feedback: write the counts as JSON")
		fs.StringVar(&outDir, "out", ".", "directory for eval-<timestamp>.md and .json")
		fs.BoolVar(&judge, "judge", false, "ask the model to grade each answer against its reference (0-10)")
		fs.IntVar(&concurrency, "concurrency", 1, "questions run at the same time (1-16)")
		fs.BoolVar(&approve, "approve-tools", false, "approve calls of tools set to confirm (otherwise eval denies them)")
	})
	if !ok {
		return ExitUsage
	}
	// Answers and judge reasons are model output: no terminal control sequences (see ask).
	env.Stdout, env.Stderr = termSafe{env.Stdout}, termSafe{env.Stderr}
	switch {
	case asJSON && !feedbackOnly:
		fmt.Fprintln(env.Stderr, "artifactflow: eval: --json goes with --feedback (an eval writes its JSON to --out DIR)")
		return ExitUsage
	case feedbackOnly && len(pos) != 0:
		fmt.Fprintf(env.Stderr, "artifactflow: eval: --feedback takes no question file (got %q)\n", pos[0])
		return ExitUsage
	case feedbackOnly:
		return runEvalFeedback(ctx, env, g, asJSON)
	case len(pos) != 1:
		fmt.Fprintln(env.Stderr, "artifactflow: eval: give one question file (usage: artifactflow eval [flags] questions.jsonl)")
		return ExitUsage
	case concurrency < 1 || concurrency > maxEvalConcurrency:
		fmt.Fprintf(env.Stderr, "artifactflow: eval: --concurrency %d: want 1 to %d\n", concurrency, maxEvalConcurrency)
		return ExitUsage
	}
	qs, err := readQuestionFile(pos[0])
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: eval: %v\n", text.OneLine(err))
		return ExitUsage
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	s := core.Settings()
	lead, subs := s.Agent(s.Lead), s.Agent(s.SubAgents)
	if lead.Model == "" {
		fmt.Fprintf(env.Stderr, "artifactflow: eval: %v\n", app.ErrNoModel)
		return ExitError
	}
	var grader *judgeModel
	if judge {
		c, err := llm.New(app.ModelConfig(s, lead, core.Logger()))
		if err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: eval: judge: %v\n", text.OneLine(err))
			return ExitError
		}
		grader = &judgeModel{model: c, sampling: agentSampling(lead)}
	}
	out, err := reserveEvalFiles(outDir, time.Now())
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: eval: %v\n", text.OneLine(err))
		return ExitError
	}
	defer core.AddSink(permissionSink(core, env.Stderr, approve))()

	fc, err := countFeedback(ctx, core.Store())
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: eval: %v\n", text.OneLine(err))
		return ExitError
	}
	abs, _ := filepath.Abs(pos[0])
	rep := &evalReport{StartedAt: time.Now().UTC(), QuestionsFile: abs, Questions: len(qs), Model: lead.Model,
		Endpoint: redactURL(s.BaseURL), Judge: judge, Feedback: &fc}
	if subs.Model != lead.Model {
		rep.SubAgentModel = subs.Model
	}
	ev := &evaluator{core: core, grader: grader, stderr: env.Stderr, total: len(qs)}
	rows := ev.runAll(ctx, qs, concurrency, func(rows []*evalRow) {
		rep.Results = collect(rows)
		if err := out.write(rep); err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: eval: %v\n", text.OneLine(err))
		}
	})

	rep.Results = collect(rows)
	rep.Interrupted = ctx.Err() != nil
	werr := out.write(rep)
	fmt.Fprint(env.Stdout, markdownTable(rep))
	if werr != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: eval: %v\n", text.OneLine(werr))
		return ExitError
	}
	fmt.Fprintf(env.Stderr, "wrote %s and %s\n", out.md, out.json)
	switch {
	case rep.Interrupted:
		fmt.Fprintf(env.Stderr, "artifactflow: eval: cancelled after %d of %d questions\n", len(rep.Results), len(qs))
		return ExitCancelled
	case rep.Totals.Errors > 0 || rep.Totals.Cancelled > 0:
		return ExitError
	}
	return ExitOK
}

// permissionSink answers every permission request of a headless run at once: approve when
// approve is set, else deny with a line on w (as ask does).
func permissionSink(core *app.Core, w io.Writer, approve bool) app.EventSink {
	return app.SinkFunc(func(ev events.Event) {
		if ev.Type != events.PermissionRequest {
			return
		}
		var d events.DataPermissionRequest
		_ = json.Unmarshal(ev.Data, &d)
		decision := events.DecisionDeny
		if approve {
			decision = events.DecisionApprove
		} else {
			fmt.Fprintf(w, "artifactflow: %s is set to confirm; denied (pass --approve-tools to allow it)\n", d.Tool)
		}
		if _, err := core.Engine().Respond(ev.ConversationID, d.RequestID, decision); err != nil {
			fmt.Fprintf(w, "artifactflow: permission for %s: %v\n", d.Tool, text.OneLine(err))
		}
	})
}

// runEvalFeedback runs `artifactflow eval --feedback [--json]`: the feedback counts of the
// data directory (countFeedback) on stdout, as feedbackTable or as one JSON object. It
// needs no model. Exit codes: 0, or 1 when the data directory cannot be read.
func runEvalFeedback(ctx context.Context, env Env, g *globalFlags, asJSON bool) int {
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	fc, err := countFeedback(ctx, core.Store())
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: eval: %v\n", text.OneLine(err))
		return ExitError
	}
	if asJSON {
		return writeJSONOut(env, fc)
	}
	fmt.Fprint(env.Stdout, feedbackTable(fc))
	return ExitOK
}

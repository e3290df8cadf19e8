package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
)

// This file is `artifactflow eval` (issue 9, item 8): every question of a JSONL file is
// run headless as its own new conversation, then measured from what the run stored, and
// the measures are written as a Markdown table and as JSON.

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

// errBadQuestions is wrapped by every error of a question file's content; the message
// names the line.
var errBadQuestions = errors.New("bad question file")

// evalQuestion is one line of a question file (eval/README.md):
// {"id": "...", "question": "...", "reference": "...", "tags": [...]}. ID and Question
// are required; Reference (what --judge grades against) and Tags are optional.
type evalQuestion struct {
	ID        string   `json:"id"`
	Question  string   `json:"question"`
	Reference string   `json:"reference,omitempty"`
	Tags      []string `json:"tags,omitempty"`
}

// readQuestions parses a JSONL question set: one JSON object per line, blank lines
// ignored, a UTF-8 byte-order mark at the start allowed. Errors wrap errBadQuestions and
// name the line (from 1): a line that is not one JSON object of the known fields, an
// empty id or question, an id with control characters or used before, a line over
// maxEvalLine bytes, invalid UTF-8, or a file with no question at all. Read errors of r
// are returned wrapped.
func readQuestions(r io.Reader) ([]evalQuestion, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEvalLine)
	var qs []evalQuestion
	seen := map[string]int{}
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: line %d: %s", errBadQuestions, n, fmt.Sprintf(format, args...))
		}
		if !utf8.Valid(line) {
			return nil, bad("not valid UTF-8")
		}
		var q evalQuestion
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, bad("want one JSON object {\"id\", \"question\", \"reference\"?, \"tags\"?}: %v", err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, bad("more than one JSON value on the line")
		}
		q.ID = strings.TrimSpace(q.ID)
		q.Question = strings.TrimSpace(q.Question)
		q.Reference = strings.TrimSpace(q.Reference)
		switch {
		case q.ID == "":
			return nil, bad("\"id\" is missing or empty")
		case strings.ContainsFunc(q.ID, unicode.IsControl):
			return nil, bad("\"id\" %q has control characters", q.ID)
		case q.Question == "":
			return nil, bad("question %q: \"question\" is missing or empty", q.ID)
		}
		if first, dup := seen[q.ID]; dup {
			return nil, bad("id %q is already used on line %d", q.ID, first)
		}
		seen[q.ID] = n
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: line %d: longer than %d bytes", errBadQuestions, n+1, maxEvalLine)
		}
		return nil, fmt.Errorf("read questions: %w", err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%w: no questions (one JSON object per line)", errBadQuestions)
	}
	return qs, nil
}

// evalGrade is the judge's grade of one answer. Score (0-10) is set when the judge gave
// a well-formed grade; otherwise Error says why there is none (the judge's call failed,
// or its reply was malformed, with Raw holding the start of it).
type evalGrade struct {
	Score  *float64 `json:"score,omitempty"`
	Reason string   `json:"reason,omitempty"`
	Error  string   `json:"error,omitempty"`
	Raw    string   `json:"raw,omitempty"`
}

// evalRow is the measure of one question's run. Seconds is the run's duration; tokens are
// the terminal event's usage (every model call of the run); Rounds is its tool rounds
// (the terminal event's steps). Searches and fetches count web_search and web_fetch calls
// (the terminal event's web tally, else the tool_complete events); WebErrors are the
// tally's first distinct errors. Sources is the
// conversation's source list. Cited lists the numbers cited as [n] in the answer and the
// deliverables, in first-use order; CitedFetched of them name a source that was read
// (Fetched), CitedUnknown name no source at all. FetchedShare is CitedFetched/len(Cited),
// nil when nothing is cited. ReportChars is the length in characters of the longest
// deliverable (every artifact but task_plan and uploads), ReportID its id.
type evalRow struct {
	ID               string     `json:"id"`
	Tags             []string   `json:"tags,omitempty"`
	Status           string     `json:"status"`
	Error            string     `json:"error,omitempty"`
	ConversationID   string     `json:"conversation_id,omitempty"`
	MessageID        string     `json:"message_id,omitempty"`
	Seconds          float64    `json:"seconds"`
	PromptTokens     int        `json:"prompt_tokens"`
	CompletionTokens int        `json:"completion_tokens"`
	Rounds           int        `json:"rounds"`
	Searches         int        `json:"searches"`
	SearchesFailed   int        `json:"searches_failed"`
	Fetches          int        `json:"fetches"`
	FetchesFailed    int        `json:"fetches_failed"`
	WebErrors        []string   `json:"web_errors,omitempty"`
	Sources          int        `json:"sources"`
	Cited            []int      `json:"cited"`
	CitedFetched     int        `json:"cited_fetched"`
	CitedUnknown     int        `json:"cited_unknown"`
	FetchedShare     *float64   `json:"fetched_share"`
	ReportID         string     `json:"report_id,omitempty"`
	ReportChars      int        `json:"report_chars"`
	Answer           string     `json:"answer,omitempty"`
	Judge            *evalGrade `json:"judge,omitempty"`

	report string // the longest deliverable's text, for the judge
}

// evalTotals sums the rows: Complete, Errors and Cancelled count statuses; the other
// counts are sums over the rows; FetchedShare is the sum of CitedFetched over the sum of
// citations (nil when nothing is cited); Mean* are means over the rows run; MeanScore is
// the mean of the Graded well-formed grades (nil when none).
type evalTotals struct {
	Run              int      `json:"run"`
	Complete         int      `json:"complete"`
	Errors           int      `json:"errors"`
	Cancelled        int      `json:"cancelled"`
	Seconds          float64  `json:"seconds"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Rounds           int      `json:"rounds"`
	Searches         int      `json:"searches"`
	SearchesFailed   int      `json:"searches_failed"`
	Fetches          int      `json:"fetches"`
	FetchesFailed    int      `json:"fetches_failed"`
	Sources          int      `json:"sources"`
	Citations        int      `json:"citations"`
	CitedFetched     int      `json:"cited_fetched"`
	FetchedShare     *float64 `json:"fetched_share"`
	MeanSeconds      float64  `json:"mean_seconds"`
	MeanReportChars  float64  `json:"mean_report_chars"`
	Graded           int      `json:"graded"`
	MeanScore        *float64 `json:"mean_score"`
}

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
}

// runEval runs `artifactflow eval [flags] questions.jsonl`: each question as a new
// conversation, --concurrency at a time (default 1), then its measures (evalRow). The
// table so far is rewritten to <out>/eval-<timestamp>.md and .json after every question,
// and printed to stdout at the end. Ctrl-C (or SIGTERM) cancels the runs going, starts no
// more and writes the table of what ran.
//
// Exit codes: 0 every question completed; 1 a run ended with an error (or the eval could
// not start or write its files); 2 bad usage or a bad question file (nothing runs);
// 130 cancelled.
func runEval(ctx context.Context, env Env, args []string) int {
	var outDir string
	var judge, approve bool
	concurrency := 1
	g, pos, ok := parseInterleaved(env, "eval", args, func(fs *flag.FlagSet) {
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

	abs, _ := filepath.Abs(pos[0])
	rep := &evalReport{StartedAt: time.Now().UTC(), QuestionsFile: abs, Questions: len(qs), Model: lead.Model,
		Endpoint: redactURL(s.BaseURL), Judge: judge}
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

// readQuestionFile reads and parses the question file at path (readQuestions).
func readQuestionFile(path string) ([]evalQuestion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qs, err := readQuestions(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, nil
}

// judgeModel is the model that grades answers: the lead's model on the same endpoint,
// with the lead's sampling (what the user set for it is what the endpoint accepts).
type judgeModel struct {
	model    llm.Model
	sampling llm.Sampling
}

// agentSampling converts an agent's sampling settings to a request's.
func agentSampling(c config.AgentChoice) llm.Sampling {
	f32 := func(v *float64) *float32 {
		if v == nil {
			return nil
		}
		f := float32(*v)
		return &f
	}
	return llm.Sampling{Temperature: f32(c.Temperature), TopP: f32(c.TopP), MaxTokens: c.MaxTokens}
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

// collect returns the rows run so far, in question order.
func collect(rows []*evalRow) []evalRow {
	out := []evalRow{}
	for _, r := range rows {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// evaluator runs and measures questions on one Core.
type evaluator struct {
	core   *app.Core
	grader *judgeModel // nil: no judging
	stderr io.Writer
	total  int

	mu   sync.Mutex // stderr lines and the rows
	done int
}

// runAll runs qs, n at a time, and returns one row per question run (nil for those not
// started: ctx ended first). After each row, saved is called with the rows so far, under
// the evaluator's lock. It returns when every started run has ended.
func (e *evaluator) runAll(ctx context.Context, qs []evalQuestion, n int, saved func([]*evalRow)) []*evalRow {
	rows := make([]*evalRow, len(qs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue
				}
				row, ok := e.one(ctx, qs[i])
				if !ok {
					continue
				}
				e.mu.Lock()
				rows[i] = &row
				e.done++
				e.progress("[%d/%d] %s: %s", e.done, e.total, row.ID, summary(row))
				saved(rows)
				e.mu.Unlock()
			}
		}()
	}
feed:
	for i := range qs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return rows
}

// progress prints one line to stderr; the caller holds e.mu.
func (e *evaluator) progress(format string, args ...any) {
	fmt.Fprintf(e.stderr, format+"\n", args...)
}

// summary is a row's progress line after its id.
func summary(r evalRow) string {
	s := fmt.Sprintf("%s in %.1f s, %d searches (%d failed), %d fetches (%d failed), %d sources, %d cited",
		r.Status, r.Seconds, r.Searches, r.SearchesFailed, r.Fetches, r.FetchesFailed, r.Sources, len(r.Cited))
	if r.Error != "" {
		s += ": " + text.Clip(r.Error, 160)
	}
	return s
}

// one runs q as a new conversation and measures it. ok is false when the run did not
// start because ctx ended first (the question is not run, not failed).
func (e *evaluator) one(ctx context.Context, q evalQuestion) (row evalRow, ok bool) {
	row = evalRow{ID: q.ID, Tags: q.Tags, Cited: []int{}}
	e.mu.Lock()
	e.progress("%s: %s", q.ID, text.Clip(q.Question, 100))
	e.mu.Unlock()
	start := time.Now()
	res, err := e.core.Engine().Ask(ctx, engine.Request{Content: q.Question})
	if err != nil {
		if ctx.Err() != nil {
			return row, false
		}
		row.Status, row.Error, row.Seconds = evalError, text.OneLine(err), time.Since(start).Seconds()
		return row, true
	}
	row.ConversationID, row.MessageID = res.ConversationID, res.MessageID
	row.Status = string(res.Status)
	if res.Status != events.Complete {
		row.Error = text.OneLine(res.Err)
	}
	row.Seconds = res.Duration.Seconds()
	if res.Duration <= 0 {
		row.Seconds = time.Since(start).Seconds()
	}
	row.PromptTokens, row.CompletionTokens = res.Usage.PromptTokens, res.Usage.CompletionTokens
	row.Rounds = res.Steps
	row.Answer = res.Response
	// The run has ended and stored everything: measure it even when ctx is cancelled.
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), measureTimeout)
	defer cancel()
	if err := measure(mctx, e.core.Store(), &row); err != nil {
		row.Error = strings.TrimPrefix(row.Error+"; ", "; ") + "measure: " + text.OneLine(err)
	}
	if e.grader != nil && q.Reference != "" && row.Status == evalComplete && ctx.Err() == nil {
		g := grade(ctx, e.grader, q, row.Answer, row.report)
		row.Judge = &g
	}
	return row, true
}

// measure fills row's web, source, citation and report measures from what the store
// holds for row.ConversationID and row.MessageID: the run's events, the conversation's
// sources and artifacts.
func measure(ctx context.Context, db *store.DB, row *evalRow) error {
	evs, err := db.ListEvents(ctx, store.EventQuery{ConversationID: row.ConversationID, MessageID: row.MessageID})
	if err != nil {
		return err
	}
	var tally *events.WebTally
	var counted events.WebTally
	for _, ev := range evs {
		switch ev.Type {
		case events.ToolComplete:
			var d events.DataToolComplete
			if json.Unmarshal(ev.Data, &d) != nil {
				continue
			}
			switch d.Tool {
			case "web_search":
				counted.Searches++
				if !d.Success {
					counted.SearchesFailed++
				}
			case "web_fetch":
				counted.Fetches++
				if !d.Success {
					counted.FetchesFailed++
				}
			}
		case events.Complete, events.Cancelled, events.Error:
			var d events.DataTerminal
			if json.Unmarshal(ev.Data, &d) == nil && d.Web != nil {
				tally = d.Web
			}
			if row.Answer == "" {
				row.Answer = d.Response
			}
		}
	}
	if tally == nil {
		tally = &counted
	}
	row.Searches, row.SearchesFailed = tally.Searches, tally.SearchesFailed
	row.Fetches, row.FetchesFailed = tally.Fetches, tally.FetchesFailed
	row.WebErrors = tally.Errors

	srcs, err := db.Sources(ctx, row.ConversationID)
	if err != nil {
		return err
	}
	row.Sources = len(srcs)
	arts, err := db.ListArtifacts(ctx, row.ConversationID)
	if err != nil {
		return err
	}
	texts := []string{row.Answer}
	for _, a := range arts {
		if a.ID == "task_plan" || a.Source == "user_upload" {
			continue
		}
		texts = append(texts, a.Content)
		if n := utf8.RuneCountInString(a.Content); n > row.ReportChars {
			row.ReportID, row.ReportChars, row.report = a.ID, n, a.Content
		}
	}
	row.Cited = citedIn(texts...)
	row.CitedFetched, row.CitedUnknown = 0, 0
	byN := make(map[int]sources.Source, len(srcs))
	for _, s := range srcs {
		byN[s.N] = s
	}
	for _, n := range row.Cited {
		s, ok := byN[n]
		switch {
		case !ok:
			row.CitedUnknown++
		case s.Fetched:
			row.CitedFetched++
		}
	}
	row.FetchedShare = share(row.CitedFetched, len(row.Cited))
	return nil
}

// citedIn returns the numbers cited in texts (sources.Cited), each once, in first-use
// order across texts; never nil.
func citedIn(texts ...string) []int {
	out := []int{}
	for _, t := range texts {
		for _, n := range sources.Cited(t) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// share returns part/whole, nil when whole is 0.
func share(part, whole int) *float64 {
	if whole == 0 {
		return nil
	}
	v := float64(part) / float64(whole)
	return &v
}

// judgeSystem is the judge's instruction. Its reply must be one JSON object.
const judgeSystem = `You grade answers to research questions against a reference answer.
Compare the facts of the answer (and of its report, when given) with the reference: dates, names, numbers and the main points. Ignore style, length, citations and formatting; extra correct detail is fine; a fact that contradicts the reference counts against the answer.
Score from 0 to 10: 10 = every key fact of the reference is present and nothing contradicts it; 5 = about half of the key facts, or a notable error; 0 = wrong, empty or off-topic.
Reply with exactly one JSON object and nothing else, on one line:
{"score": <integer 0-10>, "reason": "<one sentence>"}`

// grade asks the judge to grade answer (and report, the run's main deliverable) against q's
// reference, and parses its reply (parseGrade). A failed call is a grade with Error set.
func grade(ctx context.Context, j *judgeModel, q evalQuestion, answer, report string) evalGrade {
	var b strings.Builder
	fmt.Fprintf(&b, "Question:\n%s\n\nReference answer:\n%s\n\nAnswer to grade:\n%s\n", q.Question, q.Reference, clipRunes(answer, judgeAnswerRunes))
	if strings.TrimSpace(report) != "" {
		fmt.Fprintf(&b, "\nReport written with the answer:\n%s\n", clipRunes(report, judgeAnswerRunes))
	}
	resp, err := j.model.Stream(ctx, llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: judgeSystem},
		{Role: llm.RoleUser, Content: b.String()},
	}, Sampling: j.sampling}, nil)
	if err != nil {
		return evalGrade{Error: "judge call failed: " + text.OneLine(err)}
	}
	return parseGrade(resp.Content)
}

// parseGrade reads a judge's reply: the first JSON object in it (code fences and words
// around it are ignored) that has a "score", a number or numeric string from 0 to 10
// ("7/10" is read as 7), and optionally a string "reason" (flattened to one line and
// clipped). Raw line breaks inside its strings are read as spaces. Anything else gives a grade with Error "malformed grade" and Raw set to the
// start of the reply; it never fails otherwise.
func parseGrade(reply string) evalGrade {
	bad := func(why string) evalGrade {
		return evalGrade{Error: "malformed grade: " + why, Raw: clipRunes(strings.Join(strings.Fields(reply), " "), judgeRawRunes)}
	}
	// Line breaks and tabs are whitespace between JSON tokens; inside a string, where JSON
	// forbids them raw but models write them, they become spaces.
	reply = strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(reply)
	var obj map[string]json.RawMessage
	for i := 0; i < len(reply); i++ {
		if reply[i] != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if json.NewDecoder(strings.NewReader(reply[i:])).Decode(&m) == nil {
			if _, ok := m["score"]; ok {
				obj = m
				break
			}
		}
	}
	if obj == nil {
		return bad("no JSON object with a score")
	}
	score, ok := scoreOf(obj["score"])
	if !ok {
		return bad("score is not a number from 0 to 10")
	}
	g := evalGrade{Score: &score}
	if raw, ok := obj["reason"]; ok {
		var reason string
		if json.Unmarshal(raw, &reason) != nil {
			return bad("reason is not a string")
		}
		g.Reason = clipRunes(strings.Join(strings.Fields(reason), " "), judgeReasonRunes)
	}
	return g
}

// scoreOf reads a score: a JSON number, or a string holding one (optionally "/10"),
// within 0-10.
func scoreOf(raw json.RawMessage) (float64, bool) {
	var v float64
	if json.Unmarshal(raw, &v) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "/10"))
		var err error
		if v, err = strconv.ParseFloat(s, 64); err != nil {
			return 0, false
		}
	}
	if math.IsNaN(v) || v < 0 || v > 10 {
		return 0, false
	}
	return v, true
}

// clipRunes returns s cut to at most n runes, with "…" when cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// totals computes the report's totals from its rows.
func totals(rows []evalRow) evalTotals {
	var t evalTotals
	var reportChars int
	var scores float64
	for _, r := range rows {
		t.Run++
		switch r.Status {
		case evalComplete:
			t.Complete++
		case evalCancelled:
			t.Cancelled++
		default:
			t.Errors++
		}
		t.Seconds += r.Seconds
		t.PromptTokens += r.PromptTokens
		t.CompletionTokens += r.CompletionTokens
		t.Rounds += r.Rounds
		t.Searches += r.Searches
		t.SearchesFailed += r.SearchesFailed
		t.Fetches += r.Fetches
		t.FetchesFailed += r.FetchesFailed
		t.Sources += r.Sources
		t.Citations += len(r.Cited)
		t.CitedFetched += r.CitedFetched
		reportChars += r.ReportChars
		if r.Judge != nil && r.Judge.Score != nil {
			t.Graded++
			scores += *r.Judge.Score
		}
	}
	t.FetchedShare = share(t.CitedFetched, t.Citations)
	if t.Run > 0 {
		t.MeanSeconds = t.Seconds / float64(t.Run)
		t.MeanReportChars = float64(reportChars) / float64(t.Run)
	}
	if t.Graded > 0 {
		m := scores / float64(t.Graded)
		t.MeanScore = &m
	}
	return t
}

// markdownTable renders rep's rows as a Markdown table with a total and a mean row, the
// judge's columns when rep.Judge, and a line per run that did not complete.
func markdownTable(rep *evalReport) string {
	t := totals(rep.Results)
	head := []string{"id", "status", "time (s)", "tokens (prompt/completion)", "rounds", "searches (failed)",
		"fetches (failed)", "sources", "citations", "cited → fetched", "report (chars)"}
	if rep.Judge {
		head = append(head, "judge", "judge's reason")
	}
	var b strings.Builder
	row := func(cells ...string) {
		for i := range cells {
			cells[i] = mdCell(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	row(head...)
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = "---"
		if i >= 2 && i <= 11 { // numbers and the judge's score
			sep[i] = "--:"
		}
	}
	b.WriteString("| " + strings.Join(sep, " | ") + " |\n")
	for _, r := range rep.Results {
		cells := []string{r.ID, r.Status, fmt.Sprintf("%.1f", r.Seconds),
			fmt.Sprintf("%d/%d", r.PromptTokens, r.CompletionTokens), strconv.Itoa(r.Rounds),
			withFailed(r.Searches, r.SearchesFailed), withFailed(r.Fetches, r.FetchesFailed),
			strconv.Itoa(r.Sources), strconv.Itoa(len(r.Cited)), percent(r.FetchedShare), strconv.Itoa(r.ReportChars)}
		if rep.Judge {
			cells = append(cells, judgeCells(r.Judge)...)
		}
		row(cells...)
	}
	status := fmt.Sprintf("%d/%d complete", t.Complete, t.Run)
	total := []string{"**total**", status, fmt.Sprintf("%.1f", t.Seconds),
		fmt.Sprintf("%d/%d", t.PromptTokens, t.CompletionTokens), strconv.Itoa(t.Rounds),
		withFailed(t.Searches, t.SearchesFailed), withFailed(t.Fetches, t.FetchesFailed),
		strconv.Itoa(t.Sources), strconv.Itoa(t.Citations), percent(t.FetchedShare), ""}
	mean := []string{"**mean**", "", fmt.Sprintf("%.1f", t.MeanSeconds),
		meanPair(t.PromptTokens, t.CompletionTokens, t.Run), mean1(t.Rounds, t.Run),
		mean1(t.Searches, t.Run), mean1(t.Fetches, t.Run), mean1(t.Sources, t.Run), mean1(t.Citations, t.Run),
		"", fmt.Sprintf("%.0f", t.MeanReportChars)}
	if rep.Judge {
		total = append(total, fmt.Sprintf("%d graded", t.Graded), "")
		meanScore := "—"
		if t.MeanScore != nil {
			meanScore = fmt.Sprintf("%.1f/10", *t.MeanScore)
		}
		mean = append(mean, meanScore, "")
	}
	row(total...)
	row(mean...)
	var notes []string
	for _, r := range rep.Results {
		if r.Error != "" {
			notes = append(notes, fmt.Sprintf("- %s: %s: %s", mdCell(r.ID), r.Status, mdCell(text.Clip(r.Error, 300))))
		}
	}
	if rep.Interrupted {
		notes = append(notes, fmt.Sprintf("- interrupted: %d of %d questions ran", len(rep.Results), rep.Questions))
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
	}
	return b.String()
}

// judgeCells are the judge's two cells of a row: the score and the reason, or why there
// is no score.
func judgeCells(g *evalGrade) []string {
	switch {
	case g == nil:
		return []string{"—", ""}
	case g.Score == nil && strings.HasPrefix(g.Error, "malformed grade"):
		return []string{"malformed", text.Clip(g.Error+": "+g.Raw, 160)}
	case g.Score == nil:
		return []string{"failed", text.Clip(g.Error, 160)}
	}
	return []string{strconv.FormatFloat(*g.Score, 'f', -1, 64) + "/10", g.Reason}
}

// withFailed formats a count with its failed part: "3" or "3 (1)".
func withFailed(n, failed int) string {
	if failed == 0 {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%d (%d)", n, failed)
}

// percent formats a share as "50%", nil as "—".
func percent(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", *v*100)
}

// mean1 formats sum/n with one decimal ("—" when n is 0).
func mean1(sum, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", float64(sum)/float64(n))
}

// meanPair formats the mean prompt and completion tokens.
func meanPair(a, b, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f/%.0f", float64(a)/float64(n), float64(b)/float64(n))
}

// mdCell makes s safe in one Markdown table cell: one line, pipes escaped.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// evalFiles are the two output files of one eval, reserved at its start.
type evalFiles struct{ md, json string }

// reserveEvalFiles creates dir when needed and reserves eval-<timestamp>.md and .json in
// it, the timestamp being now in local time (20060102-150405, then -2, -3 ... when taken),
// by creating both files empty: an unwritable directory fails before anything runs.
func reserveEvalFiles(dir string, now time.Time) (evalFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return evalFiles{}, fmt.Errorf("output directory: %w", err)
	}
	base := "eval-" + now.Format("20060102-150405")
	for i := 1; i < 1000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f := evalFiles{md: filepath.Join(dir, name+".md"), json: filepath.Join(dir, name+".json")}
		if err := createNew(f.md); err != nil {
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return evalFiles{}, err
		}
		if err := createNew(f.json); err != nil {
			_ = os.Remove(f.md)
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return evalFiles{}, err
		}
		return f, nil
	}
	return evalFiles{}, fmt.Errorf("output directory %s: no free name for %s", dir, base)
}

// createNew creates path empty, failing with os.ErrExist when it exists.
func createNew(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// write writes rep (its totals computed now) to both files, each replaced whole through
// a temporary file, so a reader never sees half a table.
func (f evalFiles) write(rep *evalReport) error {
	rep.Totals = totals(rep.Results)
	rep.FinishedAt = time.Now().UTC()
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# ArtifactFlow eval %s\n\n", rep.StartedAt.Local().Format("2006-01-02 15:04"))
	fmt.Fprintf(&md, "- questions: %s (%d run of %d)\n", mdCell(rep.QuestionsFile), len(rep.Results), rep.Questions)
	fmt.Fprintf(&md, "- model: %s at %s\n", mdCell(rep.Model), mdCell(rep.Endpoint))
	if rep.SubAgentModel != "" {
		fmt.Fprintf(&md, "- sub-agents' model: %s\n", mdCell(rep.SubAgentModel))
	}
	if rep.Judge {
		fmt.Fprintf(&md, "- judge: the same model, 0-10 against each reference\n")
	}
	md.WriteString("\n" + markdownTable(rep))
	if err := replaceFile(f.json, append(js, '\n')); err != nil {
		return err
	}
	return replaceFile(f.md, []byte(md.String()))
}

// replaceFile writes data to path through a temporary file in its directory and a rename.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// redactURL returns raw without what may be a credential: the user name and password are
// dropped, every query value becomes "redacted" (a parameter without "=" as a whole), the
// fragment goes; "" stays "".
func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.User, u.Fragment, u.RawFragment, u.ForceQuery = nil, "", "", false
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if name, _, ok := strings.Cut(p, "="); ok && name != "" {
				parts[i] = name + "=redacted"
			} else {
				parts[i] = "redacted"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
)

// shippedQuestions is the question set shipped in eval/ (the test runs in app/cli/).
const shippedQuestions = "../../eval/questions.jsonl"

// evalReport is what the report of a scripted run should say of one question.
const (
	evalReportText = "# Findings\n\nThe main fact comes from the page read [1]; the search also listed [2].\n"
	evalDeadHost   = "http://127.0.0.1:1/gone" // nothing listens: web_fetch fails
)

// evalScript scripts a research run for any question: the lead sends search_agent
// (web_search), then crawl_agent (web_fetch of the first result, or of evalDeadHost when
// the question contains failFetch), writes a report citing [1] and [2], and answers citing
// [1] and [2]. Judge requests are answered by judge (nil: an HTTP 500). onLead, when set,
// sees every lead request first and may replace the reply.
type evalScript struct {
	w         *apptest.World
	failFetch string
	judge     func(req openai.ChatCompletionRequest) llmtest.Reply
	onLead    func(req openai.ChatCompletionRequest) *llmtest.Reply
	judged    atomic.Int64
}

var instructionURL = regexp.MustCompile(`Read (\S+) and`)

func (s *evalScript) handler() llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		w := s.w
		results := apptest.ToolResults(req)
		switch apptest.AgentOf(req) {
		case "search_agent":
			if len(results) == 0 {
				return w.ToolCall("web_search", map[string]any{"query": "facts", "count": 2})
			}
			return llmtest.Reply{Content: "Found: " + results[0]}
		case "crawl_agent":
			if len(results) == 0 {
				m := instructionURL.FindStringSubmatch(apptest.LastUser(req))
				if m == nil {
					return llmtest.Reply{Content: "no URL in the instruction"}
				}
				return w.ToolCall("web_fetch", map[string]any{"url": m[1]})
			}
			return llmtest.Reply{Content: "Read it."}
		case "lead_agent":
			if s.onLead != nil {
				if r := s.onLead(req); r != nil {
					return *r
				}
			}
			question := firstUser(req)
			switch len(results) {
			case 0:
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Find sources for: " + question})
			case 1:
				target := w.PageURL
				if s.failFetch != "" && strings.Contains(question, s.failFetch) {
					target = evalDeadHost
				}
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "Read " + target + " and extract the facts."})
			case 2:
				return w.ToolCall("create_artifact", map[string]any{"id": "report", "content_type": "markdown", "title": "Report", "content": evalReportText})
			default:
				return llmtest.Reply{Content: "The answer, from the page [1] and the search [2]."}
			}
		}
		if llmtest.SystemContains(req, "You grade answers") {
			s.judged.Add(1)
			if s.judge != nil {
				return s.judge(req)
			}
		}
		return llmtest.Reply{Status: http.StatusInternalServerError, ErrorMessage: "unexpected request"}
	}
}

func firstUser(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			return m.Content
		}
	}
	return ""
}

// newEvalWorld is a world whose model follows s.
func newEvalWorld(t *testing.T, s *evalScript) *apptest.World {
	t.Helper()
	return apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		s.w = w
		return s.handler()
	})
}

// runEvalIn runs `artifactflow eval` in-process with the world's flags.
func runEvalIn(ctx context.Context, w *apptest.World, extra ...string) (int, string, string) {
	var out, errb bytes.Buffer
	args := append([]string{"eval"}, w.Args(append([]string{"--allow-private-network"}, extra...)...)...)
	code := Main(ctx, Env{Args: args, Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// readEvalOutput returns the report and Markdown eval wrote into dir, failing unless it
// wrote exactly one pair.
func readEvalOutput(t *testing.T, dir string) (evalReport, string) {
	t.Helper()
	jsons, _ := filepath.Glob(filepath.Join(dir, "eval-*.json"))
	mds, _ := filepath.Glob(filepath.Join(dir, "eval-*.md"))
	if len(jsons) != 1 || len(mds) != 1 || strings.TrimSuffix(jsons[0], ".json") != strings.TrimSuffix(mds[0], ".md") {
		t.Fatalf("output files: %v %v, want one eval-<timestamp>.json and .md", jsons, mds)
	}
	b, err := os.ReadFile(jsons[0])
	if err != nil {
		t.Fatal(err)
	}
	var rep evalReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%s: %v", jsons[0], err)
	}
	md, err := os.ReadFile(mds[0])
	if err != nil {
		t.Fatal(err)
	}
	return rep, string(md)
}

// tableRows returns the table lines of md that start with "| ", without the header and
// separator.
func tableRows(md string) []string {
	var rows []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ") {
			rows = append(rows, l)
		}
	}
	if len(rows) < 2 {
		return nil
	}
	return rows[2:]
}

// TestEvalRunsShippedSet runs the shipped question set against the scripted model, each
// question a search, a fetch, a report citing [1] and [2] and an answer citing them; the
// question about Westphalia fetches a dead address instead. It checks every measure of
// the table against what the scripted runs imply and the files written.
func TestEvalRunsShippedSet(t *testing.T) {
	qs, err := readQuestionFile(shippedQuestions)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 10 {
		t.Fatalf("shipped set has %d questions, want 10", len(qs))
	}
	for _, conc := range []string{"1", "3"} {
		t.Run("concurrency="+conc, func(t *testing.T) {
			s := &evalScript{failFetch: "Westphalia"}
			w := newEvalWorld(t, s)
			out := filepath.Join(t.TempDir(), "results")
			code, stdout, stderr := runEvalIn(context.Background(), w, "--out", out, "--concurrency", conc, shippedQuestions)
			if code != ExitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			t.Logf("stdout:\n%s", stdout)
			rep, md := readEvalOutput(t, out)
			if !strings.Contains(md, stdout) || !strings.HasPrefix(stdout, "| id | status |") {
				t.Fatalf("stdout is not the file's table:\nstdout:\n%s\nfile:\n%s", stdout, md)
			}
			if len(rep.Results) != 10 || rep.Questions != 10 || rep.Interrupted || rep.Model != "test-model" {
				t.Fatalf("report: %d results of %d, interrupted %v, model %q", len(rep.Results), rep.Questions, rep.Interrupted, rep.Model)
			}
			rows := tableRows(stdout)
			if len(rows) != 12 {
				t.Fatalf("table has %d rows, want 10 questions + total + mean:\n%s", len(rows), stdout)
			}
			db := w.DB()
			for i, r := range rep.Results {
				if r.ID != qs[i].ID {
					t.Fatalf("row %d is %q, want %q (the file's order)", i, r.ID, qs[i].ID)
				}
				if !strings.HasPrefix(rows[i], "| "+r.ID+" | complete |") {
					t.Errorf("table row %d = %q", i, rows[i])
				}
				// Tokens: the sum of the run's model calls, counted here from its llm_complete events.
				var prompt, completion int
				if err := db.QueryRow(`SELECT COALESCE(SUM(json_extract(data, '$.usage.prompt_tokens')), 0),
					COALESCE(SUM(json_extract(data, '$.usage.completion_tokens')), 0)
					FROM message_events WHERE conversation_id = ? AND type = 'llm_complete'`, r.ConversationID).Scan(&prompt, &completion); err != nil {
					t.Fatal(err)
				}
				// The report as stored (the engine adds its sources section to the scripted text).
				var report string
				if err := db.QueryRow(`SELECT content FROM artifacts WHERE session_id = ? AND id = 'report'`, r.ConversationID).Scan(&report); err != nil {
					t.Fatal(err)
				}
				reportChars := len([]rune(report))
				if !strings.HasPrefix(report, evalReportText) || reportChars <= len(evalReportText) {
					t.Errorf("%s: stored report %q", r.ID, report)
				}
				fails := strings.Contains(qs[i].Question, "Westphalia")
				wantFetched, wantShare, fetchFailed := 1, 0.5, 0
				if fails {
					wantFetched, wantShare, fetchFailed = 0, 0, 1
				}
				got := fmt.Sprintf("status %s rounds %d searches %d/%d fetches %d/%d sources %d cited %v fetched %d unknown %d report %s:%d",
					r.Status, r.Rounds, r.Searches, r.SearchesFailed, r.Fetches, r.FetchesFailed, r.Sources, r.Cited,
					r.CitedFetched, r.CitedUnknown, r.ReportID, r.ReportChars)
				want := fmt.Sprintf("status complete rounds 5 searches 1/0 fetches 1/%d sources 2 cited [1 2] fetched %d unknown 0 report report:%d",
					fetchFailed, wantFetched, reportChars)
				if got != want {
					t.Errorf("%s: %s\nwant %s", r.ID, got, want)
				}
				if r.FetchedShare == nil || *r.FetchedShare != wantShare {
					t.Errorf("%s: fetched share %v, want %v", r.ID, r.FetchedShare, wantShare)
				}
				if prompt == 0 || r.PromptTokens != prompt || r.CompletionTokens != completion {
					t.Errorf("%s: tokens %d/%d, want the run's %d/%d", r.ID, r.PromptTokens, r.CompletionTokens, prompt, completion)
				}
				if r.Seconds <= 0 || r.ConversationID == "" || !strings.Contains(r.Answer, "[1]") {
					t.Errorf("%s: seconds %v, conversation %q, answer %q", r.ID, r.Seconds, r.ConversationID, r.Answer)
				}
			}
			// Ten conversations, one per question.
			if n := count(t, db, `SELECT count(DISTINCT conversation_id) FROM messages`); n != 10 {
				t.Errorf("conversations with a message = %d, want 10", n)
			}
			tot := rep.Totals
			if got := fmt.Sprintf("%d %d %d %d/%d %d/%d %d %d %d", tot.Run, tot.Complete, tot.Rounds, tot.Searches, tot.SearchesFailed,
				tot.Fetches, tot.FetchesFailed, tot.Sources, tot.Citations, tot.CitedFetched); got != "10 10 50 10/0 10/1 20 20 9" {
				t.Errorf("totals = %s, want 10 10 50 10/0 10/1 20 20 9", got)
			}
			total, mean := rows[10], rows[11]
			for _, sub := range []string{"| **total** | 10/10 complete |", "| 50 | 10 | 10 (1) | 20 | 20 | 45% |"} {
				if !strings.Contains(total, sub) {
					t.Errorf("total row %q lacks %q", total, sub)
				}
			}
			if !strings.Contains(mean, "| **mean** |") || !strings.Contains(mean, "| 5.0 | 1.0 | 1.0 | 2.0 | 2.0 |") {
				t.Errorf("mean row = %q", mean)
			}
			westphalia := rows[3]
			if !strings.Contains(westphalia, "| 1 | 1 (1) | 2 | 2 | 0% |") {
				t.Errorf("the failed fetch's row = %q, want 1 (1) fetches and 0%% fetched", westphalia)
			}
			if s.judged.Load() != 0 {
				t.Error("the judge was called without --judge")
			}
		})
	}
}

// TestEvalJudgeKeepsTheModelLimits: the judge's client is made with the settings' model
// call limits, as the agents' are: with Settings' answer cap at 1 MiB, a judge that floods
// about 2.4 MiB of text fails that grade with the cap's error (with llm's 4 MiB default it
// would take the flood as its grade) and the eval still ends.
func TestEvalJudgeKeepsTheModelLimits(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(file, []byte(`{"id": "flood", "question": "Question flood?", "reference": "Ref flood."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &evalScript{judge: func(openai.ChatCompletionRequest) llmtest.Reply {
		return llmtest.Reply{Flood: llmtest.FloodContent, FloodLimit: 8 << 20} // ~2.4 MiB of text in its chunks
	}}
	w := newEvalWorld(t, s)
	if err := os.MkdirAll(w.DataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.DataDir, config.ConfigFile), []byte(`{"max_answer_mb": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, stderr := runEvalIn(context.Background(), w, "--judge", "--out", out, file)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	rep, _ := readEvalOutput(t, out)
	if len(rep.Results) != 1 || rep.Results[0].Judge == nil {
		t.Fatalf("results = %+v, want one judged", rep.Results)
	}
	if g := rep.Results[0].Judge; g.Score != nil || !strings.HasPrefix(g.Error, "judge call failed: ") || !strings.Contains(g.Error, "exceed 1 MiB") {
		t.Errorf("judge of a 2.4 MiB flood under a 1 MiB cap: score %v, error %q; want the cap's error", g.Score, g.Error)
	}
}

// TestEvalJudge: --judge asks the model once per answered question with a reference; a
// grade in JSON (even in a code fence, with words around it) becomes the score and
// reason, a malformed one is shown as malformed, a question without a reference is not
// judged, and a failed judge call is reported without failing the eval.
func TestEvalJudge(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.jsonl")
	lines := `{"id": "good", "question": "Question good?", "reference": "Ref good."}
{"id": "fenced", "question": "Question fenced?", "reference": "Ref fenced."}
{"id": "bad", "question": "Question bad?", "reference": "Ref bad."}
{"id": "noref", "question": "Question noref?"}
{"id": "down", "question": "Question down?", "reference": "Ref down."}
`
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var prompts []string
	s := &evalScript{judge: func(req openai.ChatCompletionRequest) llmtest.Reply {
		u := apptest.LastUser(req)
		mu.Lock()
		prompts = append(prompts, u)
		mu.Unlock()
		switch {
		case strings.Contains(u, "Question good?"):
			return llmtest.Reply{Content: `{"score": 8, "reason": "Matches the reference | mostly."}`}
		case strings.Contains(u, "Question fenced?"):
			return llmtest.Reply{Content: "Here is my grade:\n```json\n{\"score\": \"6/10\", \"reason\": \"Half the facts.\"}\n```"}
		case strings.Contains(u, "Question bad?"):
			return llmtest.Reply{Content: "I would give it a solid eight."}
		default:
			return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "judge refused"}
		}
	}}
	w := newEvalWorld(t, s)
	out := t.TempDir()
	code, stdout, stderr := runEvalIn(context.Background(), w, "--judge", "--out", out, file)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if s.judged.Load() != 4 {
		t.Errorf("judge calls = %d, want 4 (every question with a reference)", s.judged.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range prompts {
		if !strings.Contains(p, "Reference answer:\nRef ") || !strings.Contains(p, "from the page [1]") || !strings.Contains(p, evalReportText[:20]) {
			t.Errorf("judge prompt lacks the reference, the answer or the report:\n%s", p)
		}
	}
	rep, _ := readEvalOutput(t, out)
	got := map[string]string{}
	for _, r := range rep.Results {
		switch {
		case r.Judge == nil:
			got[r.ID] = "none"
		case r.Judge.Score != nil:
			got[r.ID] = fmt.Sprintf("%g %s", *r.Judge.Score, r.Judge.Reason)
		default:
			got[r.ID] = r.Judge.Error
		}
	}
	want := map[string]string{
		"good":   "8 Matches the reference | mostly.",
		"fenced": "6 Half the facts.",
		"bad":    "malformed grade: no JSON object with a score",
		"noref":  "none",
	}
	for id, v := range want {
		if got[id] != v {
			t.Errorf("%s: judge %q, want %q", id, got[id], v)
		}
	}
	if !strings.HasPrefix(got["down"], "judge call failed: ") || !strings.Contains(got["down"], "judge refused") {
		t.Errorf("down: judge %q, want the failed call", got["down"])
	}
	rows := tableRows(stdout)
	if len(rows) != 7 {
		t.Fatalf("table rows = %d, want 5 + total + mean:\n%s", len(rows), stdout)
	}
	for i, sub := range []string{
		`| 8/10 | Matches the reference \| mostly. |`,
		`| 6/10 | Half the facts. |`,
		`| malformed | malformed grade: no JSON object with a score: I would give it a solid eight. |`,
		`| — |  |`,
		`| failed | judge call failed: `,
		`| 2 graded |`,
		`| 7.0/10 |`,
	} {
		if !strings.Contains(rows[i], sub) {
			t.Errorf("row %d = %q, want %q in it", i, rows[i], sub)
		}
	}
	if rep.Totals.Graded != 2 || rep.Totals.MeanScore == nil || *rep.Totals.MeanScore != 7 {
		t.Errorf("totals: graded %d, mean %v; want 2 and 7", rep.Totals.Graded, rep.Totals.MeanScore)
	}
}

// TestEvalCancelled: cancelling during the third of four questions stops that run, starts
// no more, writes the table of the three that ran and exits 130.
func TestEvalCancelled(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.jsonl")
	var b strings.Builder
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, `{"id": "q%d", "question": "Question number %d?"}`+"\n", i, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var leadCalls4 atomic.Int64
	s := &evalScript{onLead: func(req openai.ChatCompletionRequest) *llmtest.Reply {
		switch q := firstUser(req); {
		case strings.Contains(q, "number 3"):
			cancel() // Ctrl-C while the third question's lead is thinking
			return &llmtest.Reply{Content: "slow", Delay: 2e9}
		case strings.Contains(q, "number 4"):
			leadCalls4.Add(1)
		}
		return nil
	}}
	w := newEvalWorld(t, s)
	out := t.TempDir()
	code, stdout, stderr := runEvalIn(ctx, w, "--out", out, file)
	if code != ExitCancelled {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitCancelled, stderr)
	}
	if leadCalls4.Load() != 0 {
		t.Error("the fourth question ran after the cancel")
	}
	rep, md := readEvalOutput(t, out)
	var statuses []string
	for _, r := range rep.Results {
		statuses = append(statuses, r.ID+":"+r.Status)
	}
	if got := strings.Join(statuses, " "); got != "q1:complete q2:complete q3:cancelled" || !rep.Interrupted || rep.Questions != 4 {
		t.Fatalf("results %s (interrupted %v, of %d), want q1 and q2 complete, q3 cancelled, interrupted, of 4", got, rep.Interrupted, rep.Questions)
	}
	if rows := tableRows(stdout); len(rows) != 5 || !strings.Contains(rows[3], "| 2/3 complete |") {
		t.Fatalf("table:\n%s", stdout)
	}
	if !strings.Contains(md, "- interrupted: 3 of 4 questions ran") || !strings.Contains(stderr, "cancelled after 3 of 4") {
		t.Errorf("the interruption is not reported:\n%s\nstderr:\n%s", md, stderr)
	}
}

// TestEvalRunError: a run that ends with an error is a row with its status and reason,
// the other questions still run, and the exit status is 1.
func TestEvalRunError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(file, []byte(`{"id": "ok", "question": "Fine?"}`+"\n"+`{"id": "broken", "question": "Broken?"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &evalScript{onLead: func(req openai.ChatCompletionRequest) *llmtest.Reply {
		if strings.Contains(firstUser(req), "Broken?") {
			return &llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "model says no"}
		}
		return nil
	}}
	w := newEvalWorld(t, s)
	out := t.TempDir()
	code, stdout, stderr := runEvalIn(context.Background(), w, "--out", out, file)
	if code != ExitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitError, stderr)
	}
	rep, _ := readEvalOutput(t, out)
	if len(rep.Results) != 2 || rep.Results[0].Status != "complete" || rep.Results[1].Status != "error" ||
		!strings.Contains(rep.Results[1].Error, "model says no") {
		t.Fatalf("results = %+v", rep.Results)
	}
	if !strings.Contains(stdout, "| 1/2 complete |") || !strings.Contains(stdout, "- broken: error: ") {
		t.Errorf("table:\n%s", stdout)
	}
}

// TestEvalBadInput: a bad question file or bad flags exit 2 with an error naming the
// problem (the line, for a file), and nothing runs.
func TestEvalBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"id": "a", "question": "A?"}` + "\n"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"broken JSON on line 3", []string{write("broken.jsonl", good+"\n"+`{"id": "b", "question": "B?"`)}, "line 3: want one JSON object"},
		{"no question", []string{write("noq.jsonl", good+`{"id": "b"}`)}, `line 2: question "b": "question" is missing or empty`},
		{"unknown field", []string{write("typo.jsonl", `{"id": "a", "question": "A?", "refrence": "x"}`)}, `line 1: want one JSON object`},
		{"duplicate id", []string{write("dup.jsonl", good+good)}, `line 2: id "a" is already used on line 1`},
		{"empty file", []string{write("empty.jsonl", "\n\n")}, "no questions"},
		{"missing file", []string{filepath.Join(dir, "nope.jsonl")}, "nope.jsonl"},
		{"no file", nil, "give one question file"},
		{"two files", []string{write("one.jsonl", good), write("two.jsonl", good)}, "give one question file"},
		{"concurrency 0", []string{"--concurrency", "0", write("c.jsonl", good)}, "--concurrency 0: want 1 to 16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &evalScript{}
			w := newEvalWorld(t, s)
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := runEvalIn(context.Background(), w, append([]string{"--out", out}, tc.args...)...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, ExitUsage, tc.want)
			}
			if stdout != "" || len(w.Model.Requests()) != 0 {
				t.Errorf("something ran: stdout %q, %d model requests", stdout, len(w.Model.Requests()))
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("output directory created (%v) for a bad input", err)
			}
		})
	}
}

// TestReadQuestions checks the parser on its own: what is accepted and how errors name
// the line.
func TestReadQuestions(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // ids joined by spaces, or the error's text
	}{
		{"bom, blank lines, spaces and tags", "\uFEFF{\"id\": \" a \", \"question\": \"A?\", \"tags\": [\"x\"]}\n\n  \n{\"id\":\"b\",\"question\":\"B?\",\"reference\":\"R\"}\r\n", "a b"},
		{"two values on a line", `{"id":"a","question":"A?"} {"id":"b","question":"B?"}`, "line 1: more than one JSON value"},
		{"an array", `["a", "A?"]`, "line 1: want one JSON object"},
		{"empty id", `{"id":"  ","question":"A?"}`, `line 1: "id" is missing or empty`},
		{"control in id", `{"id":"a\nb","question":"A?"}`, `line 1: "id" "a\nb" has control characters`},
		{"invalid UTF-8", "{\"id\":\"a\",\"question\":\"\xff\"}", "line 1: not valid UTF-8"},
		{"too long", `{"id":"a","question":"` + strings.Repeat("x", maxEvalLine) + `"}`, "line 1: longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := readQuestions(strings.NewReader(tc.in))
			var got string
			if err != nil {
				if !errors.Is(err, errBadQuestions) {
					t.Errorf("error %v does not wrap errBadQuestions", err)
				}
				got = err.Error()
			} else {
				var ids []string
				for _, q := range qs {
					ids = append(ids, q.ID)
				}
				got = strings.Join(ids, " ")
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestParseGrade checks the judge's reply parser on well-formed and malformed replies.
func TestParseGrade(t *testing.T) {
	for _, tc := range []struct {
		reply string
		want  string // "score|reason" or the error
	}{
		{`{"score": 7, "reason": "Good."}`, "7|Good."},
		{"<answer>\n```json\n{\"score\": 10, \"reason\": \"All\n facts.\"}\n```", "10|All facts."},
		{`Before {"note": 1} then {"score": "3/10"}`, "3|"},
		{`{"score": 4.5, "reason": "Half."}`, "4.5|Half."},
		{`{"score": 0}`, "0|"},
		{`{"score": 11, "reason": "x"}`, "malformed grade: score is not a number from 0 to 10"},
		{`{"score": -1}`, "malformed grade: score is not a number from 0 to 10"},
		{`{"score": "eight"}`, "malformed grade: score is not a number from 0 to 10"},
		{`{"score": 5, "reason": 3}`, "malformed grade: reason is not a string"},
		{`{"grade": 5}`, "malformed grade: no JSON object with a score"},
		{`{"score": 5`, "malformed grade: no JSON object with a score"},
		{``, "malformed grade: no JSON object with a score"},
	} {
		g := parseGrade(tc.reply)
		got := g.Error
		if g.Score != nil {
			got = fmt.Sprintf("%g|%s", *g.Score, g.Reason)
			if g.Error != "" {
				t.Errorf("%q: both a score and an error", tc.reply)
			}
		}
		if got != tc.want {
			t.Errorf("parseGrade(%q) = %q, want %q", tc.reply, got, tc.want)
		}
	}
}

// TestMeasure checks measure on a stored run directly: the terminal event's web tally
// wins over counting tool_complete events, which count when there is no tally; only this
// message's events count; citations of the answer and the deliverables (not task_plan or
// an upload) are checked against the source list, a number with no source counting as
// unknown.
func TestMeasure(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const conv = "c1"
	if err := db.CreateConversation(ctx, store.Conversation{ID: conv}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"m0", "m1", "m2"} {
		if err := db.AddMessage(ctx, store.Message{ID: id, ConversationID: conv, ThreadID: conv, Content: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	seq := int64(0)
	add := func(msg string, typ events.Type, data any) {
		t.Helper()
		b, _ := json.Marshal(data)
		seq++
		if err := db.AppendEvents(ctx, events.Event{Type: typ, ConversationID: conv, MessageID: msg, Seq: seq, Data: b}); err != nil {
			t.Fatal(err)
		}
	}
	tool := func(msg, name string, ok bool) {
		add(msg, events.ToolComplete, events.DataToolComplete{Tool: name, Success: ok})
	}
	// m0, an earlier run of the conversation: its calls are not m1's or m2's.
	tool("m0", "web_search", false)
	tool("m0", "web_fetch", false)
	// m1: no tally in its terminal event, so its tool_complete events are counted.
	tool("m1", "web_search", true)
	tool("m1", "web_search", false)
	tool("m1", "web_fetch", false)
	tool("m1", "read_artifact", false)
	add("m1", events.Complete, events.DataTerminal{Response: "From the terminal [3]."})
	// m2: the tally says otherwise than its events, and wins.
	tool("m2", "web_search", true)
	add("m2", events.Complete, events.DataTerminal{Web: &events.WebTally{Searches: 4, SearchesFailed: 3, Fetches: 2, FetchesFailed: 1,
		Errors: []string{"brave search: 429"}}})
	for _, s := range []sources.Source{
		{Kind: "web", Location: "https://a.example/1", Title: "A", Fetched: true},
		{Kind: "web", Location: "https://b.example/2", Title: "B"},
		{Kind: "web", Location: "https://c.example/3", Title: "C", Fetched: true},
	} {
		if _, err := db.AddSource(ctx, conv, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []store.ArtifactWrite{
		{ID: "task_plan", Content: "- [ ] cite [7]"},
		{ID: "notes", Content: "Short [2]."},
		{ID: "report", Content: "A longer report citing [1], [2] and [9], in ünïcödé."},
		{ID: "upload.md", Content: strings.Repeat("an uploaded file cites [8] ", 20), Source: "user_upload"},
	} {
		a.SessionID, a.ContentType, a.Version, a.UpdateType = conv, "markdown", 1, store.UpdateCreate
		if _, err := db.CreateArtifact(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		msg, answer string
		want        string
	}{
		{"m1", "Answer [3] and [2-3].", "searches 2/1 fetches 1/1 errors [] sources 3 cited [3 2 1 9] fetched 2 unknown 1 share 0.5 report report:52"},
		{"m1", "", "searches 2/1 fetches 1/1 errors [] sources 3 cited [3 2 1 9] fetched 2 unknown 1 share 0.5 report report:52"},
		{"m2", "No citation.", "searches 4/3 fetches 2/1 errors [brave search: 429] sources 3 cited [2 1 9] fetched 1 unknown 1 share 0.3333333333333333 report report:52"},
	} {
		row := evalRow{ConversationID: conv, MessageID: tc.msg, Answer: tc.answer}
		if err := measure(ctx, db, &row); err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("searches %d/%d fetches %d/%d errors %v sources %d cited %v fetched %d unknown %d share %v report %s:%d",
			row.Searches, row.SearchesFailed, row.Fetches, row.FetchesFailed, row.WebErrors, row.Sources, row.Cited,
			row.CitedFetched, row.CitedUnknown, *row.FetchedShare, row.ReportID, row.ReportChars)
		if got != tc.want {
			t.Errorf("%s %q:\n got %s\nwant %s", tc.msg, tc.answer, got, tc.want)
		}
	}
}

// TestRedactURLHidesKeys checks that no credential of a base URL reaches the eval table:
// userinfo goes, every query value is redacted, and the rest stays readable.
func TestRedactURLHidesKeys(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"https://api.example.com/v1", "https://api.example.com/v1"},
		{"https://user:sk-PASS@api.example.com/v1", "https://api.example.com/v1"},
		{"https://sk-USERKEY@api.example.com/v1", "https://api.example.com/v1"},
		{"https://x.openai.azure.com/openai?api-version=2024-02-01&api-key=sk-QUERYKEY",
			"https://x.openai.azure.com/openai?api-version=redacted&api-key=redacted"},
		{"https://generativelanguage.googleapis.com/v1beta?key=AIzaSECRET", "https://generativelanguage.googleapis.com/v1beta?key=redacted"},
		{"http://localhost:8080/v1?sk-BAREKEY", "http://localhost:8080/v1?redacted"},
		{"http://localhost:8080/v1?#sk-FRAGMENT", "http://localhost:8080/v1"},
		{"http://[::1", "(invalid URL)"},
	}
	for _, tc := range tests {
		got := redactURL(tc.in)
		if got != tc.want {
			t.Errorf("redactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, secret := range []string{"PASS", "USERKEY", "QUERYKEY", "SECRET", "BAREKEY", "FRAGMENT"} {
			if strings.Contains(got, secret) {
				t.Errorf("redactURL(%q) = %q keeps a secret", tc.in, got)
			}
		}
	}
}

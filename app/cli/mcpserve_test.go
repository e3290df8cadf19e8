package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/mcpserve"
	"artifactflow/backend/store"
	"artifactflow/internal/mcpnpm"
)

// The library the MCP tests serve: a Chinese conversation of two runs (the second rewrites
// the report, so it has two versions) and an English one with cited sources.
const (
	zhQuestion1 = "月球离地球有多远？"
	zhQuestion2 = "请把报告改成定稿。"
	zhAnswer1   = "月球与地球的平均距离约为384,400公里。"
	zhAnswer2   = "报告已改为定稿。"
	zhReport1   = "# 月球距离\n\n初稿：大约38万公里。"
	zhReport2   = "# 月球距离\n\n定稿：平均距离384,400公里。"
	// slowQuestion is the window's run that stays open while the MCP server works.
	slowQuestion = "A question the window is still researching"
)

// envMCPServeArgs names the variable holding the JSON arguments TestMCPServeChild runs.
const envMCPServeArgs = "AF_MCP_SERVE_ARGS"

// TestMCPServeChild is the MCP server the Inspector starts in TestMCPServeInspector:
// this test binary running `artifactflow` with the arguments in AF_MCP_SERVE_ARGS (a JSON
// array), on the Inspector's stdin and stdout. Skipped unless that is set.
func TestMCPServeChild(t *testing.T) {
	raw := os.Getenv(envMCPServeArgs)
	if raw == "" {
		t.Skip("run by TestMCPServeInspector")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(Main(context.Background(), Env{Args: args, Stdout: os.Stdout, Stderr: os.Stderr}))
}

// libraryWorld is a scripted world whose model researches the two Chinese questions with
// one artifact tool call each (then answers), and anything else as CitingResearch (the
// English research: sources [1] and [2], a cited answer). release ends the window's slow
// run.
func libraryWorld(t *testing.T) (w *apptest.World, release func()) {
	t.Helper()
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	w = apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		citing := w.CitingResearch()
		return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
			afterTool := req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleTool
			switch apptest.LastUser(req) {
			case slowQuestion:
				<-ch
				return llmtest.Reply{Content: "done"}
			case zhQuestion1:
				if afterTool {
					return llmtest.Reply{Content: zhAnswer1}
				}
				return w.ToolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown",
					"title": "月球距离报告", "content": zhReport1})
			case zhQuestion2:
				if afterTool {
					return llmtest.Reply{Content: zhAnswer2}
				}
				return w.ToolCall("rewrite_artifact", map[string]any{"id": "research_report", "content": zhReport2})
			}
			return citing(req, call)
		}
	})
	t.Cleanup(release)
	return w, release
}

// seedLibrary runs the three research runs through `artifactflow ask` and returns the
// Chinese and the English conversation ids.
func seedLibrary(t *testing.T, w *apptest.World) (zh, en string) {
	t.Helper()
	ctx := context.Background()
	for _, q := range [][]string{{zhQuestion1}, {zhQuestion2}, {apptest.Question}} {
		args := []string{"--allow-private-network"}
		if q[0] == zhQuestion2 {
			args = append(args, "--conversation", zh)
		}
		if code, _, stderr := ask(ctx, w, append(args, q[0])...); code != ExitOK {
			t.Fatalf("ask %q: exit %d\n%s", q[0], code, stderr)
		}
		if zh == "" {
			if err := w.DB().QueryRow(`SELECT conversation_id FROM messages WHERE content = ?`, zhQuestion1).Scan(&zh); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.DB().QueryRow(`SELECT conversation_id FROM messages WHERE content = ?`, apptest.Question).Scan(&en); err != nil {
		t.Fatal(err)
	}
	var versions int
	if err := w.DB().QueryRow(`SELECT count(*) FROM artifact_versions WHERE session_id = ? AND artifact_id = 'research_report'`, zh).Scan(&versions); err != nil || versions != 2 {
		t.Fatalf("the Chinese report has %d versions (%v), want 2", versions, err)
	}
	return zh, en
}

// inspector runs the official MCP Inspector's command line against `artifactflow mcp
// serve ARGS` (this test binary as TestMCPServeChild) with the Inspector options opts,
// and returns its exit code, stdout and stderr.
func inspector(t *testing.T, p mcpnpm.Paths, serveArgs []string, opts ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(append([]string{"mcp", "serve"}, serveArgs...))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Node, append([]string{p.Inspector, "--cli", "-e", envMCPServeArgs + "=" + string(args),
		exe, "-test.run=^TestMCPServeChild$", "-test.count=1"}, opts...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("inspector: %v\n%s", err, errb.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestMCPServeInspector is the acceptance test of `artifactflow mcp serve` with the
// official MCP Inspector's command-line mode as the client, on a data dir seeded by three
// research runs of the scripted model, while another process holds the data dir open
// with a run going (a Core with the local API, as the window: the server reads beside it
// and the window's run finishes afterwards). tools/list has ask_research only with
// --allow-research; search_research finds a Chinese and an English answer; read_artifact
// reads a report's older version; ask_research without the flag is refused;
// resources/read gives a conversation as Markdown; ask_research with the flag runs a
// research against the scripted model and returns the answer with its sources.
func TestMCPServeInspector(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Inspector and the server as child processes")
	}
	p := mcpnpm.Require(t)
	w, release := libraryWorld(t)
	zh, en := seedLibrary(t, w)

	// The window: a Core with the local API and a research in progress.
	window := newTestCore(t, w)
	api, err := window.StartLocalAPI(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer window.StopLocalAPI(api)
	run, err := window.Engine().Start(context.Background(), engine.Request{Content: slowQuestion})
	if err != nil {
		t.Fatal(err)
	}

	read := []string{"--data-dir", w.DataDir}
	research := append(w.Args("--allow-private-network"), "--allow-research")
	call := func(tool string, args ...string) []string {
		out := []string{"--method", "tools/call", "--tool-name", tool}
		for _, a := range args {
			out = append(out, "--tool-arg", a)
		}
		return out
	}
	tests := []struct {
		name     string
		serve    []string
		opts     []string
		wantCode int
		want     []string // substrings of stdout
		notWant  []string
	}{
		{"tools/list without --allow-research", read, []string{"--method", "tools/list"}, 0,
			[]string{`"search_research"`, `"list_conversations"`, `"read_artifact"`, `"list_sources"`, `"readOnlyHint": true`}, []string{"ask_research"}},
		{"tools/list with --allow-research", research, []string{"--method", "tools/list"}, 0,
			[]string{`"search_research"`, `"ask_research"`}, nil},
		{"search_research finds the Chinese answer", read, call(mcpserve.ToolSearch, "query=平均距离约为"), 0,
			[]string{`"kind": "answer"`, `"conversation_id": "` + zh + `"`, "月球与地球的平均距离约为384,400公里"}, []string{`"isError": true`}},
		{"search_research finds the English answer", read, call(mcpserve.ToolSearch, "query=384,400 km away"), 0,
			[]string{`"kind": "answer"`, `"conversation_id": "` + en + `"`, "The Moon is 384,400 km away on average [1]"}, []string{`"isError": true`}},
		{"read_artifact of the older version", read, call(mcpserve.ToolReadArtifact, "conversation_id="+zh, "id=research_report", "version=1"), 0,
			[]string{"初稿：大约38万公里", `"version": 1`, `"current_version": 2`}, []string{"定稿", `"isError": true`}},
		{"ask_research refused without the flag", read, call(mcpserve.ToolAsk, "question=月球有多重？"), 5,
			nil, []string{`"answer"`}},
		{"resources/read of a conversation", read, []string{"--method", "resources/read", "--uri", mcpserve.ConversationURI(zh)}, 0,
			[]string{"# 月球离地球有多远？", "## Question 1", zhQuestion1, zhAnswer1, "## Question 2", zhQuestion2, zhAnswer2,
				mcpserve.ArtifactURI(zh, "research_report")}, nil},
		{"ask_research with --allow-research", research, call(mcpserve.ToolAsk, "question=How far is the Moon, in short?"), 0,
			[]string{"The Moon is 384,400 km away on average [1]; see also [2].", `"n": 1`, `"url": "` + w.PageURL + `"`,
				`"n": 2`, `"url": "` + w.Site.URL + `/other"`, `"id": "research_report"`}, []string{`"isError": true`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := inspector(t, p, tc.serve, tc.opts...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, stdout, stderr)
			}
			for _, s := range tc.want {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.notWant {
				if strings.Contains(stdout, s) {
					t.Errorf("stdout holds %q:\n%s", s, stdout)
				}
			}
		})
	}
	// ask_research ran a research: the new conversation is in the library.
	var n int
	if err := w.DB().QueryRow(`SELECT count(*) FROM messages WHERE content = 'How far is the Moon, in short?' AND status = 'complete'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the research ask_research ran: %d complete messages (%v), want 1", n, err)
	}
	// The window was never blocked: its run goes on and completes.
	release()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := run.Wait(ctx)
	if err != nil || res.Status != events.Complete {
		t.Fatalf("the window's run: %+v, %v; want complete", res, err)
	}
}

// TestMCPServeAskResearchEngine runs ask_research on a real Core (the Researcher `mcp serve
// --allow-research` uses) through the SDK's in-memory transport: the progress
// notifications follow the run's steps, the answer comes back with the sources its run
// recorded, and a client that cancels its call stops the run, which ends cancelled.
func TestMCPServeAskResearchEngine(t *testing.T) {
	hung := make(chan struct{}, 1)
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		citing := w.CitingResearch()
		return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
			if apptest.LastUser(req) == "never finishes" {
				select {
				case hung <- struct{}{}:
				default:
				}
				return llmtest.Reply{Hang: llmtest.HangBeforeHeaders}
			}
			return citing(req, call)
		}
	})
	cs, progress := researchSession(t, w)
	ctx := context.Background()
	out := askResearch(t, cs, apptest.Question)
	if !strings.HasPrefix(out.Answer, "The Moon is 384,400 km away on average [1]; see also [2].") || len(out.Sources) != 2 ||
		out.Sources[0].URL != w.PageURL || len(out.Artifacts) != 1 || out.Artifacts[0].ID != "research_report" {
		t.Fatalf("output = %+v", out)
	}
	// The client handles progress notifications apart from the call's result, so the last
	// one may land just after the result: wait for it, at most 10 s.
	got := progress()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); got = progress() {
		if slices.ContainsFunc(got, func(m string) bool { return strings.HasPrefix(m, "research complete") }) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, want := range []string{"lead_agent → search_agent: Find sources on the Moon's distance.", `search_agent · web_search {"query":"moon distance"}`,
		"lead_agent → crawl_agent: Read " + w.PageURL, "crawl_agent · web_fetch", "lead_agent · create_artifact", "artifact research_report v1 (create)", "research complete"} {
		if !slices.ContainsFunc(got, func(m string) bool { return strings.HasPrefix(m, want) }) {
			t.Errorf("no progress message starting %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}

	// Cancellation: the call is cancelled while the model is answering.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: mcpserve.ToolAsk, Arguments: map[string]any{"question": "never finishes"}})
		done <- err
	}()
	select {
	case <-hung:
	case <-time.After(time.Minute):
		t.Fatal("the research never reached the model")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	var status string
	deadline := time.Now().Add(time.Minute)
	for status != store.StatusCancelled && time.Now().Before(deadline) {
		_ = w.DB().QueryRow(`SELECT status FROM messages WHERE content = 'never finishes'`).Scan(&status)
		time.Sleep(20 * time.Millisecond)
	}
	if status != store.StatusCancelled {
		t.Fatalf("the research the client cancelled is %q, want cancelled", status)
	}
}

// researchSession serves a Core on w's data dir with ask_research (the Researcher of `mcp
// serve --allow-research`) over the SDK's in-memory transport, and returns the client's
// session and a function giving the progress messages received so far.
func researchSession(t *testing.T, w *apptest.World) (*mcp.ClientSession, func() []string) {
	t.Helper()
	core := newTestCore(t, w)
	var mu sync.Mutex
	var progress []string
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := mcpserve.New(core.Store(), mcpserve.Options{Research: &coreResearcher{core: core, log: slog.New(slog.NewTextHandler(io.Discard, nil))}}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Message)
			mu.Unlock()
		}}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The model server goes first: a run still waiting for it (when a test failed) ends.
	t.Cleanup(func() { w.Model.Close(); cs.Close(); _ = ss.Wait() })
	return cs, func() []string {
		// A ping answered means every notification sent before it has been handled.
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(progress)
	}
}

// askResearch calls ask_research with question and a progress token, within a minute, and
// returns its structured result; an error or a tool error fails the test.
func askResearch(t *testing.T, cs *mcp.ClientSession, question string) mcpserve.AskOutput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	params := &mcp.CallToolParams{Name: mcpserve.ToolAsk, Arguments: map[string]any{"question": question}}
	params.SetProgressToken(7)
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("ask_research: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out mcpserve.AskOutput
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMCPServeAskResearchDeniesConfirm: nobody can click in an MCP client's research, so a
// tool set to confirm is denied at once (the research goes on without it) and the progress
// says so.
func TestMCPServeAskResearchDeniesConfirm(t *testing.T) {
	w := apptest.NewWorld(t, "native", (*apptest.World).CitingResearch)
	if err := config.Save(w.DataDir, config.Settings{ToolPermissions: map[string]string{"web_fetch": "confirm"}}); err != nil {
		t.Fatal(err)
	}
	cs, progress := researchSession(t, w)
	out := askResearch(t, cs, apptest.Question)
	if out.Answer == "" || w.PageHits.Load() != 0 {
		t.Fatalf("answer %q, page fetched %d times; want an answer without the fetch", out.Answer, w.PageHits.Load())
	}
	if got := progress(); !slices.Contains(got, "crawl_agent · web_fetch: deny (set to confirm in Settings)") {
		t.Errorf("progress does not say web_fetch was denied:\n%s", strings.Join(got, "\n"))
	}
}

// TestMCPServeUsage: bad arguments and a data dir that cannot be opened end the command
// with a one-line reason on stderr and nothing on stdout, which belongs to the protocol.
func TestMCPServeUsage(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown subcommand", []string{"mcp", "bogus"}, ExitUsage, `"bogus"`},
		{"extra argument", []string{"mcp", "serve", "--data-dir", t.TempDir(), "extra"}, ExitUsage, `unexpected argument "extra"`},
		{"unknown flag", []string{"mcp", "serve", "--allow-everything"}, ExitUsage, "allow-everything"},
		{"data dir is a file", []string{"mcp", "serve", "--data-dir", notDir}, ExitError, "mcp serve:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(context.Background(), Env{Args: tc.args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
			if code != tc.code || !strings.Contains(errb.String(), tc.want) || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q on stderr", code, out.String(), errb.String(), tc.code, tc.want)
			}
		})
	}
}

// TestMCPServeStdio: `mcp serve` speaks MCP on Env.Stdin and Env.Stdout (newline-delimited
// JSON-RPC, nothing else on stdout) and exits 0 when the client closes its end.
func TestMCPServeStdio(t *testing.T) {
	w, _ := libraryWorld(t)
	zh, _ := seedLibrary(t, w)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stdout bytes.Buffer
	var errb bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- Main(context.Background(), Env{Args: []string{"mcp", "serve", "--data-dir", w.DataDir}, Stdin: inR,
			Stdout: io.MultiWriter(outW, &stdout), Stderr: &errb})
		outW.Close()
	}()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserve.ToolSearch, Arguments: map[string]any{"query": "定稿"}})
	if err != nil || res.IsError {
		t.Fatalf("search_research: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"artifact_id":"research_report"`) || !strings.Contains(string(b), zh) {
		t.Errorf("search for the report's new text: %s", b)
	}
	cs.Close()
	select {
	case code := <-exited:
		if code != ExitOK {
			t.Fatalf("exit %d, stderr %s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcp serve did not exit when the client closed stdin")
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not a JSON-RPC message: %q", line)
		}
	}
}

package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmfake"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// jsonArgs renders tool arguments as the JSON object a model sends.
func jsonArgs(m map[string]string) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// eventsOf returns the recorded events of type t, in the order the sink got them.
func (r *recorder) eventsOf(t events.Type) []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []events.Event
	for _, ev := range r.evs {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}

// waitUntil polls cond every 5 ms until it holds or the deadline passes (then it fails t
// with what).
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestEveryCallOfAReplyRuns: a reply with three tool calls runs all three, in native and
// xml mode: three tool_starts, three steps, both artifacts; the model is given the three
// results in call order in the round that follows, and the history the next run rebuilds
// from events tells it exactly the same.
func TestEveryCallOfAReplyRuns(t *testing.T) {
	first := map[string]string{"id": "first", "content_type": "markdown", "title": "First", "content": "one"}
	search := map[string]string{"agent_name": "search_agent", "instruction": "find okapi"}
	second := map[string]string{"id": "second", "content_type": "markdown", "title": "Second", "content": "two"}
	tests := []struct {
		mode  toolcall.Mode
		reply llmtest.Reply
		// told returns the text of req that answers the first reply's calls.
		told func(req openai.ChatCompletionRequest) string
		// want are the parts of told, which must come in this order.
		want []string
	}{
		{toolcall.ModeNative,
			llmtest.Reply{ToolCalls: []llmtest.ToolCall{
				{ID: "call_a", Name: "create_artifact", Arguments: jsonArgs(first)},
				{ID: "call_b", Name: "call_subagent", Arguments: jsonArgs(search)},
				{ID: "call_c", Name: "create_artifact", Arguments: jsonArgs(second)}}},
			func(req openai.ChatCompletionRequest) string {
				var out []string
				for _, m := range req.Messages {
					if m.Role == openai.ChatMessageRoleTool {
						out = append(out, m.ToolCallID+"="+m.Content)
					}
				}
				return strings.Join(out, "\n")
			},
			[]string{"call_a=<artifact version=\"1\"><id>first</id>", "call_b=found: find okapi", "call_c=<artifact version=\"1\"><id>second</id>"}},
		{toolcall.ModeXML,
			llmtest.Reply{Content: "Three at once.\n" + toolcall.FormatXMLCall("create_artifact", first) + "\n" +
				toolcall.FormatXMLCall("call_subagent", search) + "\n" + toolcall.FormatXMLCall("create_artifact", second)},
			func(req openai.ChatCompletionRequest) string {
				for _, m := range req.Messages {
					if m.Role == openai.ChatMessageRoleUser && strings.Contains(m.Content, "<tool_result") {
						return m.Content
					}
				}
				return ""
			},
			[]string{"<tool_result name=\"create_artifact\" success=\"true\">", "<id>first</id>",
				"<tool_result name=\"call_subagent\" success=\"true\">", "found: find okapi",
				"<tool_result name=\"create_artifact\" success=\"true\">", "<id>second</id>"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			var leadCalls atomic.Int64
			e, db, rec, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if isAgent(req, "search_agent") {
					return llmtest.Reply{Content: "found: " + req.Messages[len(req.Messages)-1].Content}
				}
				if leadCalls.Add(1) == 1 {
					return tt.reply
				}
				return llmtest.Reply{Content: "answer"}
			}, func(d *Deps) { d.Mode = tt.mode })
			ctx := context.Background()
			res, err := e.Ask(ctx, Request{Content: "make two and search"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %v %+v", err, res)
			}
			if n := countType(rec.types(), events.ToolStart); n != 3 || res.Steps != 3 {
				t.Fatalf("tool_start events %d, steps %d: want all three calls executed", n, res.Steps)
			}
			for _, ev := range rec.eventsOf(events.ToolComplete) {
				var d events.DataToolComplete
				if err := json.Unmarshal(ev.Data, &d); err != nil || !d.Success {
					t.Fatalf("call failed: %s", ev.Data)
				}
			}
			as, err := db.ListArtifacts(ctx, res.ConversationID)
			if err != nil || len(as) != 2 {
				t.Fatalf("artifacts = %+v, %v; want first and second", as, err)
			}
			if _, err := e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "next"}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			live, rebuilt := tt.told(reqs[len(reqs)-2]), tt.told(reqs[len(reqs)-1])
			at := 0
			for _, w := range tt.want {
				i := strings.Index(live[at:], w)
				if i < 0 {
					t.Fatalf("the round after three calls lacks %q (in call order) in:\n%s", w, live)
				}
				at += i + len(w)
			}
			if live != rebuilt {
				t.Errorf("the next run's history tells the model something else:\nlive:    %q\nrebuilt: %q", live, rebuilt)
			}
		})
	}
}

// TestWritesToOneArtifactLandInCallOrder: four writes to one artifact in one reply, each
// building on the one before it (create, then updates whose old_str is the text the
// previous write left), with read-only calls among them that may run meanwhile: every
// write succeeds and the artifact ends as the last one left it; their tool_complete events
// come in call order.
func TestWritesToOneArtifactLandInCallOrder(t *testing.T) {
	calls := []llmtest.ToolCall{
		{ID: "w1", Name: "create_artifact", Arguments: jsonArgs(map[string]string{"id": "doc", "content_type": "markdown", "title": "Doc", "content": "alpha"})},
		subagentCall("r1", "search_agent", "one"),
		{ID: "w2", Name: "update_artifact", Arguments: jsonArgs(map[string]string{"id": "doc", "old_str": "alpha", "new_str": "alpha beta"})},
		subagentCall("r2", "crawl_agent", "two"),
		{ID: "w3", Name: "update_artifact", Arguments: jsonArgs(map[string]string{"id": "doc", "old_str": "alpha beta", "new_str": "alpha beta gamma"})},
		{ID: "w4", Name: "rewrite_artifact", Arguments: jsonArgs(map[string]string{"id": "doc", "content": "[alpha beta gamma] delta"})},
	}
	var leadCalls atomic.Int64
	e, db, rec, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if !isAgent(req, "lead_agent") {
			return llmtest.Reply{Content: "nothing found"}
		}
		if leadCalls.Add(1) == 1 {
			return llmtest.Reply{ToolCalls: calls}
		}
		return llmtest.Reply{Content: "done"}
	}, func(d *Deps) { d.MaxParallelToolCalls = 4 })
	ctx := context.Background()
	res, err := e.Ask(ctx, Request{Content: "write"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	var writes []string
	for _, ev := range rec.eventsOf(events.ToolComplete) {
		var d events.DataToolComplete
		_ = json.Unmarshal(ev.Data, &d)
		if !d.Success {
			t.Fatalf("call %s failed: %s", d.CallID, d.Error)
		}
		if strings.HasPrefix(d.CallID, "w") {
			writes = append(writes, d.CallID)
		}
	}
	if got := strings.Join(writes, ","); got != "w1,w2,w3,w4" {
		t.Fatalf("writes completed in order %s, want w1,w2,w3,w4", got)
	}
	a, err := db.GetArtifact(ctx, res.ConversationID, "doc")
	if err != nil || a.Content != "[alpha beta gamma] delta" {
		t.Fatalf("doc = %q, %v; want the last write's content", a.Content, err)
	}
}

// TestParallelLimitOfOne: with max_parallel_tool_calls 1 the calls of a reply, read-only
// ones included, run one at a time in call order: each call's tool_start comes after the
// previous call's tool_complete.
func TestParallelLimitOfOne(t *testing.T) {
	var leadCalls atomic.Int64
	e, _, rec, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if !isAgent(req, "lead_agent") {
			return llmtest.Reply{Content: "report"}
		}
		if leadCalls.Add(1) == 1 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{
				subagentCall("a", "search_agent", "a"), subagentCall("b", "search_agent", "b"), subagentCall("c", "crawl_agent", "c")}}
		}
		return llmtest.Reply{Content: "done"}
	}, func(d *Deps) { d.MaxParallelToolCalls = 1 })
	res, err := e.Ask(context.Background(), Request{Content: "q"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	var seq []string
	rec.mu.Lock()
	for _, ev := range rec.evs {
		var d struct {
			CallID string `json:"call_id"`
		}
		switch ev.Type {
		case events.ToolStart, events.ToolComplete:
			if ev.AgentName != "lead_agent" {
				continue
			}
			_ = json.Unmarshal(ev.Data, &d)
			seq = append(seq, string(ev.Type)+":"+d.CallID)
		}
	}
	rec.mu.Unlock()
	want := "tool_start:a tool_complete:a tool_start:b tool_complete:b tool_start:c tool_complete:c"
	if got := strings.Join(seq, " "); got != want {
		t.Fatalf("calls ran as %s\nwant %s", got, want)
	}
}

// subagentCall is a call_subagent tool call of the lead.
func subagentCall(id, agentName, instruction string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "call_subagent", Arguments: jsonArgs(map[string]string{"agent_name": agentName, "instruction": instruction})}
}

// TestStopEndsParallelSubagents: the lead sends three sub-agents at once and their model
// calls hang; Stop ends the run, with every instance's model call ended by the client and
// every call_subagent closed by a failed tool_complete saying it was stopped, within a second.
func TestStopEndsParallelSubagents(t *testing.T) {
	e, _, rec, srv := newWireEngine(t, func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
		if call == 0 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{
				subagentCall("s1", "search_agent", "find A"),
				subagentCall("s2", "search_agent", "find B"),
				subagentCall("s3", "crawl_agent", "read https://example.org/c")}}
		}
		return llmtest.Reply{Hang: llmtest.HangAfterHeaders}
	})
	r, err := e.Start(context.Background(), Request{Content: "research"})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 10*time.Second, "three sub-agent instances calling their model", func() bool { return srv.Calls() >= 4 })
	e.Stop(r.ConversationID)
	select {
	case <-r.Done():
	case <-time.After(time.Second):
		t.Fatal("the run did not end within a second of Stop")
	}
	res, _ := r.Wait(context.Background())
	if res.Status != events.Cancelled {
		t.Fatalf("status %s, want cancelled", res.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for call := 1; call <= 3; call++ {
		end, err := srv.WaitEnd(ctx, call)
		if err != nil || end.Reason != llmtest.EndClientGone {
			t.Errorf("sub-agent model call %d ended %+v, %v; want the client gone", call, end, err)
		}
	}
	closed := map[string]bool{}
	for _, ev := range rec.eventsOf(events.ToolComplete) {
		var d events.DataToolComplete
		_ = json.Unmarshal(ev.Data, &d)
		if d.Tool == "call_subagent" && !d.Success && d.Error == errStopped.Error() {
			closed[d.CallID] = true
		}
	}
	if len(closed) != 3 {
		t.Fatalf("call_subagent calls closed as stopped: %v, want s1, s2 and s3", closed)
	}
}

// TestSubagentInstances: two calls to search_agent in one reply run as two instances,
// each from the agent's memory as it was (neither sees the other's task); every event of an
// instance carries its call id as "instance"; the agent's next call sees both instances'
// rounds, in call order, and so does the history a later run rebuilds from events.
func TestSubagentInstances(t *testing.T) {
	var mu sync.Mutex
	var searchReqs []openai.ChatCompletionRequest
	leadRound := 0
	e, _, rec, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isAgent(req, "search_agent") {
			mu.Lock()
			searchReqs = append(searchReqs, req)
			mu.Unlock()
			task := req.Messages[len(req.Messages)-1].Content
			return llmtest.Reply{Content: "report on " + task}
		}
		mu.Lock()
		leadRound++
		n := leadRound
		mu.Unlock()
		switch n {
		case 1:
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{subagentCall("i1", "search_agent", "task one"), subagentCall("i2", "search_agent", "task two")}}
		case 2:
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{subagentCall("i3", "search_agent", "task three")}}
		}
		return llmtest.Reply{Content: "done"}
	}, nil)
	ctx := context.Background()
	res, err := e.Ask(ctx, Request{Content: "research"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	if len(searchReqs) != 3 {
		t.Fatalf("search_agent calls = %d, want 3", len(searchReqs))
	}
	transcript := func(req openai.ChatCompletionRequest) string {
		var b []string
		for _, m := range req.Messages[1:] {
			b = append(b, m.Role+": "+m.Content)
		}
		return strings.Join(b, "\n")
	}
	for _, req := range searchReqs[:2] {
		if got := transcript(req); strings.Contains(got, "task one") == strings.Contains(got, "task two") {
			t.Fatalf("an instance of the first reply saw both tasks or neither:\n%s", got)
		}
	}
	want := "user: task one\nassistant: report on task one\nuser: task two\nassistant: report on task two\nuser: task three"
	if got := transcript(searchReqs[2]); got != want {
		t.Fatalf("the third call's memory:\n%s\nwant:\n%s", got, want)
	}
	instances := map[string]bool{}
	rec.mu.Lock()
	for _, ev := range rec.evs {
		if ev.AgentName != "search_agent" {
			continue
		}
		id := instanceOf(ev.Data)
		if id == "" {
			t.Errorf("search_agent %s event without an instance: %s", ev.Type, ev.Data)
		}
		instances[id] = true
	}
	rec.mu.Unlock()
	if len(instances) != 3 || !instances["i1"] || !instances["i2"] || !instances["i3"] {
		t.Fatalf("instances = %v, want i1, i2, i3", instances)
	}
	hist, err := e.history(ctx, res.ConversationID, res.MessageID, "search_agent", toolcall.ModeNative)
	if err != nil {
		t.Fatal(err)
	}
	var rebuilt []string
	for _, m := range hist {
		rebuilt = append(rebuilt, m.Role+": "+m.Content)
	}
	if got := strings.Join(rebuilt, "\n"); got != want+"\nassistant: report on task three" {
		t.Fatalf("rebuilt search_agent memory:\n%s", got)
	}
}

// TestPermissionRequestsQueue: two calls of a confirm tool running at once ask one at a
// time: the second request is shown only after the first is answered.
func TestPermissionRequestsQueue(t *testing.T) {
	var leadCalls atomic.Int64
	var mu sync.Mutex
	open, most := 0, 0
	rec := &recorder{}
	e, _, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if !isAgent(req, "lead_agent") {
			return llmtest.Reply{Content: "report"}
		}
		if leadCalls.Add(1) == 1 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{subagentCall("a", "search_agent", "a"), subagentCall("b", "search_agent", "b")}}
		}
		return llmtest.Reply{Content: "done"}
	}, func(d *Deps) { d.Permissions = map[string]string{"call_subagent": PolicyConfirm} })
	e.cfg.Sink = func(ev events.Event) {
		rec.sink(ev)
		mu.Lock()
		defer mu.Unlock()
		switch ev.Type {
		case events.PermissionRequest:
			open++
			most = max(most, open)
		case events.PermissionResult:
			open--
		}
	}
	r, err := e.Start(context.Background(), Request{Content: "q"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		waitUntil(t, 10*time.Second, fmt.Sprintf("permission request %d", i+1), func() bool { return len(rec.eventsOf(events.PermissionRequest)) > i })
		var d events.DataPermissionRequest
		_ = json.Unmarshal(rec.eventsOf(events.PermissionRequest)[i].Data, &d)
		if _, err := e.Respond(r.ConversationID, d.RequestID, events.DecisionApprove); err != nil {
			t.Fatal(err)
		}
	}
	res, _ := r.Wait(context.Background())
	if res.Status != events.Complete || res.Steps != 2 {
		t.Fatalf("run: %+v", res)
	}
	if most != 1 {
		t.Fatalf("%d permission requests were open at once, want 1", most)
	}
}

// The crash helper: this test binary run again with envCrashHelper set. It opens the
// database named by envEngineDB and starts a run whose lead asks for three sub-agents in
// one reply: the first and the third report at once, the second's model call never
// returns. Once the first and third results are in the database it prints "ready" and
// waits for a line; any line makes it exit 3 at once, as a killed process would.
const envCrashHelper = "AF_PARALLEL_CRASH_HELPER"

// TestParallelCrashHelperProcess is not a test: it runs only in the child started by
// TestCrashMidReplyKeepsFinishedResults.
func TestParallelCrashHelperProcess(t *testing.T) {
	if os.Getenv(envCrashHelper) == "" {
		return
	}
	if err := parallelCrashHelper(); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func parallelCrashHelper() error {
	ctx := context.Background()
	db, err := store.Open(ctx, os.Getenv(envEngineDB))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Heartbeat(ctx, helperInstance, os.Getpid()); err != nil {
		return err
	}
	never := make(chan struct{})
	model := llmfake.New(func(req llm.Request, _ int) llmfake.Reply {
		task := req.Messages[len(req.Messages)-1].Content
		switch {
		case strings.Contains(req.Messages[0].Content, "You are lead_agent"):
			return llmfake.Reply{ToolCalls: []llm.ToolCall{
				{ID: "s1", Name: "call_subagent", Arguments: jsonArgs(map[string]string{"agent_name": "search_agent", "instruction": "task one"})},
				{ID: "s2", Name: "call_subagent", Arguments: jsonArgs(map[string]string{"agent_name": "crawl_agent", "instruction": "task two"})},
				{ID: "s3", Name: "call_subagent", Arguments: jsonArgs(map[string]string{"agent_name": "search_agent", "instruction": "task three"})}}}
		case task == "task two":
			return llmfake.Reply{Content: "never", Block: never}
		}
		return llmfake.Reply{Content: "report on " + task}
	})
	e, err := New(Config{Store: db, InstanceID: helperInstance, RunStaleAfter: time.Hour, Deps: func() (Deps, error) {
		return Deps{Model: model, ModelName: "m", Mode: toolcall.ModeNative}, nil
	}})
	if err != nil {
		return err
	}
	r, err := e.Start(ctx, Request{ConversationID: os.Getenv(envEngineConv), Content: "three at once"})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs, err := db.ListEvents(ctx, store.EventQuery{ConversationID: r.ConversationID, MessageID: r.MessageID})
		if err != nil {
			return err
		}
		done := 0
		for _, ev := range evs {
			if ev.Type == events.ToolComplete && ev.AgentName == "lead_agent" {
				done++
			}
		}
		if done == 2 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the two finished results were not stored: %d", done)
		}
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(3)
	return nil
}

// TestCrashMidReplyKeepsFinishedResults: a process running three sub-agents of one reply
// is killed while one of them still runs. The two finished results are in the database,
// and the next run (in another process) gives the model all three calls answered in call
// order: the finished ones with their results, the unfinished one as not executed.
func TestCrashMidReplyKeepsFinishedResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "af.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "c", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestParallelCrashHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envCrashHelper+"=1", envEngineDB+"="+path, envEngineConv+"=c")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		_ = cmd.Wait()
		t.Fatalf("helper: %q, %v; stderr: %s", line, err, stderr.String())
	}
	_, _ = io.WriteString(stdin, "crash\n")
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("helper exit %d, want the crash's 3; stderr: %s", code, stderr.String())
	}

	var mu sync.Mutex
	var leadReqs []llm.Request
	model := llmfake.New(func(req llm.Request, _ int) llmfake.Reply {
		mu.Lock()
		leadReqs = append(leadReqs, req)
		mu.Unlock()
		return llmfake.Reply{Content: "answer"}
	})
	// The helper's heartbeat is fresh: a bound of a nanosecond counts it as gone.
	e, _ := openEngine(t, path, "parent", model, func(c *Config, _ *Deps) { c.RunStaleAfter = time.Nanosecond })
	res, err := e.Ask(ctx, Request{ConversationID: "c", Content: "and now?"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("next run: %v %+v", err, res)
	}
	var told []string
	for _, m := range leadReqs[0].Messages {
		if m.Role == llm.RoleTool {
			told = append(told, m.ToolCallID+"="+m.Content)
		}
	}
	want := []string{"s1=report on task one", "s2=Error: not executed: the run ended before this call finished",
		"s3=report on task three"}
	if strings.Join(told, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the next run told the model:\n%s\nwant:\n%s", strings.Join(told, "\n"), strings.Join(want, "\n"))
	}
}

// TestSubagentInstancesRebuiltLikeLive: two search_agent instances of one reply each search
// and report, in native and xml mode; the memory the agent's next call gets in the run is
// exactly what the history rebuilt from events gives (call order, tool results and all).
func TestSubagentInstancesRebuiltLikeLive(t *testing.T) {
	for _, mode := range []toolcall.Mode{toolcall.ModeNative, toolcall.ModeXML} {
		t.Run(string(mode), func(t *testing.T) {
			var mu sync.Mutex
			var searchReqs []openai.ChatCompletionRequest
			leadRound := 0
			e, _, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				last := req.Messages[len(req.Messages)-1]
				if isAgent(req, "search_agent") {
					mu.Lock()
					searchReqs = append(searchReqs, req)
					mu.Unlock()
					if last.Role == openai.ChatMessageRoleTool || strings.Contains(last.Content, "<tool_result") {
						return llmtest.Reply{Content: "report after searching"}
					}
					q := map[string]string{"query": last.Content}
					if mode == toolcall.ModeXML {
						return llmtest.Reply{Content: "Searching.\n" + toolcall.FormatXMLCall("web_search", q)}
					}
					return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "ws_" + strings.ReplaceAll(last.Content, " ", "_"), Name: "web_search", Arguments: jsonArgs(q)}}}
				}
				mu.Lock()
				leadRound++
				n := leadRound
				mu.Unlock()
				switch n {
				case 1:
					if mode == toolcall.ModeXML {
						return llmtest.Reply{Content: toolcall.FormatXMLCall("call_subagent", map[string]string{"agent_name": "search_agent", "instruction": "task one"}) + "\n" +
							toolcall.FormatXMLCall("call_subagent", map[string]string{"agent_name": "search_agent", "instruction": "task two"})}
					}
					return llmtest.Reply{ToolCalls: []llmtest.ToolCall{subagentCall("i1", "search_agent", "task one"), subagentCall("i2", "search_agent", "task two")}}
				case 2:
					if mode == toolcall.ModeXML {
						return llmtest.Reply{Content: toolcall.FormatXMLCall("call_subagent", map[string]string{"agent_name": "search_agent", "instruction": "task three"})}
					}
					return llmtest.Reply{ToolCalls: []llmtest.ToolCall{subagentCall("i3", "search_agent", "task three")}}
				}
				return llmtest.Reply{Content: "done"}
			}, func(d *Deps) { d.Mode = mode })
			ctx := context.Background()
			res, err := e.Ask(ctx, Request{Content: "research"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %v %+v", err, res)
			}
			var third *openai.ChatCompletionRequest
			for i := range searchReqs {
				if last := searchReqs[i].Messages[len(searchReqs[i].Messages)-1]; last.Content == "task three" {
					third = &searchReqs[i]
				}
			}
			if third == nil {
				t.Fatal("search_agent was never given task three")
			}
			var live []string
			for _, m := range third.Messages[1 : len(third.Messages)-1] {
				line := m.Role + "|" + m.ToolCallID + "|" + m.Content
				for _, c := range m.ToolCalls {
					line += "|" + c.ID + ":" + c.Function.Name
				}
				live = append(live, line)
			}
			if len(live) != 8 {
				t.Fatalf("the memory before task three holds %d messages, want 8 (2 x task, call, result, report):\n%s", len(live), strings.Join(live, "\n"))
			}
			hist, err := e.history(ctx, res.ConversationID, res.MessageID, "search_agent", mode)
			if err != nil {
				t.Fatal(err)
			}
			var rebuilt []string
			for _, m := range hist {
				line := m.Role + "|" + m.ToolCallID + "|" + m.Content
				for _, c := range m.ToolCalls {
					line += "|" + c.ID + ":" + c.Name
				}
				rebuilt = append(rebuilt, line)
			}
			if len(rebuilt) < len(live) || strings.Join(rebuilt[:len(live)], "\n") != strings.Join(live, "\n") {
				t.Fatalf("rebuilt memory differs from the live one:\nlive:\n%s\nrebuilt:\n%s", strings.Join(live, "\n"), strings.Join(rebuilt, "\n"))
			}
			if !strings.Contains(live[0], "task one") || !strings.Contains(live[4], "task two") {
				t.Fatalf("instances not in call order:\n%s", strings.Join(live, "\n"))
			}
		})
	}
}

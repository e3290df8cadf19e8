package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/toolcall"
)

// hookScript writes an executable /bin/sh script to dir and returns its path.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("hook scripts are /bin/sh scripts")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// createCall is a lead round that creates a small document.
var createCall = call("create_artifact", `{"id":"notes","content_type":"markdown","title":"Notes","content":"n"}`)

// TestPostToolUseHookDeclares: after the lead's create_artifact, the matching
// PostToolUse hook gets the documented JSON on stdin, in the conversation's workspace
// folder, and the link it prints is stored with source hook, the hook's name and the
// triggering tool call, shown as hook_result and artifact_changed events; a hook whose
// matcher names another tool does not run.
func TestPostToolUseHookDeclares(t *testing.T) {
	dir := t.TempDir()
	stdin := filepath.Join(dir, "stdin.json")
	other := filepath.Join(dir, "other-ran")
	declare := hookScript(t, dir, "dataset-links", `cat > `+stdin+`
echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "artifacts": [{"kind": "link", "title": "Scheduler task", "url": "https://ops.example.com/task/123", "source": "client", "toolName": "forged"}]}}'`)
	never := hookScript(t, dir, "fetch-only", "touch "+other)
	hk := config.Hooks{config.HookPostToolUse: {
		{Matcher: "create_artifact|update_artifact", Command: []string{declare}},
		{Matcher: "web_fetch", Command: []string{never}},
	}}
	w := newDeclaredWorld(t, toolcall.ModeNative, llmtest.Script(createCall, llmtest.Reply{Content: "done"}), hk)
	ctx := context.Background()
	res, err := w.e.Ask(ctx, Request{Content: "q"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("a hook whose matcher is web_fetch ran after create_artifact")
	}

	list, err := w.svc.List(ctx, res.ConversationID)
	if err != nil || len(list) != 1 {
		t.Fatalf("declared artifacts = %+v, %v; want 1", list, err)
	}
	a := list[0]
	if a.Source != declared.SourceHook || a.HookName != "dataset-links" || a.ToolName != "create_artifact" ||
		a.ToolCallID != "c_create_artifact" || a.URL != "https://ops.example.com/task/123" {
		t.Fatalf("declared artifact = %+v", a)
	}

	results := storedOf(t, w.db, res.ConversationID, events.HookResult)
	if len(results) != 1 {
		t.Fatalf("hook_result events = %d, want 1", len(results))
	}
	hr := decode[events.DataHookResult](t, results[0])
	if !hr.OK || hr.Hook != "dataset-links" || hr.Event != "PostToolUse" || hr.Artifacts != 1 || hr.ToolName != "create_artifact" ||
		hr.ToolCallID != "c_create_artifact" {
		t.Fatalf("hook_result = %+v", hr)
	}
	var changes []events.DataArtifactChanged
	for _, ev := range storedOf(t, w.db, res.ConversationID, events.ArtifactChanged) {
		if d := decode[events.DataArtifactChanged](t, ev); d.Declared != nil {
			changes = append(changes, d)
		}
	}
	if len(changes) != 1 || changes[0].Action != declared.ActionCreated || changes[0].ArtifactID != a.ID || changes[0].Declared.Source != declared.SourceHook {
		t.Fatalf("declared artifact_changed events = %+v", changes)
	}

	var in map[string]any
	b, err := os.ReadFile(stdin)
	if err != nil || json.Unmarshal(b, &in) != nil {
		t.Fatalf("hook stdin %q: %v", b, err)
	}
	ws := filepath.Join(w.root, "workspaces", res.ConversationID)
	for k, v := range map[string]any{"hook_event_name": "PostToolUse", "conversation_id": res.ConversationID, "workspace": ws,
		"tool_name": "create_artifact", "tool_call_id": "c_create_artifact", "agent_name": "lead_agent"} {
		if in[k] != v {
			t.Errorf("stdin %s = %v, want %v", k, in[k], v)
		}
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["id"] != "notes" {
		t.Errorf("stdin tool_input = %v", in["tool_input"])
	}
	if tr, _ := in["tool_result"].(map[string]any); tr["success"] != true || !strings.Contains(tr["result"].(string), "notes") {
		t.Errorf("stdin tool_result = %v", in["tool_result"])
	}
	if st, err := os.Stat(ws); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("workspace folder %s: %v, %v; want it created 0700", ws, st, err)
	}
}

// TestFailingHooksNeverBreakTheRun: a hook that exits 1, one that sleeps past its 200
// ms timeout and one that prints garbage, after a failed tool call too: the run
// completes with its answer, and each failure is logged and recorded as a hook_result
// event with ok false and the reason.
func TestFailingHooksNeverBreakTheRun(t *testing.T) {
	t.Parallel() // waits on timers and child processes; runs beside the other slow tests
	dir := t.TempDir()
	hk := config.Hooks{config.HookPostToolUse: {
		{Name: "exits", Command: []string{hookScript(t, dir, "exit1", "echo 'quota exceeded' >&2; exit 1")}},
		{Name: "hangs", Command: []string{hookScript(t, dir, "sleeper", "sleep 30")}, TimeoutSeconds: 0.2},
		{Name: "babbles", Command: []string{hookScript(t, dir, "garbage", "echo 'Hello! <html>not json'")}},
	}}
	w := newDeclaredWorld(t, toolcall.ModeNative, llmtest.Script(
		call("read_artifact", `{"id":"missing"}`), // a failed tool call: hooks run all the same
		llmtest.Reply{Content: "the answer"}), hk)
	start := time.Now()
	res, err := w.e.Ask(context.Background(), Request{Content: "q"})
	if err != nil || res.Status != events.Complete || res.Response != "the answer" {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("run took %v: the hanging hook was not killed at its timeout", d)
	}
	results := storedOf(t, w.db, res.ConversationID, events.HookResult)
	want := map[string]string{"exits": "quota exceeded", "hangs": "timed out", "babbles": "not a JSON object"}
	if len(results) != len(want) {
		t.Fatalf("hook_result events = %d, want %d", len(results), len(want))
	}
	for _, ev := range results {
		d := decode[events.DataHookResult](t, ev)
		if d.OK || !strings.Contains(d.Error, want[d.Hook]) || d.ToolName != "read_artifact" {
			t.Errorf("hook_result = %+v, want ok false mentioning %q", d, want[d.Hook])
		}
	}
	logs := w.log.String()
	for name := range want {
		if !strings.Contains(logs, "hook="+name) {
			t.Errorf("hook %s's failure was not logged:\n%s", name, logs)
		}
	}
	if typ, _ := lastStored(t, w.db, res.ConversationID); typ != events.Complete {
		t.Fatalf("last stored event %s, want complete (no Stop hooks here)", typ)
	}
}

// TestStopHook: the Stop hook runs after the run's terminal event, with the status
// and the answer on stdin, on its own context (a cancelled run still gets it); what
// it declares is stored with source hook; its hook_result follows the terminal event.
func TestStopHook(t *testing.T) {
	tests := []struct {
		name   string
		stop   bool
		status events.Type
	}{
		{"complete", false, events.Complete},
		{"cancelled", true, events.Cancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			stdin := filepath.Join(dir, "stop.json")
			p := hookScript(t, dir, "on-stop", `cat > `+stdin+`
echo '{"hookSpecificOutput": {"artifacts": [{"title": "Run log", "url": "https://ci.example.com/runs/7"}]}}'`)
			release := make(chan struct{})
			w := newDeclaredWorld(t, toolcall.ModeNative, func(_ openai.ChatCompletionRequest, n int) llmtest.Reply {
				if tc.stop {
					<-release
				}
				return llmtest.Reply{Content: "final answer"}
			}, config.Hooks{config.HookStop: {{Command: []string{p}}}})
			r, err := w.e.Start(context.Background(), Request{Content: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if tc.stop {
				w.e.Stop(r.ConversationID)
				close(release)
			}
			res, err := r.Wait(context.Background())
			if err != nil || res.Status != tc.status {
				t.Fatalf("run: %+v, %v", res, err)
			}
			// Wait returns after the Stop hooks: their output is there.
			var in map[string]any
			b, err := os.ReadFile(stdin)
			if err != nil || json.Unmarshal(b, &in) != nil {
				t.Fatalf("Stop hook stdin %q: %v", b, err)
			}
			if in["hook_event_name"] != "Stop" || in["status"] != string(tc.status) || in["conversation_id"] != r.ConversationID ||
				in["workspace"] != filepath.Join(w.root, "workspaces", r.ConversationID) {
				t.Fatalf("Stop hook stdin = %v", in)
			}
			if tc.status == events.Complete && in["answer"] != "final answer" {
				t.Errorf("Stop hook answer = %v", in["answer"])
			}
			list, err := w.svc.List(context.Background(), r.ConversationID)
			if err != nil || len(list) != 1 || list[0].Source != declared.SourceHook || list[0].HookName != "on-stop" || list[0].ToolName != "" {
				t.Fatalf("declared artifacts = %+v, %v", list, err)
			}
			types := storedTypes(t, w.db, r.ConversationID)
			term := slices.Index(types, tc.status)
			hook := slices.Index(types, events.HookResult)
			if term < 0 || hook < term || !slices.Contains(types[term:], events.ArtifactChanged) {
				t.Fatalf("stored events %v: want hook_result and artifact_changed after %s", types, tc.status)
			}
			if w.e.Active(r.ConversationID) != nil {
				t.Error("the conversation is still busy after Wait")
			}
		})
	}
}

// TestStopHooksOwnedByEngine: while a run's Stop hook is running, a new message in the
// conversation waits for it instead of failing with ErrBusy, and Close kills a hanging
// Stop hook instead of waiting for its timeout.
func TestStopHooksOwnedByEngine(t *testing.T) {
	t.Parallel() // waits on timers and child processes; runs beside the other slow tests
	dir := t.TempDir()
	slow := hookScript(t, dir, "slow-stop", "sleep 0.2") // long beside the ms a Start takes
	w := newDeclaredWorld(t, toolcall.ModeNative, func(openai.ChatCompletionRequest, int) llmtest.Reply {
		return llmtest.Reply{Content: "answer"}
	}, config.Hooks{config.HookStop: {{Command: []string{slow}}}})
	ctx := context.Background()
	r1, err := w.e.Start(ctx, Request{Content: "first"})
	if err != nil {
		t.Fatal(err)
	}
	waitTerminal(t, w.rec, r1.MessageID)
	r2, err := w.e.Start(ctx, Request{ConversationID: r1.ConversationID, Content: "second"})
	if err != nil {
		t.Fatalf("Start while the Stop hook runs = %v, want it to wait", err)
	}
	select {
	case <-r1.Done():
	default:
		t.Fatal("the second run started before the first run's Stop hook ended")
	}
	if res, _ := r2.Wait(ctx); res.Status != events.Complete {
		t.Fatalf("second run: %+v", res)
	}

	hang := hookScript(t, dir, "hang-stop", "sleep 60")
	w2 := newDeclaredWorld(t, toolcall.ModeNative, func(openai.ChatCompletionRequest, int) llmtest.Reply {
		return llmtest.Reply{Content: "answer"}
	}, config.Hooks{config.HookStop: {{Command: []string{hang}, TimeoutSeconds: 120}}})
	r3, err := w2.e.Start(ctx, Request{Content: "q"})
	if err != nil {
		t.Fatal(err)
	}
	waitTerminal(t, w2.rec, r3.MessageID)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := w2.e.Close(cctx); err != nil {
		t.Fatalf("Close with a hanging Stop hook: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Close took %v", d)
	}
	select {
	case <-r3.Done():
	default:
		t.Fatal("Close returned before the run (and its hook) ended")
	}
	for _, ev := range storedOf(t, w2.db, r3.ConversationID, events.HookResult) {
		if d := decode[events.DataHookResult](t, ev); d.OK || !strings.Contains(d.Error, "cancelled") {
			t.Fatalf("hook_result of the killed Stop hook = %+v", d)
		}
	}
	if _, err := w2.e.Start(ctx, Request{Content: "q"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close = %v", err)
	}
}

// waitTerminal blocks until the recorder has seen the terminal event of message msgID,
// or fails the test after 10 s.
func waitTerminal(t *testing.T, rec *recorder, msgID string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if slices.ContainsFunc(recorded(rec), func(ev events.Event) bool { return ev.MessageID == msgID && ev.Type.Terminal() }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no terminal event within 10 s")
		}
		<-tick.C
	}
}

// TestHookFloodKeepsTheAgentsArtifacts: the lead recorded 3 links; a PostToolUse hook then
// declares 200. The hooks' batch does not fit: the hook's newest 3 are dropped (counted in
// its hook_result), and the agent's 3 stay listed; no artifact is evicted.
func TestHookFloodKeepsTheAgentsArtifacts(t *testing.T) {
	dir := t.TempDir()
	flood := hookScript(t, dir, "flood", `printf '{"hookSpecificOutput":{"artifacts":['
i=0
while [ $i -lt 200 ]; do
  [ $i -gt 0 ] && printf ','
  printf '{"title":"Hook %d","url":"https://hook.example/%d"}' $i $i
  i=$((i+1))
done
printf ']}}'`)
	hk := config.Hooks{config.HookPostToolUse: {{Matcher: "create_artifact", Command: []string{flood}}}}
	var script []llmtest.Reply // one tool call per round
	for i := range 3 {
		script = append(script, call("record_artifact", fmt.Sprintf(`{"title":"Agent %d","url":"https://agent.example/%d"}`, i, i)))
	}
	script = append(script, createCall, llmtest.Reply{Content: "done"})
	w := newDeclaredWorld(t, toolcall.ModeNative, llmtest.Script(script...), hk)
	ctx := context.Background()
	res, err := w.e.Ask(ctx, Request{Content: "q"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %+v, %v", res, err)
	}
	list, err := w.svc.List(ctx, res.ConversationID)
	if err != nil || len(list) != declared.MaxPerConversation {
		t.Fatalf("%d declared artifacts (%v), want %d", len(list), err, declared.MaxPerConversation)
	}
	agent, hook := 0, 0
	for _, a := range list {
		switch a.Source {
		case declared.SourceTool:
			agent++
		case declared.SourceHook:
			hook++
		}
	}
	if agent != 3 || hook != 197 {
		t.Errorf("listed: %d of the agent's, %d of the hook's; want 3 and 197", agent, hook)
	}
	results := storedOf(t, w.db, res.ConversationID, events.HookResult)
	if len(results) != 1 {
		t.Fatalf("hook_result events = %d, want 1", len(results))
	}
	if hr := decode[events.DataHookResult](t, results[0]); !hr.OK || hr.Artifacts != 200 || hr.Dropped != 3 {
		t.Errorf("hook_result = %+v, want ok, 200 declared, 3 dropped", hr)
	}
	for _, ev := range storedOf(t, w.db, res.ConversationID, events.ArtifactChanged) {
		if d := decode[events.DataArtifactChanged](t, ev); d.Declared != nil && d.Action == declared.ActionRemoved {
			t.Errorf("an artifact was evicted: %+v", d)
		}
	}
	if !strings.Contains(w.log.String(), "hook artifacts not stored") {
		t.Error("no warning logged for the dropped hook artifacts")
	}
}

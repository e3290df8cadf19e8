package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/declared"
)

// script writes an executable /bin/sh script to dir and returns its path. Hooks run
// without a shell, so the script's #! line is what runs it.
func script(t *testing.T, dir, name, body string) string {
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

// workspaceIn returns an Options.Workspace that puts each conversation's folder under
// root (not created: the Runner must create it).
func workspaceIn(root string) func(context.Context, string) (string, error) {
	return func(_ context.Context, conv string) (string, error) {
		return filepath.Join(root, "workspaces", conv), nil
	}
}

func newRunner(t *testing.T, h config.Hooks, root string) *Runner {
	t.Helper()
	r, err := New(h, Options{Workspace: workspaceIn(root)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPostToolUseDeclares: a PostToolUse hook gets the documented JSON on stdin, runs in
// the conversation's workspace folder (created 0700), and the link it prints comes back
// as a declared input with source hook, the hook's name and the triggering tool call.
func TestPostToolUseDeclares(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "stdin.json")
	cwd := filepath.Join(dir, "cwd.txt")
	p := script(t, dir, "links.sh", `cat > `+seen+`
pwd > `+cwd+`
echo '{"continue": true, "hookSpecificOutput": {"hookEventName": "PostToolUse", "artifacts": [
  {"kind": "link", "title": "Dataset page", "url": "https://data.example.org/d/1", "source": "client", "metadata": {"rows": 3}},
  "not an artifact",
  {"title": "Report", "workspacePath": "out/report.pdf"}]}}'`)
	r := newRunner(t, config.Hooks{config.HookPostToolUse: {{Matcher: "web_fetch", Command: []string{p}}}}, dir)
	in := Input{HookEventName: config.HookPostToolUse, ConversationID: "conv1", MessageID: "msg1", AgentName: "crawl_agent",
		ToolName: "web_fetch", ToolCallID: "call_7", ToolInput: json.RawMessage(`{"url":"https://data.example.org/"}`),
		ToolResult: &ToolResult{Success: true, Result: "page text"}}
	outs := r.Run(context.Background(), in)
	if len(outs) != 1 {
		t.Fatalf("outcomes = %+v, want 1", outs)
	}
	o := outs[0]
	if !o.OK || o.Err != nil || o.Hook != "links.sh" || o.Event != config.HookPostToolUse {
		t.Fatalf("outcome = %+v", o)
	}
	if o.Dropped != 1 || len(o.Artifacts) != 2 {
		t.Fatalf("artifacts = %+v, dropped %d; want 2 and 1 dropped", o.Artifacts, o.Dropped)
	}
	a := o.Artifacts[0]
	want := declared.Input{Kind: "link", Title: "Dataset page", URL: "https://data.example.org/d/1", Metadata: map[string]any{"rows": float64(3)},
		Source: declared.SourceHook, HookName: "links.sh", ToolCallID: "call_7", ToolName: "web_fetch"}
	if a.Kind != want.Kind || a.Title != want.Title || a.URL != want.URL || a.Source != want.Source || a.HookName != want.HookName ||
		a.ToolCallID != want.ToolCallID || a.ToolName != want.ToolName || a.Metadata["rows"] != float64(3) {
		t.Fatalf("artifact = %+v, want %+v", a, want)
	}
	if o.Artifacts[1].WorkspacePath != "out/report.pdf" || o.Artifacts[1].Source != declared.SourceHook {
		t.Fatalf("second artifact = %+v", o.Artifacts[1])
	}

	ws := filepath.Join(dir, "workspaces", "conv1")
	st, err := os.Stat(ws)
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Fatalf("workspace %s: %v, %v (want a 0700 folder)", ws, st, err)
	}
	if b, _ := os.ReadFile(cwd); strings.TrimSpace(string(b)) != ws {
		t.Fatalf("hook ran in %q, want the workspace %q", b, ws)
	}
	var got map[string]any
	b, err := os.ReadFile(seen)
	if err != nil || json.Unmarshal(b, &got) != nil {
		t.Fatalf("stdin = %s, %v", b, err)
	}
	for k, v := range map[string]any{"hook_event_name": "PostToolUse", "conversation_id": "conv1", "workspace": ws,
		"tool_name": "web_fetch", "tool_call_id": "call_7", "agent_name": "crawl_agent", "message_id": "msg1"} {
		if got[k] != v {
			t.Errorf("stdin %s = %v, want %v", k, got[k], v)
		}
	}
	if ti, _ := got["tool_input"].(map[string]any); ti["url"] != "https://data.example.org/" {
		t.Errorf("stdin tool_input = %v", got["tool_input"])
	}
	if tr, _ := got["tool_result"].(map[string]any); tr["success"] != true || tr["result"] != "page text" {
		t.Errorf("stdin tool_result = %v", got["tool_result"])
	}
}

// TestMatcher: "" and "*" match every tool, anything else is a regexp over the whole
// name; Stop hooks ignore the tool name.
func TestMatcher(t *testing.T) {
	dir := t.TempDir()
	p := script(t, dir, "ok.sh", "exit 0")
	h := config.Hooks{config.HookPostToolUse: {
		{Name: "all", Command: []string{p}},
		{Name: "star", Matcher: "*", Command: []string{p}},
		{Name: "fetch", Matcher: "web_fetch", Command: []string{p}},
		{Name: "web", Matcher: "web_.*", Command: []string{p}},
		{Name: "part", Matcher: "fetch", Command: []string{p}},
	}, config.HookStop: {{Name: "stop", Command: []string{p}}}}
	r := newRunner(t, h, dir)
	tests := []struct {
		event, tool string
		want        string
	}{
		{config.HookPostToolUse, "web_fetch", "all,star,fetch,web"},
		{config.HookPostToolUse, "web_search", "all,star,web"},
		{config.HookPostToolUse, "create_artifact", "all,star"},
		{config.HookStop, "", "stop"},
	}
	for _, tc := range tests {
		outs := r.Run(context.Background(), Input{HookEventName: tc.event, ConversationID: "c", ToolName: tc.tool})
		var names []string
		for _, o := range outs {
			if !o.OK {
				t.Errorf("%s: %v", o.Hook, o.Err)
			}
			names = append(names, o.Hook)
		}
		if strings.Join(names, ",") != tc.want {
			t.Errorf("%s %s ran %v, want %s", tc.event, tc.tool, names, tc.want)
		}
		if n := r.Matching(tc.event, tc.tool); n != len(names) {
			t.Errorf("Matching(%s, %s) = %d, ran %d", tc.event, tc.tool, n, len(names))
		}
	}
}

// TestFailures: a hook that exits non-zero, one that sleeps past its timeout, one that
// prints garbage or too much, and one that cannot start each come back as a failed
// Outcome naming the reason; the timed-out one is killed (its child too) at once.
func TestFailures(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, body string
		timeout    float64
		want       error
		text       string
	}{
		{"exit1.sh", "echo 'no such dataset' >&2; exit 1", 0, ErrExit, "no such dataset"},
		{"sleeper.sh", "sleep 30", 0.2, ErrTimeout, "killed"},
		{"garbage.sh", "echo 'hello, not JSON'", 0, ErrOutput, "not a JSON object"},
		{"array.sh", "echo '[1,2]'", 0, ErrOutput, "not a JSON object"},
		{"bad-list.sh", `echo '{"hookSpecificOutput": {"artifacts": {"title": "x"}}}'`, 0, ErrOutput, "not a list"},
		{"flood.sh", "head -c 1100000 /dev/zero | tr '\\0' ' '; echo '{}'", 0, ErrOutput, "more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := script(t, dir, tc.name, tc.body)
			r := newRunner(t, config.Hooks{config.HookStop: {{Command: []string{p}, TimeoutSeconds: tc.timeout}}}, dir)
			start := time.Now()
			outs := r.Run(context.Background(), Input{HookEventName: config.HookStop, ConversationID: "c", Status: "complete"})
			if len(outs) != 1 {
				t.Fatalf("outcomes = %+v", outs)
			}
			o := outs[0]
			if o.OK || !errors.Is(o.Err, tc.want) || !strings.Contains(o.Err.Error(), tc.text) || len(o.Artifacts) != 0 {
				t.Fatalf("outcome = %+v (err %v), want %v mentioning %q", o, o.Err, tc.want, tc.text)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %v", d)
			}
			if tc.timeout > 0 && o.Duration > 2*time.Second {
				t.Fatalf("a 200 ms timeout took %v: the hook (or its sleep) was not killed", o.Duration)
			}
		})
	}
	r := newRunner(t, config.Hooks{config.HookStop: {{Command: []string{filepath.Join(dir, "missing")}}}}, dir)
	if outs := r.Run(context.Background(), Input{HookEventName: config.HookStop, ConversationID: "c"}); len(outs) != 1 || !errors.Is(outs[0].Err, ErrStart) {
		t.Fatalf("missing program: %+v", outs)
	}
}

// TestCancel: ending the context kills a running hook, and hooks after it do not start.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	slow := script(t, dir, "slow.sh", "sleep 30")
	mark := filepath.Join(dir, "second-ran")
	second := script(t, dir, "second.sh", "touch "+mark)
	r := newRunner(t, config.Hooks{config.HookPostToolUse: {{Command: []string{slow}}, {Command: []string{second}}}}, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	outs := r.Run(ctx, Input{HookEventName: config.HookPostToolUse, ConversationID: "c", ToolName: "t"})
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("cancelled hooks took %v", d)
	}
	if len(outs) != 1 || outs[0].OK || !strings.Contains(outs[0].Err.Error(), "cancelled") {
		t.Fatalf("outcomes = %+v", outs)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("a hook started after the context ended")
	}
}

// TestStopInput: a Stop hook gets status and answer; empty output is fine; a hook entry
// that Validate refuses is left out with an error naming it.
func TestStopInput(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "stop.json")
	p := script(t, dir, "notify", "cat > "+seen)
	r, err := New(config.Hooks{config.HookStop: {{Name: "notifier", Command: []string{p, "--quiet"}}, {Command: nil}}},
		Options{Workspace: workspaceIn(dir)})
	if err == nil || !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "hooks.Stop[1].command") {
		t.Fatalf("New error = %v, want the empty command named", err)
	}
	outs := r.Run(context.Background(), Input{HookEventName: config.HookStop, ConversationID: "conv9", MessageID: "m", Status: "complete", Answer: "42"})
	if len(outs) != 1 || !outs[0].OK || outs[0].Hook != "notifier" {
		t.Fatalf("outcomes = %+v", outs)
	}
	var got map[string]any
	b, _ := os.ReadFile(seen)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("stdin %q: %v", b, err)
	}
	ws := filepath.Join(dir, "workspaces", "conv9")
	for k, v := range map[string]any{"hook_event_name": "Stop", "conversation_id": "conv9", "workspace": ws, "status": "complete", "answer": "42"} {
		if got[k] != v {
			t.Errorf("stdin %s = %v, want %v", k, got[k], v)
		}
	}
	if _, ok := got["tool_name"]; ok {
		t.Errorf("Stop stdin has tool fields: %s", b)
	}
}

// TestHookEnvironment checks that a hook does not receive the model's API key or the
// app's own ARTIFACTFLOW_* variables, but does get the rest of the environment.
func TestHookEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-not-for-hooks")
	t.Setenv("ARTIFACTFLOW_HOME", "/secret/home")
	t.Setenv("AF_HOOK_VISIBLE", "yes")
	dir := t.TempDir()
	seen := filepath.Join(dir, "env.txt")
	p := script(t, dir, "dump", "env > "+seen)
	r := newRunner(t, config.Hooks{config.HookStop: {{Command: []string{p}}}}, dir)
	if outs := r.Run(context.Background(), Input{HookEventName: config.HookStop, ConversationID: "c"}); len(outs) != 1 || !outs[0].OK {
		t.Fatalf("outcomes = %+v", outs)
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	if strings.Contains(env, "sk-not-for-hooks") || strings.Contains(env, "/secret/home") {
		t.Errorf("the hook saw the key or ARTIFACTFLOW_HOME:\n%s", env)
	}
	if !strings.Contains(env, "AF_HOOK_VISIBLE=yes") {
		t.Errorf("the hook lost the rest of the environment:\n%s", env)
	}
}

// TestProgramNeverFromTheWorkspace: a hook's program runs from an absolute path or PATH,
// never from the conversation's workspace folder, the hook's working directory, whose
// files a downloaded repository may have put there. A relative path such as
// "tools/notify.sh" is left out with an error naming the entry, and a bare name runs the
// program PATH has even when the workspace holds a file of that name.
func TestProgramNeverFromTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspaces", "c")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{filepath.Join(ws, "tools"), bin} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ran := filepath.Join(dir, "workspace-program-ran")
	script(t, filepath.Join(ws, "tools"), "notify.sh", "touch "+ran)
	script(t, ws, "notify", "touch "+ran)
	fromPath := filepath.Join(dir, "path-program-ran")
	script(t, bin, "notify", "touch "+fromPath)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	tests := []struct {
		name    string
		command string
		wantErr string // "" = the entry is kept
		want    string // the file the program that ran touched; "" = none ran
	}{
		{"relative path", "tools/notify.sh", "hooks.Stop[0].command", ""},
		{"dot path", "./notify", "hooks.Stop[0].command", ""},
		{"bare name", "notify", "", fromPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(ran)
			os.Remove(fromPath)
			r, err := New(config.Hooks{config.HookStop: {{Command: []string{tt.command}}}}, Options{Workspace: workspaceIn(dir)})
			outs := r.Run(context.Background(), Input{HookEventName: config.HookStop, ConversationID: "c"})
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("the workspace's program ran")
			}
			if tt.wantErr == "" && err != nil {
				t.Fatalf("New: %v", err)
			}
			if tt.wantErr != "" && (!errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) ||
				!strings.Contains(err.Error(), "relative path")) {
				t.Fatalf("New error = %v, want %s refused as a relative path", err, tt.wantErr)
			}
			if tt.want == "" {
				if len(outs) != 0 {
					t.Fatalf("outcomes = %+v, want none", outs)
				}
				return
			}
			if len(outs) != 1 || !outs[0].OK {
				t.Fatalf("outcomes = %+v, want the PATH program's", outs)
			}
			if _, err := os.Stat(tt.want); err != nil {
				t.Fatalf("the PATH program did not run: %v", err)
			}
		})
	}
}

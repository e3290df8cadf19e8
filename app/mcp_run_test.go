package app

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/internal/mcpnpm"
)

// mcpCore opens a Core on a world whose config.json holds servers, logging to logs (when
// not nil), and answers every permission request with decide(tool) (nil: no answer).
func mcpCore(t *testing.T, w *apptest.World, servers config.MCPServers, logs *lockedBuffer, decide func(tool string) string) *Core {
	t.Helper()
	if err := config.Save(w.DataDir, config.Settings{MCPServers: servers}); err != nil {
		t.Fatal(err)
	}
	opts := Options{DataDir: w.DataDir, Overrides: w.Overrides()}
	if logs != nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	core, err := NewCore(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	if decide != nil {
		t.Cleanup(core.AddSink(SinkFunc(func(ev events.Event) {
			if ev.Type != events.PermissionRequest {
				return
			}
			var d events.DataPermissionRequest
			_ = json.Unmarshal(ev.Data, &d)
			// Answered at once, as ask does: the request is pending before it is emitted.
			if err := core.Services().Chat.Respond(ev.ConversationID, d.RequestID, decide(d.Tool)); err != nil {
				t.Errorf("Respond: %v", err)
			}
		})))
	}
	return core
}

// ask runs one research question through the bound ChatService and waits for its end.
func askAndWait(t *testing.T, core *Core, question string) (string, MessageView) {
	t.Helper()
	sent, err := core.Services().Chat.Send(SendRequest{Content: question})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(core, sent.ConversationID)
	d, err := core.Services().Conversations.Get(sent.ConversationID)
	if err != nil || len(d.Messages) != 1 {
		t.Fatalf("conversation = %+v, %v", d, err)
	}
	return sent.ConversationID, d.Messages[0]
}

// agentRequests returns the model requests of one agent, in order.
func agentRequests(w *apptest.World, agent string) []openai.ChatCompletionRequest {
	var out []openai.ChatCompletionRequest
	for _, r := range w.Model.Requests() {
		if apptest.AgentOf(r) == agent {
			out = append(out, r)
		}
	}
	return out
}

// leadDelegates scripts a lead that sends each of agents one instruction in turn, then
// answers with answer.
func leadDelegates(w *apptest.World, req openai.ChatCompletionRequest, answer string, agents ...string) llmtest.Reply {
	n := len(apptest.ToolResults(req))
	if n < len(agents) {
		return w.ToolCall("call_subagent", map[string]any{"agent_name": agents[n], "instruction": "Use your tools."})
	}
	return llmtest.Reply{Content: answer}
}

// TestMCPToolsInARun: in a research run (both tool-call formats) search_agent is offered
// server-everything's and server-filesystem's tools under mcp__<server>__<tool> with the
// servers' schemas, calls mcp__everything__echo and mcp__filesystem__read_text_file, and the
// results reach its next requests; each call first asks the user (permission_request,
// confirm by default); Always allow lets that server's other tools run without asking for
// the rest of the run and stores permission auto for that server only; the URL in
// the file becomes a numbered source the answer cites; a denied call gives the agent the
// denial. The lead, not among the servers' agents, is offered none of them.
func TestMCPToolsInARun(t *testing.T) {
	p := mcpnpm.Require(t)
	for _, mode := range []string{"native", "xml"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "notes.md")
			const notes = "Moon notes: 384,400 km, measured by laser ranging. See https://example.org/moon-notes for the data."
			if err := os.WriteFile(file, []byte(notes), 0o600); err != nil {
				t.Fatal(err)
			}
			w := apptest.NewWorld(t, mode, func(w *apptest.World) llmtest.Handler {
				return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
					switch apptest.AgentOf(req) {
					case "search_agent":
						switch len(apptest.ToolResults(req)) {
						case 0:
							return w.ToolCall("mcp__everything__echo", map[string]any{"message": "hello from the agent"})
						case 1:
							if strings.Contains(apptest.ToolResults(req)[0], "denied") {
								return llmtest.Reply{Content: "denied, going on"}
							}
							return w.ToolCall("mcp__filesystem__read_text_file", map[string]any{"path": file})
						case 2:
							return w.ToolCall("mcp__filesystem__list_directory", map[string]any{"path": dir})
						default:
							return llmtest.Reply{Content: "Read the notes."}
						}
					default:
						return leadDelegates(w, req, "The Moon is 384,400 km away [1].", "search_agent")
					}
				}
			})
			var asked []string
			var mu sync.Mutex
			decision := "approve"
			core := mcpCore(t, w, config.MCPServers{
				"everything": {Command: p.Node, Args: []string{p.Everything, "stdio"}},
				"filesystem": {Command: p.Node, Args: []string{p.Filesystem, dir}},
			}, nil, func(tool string) string {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, tool)
				if tool == "mcp__filesystem__read_text_file" {
					return "always_allow"
				}
				return decision
			})
			conv, msg := askAndWait(t, core, "How far is the Moon?")
			if msg.Status != "complete" {
				t.Fatalf("run = %+v", msg)
			}
			reqs := agentRequests(w, "search_agent")
			if len(reqs) != 4 {
				t.Fatalf("%d search_agent requests, want 4", len(reqs))
			}
			offered := func(req openai.ChatCompletionRequest, tool, param string) bool {
				if mode == "xml" {
					return llmtest.SystemContains(req, "### "+tool) && llmtest.SystemContains(req, "- "+param+" (string, required)")
				}
				for _, td := range req.Tools {
					if td.Function != nil && td.Function.Name == tool {
						b, _ := json.Marshal(td.Function.Parameters)
						return strings.Contains(string(b), `"`+param+`"`) && strings.Contains(string(b), `"required":["`+param+`"]`)
					}
				}
				return false
			}
			if !offered(reqs[0], "mcp__everything__echo", "message") || !offered(reqs[0], "mcp__filesystem__read_text_file", "path") {
				t.Fatalf("search_agent is not offered the MCP tools with their schemas: %+v", reqs[0].Tools)
			}
			// The server's own schema, nested parts included: edit_file's edits are a list of
			// {oldText, newText} objects.
			if mode == "xml" {
				if !llmtest.SystemContains(reqs[0], "- edits (array, required)") || !llmtest.SystemContains(reqs[0], `"oldText"`) {
					t.Fatal("the XML instructions lack edit_file's edits and their shape")
				}
			} else {
				var schema struct {
					Schema     *string `json:"$schema"`
					Properties struct {
						Edits struct {
							Items struct {
								Properties map[string]any `json:"properties"`
							} `json:"items"`
						} `json:"edits"`
					} `json:"properties"`
				}
				for _, td := range reqs[0].Tools {
					if td.Function != nil && td.Function.Name == "mcp__filesystem__edit_file" {
						b, _ := json.Marshal(td.Function.Parameters)
						_ = json.Unmarshal(b, &schema)
					}
				}
				if schema.Properties.Edits.Items.Properties["oldText"] == nil || schema.Schema != nil {
					t.Fatalf("edit_file's parameters are not the server's schema (without $schema): %+v", schema)
				}
			}
			for _, r := range agentRequests(w, "lead_agent") {
				if offered(r, "mcp__everything__echo", "message") {
					t.Fatal("the lead is offered a tool its servers do not give it")
				}
			}
			if got := apptest.ToolResults(reqs[1]); len(got) != 1 || !strings.Contains(got[0], "Echo: hello from the agent") {
				t.Fatalf("echo's result in the next request: %q", got)
			}
			got := apptest.ToolResults(reqs[2])
			if len(got) != 2 || !strings.Contains(got[1], "measured by laser ranging") || !strings.Contains(got[1], "[1] https://example.org/moon-notes") {
				t.Fatalf("read_text_file's result in the next request: %q", got)
			}
			srcs, err := core.Services().Conversations.Sources(conv)
			if err != nil || len(srcs) != 1 || srcs[0].Location != "https://example.org/moon-notes" || srcs[0].N != 1 {
				t.Fatalf("sources = %+v, %v", srcs, err)
			}
			// Always allow for read_text_file covers the server's other tools for the rest of
			// the run: list_directory ran without asking.
			if got := apptest.ToolResults(reqs[3]); len(got) != 3 || !strings.Contains(got[2], "notes.md") {
				t.Fatalf("list_directory's result: %q", got)
			}
			if !slices.Equal(asked, []string{"mcp__everything__echo", "mcp__filesystem__read_text_file"}) {
				t.Fatalf("permission asked for %v", asked)
			}
			stored, _ := config.Load(w.DataDir)
			if stored.MCPServers["filesystem"].Permission != "auto" || stored.MCPServers["everything"].Permission != "" {
				t.Fatalf("after Always allow: %v", stored.MCPServers)
			}

			// Deny: the agent's next request carries the denial; the tool did not run.
			mu.Lock()
			decision, asked = "deny", nil
			mu.Unlock()
			before := len(agentRequests(w, "search_agent"))
			_, msg = askAndWait(t, core, "Deny test")
			if msg.Status != "complete" {
				t.Fatalf("run = %+v", msg)
			}
			reqs = agentRequests(w, "search_agent")[before:]
			last := apptest.ToolResults(reqs[len(reqs)-1])
			if len(reqs) != 2 || !strings.Contains(last[len(last)-1], "the user denied this mcp__everything__echo call") ||
				strings.Contains(last[len(last)-1], "Echo:") || !slices.Equal(asked, []string{"mcp__everything__echo"}) {
				t.Fatalf("after a denial: %d requests, results %q, asked %v", len(reqs), last, asked)
			}
		})
	}
}

// TestMCPFailuresInARun: within one run (servers set to auto), a server killed during a
// call gives the agent an error saying it exited and answers the next call after its
// restart; a call the server never answers gives the agent a timeout error after
// timeout_seconds; a server printing junk on stdout still answers and the junk is
// reported; a server that cannot start is left out of the run with a warning in the log.
// The run completes.
func TestMCPFailuresInARun(t *testing.T) {
	p := mcpnpm.Require(t)
	script := filepath.Join(mcpnpm.Root(), "testserver.mjs")
	var core *Core
	var killed sync.Once
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			switch apptest.AgentOf(req) {
			case "search_agent":
				switch len(apptest.ToolResults(req)) {
				case 0:
					return w.ToolCall("mcp__scripted__wait", map[string]any{})
				case 1:
					return w.ToolCall("mcp__scripted__env", map[string]any{"name": "HOME"})
				case 2:
					return w.ToolCall("mcp__scripted__wait", map[string]any{})
				default:
					return llmtest.Reply{Content: "done searching"}
				}
			case "crawl_agent":
				if len(apptest.ToolResults(req)) == 0 {
					return w.ToolCall("mcp__noisy__junk", map[string]any{})
				}
				return llmtest.Reply{Content: "done crawling"}
			default:
				return leadDelegates(w, req, "All done.", "search_agent", "crawl_agent")
			}
		}
	})
	logs := &lockedBuffer{}
	home, _ := os.UserHomeDir()
	core = mcpCore(t, w, config.MCPServers{
		"scripted": {Command: p.Node, Args: []string{script}, Permission: "auto", TimeoutSeconds: 3, Agents: []string{"search_agent"}},
		"noisy":    {Command: p.Node, Args: []string{script, "--junk"}, Permission: "auto", Agents: []string{"crawl_agent"}},
		"missing":  {Command: "no-such-program-af"},
	}, logs, nil)
	t.Cleanup(core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.ToolStart && strings.Contains(string(ev.Data), "mcp__scripted__wait") {
			killed.Do(func() {
				go func() { // kill the server once the first call is waiting in it
					time.Sleep(300 * time.Millisecond)
					st, _ := core.mcp.Status("scripted")
					if proc, err := os.FindProcess(st.PID); err == nil {
						_ = proc.Kill()
					}
				}()
			})
		}
	})))
	_, msg := askAndWait(t, core, "Try the tools")
	if msg.Status != "complete" || msg.Response != "All done." {
		t.Fatalf("run = %+v", msg)
	}
	reqs := agentRequests(w, "search_agent")
	if len(reqs) != 4 {
		t.Fatalf("%d search_agent requests, want 4", len(reqs))
	}
	results := apptest.ToolResults(reqs[3])
	if !strings.HasPrefix(results[0], "Error: ") || !strings.Contains(results[0], "exited") {
		t.Fatalf("the killed call's result: %q", results[0])
	}
	if results[1] != home {
		t.Fatalf("the call after the restart: %q, want %q", results[1], home)
	}
	if !strings.HasPrefix(results[2], "Error: ") || !strings.Contains(results[2], "did not answer") {
		t.Fatalf("the unanswered call's result: %q", results[2])
	}
	if got := apptest.ToolResults(agentRequests(w, "crawl_agent")[1]); len(got) != 1 || got[0] != "ok" {
		t.Fatalf("junk's result: %q", got)
	}
	views, _ := core.Services().Settings.MCPServers()
	for _, v := range views {
		switch v.Name {
		case "noisy":
			if v.State != "running" || v.StdoutJunk != 2 {
				t.Fatalf("noisy: %+v", v)
			}
		case "missing":
			if v.State != "failed" || !strings.Contains(v.Error, "not found on PATH") {
				t.Fatalf("missing: %+v", v)
			}
		}
	}
	for _, r := range w.Model.Requests() {
		b, _ := json.Marshal(r.Tools)
		if bytes.Contains(b, []byte("mcp__missing__")) {
			t.Fatal("a tool of the server that never started was offered")
		}
	}
	if !strings.Contains(logs.String(), "MCP server missing") {
		t.Fatalf("no warning about the skipped server:\n%s", logs.String())
	}
}

// TestMCPStopCancelsCall: Stop during an MCP tool call ends the run at once; the server is
// told (its log shows the protocol's notifications/cancelled arrived) and keeps running.
func TestMCPStopCancelsCall(t *testing.T) {
	p := mcpnpm.Require(t)
	script := filepath.Join(mcpnpm.Root(), "testserver.mjs")
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.AgentOf(req) == "search_agent" {
				return w.ToolCall("mcp__scripted__wait", map[string]any{})
			}
			return leadDelegates(w, req, "never", "search_agent")
		}
	})
	// Without the cancellation the call would wait for its server's 10 minutes.
	core := mcpCore(t, w, config.MCPServers{"scripted": {Command: p.Node, Args: []string{script}, Permission: "auto", TimeoutSeconds: 600}}, nil, nil)
	started := make(chan string, 1)
	var completed []events.DataToolComplete
	var mu sync.Mutex
	t.Cleanup(core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.ToolStart && strings.Contains(string(ev.Data), "mcp__scripted__wait") {
			select {
			case started <- ev.ConversationID:
			default:
			}
		}
		if ev.Type == events.ToolComplete {
			var d events.DataToolComplete
			_ = json.Unmarshal(ev.Data, &d)
			mu.Lock()
			completed = append(completed, d)
			mu.Unlock()
		}
	})))
	if _, err := core.Services().Chat.Send(SendRequest{Content: "wait"}); err != nil {
		t.Fatal(err)
	}
	var conv string
	select {
	case conv = <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the MCP call did not start")
	}
	time.Sleep(300 * time.Millisecond) // the request is in the server
	if err := core.Services().Chat.Stop(conv); err != nil {
		t.Fatal(err)
	}
	if r := core.eng.Active(conv); r != nil {
		select {
		case <-r.Done():
		case <-time.After(time.Minute):
			t.Fatal("the run did not end after Stop: the MCP call was not cancelled")
		}
	}
	d, _ := core.Services().Conversations.Get(conv)
	if d.Messages[0].Status != "cancelled" {
		t.Fatalf("after Stop: %+v", d.Messages[0])
	}
	mu.Lock()
	i := slices.IndexFunc(completed, func(c events.DataToolComplete) bool { return c.Tool == "mcp__scripted__wait" })
	if i < 0 || completed[i].Success || !strings.Contains(completed[i].Error, "stopped by the user") {
		t.Fatalf("the MCP call did not end with the Stop: %+v", completed)
	}
	mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		log, _ := core.mcp.Log("scripted")
		if strings.Contains(log, "cancelled request") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server was not told of the cancellation:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st, _ := core.mcp.Status("scripted"); st.State != "running" {
		t.Fatalf("the server after Stop: %+v", st)
	}
}

// TestMCPResultsKept: an image and an embedded resource an MCP tool returns are written to
// the conversation's workspace (mcp/<server>/…) and declared, so they are listed in the
// artifacts panel; the agent is told where they are, and gets the resource's text.
func TestMCPResultsKept(t *testing.T) {
	p := mcpnpm.Require(t)
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.AgentOf(req) == "crawl_agent" {
				switch len(apptest.ToolResults(req)) {
				case 0:
					return w.ToolCall("mcp__everything__get-tiny-image", map[string]any{})
				case 1:
					return w.ToolCall("mcp__everything__get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 1})
				default:
					return llmtest.Reply{Content: "kept"}
				}
			}
			return leadDelegates(w, req, "Done.", "crawl_agent")
		}
	})
	core := mcpCore(t, w, config.MCPServers{"everything": {Command: p.Node, Args: []string{p.Everything, "stdio"},
		Permission: "auto", Agents: []string{"crawl_agent"}}}, nil, nil)
	var changed []events.DataArtifactChanged
	var mu sync.Mutex
	t.Cleanup(core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.ArtifactChanged && ev.MessageID != "" {
			var d events.DataArtifactChanged
			_ = json.Unmarshal(ev.Data, &d)
			mu.Lock()
			changed = append(changed, d)
			mu.Unlock()
		}
	})))
	conv, msg := askAndWait(t, core, "Keep the image")
	if msg.Status != "complete" {
		t.Fatalf("run = %+v", msg)
	}
	results := apptest.ToolResults(agentRequests(w, "crawl_agent")[2])
	if len(results) != 2 || !strings.Contains(results[0], "mcp/everything/get-tiny-image-") || !strings.Contains(results[0], ".png (image/png") ||
		!strings.Contains(results[1], "This is a plaintext resource") || !strings.Contains(results[1], "mcp/everything/1-") {
		t.Fatalf("results: %q", results)
	}
	list, err := core.Declared().List(context.Background(), conv)
	if err != nil || len(list) != 2 {
		t.Fatalf("declared = %+v, %v", list, err)
	}
	ws, _ := core.Workspace(context.Background(), conv)
	for _, a := range list {
		tools := []string{"mcp__everything__get-tiny-image", "mcp__everything__get-resource-reference"}
		if a.Source != "tool" || !slices.Contains(tools, a.ToolName) || !strings.HasPrefix(a.WorkspacePath, "mcp/everything/") || a.Status != "available" {
			t.Fatalf("declared artifact %+v", a)
		}
		b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(a.WorkspacePath)))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(a.WorkspacePath, ".png") != bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Fatalf("%s holds %q…", a.WorkspacePath, b[:min(8, len(b))])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(changed) != 2 {
		t.Fatalf("%d artifact_changed events of the run, want 2", len(changed))
	}
}

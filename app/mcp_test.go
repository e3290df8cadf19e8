package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/internal/mcpnpm"
)

// TestMCPSettingsBindings: what Settings → Tools does through the bound methods. A pasted
// Claude Desktop block is imported (keys this app does not use reported); the list shows
// each server stopped, with its env and header values masked; Test starts a server and
// lists its tools; a tool is switched off; the form saves a server with its masked secret
// kept, a renamed server takes its stored secrets along, and a mask with nothing stored is
// refused naming the key; a server that cannot be reached tests as failed, not as an
// error; the log is readable; a server is removed. No secret reaches a view, the log or
// an error, and config.json keeps them.
func TestMCPSettingsBindings(t *testing.T) {
	p := mcpnpm.Require(t)
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	svc := core.Services().Settings
	const envSecret, headerSecret = "tok-secret-1234", "Bearer hdr-secret-5678"
	block, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": p.Node, "args": []string{p.Everything, "stdio"}, "env": map[string]string{"TOKEN": envSecret},
			"alwaysAllow": []string{"echo"}},
		"remote": map[string]any{"url": "http://127.0.0.1:1/mcp", "headers": map[string]string{"Authorization": headerSecret}},
	}})
	imported, err := svc.ImportMCPServers(string(block))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(imported.Imported, []string{"everything", "remote"}) || !slices.Equal(imported.Ignored, []string{"everything.alwaysAllow"}) {
		t.Fatalf("import = %+v", imported)
	}
	secretFree := func(what string, v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), "secret-") {
			t.Fatalf("%s shows a secret: %s", what, b)
		}
	}
	views, err := svc.MCPServers()
	if err != nil {
		t.Fatal(err)
	}
	secretFree("MCPServers", views)
	if len(views) != 2 || views[0].Name != "everything" || views[0].State != "stopped" || views[0].Env["TOKEN"] != MCPSecretMask ||
		!slices.Equal(views[0].Agents, []string{"search_agent", "crawl_agent"}) || views[0].Permission != "confirm" ||
		views[0].TimeoutSeconds != 60 || views[1].Headers["Authorization"] != MCPSecretMask || views[1].URL == "" {
		t.Fatalf("views = %+v", views)
	}

	res, err := svc.TestMCPServer("everything")
	if err != nil || !res.OK {
		t.Fatalf("TestMCPServer = %+v, %v", res, err)
	}
	if !slices.ContainsFunc(res.Tools, func(v MCPToolView) bool {
		return v.Name == "echo" && v.QualifiedName == "mcp__everything__echo" && v.Enabled
	}) {
		t.Fatalf("tested tools = %+v", res.Tools)
	}
	if err := svc.SetMCPToolEnabled("everything", "echo", false); err != nil {
		t.Fatal(err)
	}
	views, _ = svc.MCPServers()
	if v := views[0]; v.State != "running" || len(v.Tools) != len(res.Tools) ||
		slices.ContainsFunc(v.Tools, func(tv MCPToolView) bool { return tv.Name == "echo" && tv.Enabled }) ||
		!slices.Equal(v.DisabledTools, []string{"echo"}) {
		t.Fatalf("after switching echo off: %+v", v)
	}

	// The form sends back what it was shown, with one change: the secret stays.
	in := inputOf(views[0])
	in.Permission = "auto"
	if err := svc.SaveMCPServer("everything", in); err != nil {
		t.Fatal(err)
	}
	stored, err := config.Load(w.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if e := stored.MCPServers["everything"]; e.Env["TOKEN"] != envSecret || e.Permission != "auto" || e.Agents != nil || e.TimeoutSeconds != 0 {
		t.Fatalf("stored after save: %v %q", e, e.Env["TOKEN"])
	}
	in.Headers = map[string]string{"X-Key": MCPSecretMask}
	in.Command, in.Args, in.URL, in.Env = "", nil, "http://127.0.0.1:1/mcp", nil
	if err := svc.SaveMCPServer("other", in); ToAppError(err).Code != CodeInvalidSettings || !strings.Contains(err.Error(), "mcp_servers.other.headers.X-Key") {
		t.Fatalf("a mask with nothing stored: %v", err)
	}
	remote := inputOf(views[1])
	remote.PreviousName = "remote"
	if err := svc.SaveMCPServer("files", remote); err != nil {
		t.Fatal(err)
	}
	stored, _ = config.Load(w.DataDir)
	if _, still := stored.MCPServers["remote"]; still || stored.MCPServers["files"].Headers["Authorization"] != headerSecret {
		t.Fatalf("after the rename: %v", stored.MCPServers)
	}

	failed, err := svc.TestMCPServer("files")
	if err != nil || failed.OK || failed.Error == "" {
		t.Fatalf("test of an unreachable server = %+v, %v", failed, err)
	}
	secretFree("a failed test", failed)
	log, err := svc.MCPServerLog("everything")
	if err != nil || !strings.Contains(log, "running with") {
		t.Fatalf("log = %q, %v", log, err)
	}
	secretFree("the log", log)
	if _, err := os.Stat(filepath.Join(w.DataDir, "logs", "mcp", "everything.log")); err != nil {
		t.Fatal(err)
	}

	if err := svc.RemoveMCPServer("everything"); err != nil {
		t.Fatal(err)
	}
	if views, _ := svc.MCPServers(); len(views) != 1 || views[0].Name != "files" {
		t.Fatalf("after removal: %+v", views)
	}
	for _, err := range []error{svc.RemoveMCPServer("everything"), svc.SetMCPToolEnabled("nope", "x", true)} {
		if code := ToAppError(err).Code; code != CodeNotFound {
			t.Fatalf("%v: code %s, want not_found", err, code)
		}
	}
	if _, err := svc.ImportMCPServers("{not json"); ToAppError(err).Code != CodeInvalidRequest {
		t.Fatalf("a bad paste: %v", err)
	}
	if _, err := svc.ImportMCPServers(`{"x": {"url": "ftp://h"}}`); ToAppError(err).Code != CodeInvalidSettings {
		t.Fatalf("a bad server: %v", err)
	}
}

// inputOf is what the form sends back for a server it was shown unchanged.
func inputOf(v MCPServerView) MCPServerInput {
	return MCPServerInput{Command: v.Command, Args: v.Args, Cwd: v.Cwd, URL: v.URL, Env: v.Env, Headers: v.Headers,
		Transport: v.Transport, Agents: v.Agents, Permission: v.Permission, Disabled: v.Disabled,
		DisabledTools: v.DisabledTools, TimeoutSeconds: v.TimeoutSeconds}
}

// TestMCPToolSourceMayOffer: before any server starts, a run may count on the tools of a
// configured server that is switched on, and on no other.
func TestMCPToolSourceMayOffer(t *testing.T) {
	src := mcpToolSource{servers: config.MCPServers{
		"docs": {URL: "http://127.0.0.1:1/mcp"},
		"off":  {Command: "x", Disabled: true},
	}}
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"mcp__docs__lookup", true},
		{"mcp__off__lookup", false},
		{"mcp__doc__lookup", false},
		{"mcp__docs_lookup", false},
		{"read_artifact", false},
	} {
		if got := src.MayOffer(tc.name); got != tc.want {
			t.Errorf("MayOffer(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestMCPToolSourceReadsCurrentSettings: a run's tool source uses the MCP servers as
// config.json holds them when the run asks for its tools; a server removed after the run's
// settings were read is neither put back in the manager nor started.
func TestMCPToolSourceReadsCurrentSettings(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := mcpCore(t, w, config.MCPServers{"gone": {Command: "/bin/sh", Args: []string{"-c", "sleep 30"}, Permission: "auto"}}, nil, nil)
	src := mcpToolSource{c: core, servers: core.Settings().MCPServers} // as deps() took them
	if err := core.Services().Settings.RemoveMCPServer("gone"); err != nil {
		t.Fatal(err)
	}
	set := src.Tools(context.Background(), engine.ToolRequest{Agents: []string{"search_agent", "crawl_agent"}})
	if len(set.Tools) != 0 || len(set.Warnings) != 0 {
		t.Errorf("tool set of a removed server: %+v", set)
	}
	if names := core.mcp.Names(); slices.Contains(names, "gone") {
		t.Errorf("the removed server is back in the manager: %v", names)
	}
}

// TestMCPTestIsBounded: Settings' Test of a server whose start hangs (a program that never
// speaks MCP, with the longest timeout_seconds) returns a failed, timed-out result once
// the test's own bound passes, instead of waiting out the server's hour and holding the
// call (in browser mode, its HTTP handler) meanwhile.
func TestMCPTestIsBounded(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	core.mcpTestWait = 300 * time.Millisecond
	svc := core.Services().Settings
	block := fmt.Sprintf(`{"mcpServers": {"hangs": {"command": "sleep", "args": ["600"], "timeout_seconds": %d}}}`, config.MaxMCPTimeoutSeconds)
	if _, err := svc.ImportMCPServers(block); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		res MCPTestResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := svc.TestMCPServer("hangs")
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		if a.err != nil || a.res.OK || a.res.Error == "" {
			t.Fatalf("TestMCPServer = %+v, %v; want a failed result saying why", a.res, a.err)
		}
		t.Log(a.res.Error)
	case <-time.After(30 * time.Second):
		t.Fatal("TestMCPServer still waits for a server whose start hangs")
	}
}

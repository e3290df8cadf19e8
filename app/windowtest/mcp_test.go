package windowtest

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/internal/mcpnpm"
)

// echoResearch scripts a lead that sends search_agent once and then answers, and a
// search_agent that calls mcp__everything__echo once and reports what came back.
func (w *world) echoResearch() llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		results := toolResults(req)
		if agentOf(req) == "search_agent" {
			if len(results) == 0 {
				return w.toolCall("mcp__everything__echo", map[string]any{"message": "hello from the window"})
			}
			return llmtest.Reply{Content: "The echo tool answered: " + results[0]}
		}
		if len(results) == 0 {
			return w.toolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Echo a greeting with the everything server."})
		}
		return llmtest.Reply{Content: "The MCP server echoed the greeting back."}
	}
}

// TestWindowMCPTools checks Settings → MCP servers in the real window. config.json names
// server-everything over stdio ("everything", calls allowed without asking) and a program
// that writes a line on stderr and exits at once ("broken"). A research run whose search
// agent calls mcp__everything__echo starts both: the echo's result reaches the model, and
// Settings (Ctrl+,), scrolled to its end, shows everything running (green) and broken failed
// with its error and log lines (the pink failure box): window-mcp-settings.png. Then, by
// keyboard only: Add server, a name and a command typed, Enter saves the server to
// config.json (not the dialog's settings form); Add server again and Escape closes the form
// but not Settings (window-mcp-escape.png). Last, the run's activity unfolded shows the call
// (window-mcp-activity.png).
func TestWindowMCPTools(t *testing.T) {
	s := newSession(t, 6*time.Minute)
	p := mcpnpm.Require(t)
	w := newWorld(t, (*world).echoResearch)
	if err := config.Save(w.dataDir, config.Settings{MCPServers: config.MCPServers{
		"everything": {Command: p.Node, Args: []string{p.Everything, "stdio"}, Permission: config.MCPPermissionAuto},
		"broken":     {Command: "/bin/sh", Args: []string{"-c", "echo 'cannot start: no API key configured' >&2; exit 3"}},
	}}); err != nil {
		t.Fatal(err)
	}
	s.launch(w.args()...)
	// On a busy machine the page may load well after the window maps: wait for the app's
	// logo (accent blue, top left) before typing, or the question goes nowhere.
	s.waitShot("window-mcp-loaded.png", 60*time.Second, "the page to load", func(img image.Image) bool {
		return countPixels(img, image.Rect(10, 30, 50, 66), accent) > 100
	})
	s.ask("Echo a greeting through the MCP server.")
	db := openDB(t, w.dataDir)
	waitRuns(s.ctx, t, db, 1, 120*time.Second)
	echoed := false
	for _, r := range w.model.Requests() {
		for _, res := range toolResults(r) {
			echoed = echoed || strings.Contains(res, "Echo: hello from the window")
		}
	}
	if !echoed {
		t.Fatal("the echo's result never reached the model")
	}

	s.xdo("key", "ctrl+comma")
	// The dialog (760 px wide, centred) holds the side list of sections (SettingsNav) at its
	// left and the scrolled sections at its right; Save is in its foot.
	dialog := image.Rect(260, 52, 1020, 848)
	foot := image.Rect(dialog.Min.X, 790, dialog.Max.X, dialog.Max.Y)
	s.waitShot("window-mcp-open.png", 30*time.Second, "Ctrl+, to open the Settings dialog", func(img image.Image) bool {
		return len(blobs(img, foot, accent, 800)) == 1 // Save
	})
	// "MCP servers" in the side list scrolls the sections to the servers.
	body := image.Rect(450, 100, dialog.Max.X-10, 790)
	s.xdo("mousemove", "328", "467", "click", "1")
	shown := func(img image.Image) bool {
		return countPixels(img, body, errSoft) > 5000 && countPixels(img, body, okGreen) > 20
	}
	img := s.waitSettled("window-mcp-settings.png", body, 15*time.Second, "the MCP servers: one running, one failed", shown)
	// Keyboard only: a click on the section's heading (nothing to focus there) makes it where
	// Tab goes on from; Tab until the focus ring is on Add server (the first button under
	// the cards, at the sections' left edge), then Enter opens the form.
	s.xdo("mousemove", "520", "114", "click", "1")
	addAt := 461 // the sections' left edge
	onAdd := func(r image.Rectangle) bool { return r.Min.X >= addAt-6 && r.Min.X <= addAt+4 && r.Min.Y > 400 }
	s.focusRing("Add server", "Tab", body, onAdd)
	// The open form is framed in the accent colour across the section's width.
	formOpen := func(img image.Image) bool {
		for _, b := range blobs(img, body, accent, 200) {
			if b.Dx() > 400 {
				return true
			}
		}
		return false
	}
	s.xdo("key", "Return")
	s.waitShot("window-mcp-form.png", 5*time.Second, "Enter on Add server to open the form", formOpen)
	// The name field has the focus; Tab passes the kind (a local program) to Command.
	s.xdo("type", "--delay", "20", "catter")
	s.xdo("key", "Tab", "Tab")
	s.xdo("type", "--delay", "20", "/bin/cat")
	s.shoot("window-mcp-typed.png")
	s.xdo("key", "Return")
	waitFor(s.ctx, t, 10*time.Second, "config.json to hold the server added by the form", func() bool {
		got, err := config.Load(w.dataDir)
		return err == nil && got.MCPServers["catter"].Command == "/bin/cat"
	})
	if got, _ := config.Load(w.dataDir); got.Model != "" || len(got.MCPServers) != 3 {
		t.Errorf("config.json after Enter in the form: model %q (the settings form saved too?), servers %v", got.Model, got.MCPServers.Names())
	}
	// Focus is back on Add server; Enter opens the form again and Escape closes it, not Settings.
	img = s.waitShot("window-mcp-added.png", 5*time.Second, "the form to close and focus to return to Add server", func(img image.Image) bool {
		return !formOpen(img) && hasRing(img, body, onAdd)
	})
	s.xdo("key", "Return")
	s.waitShot("window-mcp-form2.png", 5*time.Second, "Enter on Add server to open the form again", formOpen)
	s.xdo("key", "Escape")
	img = s.waitShot("window-mcp-escape.png", 5*time.Second, "Escape to close the form", func(img image.Image) bool { return !formOpen(img) })
	if len(blobs(img, foot, accent, 800)) != 1 {
		t.Fatal("Escape in the server form closed Settings too (window-mcp-escape.png)")
	}
	if got, _ := config.Load(w.dataDir); len(got.MCPServers) != 3 {
		t.Errorf("servers after Escape: %v", got.MCPServers.Names())
	}

	// The run's activity, unfolded: its MCP call reads "echo · everything"
	// (window-mcp-activity.png). The folded activity is the first box under the question,
	// found by its top border: a row of the border colour across the column.
	s.xdo("key", "Escape")
	column := image.Rect(270, 80, 870, 700)
	border := func(c color.Color) bool { return sameColour(c, 0xe3, 0xe3, 0xde) }
	lines := func(img image.Image) []int {
		var ys []int
		for y := column.Min.Y; y < column.Max.Y; y++ {
			if countPixels(img, image.Rect(column.Min.X, y, column.Max.X, y+1), border) > 400 {
				ys = append(ys, y)
			}
		}
		return ys
	}
	folded := s.waitShot("window-mcp-run.png", 5*time.Second, "Settings to close", func(img image.Image) bool {
		return len(blobs(img, foot, accent, 800)) == 0 && len(lines(img)) >= 2
	})
	top := lines(folded)
	s.xdo("mousemove", "320", fmt.Sprint(top[0]+18), "click", "1")
	s.xdo("mousemove", "1100", "600")
	s.waitSettled("window-mcp-activity.png", column, 5*time.Second, "the activity to unfold", func(img image.Image) bool {
		ys := lines(img)
		return len(ys) >= 2 && ys[len(ys)-1]-ys[0] > top[len(top)-1]-top[0]+100
	})
}

// focusRing presses key (Tab or shift+Tab, up to 30 times) until hasRing finds the focus
// on what at accepts, and fails the test naming what it looked for otherwise.
func (s *session) focusRing(what, key string, r image.Rectangle, at func(image.Rectangle) bool) {
	s.t.Helper()
	for i := 0; i < 30; i++ {
		s.xdo("key", key)
		time.Sleep(150 * time.Millisecond)
		if hasRing(s.shoot("window-focus.png"), r, at) {
			return
		}
	}
	s.t.Fatalf("%s never reached %s (window-focus.png)", key, what)
}

// hasRing reports whether r of img holds a focus ring (the accent outline of
// :focus-visible, at least 60 px wide and 20–44 px high) whose bounds at accepts.
func hasRing(img image.Image, r image.Rectangle, at func(image.Rectangle) bool) bool {
	ring := func(c color.Color) bool { return near(c, 0x3a, 0x5b, 0xc7, 40) }
	for _, b := range blobs(img, r, ring, 60) {
		if b.Dx() >= 60 && b.Dy() >= 20 && b.Dy() <= 44 && at(b) {
			return true
		}
	}
	return false
}

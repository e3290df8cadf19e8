package browser

import (
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
)

// mathReport is the report the lead writes in TestBrowserE2EMathMermaid.
const mathReport = "# Light to the Moon\n\nThe distance is $d \\approx 384\\,400$ km; it costs $5 and $10.\n\n" +
	"$$\nt = \\frac{d}{c} \\approx 1.28\\ \\text{s}\n$$\n\n" +
	"```mermaid\ngraph LR\n  Earth -->|laser| Moon\n```\n\n" +
	"```mermaid\n%%{init: {\"themeCSS\": \"svg{background:url(https://x.example/t.png)}\"}}%%\ngraph LR\n  Sun --> Earth\n```\n\n" +
	"```mermaid\ngraph LR\n  A -->\n```\n"

// TestBrowserE2EMathMermaid runs the real frontend in headless Chromium against browser
// mode (frontend/e2e/math.mjs): a report artifact with inline and display math and a
// Mermaid diagram shows the formulas typeset by KaTeX (with the prices left as text), the
// diagram drawn as an SVG, a diagram whose init directive sets a themeCSS with a remote
// url() drawn without it (no remote URL in the page, no request refused by the CSP), and a
// diagram that does not parse as an inline error with its source, under the page's own CSP (KaTeX's fonts and Mermaid's chunks come from the app).
// Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2EMathMermaid(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	world := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.AgentOf(req) == "lead_agent" && len(apptest.ToolResults(req)) == 0 {
				return w.ToolCall("create_artifact", map[string]any{"id": "report", "content_type": "markdown", "title": "Light to the Moon", "content": mathReport})
			}
			return llmtest.Reply{Content: "Done: light takes $t \\approx 1.28$ s."}
		}
	})
	_, srv, hs := newBrowserServer(t, world, dist)
	if err := runScript(t, 2*time.Minute, "math.mjs", hs.URL+"/?token="+srv.Token(), nil); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

// exportReport is the report the lead writes in TestBrowserE2EExportMermaid: two
// flowcharts (drawn with the same kind of ids) and a diagram that does not parse.
const exportReport = "# Light to the Moon\n\nThe path:\n\n" +
	"```mermaid\ngraph LR\n  A[Ground station] -->|laser| B[Moon reflector]\n```\n\n" +
	"```mermaid\ngraph TD\n  Sun --> Earth\n```\n\n" +
	"```mermaid\ngraph LR\n  A -->\n```\n"

// TestBrowserE2EExportMermaid runs the real frontend in headless Chromium against browser
// mode (frontend/e2e/export-mermaid.mjs): Export → HTML of a report with Mermaid
// flowcharts downloads a page holding the diagrams the page drew as inline SVG (the broken
// one as its source), and that file, opened in Chromium under its own CSP, shows the node
// labels as visible SVG text with no script, no refused load and distinct ids.
// Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2EExportMermaid(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	world := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.AgentOf(req) == "lead_agent" && len(apptest.ToolResults(req)) == 0 {
				return w.ToolCall("create_artifact", map[string]any{"id": "report", "content_type": "markdown", "title": "Light to the Moon", "content": exportReport})
			}
			return llmtest.Reply{Content: "Done."}
		}
	})
	_, srv, hs := newBrowserServer(t, world, dist)
	if err := runScript(t, 2*time.Minute, "export-mermaid.mjs", hs.URL+"/?token="+srv.Token(), nil); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

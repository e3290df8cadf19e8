package browser

import (
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
)

// everydayReport and everydayAnswer are what the scripted lead of TestBrowserE2EEveryday
// writes: a report whose words appear nowhere else (perilune, with markup the search
// snippet must show as text) and an answer with a citation and a code block.
const (
	everydayReport = "# Lunar survey\n\nAt perilune the <b>orbiter</b> dips to 15 km above the Moon."
	everydayAnswer = "The Moon is about 384,400 km away [1]. The Moon's orbit is elliptical.\n\n```python\nprint(384400)\n```\n\nSee the Moon report."
)

// TestBrowserE2EEveryday runs frontend/e2e/everyday.mjs in headless Chromium against
// browser mode: copy buttons on the answer (its Markdown with [1]), a code block (the code
// only) and the artifact (its content), each saying "Copied"; Ctrl+F finds within the
// conversation ("1 / 4", Enter, Shift+Enter, Esc); Ctrl +/0 zoom the page and the level
// survives a reload; the sidebar search finds the conversation by a word only its report
// holds, with the snippet as plain text. Needs AF_E2E=1 and a built frontend, like
// TestBrowserE2E.
func TestBrowserE2EEveryday(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.AgentOf(req) != "lead_agent" {
				return llmtest.Reply{Content: "nothing to do"}
			}
			if len(apptest.ToolResults(req)) == 0 {
				return w.ToolCall("create_artifact", map[string]any{"id": "lunar_report", "content_type": "markdown",
					"title": "Lunar survey", "content": everydayReport})
			}
			return llmtest.Reply{Content: everydayAnswer}
		}
	})
	_, srv, hs := newBrowserServer(t, w, dist)
	if err := runScript(t, 3*time.Minute, "everyday.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_REPORT="+everydayReport, "AF_ANSWER="+everydayAnswer); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

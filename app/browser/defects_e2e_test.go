package browser

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
)

// reportWorld scripts a short run per question: the lead writes research_report (titled
// "Moon distance"), changes it once (so the run's live v1 is a draft and v2 is stored),
// writes task_plan and answers "Answer N", N counting the runs from 1, so a test can wait for each run of a
// Regenerate or an edit by its own answer.
func reportWorld(t *testing.T) *apptest.World {
	var answers atomic.Int64
	return apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if apptest.AgentOf(req) != "lead_agent" {
				return llmtest.Reply{Content: "nothing to do"}
			}
			switch len(apptest.ToolResults(req)) {
			case 0:
				return w.ToolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown",
					"title": "Moon distance", "content": "# Moon distance\n\n" + apptest.Fact})
			case 1:
				return w.ToolCall("update_artifact", map[string]any{"id": "research_report", "old_str": "# Moon distance", "new_str": "# Moon distance (checked)"})
			case 2:
				return w.ToolCall("create_artifact", map[string]any{"id": "task_plan", "content_type": "markdown", "title": "Task plan",
					"content": "# Moon distance\n- [x] Write the report"})
			}
			return llmtest.Reply{Content: fmt.Sprintf("Answer %d: the Moon is 384,400 km away.", answers.Add(1))}
		}
	})
}

// TestBrowserE2EDefects runs frontend/e2e/defects.mjs in headless Chromium against browser
// mode: in a new conversation a Regenerate and then an edit-and-resend leave no phantom
// copy of the first question with a "Starting…" line, also after switching conversations;
// the file chip under an answer names the artifact by its title; an artifact tool row in
// the activity expands to the artifact's title, id, version and text, not the <artifact>
// wrapper the model saw; the report's history says in plain words why its first version is
// v2 (the run's two steps), with no jargon; the task plan opens in the viewer with its history and export like any
// artifact; after the edit and resend, branch 1/3 shows the report its own run produced
// and says so, "Show latest" and branch 3/3 bring the latest back. Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2EDefects(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	_, srv, hs := newBrowserServer(t, reportWorld(t), dist)
	if err := runScript(t, 3*time.Minute, "defects.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question, "AF_FACT="+strings.TrimSuffix(apptest.Fact, ".")); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

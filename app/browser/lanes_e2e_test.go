package browser

import (
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
)

// laneTasks are the three sub-agent tasks the scripted lead sends in one reply.
var laneTasks = []struct{ agent, task string }{
	{"search_agent", "Find the Moon's mean distance."},
	{"search_agent", "Find the Moon's orbital period."},
	{"crawl_agent", "Read the Moon facts page and report its figures."},
}

// parallelResearch scripts a lead that sends three sub-agents in one reply; each sub-agent
// streams its report slowly (so the three stream at once), and the lead answers once it has
// the three reports.
func parallelResearch(*apptest.World) llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		switch {
		case llmtest.SystemContains(req, "You are search_agent"), llmtest.SystemContains(req, "You are crawl_agent"):
			task := req.Messages[len(req.Messages)-1].Content
			delay := 80 * time.Millisecond
			if strings.Contains(task, "(slowly)") {
				delay = time.Second // the Stop check's run: still streaming when Stop is clicked
			}
			return llmtest.Reply{Content: "Report on: " + task + " The figure is in the page, stated plainly.", ChunkSize: 4, Delay: delay}
		case req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleTool:
			return llmtest.Reply{Content: "The three reports agree."}
		}
		suffix := ""
		if llmtest.LastUserContains(req, "slowly") {
			suffix = " (slowly)"
		}
		var calls []llmtest.ToolCall
		for i, l := range laneTasks {
			calls = append(calls, llmtest.ToolCall{ID: "lane" + string(rune('1'+i)), Name: "call_subagent",
				Arguments: `{"agent_name":"` + l.agent + `","instruction":"` + l.task + suffix + `"}`})
		}
		return llmtest.Reply{ToolCalls: calls}
	}
}

// TestBrowserE2ELanes runs frontend/e2e/lanes.mjs against browser mode: a lead sending three
// sub-agents in one reply shows them as three parallel lanes in the activity, side by side,
// each under its call_subagent line and streaming its own report at the same time as the
// others; when the run ends every lane is done. A second question, whose sub-agents stream
// slowly, is stopped while its three lanes stream: every lane ends stopped. Needs AF_E2E=1 and a built frontend, like
// TestBrowserE2E.
func TestBrowserE2ELanes(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", parallelResearch)
	_, srv, hs := newBrowserServer(t, w, dist)
	if err := runScript(t, 3*time.Minute, "lanes.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION=What are the Moon's figures?",
		"AF_SLOW_QUESTION=Again, slowly: what are the Moon's figures?"); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

package windowtest

import (
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm/llmtest"
)

// laneTasks are the three sub-agent tasks the scripted lead sends in one reply.
var laneTasks = []struct{ agent, task string }{
	{"search_agent", "Find the Moon's mean distance."},
	{"search_agent", "Find the Moon's orbital period."},
	{"crawl_agent", "Read the Moon facts page and report its figures."},
}

// parallelResearch scripts a lead that sends three sub-agents in one reply; each streams its
// report slowly (about 4 s), so the three stream at the same time, and the lead answers once
// it has the three reports.
func (w *world) parallelResearch() llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		switch agentOf(req) {
		case "search_agent", "crawl_agent":
			task := lastUser(req)
			return llmtest.Reply{Content: "Report on: " + task + " The figure is in the page, stated plainly, with its source.",
				ChunkSize: 4, Delay: 150 * time.Millisecond}
		case "lead_agent":
			if len(toolResults(req)) > 0 {
				return llmtest.Reply{Content: "The three reports agree: " + fact}
			}
			var calls []llmtest.ToolCall
			for i, l := range laneTasks {
				calls = append(calls, llmtest.ToolCall{ID: "lane" + string(rune('1'+i)), Name: "call_subagent",
					Arguments: `{"agent_name":"` + l.agent + `","instruction":"` + l.task + `"}`})
			}
			return llmtest.Reply{ToolCalls: calls}
		}
		return llmtest.Reply{Content: "unknown agent"}
	}
}

// TestWindowLanes sends a question whose lead asks for three sub-agents in one reply, in the
// real window under Xvfb: the three run at once (all three have started, as stored events,
// before any of them has finished) and the run completes with the lead's answer after the
// three reports. It keeps screenshots to look at: window-lanes.png about 1.5 s after the
// third sub-agent started (each streams for about 4 s), window-lanes-done.png at the end.
// That the activity lays them out as lanes side by side is checked in the page by
// frontend/e2e/lanes.mjs (TestBrowserE2ELanes).
func TestWindowLanes(t *testing.T) {
	s := newSession(t, 3*time.Minute)
	w := newWorld(t, (*world).parallelResearch)
	s.launch(w.args("--allow-private-network")...)
	s.ask(question)
	db := openDB(t, w.dataDir)
	count := func(typ string) int {
		var n int
		if err := db.QueryRowContext(s.ctx, `SELECT count(*) FROM message_events WHERE type = ? AND agent_name IN ('search_agent', 'crawl_agent')`, typ).Scan(&n); err != nil {
			return -1
		}
		return n
	}
	waitFor(s.ctx, t, 60*time.Second, "three sub-agents to start", func() bool { return count("agent_start") == 3 })
	if done := count("agent_complete"); done != 0 {
		t.Fatalf("%d sub-agents had finished before the third started: they did not run at once", done)
	}
	time.Sleep(1500 * time.Millisecond) // let each lane stream some text
	s.xdo("mousemove", "640", "850")
	s.shoot("window-lanes.png")
	waitRuns(s.ctx, t, db, 1, 60*time.Second)
	if n := count("agent_complete"); n != 3 {
		t.Errorf("%d sub-agents completed, want 3", n)
	}
	var answer string
	if err := db.QueryRowContext(s.ctx, `SELECT graph_response FROM messages WHERE status = 'complete'`).Scan(&answer); err != nil || !strings.Contains(answer, "three reports agree") {
		t.Errorf("the answer is %q (%v)", answer, err)
	}
	time.Sleep(800 * time.Millisecond)
	s.shoot("window-lanes-done.png")
}

package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/events"
)

type eventRow struct {
	Seq   int64
	Type  string
	Agent string
	Data  string
}

func loadEvents(t *testing.T, db *sql.DB) []eventRow {
	t.Helper()
	rows, err := db.Query(`SELECT seq, type, agent_name, data FROM message_events ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []eventRow
	for rows.Next() {
		var r eventRow
		if err := rows.Scan(&r.Seq, &r.Type, &r.Agent, &r.Data); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// indexOf returns the position of the first event matching type, agent and a substring of
// its data after position from, or -1.
func indexOf(evs []eventRow, from int, typ, agent, dataSub string) int {
	for i := from; i < len(evs); i++ {
		if evs[i].Type == typ && (agent == "" || evs[i].Agent == agent) && containsAll(evs[i].Data, dataSub) {
			return i
		}
	}
	return -1
}

// containsAll reports whether s contains every part of subs, split on " && ".
func containsAll(s, subs string) bool {
	for _, sub := range strings.Split(subs, " && ") {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestAskEndToEnd drives `artifactflow ask` through a whole research run against an
// OpenAI-compatible server (tool calls split across chunks, reasoning_content, usage
// chunk, [DONE]), SearXNG and a web page, in both tool-call formats, and checks what the
// SQLite file holds afterwards.
func TestAskEndToEnd(t *testing.T) {
	for _, mode := range []string{"native", "xml"} {
		t.Run(mode, func(t *testing.T) {
			w := apptest.NewWorld(t, mode, nil)
			code, stdout, stderr := ask(context.Background(), w, "--allow-private-network", apptest.Question)
			if code != ExitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if strings.TrimSpace(stdout) != apptest.FinalReply {
				t.Fatalf("stdout = %q, want the final answer", stdout)
			}
			if strings.Contains(stdout, apptest.Reasoning) {
				t.Fatal("reasoning text leaked into the answer")
			}
			db := w.DB()

			if n := count(t, db, `SELECT count(*) FROM conversations`); n != 1 {
				t.Fatalf("conversations = %d, want 1", n)
			}
			var content, response, status string
			if err := db.QueryRow(`SELECT content, graph_response, status FROM messages`).Scan(&content, &response, &status); err != nil {
				t.Fatal(err)
			}
			if content != apptest.Question || response != apptest.FinalReply || status != "complete" {
				t.Fatalf("message = (%q, %q, %q)", content, response, status)
			}
			if n := count(t, db, `SELECT count(*) FROM messages`); n != 1 {
				t.Fatalf("messages = %d, want 1", n)
			}

			var plan string
			var planVersion int
			if err := db.QueryRow(`SELECT content, current_version FROM artifacts WHERE id='task_plan'`).Scan(&plan, &planVersion); err != nil {
				t.Fatal(err)
			}
			for _, step := range []string{"- [x] Search sources", "- [x] Read the best page", "- [x] Write the report"} {
				if !strings.Contains(plan, step) {
					t.Errorf("task_plan lacks %q:\n%s", step, plan)
				}
			}
			if planVersion != 4 {
				t.Errorf("task_plan current_version = %d, want 4 (created + 3 updates, numbered in memory)", planVersion)
			}
			var report string
			if err := db.QueryRow(`SELECT content FROM artifacts WHERE id='research_report'`).Scan(&report); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(report, apptest.Fact) || !strings.Contains(report, w.PageURL) {
				t.Errorf("research_report lacks the fetched fact or its source:\n%s", report)
			}
			// One flush at the end of the run, one version row per artifact.
			rows, err := db.Query(`SELECT artifact_id, count(*), max(version), max(update_type) FROM artifact_versions GROUP BY artifact_id ORDER BY artifact_id`)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var id, ut string
				var n, v int
				if err := rows.Scan(&id, &n, &v, &ut); err != nil {
					t.Fatal(err)
				}
				got = append(got, strings.Join([]string{id, itoa(n), itoa(v), ut}, ":"))
			}
			rows.Close()
			want := []string{"research_report:1:1:create", "task_plan:1:4:create"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("artifact_versions = %v, want %v", got, want)
			}

			evs := loadEvents(t, db)
			for i, e := range evs {
				if e.Seq != int64(i+1) {
					t.Fatalf("event %d has seq %d: seqs must be 1..n without gaps", i, e.Seq)
				}
				if e.Type == string(events.LLMChunk) {
					t.Fatal("llm_chunk events must not be persisted")
				}
			}
			if evs[0].Type != "metadata" || evs[len(evs)-1].Type != "complete" {
				t.Fatalf("first/last events = %s/%s, want metadata/complete", evs[0].Type, evs[len(evs)-1].Type)
			}
			// The order a user sees in the activity flow.
			steps := []struct{ typ, agent, sub string }{
				{"agent_start", "lead_agent", ""},
				{"tool_start", "lead_agent", `"create_artifact"`},
				{"artifact_changed", "lead_agent", `"task_plan"`},
				{"subagent_instruction", "lead_agent", "search_agent"},
				{"agent_start", "search_agent", "Find sources"},
				{"tool_start", "search_agent", `"web_search"`},
				{"tool_complete", "search_agent", `"web_search" && ` + w.PageURL},
				{"agent_complete", "search_agent", "Moon facts"},
				{"tool_complete", "lead_agent", `"call_subagent"`},
				{"agent_start", "crawl_agent", w.PageURL},
				{"tool_start", "crawl_agent", `"web_fetch"`},
				{"tool_complete", "crawl_agent", `"web_fetch" && 384,400 km`},
				{"tool_complete", "lead_agent", "384,400 km"},
				{"artifact_changed", "lead_agent", `"research_report"`},
				{"llm_complete", "lead_agent", apptest.Reasoning},
				{"complete", "", apptest.FinalReply},
			}
			pos := 0
			for _, s := range steps {
				i := indexOf(evs, pos, s.typ, s.agent, s.sub)
				if i < 0 {
					t.Fatalf("no %s event of %q containing %q after position %d", s.typ, s.agent, s.sub, pos)
				}
				pos = i + 1
			}
			var term events.DataTerminal
			if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &term); err != nil {
				t.Fatal(err)
			}
			var sum events.Usage
			for _, e := range evs {
				if e.Type == string(events.LLMComplete) {
					var d events.DataLLMComplete
					if err := json.Unmarshal([]byte(e.Data), &d); err != nil {
						t.Fatal(err)
					}
					sum = sum.Add(d.Usage)
				}
			}
			// 7 lead rounds (plan, search, tick, crawl, report, tick, tick) + 1 search + 1 fetch.
			if term.Usage != sum || sum.TotalTokens == 0 || term.Steps != 9 {
				t.Errorf("terminal usage %+v (llm_complete sum %+v) steps %d, want the sum and 9 tool rounds", term.Usage, sum, term.Steps)
			}
			if w.PageHits.Load() != 1 {
				t.Errorf("page fetched %d times, want 1", w.PageHits.Load())
			}
			// The lead's last request carried the whole, current task plan in its system prompt.
			reqs := w.Model.Requests()
			last := reqs[len(reqs)-1]
			if apptest.AgentOf(last) != "lead_agent" || !strings.Contains(last.Messages[0].Content, "- [x] Write the report") {
				t.Error("the lead's final call did not see the full current task plan in its system prompt")
			}
			if !strings.Contains(last.Messages[0].Content, "research_report") {
				t.Error("the lead's final call did not list research_report in the inventory")
			}
			if mode == "native" {
				var names []string
				for _, tool := range reqs[0].Tools {
					names = append(names, tool.Function.Name)
				}
				if want := "create_artifact update_artifact rewrite_artifact read_artifact record_artifact call_subagent"; strings.Join(names, " ") != want {
					t.Errorf("lead's native tools = %v, want %s", names, want)
				}
			}
			if mode == "xml" && (len(reqs[0].Tools) != 0 || !strings.Contains(reqs[0].Messages[0].Content, "<tool_call>")) {
				t.Error("xml mode must send no native tools and explain the XML format in the system prompt")
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestAskContinuesConversation: `ask --conversation ID` adds the follow-up to that
// conversation as the child of its last message, and the lead's context holds the first
// question; `--json` prints the run's events as JSON lines; an unknown id is an error.
func TestAskContinuesConversation(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	if code, _, stderr := ask(context.Background(), w, "--allow-private-network", apptest.Question); code != ExitOK {
		t.Fatalf("first ask: exit %d: %s", code, stderr)
	}
	db := w.DB()
	var conv, first string
	if err := db.QueryRow(`SELECT conversation_id, id FROM messages`).Scan(&conv, &first); err != nil {
		t.Fatal(err)
	}
	before := len(w.Model.Requests())
	const followUp = "And how long does light take to cover it?"
	code, stdout, stderr := ask(context.Background(), w, "--allow-private-network", "--json", "--conversation", conv, followUp)
	if code != ExitOK {
		t.Fatalf("follow-up: exit %d: %s", code, stderr)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev struct {
			Type           string `json:"type"`
			ConversationID string `json:"conversation_id"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("--json line %q: %v", line, err)
		}
		if ev.ConversationID != conv {
			t.Fatalf("event of conversation %q, want %q", ev.ConversationID, conv)
		}
		types = append(types, ev.Type)
	}
	if len(types) == 0 || types[0] != "metadata" || types[len(types)-1] != "complete" {
		t.Fatalf("--json event types = %v, want metadata first and complete last", types)
	}
	if n := count(t, db, `SELECT count(*) FROM conversations`); n != 1 {
		t.Fatalf("conversations = %d, want 1", n)
	}
	var parent, response string
	if err := db.QueryRow(`SELECT parent_id, graph_response FROM messages WHERE content = ?`, followUp).Scan(&parent, &response); err != nil {
		t.Fatal(err)
	}
	if parent != first || response != apptest.FinalReply {
		t.Fatalf("follow-up message: parent %q (want %q), response %q", parent, first, response)
	}
	lead := w.Model.Requests()[before]
	var users []string
	for _, m := range lead.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			users = append(users, m.Content)
		}
	}
	if len(users) < 2 || users[0] != apptest.Question || users[len(users)-1] != followUp {
		t.Fatalf("the follow-up's context holds user messages %q, want the first question then the follow-up", users)
	}

	if code, _, stderr := ask(context.Background(), w, "--conversation", "no-such-id", followUp); code == ExitOK || !strings.Contains(stderr, "no-such-id") {
		t.Fatalf("unknown conversation: exit %d, stderr %q; want an error naming the id", code, stderr)
	}
}

// TestAskWarnsOfBrokenAgentFile: a broken file in <data-dir>/agents/ does not stop `ask`:
// the run completes, and stderr says which file is skipped and why, with its line.
func TestAskWarnsOfBrokenAgentFile(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	dir := filepath.Join(w.DataDir, "agents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	broken := "---\nname: broken\ndescription: Broken.\nmax_rounds: lots\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "broken.md"), []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := ask(context.Background(), w, "--allow-private-network", apptest.Question)
	if code != ExitOK || !strings.Contains(stdout, "384,400") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, `warning: broken.md:4: max_rounds: "lots" is not a whole number`) {
		t.Errorf("stderr does not name the broken file and line:\n%s", stderr)
	}
}

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/web"
)

// userHistory pages through store.History of the conversation's active branch, as the
// window does, and returns every event in seq order.
func userHistory(t *testing.T, db *store.DB, conv string) []events.Event {
	t.Helper()
	var out []events.Event
	var after int64
	for {
		p, err := db.History(context.Background(), store.HistoryQuery{ConversationID: conv, AfterSeq: after, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Events...)
		if !p.HasAfter {
			return out
		}
		after = p.LastSeq
	}
}

// compactionRequests splits the model's requests into compaction calls and the others.
func compactionRequests(srv modelLog) (compactions, others []openai.ChatCompletionRequest) {
	for _, r := range srv.Requests() {
		if isCompaction(r) {
			compactions = append(compactions, r)
		} else {
			others = append(others, r)
		}
	}
	return compactions, others
}

// TestCompactionKeepsUserHistory: compaction replaces only the model's context. After runs
// that compacted, the history the user pages through holds every event the runs emitted
// (llm_chunk aside): each user message (metadata, and the message queued during a run as
// queued_message and user_input), every tool_complete, and the compaction_start /
// compaction_summary markers. The summarizer is asked for the 7 sections, with the user's
// words quoted, and is shown the user's words.
func TestCompactionKeepsUserHistory(t *testing.T) {
	bigNotes := strings.Repeat("Lunar laser ranging measures the distance to the Moon. ", 300)
	var leadCalls atomic.Int64
	injected := make(chan struct{})
	e, db, rec, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isCompaction(req) {
			return llmtest.Reply{Content: summaryText}
		}
		switch leadCalls.Add(1) {
		case 1:
			<-injected // queued before the lead's next round, so before any compaction
			return call("create_artifact", `{"id":"task_plan","content_type":"markdown","title":"Plan","content":"- [ ] notes"}`)
		case 2:
			return call("create_artifact", `{"id":"notes","content_type":"markdown","title":"Notes","content":`+jsonString(bigNotes)+`}`)
		case 4:
			return call("read_artifact", `{"id":"notes"}`)
		default:
			return llmtest.Reply{Content: "answer"}
		}
	}, func(d *Deps) { d.ContextWindow = 3000 })
	ctx := context.Background()
	r, err := e.Start(ctx, Request{Content: "Summarize the notes"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Inject(r.ConversationID, "Keep it short, please"); err != nil {
		t.Fatal(err)
	}
	close(injected)
	res, _ := r.Wait(ctx)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	res2, err := e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "And the second part?"})
	if err != nil || res2.Err != nil {
		t.Fatalf("second run: %+v %v", res2, err)
	}

	hist := userHistory(t, db, res.ConversationID)
	var emitted []events.Event
	rec.mu.Lock()
	for _, ev := range rec.evs {
		if ev.Type.Persisted() {
			emitted = append(emitted, ev)
		}
	}
	rec.mu.Unlock()
	if len(hist) != len(emitted) {
		t.Fatalf("history has %d events, the runs emitted %d", len(hist), len(emitted))
	}
	for i := range hist {
		if hist[i].Seq != emitted[i].Seq || hist[i].Type != emitted[i].Type || string(hist[i].Data) != string(emitted[i].Data) {
			t.Fatalf("history event %d = %s #%d, emitted %s #%d", i, hist[i].Type, hist[i].Seq, emitted[i].Type, emitted[i].Seq)
		}
	}
	var users []string
	var toolDone []string
	types := make([]events.Type, len(hist))
	for i, ev := range hist {
		types[i] = ev.Type
		switch ev.Type {
		case events.Metadata:
			var d events.DataMetadata
			_ = json.Unmarshal(ev.Data, &d)
			users = append(users, d.Content)
		case events.UserInput:
			var d events.DataUserInput
			_ = json.Unmarshal(ev.Data, &d)
			users = append(users, "input:"+d.Content)
		case events.ToolComplete:
			var d events.DataToolComplete
			_ = json.Unmarshal(ev.Data, &d)
			toolDone = append(toolDone, d.Tool)
		}
	}
	if got, want := strings.Join(users, "|"), "Summarize the notes|input:Keep it short, please|And the second part?"; got != want {
		t.Errorf("user messages in the history = %q, want %q", got, want)
	}
	if got := strings.Join(toolDone, ","); got != "create_artifact,create_artifact,read_artifact" {
		t.Errorf("tool_complete in the history = %s", got)
	}
	if countType(types, events.QueuedMessage) != 1 {
		t.Errorf("queued_message events: %d", countType(types, events.QueuedMessage))
	}
	nStart, nSummary := countType(types, events.CompactionStart), countType(types, events.CompactionSummary)
	if nStart == 0 || nStart != nSummary {
		t.Fatalf("compaction markers in the history: %d starts, %d summaries", nStart, nSummary)
	}

	compactions, _ := compactionRequests(srv)
	if len(compactions) != nSummary {
		t.Fatalf("%d compaction calls, %d compaction_summary events", len(compactions), nSummary)
	}
	prompt := compactions[0].Messages[0].Content
	for _, section := range []string{"## 1. Primary request and intent", "quoting the user's own words",
		"## 2. Artifacts and documents", "## 3. Tool interactions", "## 4. Errors and fixes",
		"## 5. Pending tasks", "## 6. Current work", "## 7. Next step", "exactly these 7 sections"} {
		if !strings.Contains(prompt, section) {
			t.Errorf("the compaction prompt lacks %q", section)
		}
	}
	shown := compactions[0].Messages[1].Content
	for _, words := range []string{"Summarize the notes", "Keep it short, please"} {
		if !strings.Contains(shown, words) {
			t.Errorf("the summarizer was not shown the user's words %q", words)
		}
	}
}

// TestCompactionBoundaryIsLastSuccess: a successful compaction_summary followed later by a
// failed one: the failed one is no boundary, so the next run's context starts at the
// successful summary and keeps what came after it in full.
func TestCompactionBoundaryIsLastSuccess(t *testing.T) {
	big := func(word string) string {
		return strings.Repeat(word+" laser ranging measures the distance to the Moon. ", 300)
	}
	var leadCalls, compactions atomic.Int64
	e, db, _, srv := newWireEngineWith(t, // compaction calls refused with HTTP 400
		func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if isCompaction(req) {
				if compactions.Add(1) == 1 {
					return llmtest.Reply{Content: summaryText}
				}
				return llmtest.Reply{Status: 400, ErrorMessage: "context too long"}
			}
			switch leadCalls.Add(1) {
			case 1:
				return call("create_artifact", `{"id":"notes","content_type":"markdown","title":"Notes","content":`+jsonString(big("Lunar"))+`}`)
			case 3: // second run: grows past the threshold again; that compaction fails
				return call("create_artifact", `{"id":"more","content_type":"markdown","title":"More","content":`+jsonString(big("Solar"))+`}`)
			default:
				return llmtest.Reply{Content: "answer"}
			}
		}, func(d *Deps) { d.ContextWindow = 3000 })
	ctx := context.Background()
	var conv string
	for i, q := range []string{"Summarize the notes", "And the second part?", "Third question"} {
		res, err := e.Ask(ctx, Request{ConversationID: conv, Content: q})
		if err != nil || res.Err != nil {
			t.Fatalf("run %d: %+v %v", i+1, res, err)
		}
		conv = res.ConversationID
	}
	var results []bool
	for _, ev := range userHistory(t, db, conv) {
		if ev.Type == events.CompactionSummary {
			var d events.DataCompactionSummary
			_ = json.Unmarshal(ev.Data, &d)
			results = append(results, d.Success)
		}
	}
	if len(results) < 2 || !results[0] || results[len(results)-1] {
		t.Fatalf("compaction results %v: want a success, then failures", results)
	}
	_, lead := compactionRequests(srv)
	third := lead[len(lead)-1] // the third run's only lead call
	if !llmtest.LastUserContains(third, "Third question") {
		t.Fatalf("the last lead call is not the third run's")
	}
	if got := third.Messages[1].Content; !strings.HasPrefix(got, summaryPrefix) || !strings.Contains(got, summaryText) {
		t.Fatalf("the third run's context starts with %.80q, not the successful summary", got)
	}
	var ctxText strings.Builder
	for _, m := range third.Messages[1:] {
		ctxText.WriteString(m.Content + "\n")
		for _, c := range m.ToolCalls {
			ctxText.WriteString(c.Function.Arguments + "\n")
		}
	}
	for _, want := range []string{"And the second part?", "Solar laser ranging"} {
		if !strings.Contains(ctxText.String(), want) {
			t.Errorf("the context after the boundary lacks %q", want)
		}
	}
	if strings.Contains(ctxText.String(), "Lunar laser ranging") {
		t.Errorf("the context holds what the successful summary replaced")
	}
}

// bigSearch answers every query with a long result, so a sub-agent's context fills up.
type bigSearch struct{}

func (bigSearch) Search(_ context.Context, q string, _ int) ([]web.SearchResult, error) {
	return []web.SearchResult{{Title: "Result for " + q, URL: "https://example.org/" + q,
		Snippet: strings.Repeat("A long snippet about lunar ranging and its history. ", 250)}}, nil
}

// TestSubagentCompaction: a sub-agent's context is compacted on its own: the compaction
// events carry its name, its next call starts at its summary without the long results, and
// the lead's context never sees the sub-agent's summary.
func TestSubagentCompaction(t *testing.T) {
	const subSummary = "## 1. Primary request and intent\nFind moon facts.\n## 7. Next step\nAnswer."
	var searches atomic.Int64
	e, db, _, srv := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		switch {
		case isCompaction(req):
			return llmtest.Reply{Content: subSummary}
		case isAgent(req, "search_agent"):
			if len(req.Tools) > 0 && searches.Add(1) <= 2 {
				return call("web_search", `{"query":"moon"}`)
			}
			return llmtest.Reply{Content: "search done"}
		}
		if len(req.Messages) == 2 {
			return call("call_subagent", `{"agent_name":"search_agent","instruction":"find moon facts"}`)
		}
		return llmtest.Reply{Content: "final"}
	}, func(d *Deps) { d.ContextWindow = 3000; d.Searcher = bigSearch{} })
	res, err := e.Ask(context.Background(), Request{Content: "q"})
	if err != nil || res.Err != nil {
		t.Fatalf("run: %+v %v", res, err)
	}
	var compacted []string
	for _, ev := range userHistory(t, db, res.ConversationID) {
		if ev.Type == events.CompactionSummary {
			var d events.DataCompactionSummary
			_ = json.Unmarshal(ev.Data, &d)
			if d.Success {
				compacted = append(compacted, ev.AgentName)
			}
		}
	}
	if len(compacted) == 0 {
		t.Fatal("no successful compaction")
	}
	for _, a := range compacted {
		if a != "search_agent" {
			t.Fatalf("compactions by %v, want only search_agent", compacted)
		}
	}
	compactions, others := compactionRequests(srv)
	if !strings.Contains(compactions[0].Messages[1].Content, "find moon facts") {
		t.Errorf("the sub-agent's summarizer did not see its instruction")
	}
	var after bool
	for _, r := range others {
		if isAgent(r, "search_agent") && strings.HasPrefix(r.Messages[1].Content, summaryPrefix) {
			after = true
			for _, m := range r.Messages[1:] {
				if strings.Contains(m.Content, "A long snippet") {
					t.Fatal("the compacted search results are still in the sub-agent's context")
				}
			}
		}
		if isAgent(r, "lead_agent") {
			for _, m := range r.Messages {
				if strings.Contains(m.Content, summaryPrefix) {
					t.Fatal("the lead's context holds the sub-agent's summary")
				}
			}
		}
	}
	if !after {
		t.Fatal("no search_agent call started at its summary")
	}
}

// TestNoCompactionWhenThePromptFillsTheThreshold: after a compaction, a task plan so large
// that the system prompt alone passes the threshold must not make every later round compact
// again: the summary could not make room, so the engine goes on without compacting.
func TestNoCompactionWhenThePromptFillsTheThreshold(t *testing.T) {
	plan := strings.Repeat("- [ ] check the measurement source and note it\n", 250) // ~2,500 tokens
	var leadCalls atomic.Int64
	e, db, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isCompaction(req) {
			return llmtest.Reply{Content: summaryText}
		}
		switch n := leadCalls.Add(1); {
		case n == 1:
			return call("create_artifact", `{"id":"task_plan","content_type":"markdown","title":"Plan","content":`+jsonString(plan)+`}`)
		case n <= 4:
			return call("create_artifact", fmt.Sprintf(`{"id":"note%d","content_type":"markdown","title":"Note","content":"short"}`, n))
		default:
			return llmtest.Reply{Content: "answer"}
		}
	}, func(d *Deps) { d.ContextWindow = 4000 })
	r, err := e.Start(context.Background(), Request{Content: "Plan a long check"})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := r.Wait(context.Background()); res.Status != events.Complete {
		t.Fatalf("run ended %s: %v", res.Status, res.Err)
	}
	var starts int
	for _, ty := range storedTypes(t, db, r.ConversationID) {
		if ty == events.CompactionStart {
			starts++
		}
	}
	if starts != 1 {
		t.Fatalf("compaction_start events = %d, want 1 (the history once, then no repeats)", starts)
	}
}

// TestCompactionWhenASummaryMakesRoom: with a large task plan in the system prompt, a
// context that passes the threshold by a small history is still compacted when the summary
// brings it back under (only a compaction that left the agent over the threshold makes
// the engine wait for more history).
func TestCompactionWhenASummaryMakesRoom(t *testing.T) {
	// Sizes (tokens, threshold 3,200): system prompt with the plan ~2,600; the notes ~650,
	// so after them the request passes the threshold while the history stays under 800.
	plan := strings.Repeat("- [ ] check the measurement source and note it\n", 140)
	notes := strings.Repeat("Lunar laser ranging reflects pulses off the Apollo mirrors. ", 55)
	var leadCalls atomic.Int64
	e, db, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isCompaction(req) {
			return llmtest.Reply{Content: "## 1. Primary request and intent\nThe user asked: \"Plan a check\".\n## 7. Next step\nWrite notes."}
		}
		switch leadCalls.Add(1) {
		case 1:
			return call("create_artifact", `{"id":"task_plan","content_type":"markdown","title":"Plan","content":`+jsonString(plan)+`}`)
		case 2:
			return call("create_artifact", `{"id":"notes","content_type":"markdown","title":"Notes","content":`+jsonString(notes)+`}`)
		default:
			return llmtest.Reply{Content: "answer"}
		}
	}, func(d *Deps) { d.ContextWindow = 4000 })
	r, err := e.Start(context.Background(), Request{Content: "Plan a check"})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := r.Wait(context.Background()); res.Status != events.Complete {
		t.Fatalf("run ended %s: %v", res.Status, res.Err)
	}
	evs, err := db.ListEvents(context.Background(), store.EventQuery{ConversationID: r.ConversationID})
	if err != nil {
		t.Fatal(err)
	}
	var summaries []events.DataCompactionSummary
	for _, ev := range evs {
		if ev.Type == events.CompactionSummary {
			var d events.DataCompactionSummary
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			summaries = append(summaries, d)
		}
	}
	const threshold = 3200
	if len(summaries) != 2 {
		t.Fatalf("compactions = %d (%+v), want 2: after the plan, and after the notes", len(summaries), summaries)
	}
	for i, s := range summaries {
		if !s.Success || s.TokensAfter > threshold {
			t.Fatalf("compaction %d: success %v, %d tokens after; want under the threshold %d", i+1, s.Success, s.TokensAfter, threshold)
		}
	}
	t.Logf("compactions: %d -> %d, %d -> %d tokens", summaries[0].TokensBefore, summaries[0].TokensAfter, summaries[1].TokensBefore, summaries[1].TokensAfter)
}

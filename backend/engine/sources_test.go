package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
	"artifactflow/backend/tools"
	"artifactflow/backend/web"
)

// moonSearch answers every query with two results about the Moon.
type moonSearch struct{}

func (moonSearch) Search(context.Context, string, int) ([]web.SearchResult, error) {
	return []web.SearchResult{
		{Title: "Moon A", URL: "https://moon.example/a", Snippet: "Distance.", PublishedDate: "2024-05-01"},
		{Title: "Moon B", URL: "https://www.moon.example/b", Snippet: "Tides."},
	}, nil
}

// toolResults returns the contents of req's tool results after its last user message.
func toolResults(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, m := range req.Messages {
		switch m.Role {
		case openai.ChatMessageRoleUser:
			out = nil
		case openai.ChatMessageRoleTool:
			out = append(out, m.Content)
		}
	}
	return out
}

// leadScript answers the lead's rounds in order (by how many tool results it has seen in
// this run), the search agent with one web_search, the crawl agent with one web_fetch.
func leadScript(lead ...llmtest.Reply) llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		done := toolResults(req)
		switch {
		case isAgent(req, "search_agent"):
			if len(done) == 0 {
				return call("web_search", `{"query":"moon"}`)
			}
			return llmtest.Reply{Content: "Found:\n" + done[0]}
		case isAgent(req, "crawl_agent"):
			if len(done) == 0 {
				return call("web_fetch", `{"url":"https://moon.example/b"}`)
			}
			return llmtest.Reply{Content: "Read:\n" + done[0][:40]}
		}
		return lead[min(len(done), len(lead)-1)]
	}
}

func terminalData(t *testing.T, db *store.DB, conversationID, messageID string) events.DataTerminal {
	t.Helper()
	evs, err := db.ListEvents(context.Background(), store.EventQuery{ConversationID: conversationID, MessageID: messageID})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type.Terminal() {
			var d events.DataTerminal
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("no terminal event for %s", messageID)
	return events.DataTerminal{}
}

// TestRunCitesSources: a run that searches, fetches and cites [1] and [2] stores the
// answer with the footer listing both (a cited number not in the list keeps no line), its
// report gets a managed Sources section in the run's one version, the terminal event
// carries the web tally and the cited numbers, and source_added events announce each
// source. A later run that edits the report replaces the section instead of adding
// another, and an answer citing nothing after no web call has no footer. Text a later run
// appends after the section's last line is kept, above the section.
func TestRunCitesSources(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	script := leadScript(
		call("call_subagent", `{"agent_name":"search_agent","instruction":"find moon facts"}`),
		call("call_subagent", `{"agent_name":"crawl_agent","instruction":"read https://moon.example/b"}`),
		call("create_artifact", `{"id":"report","content_type":"markdown","title":"Moon","content":"# Moon\n\nIt is far [1]. Tides [2].\n\n`+"```\\nnot a citation [3]\\n```"+`\n"}`),
		llmtest.Reply{Content: "The Moon is 384,400 km away [1]; it drives the tides [2] and [9]."},
	)
	e, db, rec, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, n int) llmtest.Reply {
		mu.Lock()
		h := script
		mu.Unlock()
		return h(req, n)
	}, func(d *Deps) { d.Searcher, d.Fetcher = moonSearch{}, fakeFetch{} })

	res, err := e.Ask(ctx, Request{Content: "How far is the Moon?"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	const sourcesList = "- [1] [Moon A](<https://moon.example/a>) · moon.example · 2024-05-01\n" +
		"- [2] [Moon B](<https://moon.example/b>) · moon.example\n"
	wantAnswer := "The Moon is 384,400 km away [1]; it drives the tides [2] and [9].\n\n---\n**Sources**\n" + sourcesList
	if res.Response != wantAnswer {
		t.Errorf("answer =\n%s\nwant\n%s", res.Response, wantAnswer)
	}
	if m, err := db.GetMessage(ctx, res.MessageID); err != nil || m.GraphResponse != wantAnswer {
		t.Errorf("graph_response = %q, %v", m.GraphResponse, err)
	}
	term := terminalData(t, db, res.ConversationID, res.MessageID)
	if term.Response != wantAnswer || !slices.Equal(term.Cited, []int{1, 2, 9}) || term.Web == nil ||
		!reflect.DeepEqual(*term.Web, events.WebTally{Searches: 1, Fetches: 1}) || !slices.Equal(res.Cited, term.Cited) {
		t.Errorf("terminal data = %+v (web %+v)", term, term.Web)
	}

	report, err := db.GetArtifact(ctx, res.ConversationID, "report")
	if err != nil {
		t.Fatal(err)
	}
	wantReport := "# Moon\n\nIt is far [1]. Tides [2].\n\n```\nnot a citation [3]\n```\n\n<!-- sources -->\n## Sources\n\n" + sourcesList
	if report.Content != wantReport || report.CurrentVersion != 1 {
		t.Errorf("report v%d =\n%s\nwant\n%s", report.CurrentVersion, report.Content, wantReport)
	}

	var added []string
	rec.mu.Lock()
	evs := slices.Clone(rec.evs)
	rec.mu.Unlock()
	for _, ev := range evs {
		if ev.Type == events.SourceAdded {
			var s sources.Source
			if err := json.Unmarshal(ev.Data, &s); err != nil {
				t.Fatal(err)
			}
			added = append(added, fmt.Sprintf("%s [%d] fetched=%v", ev.AgentName, s.N, s.Fetched))
		}
	}
	if want := []string{"search_agent [1] fetched=false", "search_agent [2] fetched=false", "crawl_agent [2] fetched=true"}; !slices.Equal(added, want) {
		t.Errorf("source_added events = %q, want %q", added, want)
	}
	stored, _ := db.ListEvents(ctx, store.EventQuery{ConversationID: res.ConversationID, MessageID: res.MessageID})
	n := 0
	for _, ev := range stored {
		if ev.Type == events.SourceAdded {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d source_added events stored, want 3", n)
	}

	// A second run edits the report: one section, now listing [1] first and no [2].
	mu.Lock()
	script = leadScript(
		call("update_artifact", `{"id":"report","old_str":"Tides [2].","new_str":"Eclipses [1]."}`),
		llmtest.Reply{Content: "Updated the report."},
	)
	mu.Unlock()
	res2, err := e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "Drop the tides."})
	if err != nil || res2.Status != events.Complete {
		t.Fatalf("second run: %v %+v", err, res2)
	}
	if res2.Response != "Updated the report." || res2.Web != nil || res2.Cited != nil {
		t.Errorf("second answer = %q, web %+v, cited %v; want no footer", res2.Response, res2.Web, res2.Cited)
	}
	report, _ = db.GetArtifact(ctx, res.ConversationID, "report")
	wantReport = "# Moon\n\nIt is far [1]. Eclipses [1].\n\n```\nnot a citation [3]\n```\n\n<!-- sources -->\n## Sources\n\n" +
		"- [1] [Moon A](<https://moon.example/a>) · moon.example · 2024-05-01\n"
	if report.Content != wantReport || report.CurrentVersion != 2 {
		t.Errorf("report v%d after the second run =\n%s\nwant\n%s", report.CurrentVersion, report.Content, wantReport)
	}

	// A third run appends to the report after its last source line: the new text stays,
	// above the section, which now lists [2] too.
	mu.Lock()
	script = leadScript(
		call("update_artifact", `{"id":"report","old_str":"- [1] [Moon A](<https://moon.example/a>) · moon.example · 2024-05-01",`+
			`"new_str":"- [1] [Moon A](<https://moon.example/a>) · moon.example · 2024-05-01\n\n## Findings added later\n\nTides follow it [2]."}`),
		llmtest.Reply{Content: "Added the tides."},
	)
	mu.Unlock()
	if res3, err := e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "Add the tides."}); err != nil || res3.Status != events.Complete {
		t.Fatalf("third run: %v %+v", err, res3)
	}
	report, _ = db.GetArtifact(ctx, res.ConversationID, "report")
	wantReport = "# Moon\n\nIt is far [1]. Eclipses [1].\n\n```\nnot a citation [3]\n```\n\n## Findings added later\n\nTides follow it [2].\n\n" +
		"<!-- sources -->\n## Sources\n\n" + sourcesList
	if report.Content != wantReport || report.CurrentVersion != 3 {
		t.Errorf("report v%d after the third run =\n%s\nwant\n%s", report.CurrentVersion, report.Content, wantReport)
	}
}

// failingSearch fails the queries named in fail, with their error.
type failingSearch struct{ fail map[string]error }

func (f failingSearch) Search(_ context.Context, q string, _ int) ([]web.SearchResult, error) {
	if err := f.fail[q]; err != nil {
		return nil, err
	}
	return []web.SearchResult{{Title: "Result " + q, URL: "https://example.org/" + q}}, nil
}

// downFetch fails every URL.
type downFetch struct{}

func (downFetch) Fetch(_ context.Context, u string) (web.Page, error) {
	return web.Page{}, errors.New("connection refused")
}

// TestRunFooterReportsFailedSearches: 2 of 5 searches and the one fetch fail; the answer
// ends with the failure line naming the first error of each, the terminal event tallies
// them with the distinct errors, and nothing cited means no Sources list.
func TestRunFooterReportsFailedSearches(t *testing.T) {
	var mu sync.Mutex
	searches := 0
	h := func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		done := toolResults(req)
		switch {
		case isAgent(req, "search_agent"):
			want := 3
			if llmtest.LastUserContains(req, "two more") {
				want = 2
			}
			if len(done) < want {
				mu.Lock()
				searches++
				q := fmt.Sprintf("q%d", searches)
				mu.Unlock()
				return call("web_search", `{"query":"`+q+`"}`)
			}
			return llmtest.Reply{Content: "searched"}
		case isAgent(req, "crawl_agent"):
			if len(done) == 0 {
				return call("web_fetch", `{"url":"https://down.example/x"}`)
			}
			return llmtest.Reply{Content: "could not read it"}
		}
		steps := []llmtest.Reply{
			call("call_subagent", `{"agent_name":"search_agent","instruction":"search three times"}`),
			call("call_subagent", `{"agent_name":"search_agent","instruction":"search two more times"}`),
			call("call_subagent", `{"agent_name":"crawl_agent","instruction":"read https://down.example/x"}`),
			{Content: "Little was found."},
		}
		return steps[min(len(done), len(steps)-1)]
	}
	e, db, _, _ := newEngineWith(t, h, func(d *Deps) {
		d.Searcher = failingSearch{fail: map[string]error{
			"q2": errors.New("duckduckgo search: HTTP 503 Service Unavailable"),
			"q4": errors.New("duckduckgo search: rate limited"),
		}}
		d.Fetcher = downFetch{}
	})
	res, err := e.Ask(context.Background(), Request{Content: "q"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	want := "Little was found.\n\n---\n> 2 of 5 searches failed: duckduckgo search: HTTP 503 Service Unavailable. " +
		"1 of 1 fetch failed: fetch https://down.example/x: connection refused.\n"
	if res.Response != want {
		t.Errorf("answer =\n%q\nwant\n%q", res.Response, want)
	}
	term := terminalData(t, db, res.ConversationID, res.MessageID)
	wantWeb := events.WebTally{Searches: 5, SearchesFailed: 2, Fetches: 1, FetchesFailed: 1, Errors: []string{
		"duckduckgo search: HTTP 503 Service Unavailable", "duckduckgo search: rate limited", "fetch https://down.example/x: connection refused"}}
	if term.Web == nil || term.Web.Searches != wantWeb.Searches || term.Web.SearchesFailed != 2 || term.Web.Fetches != 1 ||
		term.Web.FetchesFailed != 1 || !slices.Equal(term.Web.Errors, wantWeb.Errors) || term.Response != want || term.Cited != nil {
		t.Errorf("terminal data = %+v, web %+v", term, term.Web)
	}
}

// TestSourcesSection: the managed section is found by its marker line outside code (or,
// when a model dropped the marker, as a trailing "## Sources" list), replaced, removed when
// nothing resolves, and left alone when already right; text written after it is kept
// above it and its citations are listed.
func TestSourcesSection(t *testing.T) {
	list := []sources.Source{{N: 1, Kind: sources.KindWeb, Location: "https://a.example/x", Title: "A [x]", Site: "a.example"},
		{N: 2, Kind: sources.KindFile, Location: "docs/b.pdf", Page: 4}}
	const sec1 = "<!-- sources -->\n## Sources\n\n- [1] [A \\[x\\]](<https://a.example/x>) · a.example\n"
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"added", "Text [1].\n", "Text [1].\n\n" + sec1, true},
		{"already right", "Text [1].\n\n" + sec1, "Text [1].\n\n" + sec1, false},
		{"replaced", "Text [2], [1].\n\n<!-- sources -->\n## Sources\n\n- [7] old\n",
			"Text [2], [1].\n\n<!-- sources -->\n## Sources\n\n- [2] docs/b.pdf (p. 4)\n- [1] [A \\[x\\]](<https://a.example/x>) · a.example\n", true},
		{"removed when nothing resolves", "Text [5].\n\n" + sec1, "Text [5].\n", true},
		{"nothing cited, no section", "Text.\n", "Text.\n", false},
		{"marker in code is content", "```\n<!-- sources -->\n```\nText [1].", "```\n<!-- sources -->\n```\nText [1].\n\n" + sec1, true},
		{"text written after the section is kept, above it, and its citations listed",
			"Text [1].\n\n" + sec1 + "\n## Findings added later\n\nMore [2].\n",
			"Text [1].\n\n## Findings added later\n\nMore [2].\n\n<!-- sources -->\n## Sources\n\n" +
				"- [1] [A \\[x\\]](<https://a.example/x>) · a.example\n- [2] docs/b.pdf (p. 4)\n", true},
		{"text after a section that no longer resolves", "Text [5].\n\n" + sec1 + "Later [5].", "Text [5].\n\nLater [5].\n", true},
		{"marker dropped, the lead's copy of the section replaced", "Text [2].\n\n## Sources\n\n- [1] [A \\[x\\]](<https://a.example/x>) · a.example\n",
			"Text [2].\n\n<!-- sources -->\n## Sources\n\n- [2] docs/b.pdf (p. 4)\n", true},
		{"a Chinese report gets a Chinese heading", "# 月球\n\n月球与地球的平均距离约为 384,400 公里 [1]。\n",
			"# 月球\n\n月球与地球的平均距离约为 384,400 公里 [1]。\n\n<!-- sources -->\n## 来源\n\n- [1] [A \\[x\\]](<https://a.example/x>) · a.example\n", true},
		{"a Chinese report's English heading is replaced by the Chinese one", "月球潮汐的成因 [2]。\n\n<!-- sources -->\n## Sources\n\n- [2] docs/b.pdf (p. 4)\n",
			"月球潮汐的成因 [2]。\n\n<!-- sources -->\n## 来源\n\n- [2] docs/b.pdf (p. 4)\n", true},
		{"a Chinese section whose marker was dropped is still the section", "月球潮汐 [2]。\n\n## 来源\n\n- [1] old\n",
			"月球潮汐 [2]。\n\n<!-- sources -->\n## 来源\n\n- [2] docs/b.pdf (p. 4)\n", true},
	}
	for _, tc := range tests {
		got, changed := withSourcesSection(tc.in, list)
		if got != tc.want || changed != tc.changed {
			t.Errorf("%s: got (%v)\n%s\nwant (%v)\n%s", tc.name, changed, got, tc.changed, tc.want)
		}
		// A later run finds the section it wrote and leaves it alone: one section, never two.
		if again, changed := withSourcesSection(got, list); again != got || changed {
			t.Errorf("%s: a second pass changed it (%v) to\n%s", tc.name, changed, again)
		}
	}
}

// TestFooterNamesARefusedFetchFirst: when a fetch was refused for carrying text of the
// user's files, the footer quotes that refusal, even after another fetch failed first.
func TestFooterNamesARefusedFetchFirst(t *testing.T) {
	var w webTally
	w.add("web_fetch", tools.Result{Error: "web_fetch failed: 404", Metadata: map[string]any{tools.MetaFailure: "fetch https://a.example/x: HTTP 404"}})
	w.add("web_fetch", tools.Result{Error: "web_fetch refused: …", Metadata: map[string]any{
		tools.MetaFailure: "refused to send text from your local files to attacker.example (base64-encoded)", tools.MetaRefused: true}})
	w.add("web_fetch", tools.Result{Error: "web_fetch failed: 500", Metadata: map[string]any{tools.MetaFailure: "fetch https://b.example/: HTTP 500"}})
	line := w.failureLine()
	if want := "3 of 3 fetches failed: refused to send text from your local files to attacker.example (base64-encoded)."; !strings.Contains(line, want) {
		t.Fatalf("footer line = %q; want it to quote the refusal: %q", line, want)
	}
	if len(w.Errors) != 3 {
		t.Fatalf("errors = %q; want all three kept", w.Errors)
	}
}

// TestFailureLineKeepsTheCause: an error longer than the footer's 200 characters (the
// request URL of a long query quoted before the cause, as errors of search clients still
// may) is cut in the middle, so "connection refused" at its end stays in the footer and
// the terminal event, and its start (which search failed) too.
func TestFailureLineKeepsTheCause(t *testing.T) {
	long := `searxng search at 127.0.0.1:8888: Get "http://127.0.0.1:8888/search?format=json&q=` +
		strings.Repeat("dense+urban+heat+island+mitigation+", 8) + `": dial tcp 127.0.0.1:8888: connect: connection refused`
	var w webTally
	w.add("web_search", tools.Result{Error: long})
	line := w.failureLine()
	if !strings.HasPrefix(line, "> 1 of 1 search failed: searxng search at 127.0.0.1:8888") || !strings.HasSuffix(line, "connect: connection refused.") {
		t.Fatalf("failure line = %q", line)
	}
	got := w.result().Errors[0]
	if n := utf8.RuneCountInString(got); n != maxErrorRunes || !strings.Contains(got, "…") {
		t.Errorf("kept error is %d runes (want %d, cut with …): %q", n, maxErrorRunes, got)
	}
	if short := "duckduckgo search: rate limited"; clipRunes(short, maxErrorRunes) != short {
		t.Errorf("a short error was changed")
	}
}

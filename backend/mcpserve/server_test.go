package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
)

// The library the tests serve: a Chinese and an English conversation.
const (
	zhConv     = "conv-zh"
	enConv     = "conv-en"
	zhAnswer   = "月球与地球的平均距离约为384,400公里[1]，见本地笔记[2]。"
	enAnswer   = "Try the Café de Flore; it opened in 1887 [1]."
	reportV1   = "# 月球距离\n\n初稿：大约38万公里。"
	reportV2   = "# 月球距离\n\n定稿：平均距离384,400公里，近地点363,300公里。"
	moonURL    = "https://example.org/moon"
	cafeURL    = "https://example.com/cafe-de-flore"
	workspaces = "/data/workspaces"
)

// seed fills db with the two conversations: questions, answers, an artifact with two
// versions, a second artifact, and web and file sources.
func seed(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []struct{ id, title, question, answer string }{
		{zhConv, "月球距离", "月球离地球有多远？", zhAnswer},
		{enConv, "Coffee in Paris", "Where is the best café in Paris?", enAnswer},
	} {
		if err := db.CreateConversation(ctx, store.Conversation{ID: c.id, Title: c.title}); err != nil {
			t.Fatal(err)
		}
		if err := db.AddMessage(ctx, store.Message{ID: c.id + "-m1", ConversationID: c.id, Content: c.question}); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishMessage(ctx, c.id+"-m1", c.answer, store.StatusComplete, ""); err != nil {
			t.Fatal(err)
		}
	}
	w := store.ArtifactWrite{SessionID: zhConv, ID: "research_report", ContentType: "markdown", Title: "月球距离报告",
		Content: reportV1, Version: 1, UpdateType: store.UpdateCreate, MessageID: zhConv + "-m1"}
	if _, err := db.CreateArtifact(ctx, w); err != nil {
		t.Fatal(err)
	}
	w.Content, w.Version, w.UpdateType, w.ExpectedLockVersion = reportV2, 3, store.UpdateRewrite, 1
	if _, err := db.UpdateArtifactContent(ctx, w); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateArtifact(ctx, store.ArtifactWrite{SessionID: enConv, ID: "notes.csv", ContentType: "csv", Title: "Cafés",
		Content: "name,year\nCafé de Flore,1887\n", Version: 1, UpdateType: store.UpdateUpload, Source: "user_upload"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		conv string
		src  sources.Source
	}{
		{zhConv, sources.Source{Kind: sources.KindWeb, Location: moonURL, Title: "Moon facts", Fetched: true, MessageID: zhConv + "-m1"}},
		{zhConv, sources.Source{Kind: sources.KindFile, Location: "notes/月球.md", Line: 3, MessageID: zhConv + "-m1"}},
		{enConv, sources.Source{Kind: sources.KindWeb, Location: cafeURL, Title: "Café de Flore", MessageID: enConv + "-m1"}},
	} {
		if _, err := db.AddSource(ctx, s.conv, s.src); err != nil {
			t.Fatal(err)
		}
	}
}

// openDB opens a database in a temporary data directory, seeded.
func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "artifactflow.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	seed(t, db)
	return db
}

// connect serves db with opts over an in-memory transport and returns the client's session.
func connect(t *testing.T, db *store.DB, opts Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	if opts.Workspace == nil {
		opts.Workspace = func(_ context.Context, id string) (string, error) { return filepath.Join(workspaces, id), nil }
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(db, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// text returns the text of a tool result's content blocks.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// decode unmarshals a tool result's structured content into v.
func decode(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// TestTools calls each read tool through the SDK's client over an in-memory transport and
// checks the result a client's model gets: the text and the structured output, or the
// error for bad input.
func TestTools(t *testing.T) {
	cs := connect(t, openDB(t), Options{}, nil)
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		wantErr string // a substring of the error text; "" for success
		check   func(t *testing.T, res *mcp.CallToolResult)
	}{
		{name: "search finds a Chinese answer", tool: ToolSearch, args: map[string]any{"query": "平均距离约为"},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out SearchOutput
				decode(t, res, &out)
				if len(out.Results) != 1 {
					t.Fatalf("results = %+v, want the answer only", out.Results)
				}
				r := out.Results[0]
				if r.ConversationID != zhConv || r.Kind != store.DocAnswer || r.MessageID != zhConv+"-m1" ||
					!strings.Contains(r.Snippet, "平均距离约为384,400公里") || r.URI != "artifactflow://conversation/"+zhConv || r.ConversationTitle != "月球距离" {
					t.Errorf("result = %+v", r)
				}
				if !strings.Contains(text(res), "平均距离约为384,400公里") || !strings.Contains(text(res), zhConv) {
					t.Errorf("text lacks the snippet or the conversation id:\n%s", text(res))
				}
			}},
		{name: "search finds an English answer", tool: ToolSearch, args: map[string]any{"query": "cafe flore opened"},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out SearchOutput
				decode(t, res, &out)
				if len(out.Results) != 1 || out.Results[0].ConversationID != enConv || out.Results[0].Kind != store.DocAnswer ||
					!strings.Contains(out.Results[0].Snippet, "Café de Flore") {
					t.Fatalf("results = %+v, want the English answer", out.Results)
				}
			}},
		{name: "search finds an artifact", tool: ToolSearch, args: map[string]any{"query": "近地点", "limit": 5},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out SearchOutput
				decode(t, res, &out)
				if len(out.Results) != 1 || out.Results[0].Kind != store.DocArtifact || out.Results[0].ArtifactID != "research_report" ||
					out.Results[0].ArtifactTitle != "月球距离报告" || out.Results[0].URI != "artifactflow://artifact/"+zhConv+"/research_report" {
					t.Fatalf("results = %+v, want the report", out.Results)
				}
			}},
		{name: "search limit", tool: ToolSearch, args: map[string]any{"query": "1887", "limit": 1},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out SearchOutput
				decode(t, res, &out)
				if len(out.Results) != 1 {
					t.Fatalf("results = %d, want 1 (the limit; the answer and the CSV both hold 1887)", len(out.Results))
				}
			}},
		{name: "search without a match", tool: ToolSearch, args: map[string]any{"query": "quantum"},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out SearchOutput
				decode(t, res, &out)
				if len(out.Results) != 0 || !strings.Contains(text(res), "Nothing") {
					t.Fatalf("results = %+v, text %q", out.Results, text(res))
				}
			}},
		{name: "search of punctuation only", tool: ToolSearch, args: map[string]any{"query": "，。!"}, wantErr: "no word to search for"},
		{name: "search without a query", tool: ToolSearch, args: map[string]any{}, wantErr: "query"},
		{name: "search limit above the maximum", tool: ToolSearch, args: map[string]any{"query": "moon", "limit": 500}, wantErr: "limit"},

		{name: "list conversations, first page", tool: ToolListConversations, args: map[string]any{"limit": 1},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out ListConversationsOutput
				decode(t, res, &out)
				if len(out.Conversations) != 1 || out.NextCursor == "" {
					t.Fatalf("page = %+v, want one conversation and a next cursor", out)
				}
				c := out.Conversations[0]
				if c.ID != enConv || c.Title != "Coffee in Paris" || c.MessageCount != 1 || c.LastStatus != store.StatusComplete || c.UpdatedAt.IsZero() {
					t.Errorf("newest conversation = %+v", c)
				}
			}},
		{name: "list conversations, next page", tool: ToolListConversations, args: map[string]any{"limit": 1, "cursor": "1"},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out ListConversationsOutput
				decode(t, res, &out)
				if len(out.Conversations) != 1 || out.Conversations[0].ID != zhConv || out.NextCursor != "" {
					t.Fatalf("page = %+v, want the older conversation and no cursor", out)
				}
			}},
		{name: "list conversations, all", tool: ToolListConversations, args: nil,
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out ListConversationsOutput
				decode(t, res, &out)
				if len(out.Conversations) != 2 || !strings.Contains(text(res), "月球距离") {
					t.Fatalf("page = %+v, text %q", out, text(res))
				}
			}},
		{name: "list conversations, foreign cursor", tool: ToolListConversations, args: map[string]any{"cursor": "abc"}, wantErr: "cursor"},

		{name: "read the latest version", tool: ToolReadArtifact, args: map[string]any{"conversation_id": zhConv, "id": "research_report"},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out ArtifactOutput
				decode(t, res, &out)
				if out.Content != reportV2 || out.Version != 3 || out.CurrentVersion != 3 || out.Title != "月球距离报告" || out.ContentType != "markdown" {
					t.Fatalf("artifact = %+v", out)
				}
				if len(out.Versions) != 2 || out.Versions[0].Version != 1 || out.Versions[1].Version != 3 || out.Versions[1].UpdateType != store.UpdateRewrite {
					t.Errorf("versions = %+v, want 1 (create) and 3 (rewrite)", out.Versions)
				}
				if !strings.HasSuffix(text(res), reportV2) {
					t.Errorf("text does not end with the content:\n%s", text(res))
				}
			}},
		{name: "read an older version", tool: ToolReadArtifact, args: map[string]any{"conversation_id": zhConv, "id": "research_report", "version": 1},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out ArtifactOutput
				decode(t, res, &out)
				if out.Content != reportV1 || out.Version != 1 || out.CurrentVersion != 3 {
					t.Fatalf("artifact = %+v, want version 1's content", out)
				}
				if !strings.Contains(text(res), "初稿") || strings.Contains(text(res), "定稿") {
					t.Errorf("text is not version 1's:\n%s", text(res))
				}
			}},
		{name: "read a version that does not exist", tool: ToolReadArtifact,
			args: map[string]any{"conversation_id": zhConv, "id": "research_report", "version": 2}, wantErr: "its versions are 1, 3"},
		{name: "read an unknown artifact", tool: ToolReadArtifact, args: map[string]any{"conversation_id": zhConv, "id": "nope"}, wantErr: `no artifact "nope"`},
		{name: "read an artifact of another conversation", tool: ToolReadArtifact,
			args: map[string]any{"conversation_id": enConv, "id": "research_report"}, wantErr: "no artifact"},
		{name: "read without the conversation", tool: ToolReadArtifact, args: map[string]any{"id": "research_report"}, wantErr: "conversation_id"},

		{name: "list sources", tool: ToolListSources, args: map[string]any{"conversation_id": zhConv},
			check: func(t *testing.T, res *mcp.CallToolResult) {
				var out ListSourcesOutput
				decode(t, res, &out)
				want := []SourceInfo{
					{N: 1, Kind: sources.KindWeb, Title: "Moon facts", URL: moonURL, Site: "example.org", Fetched: true},
					{N: 2, Kind: sources.KindFile, Path: "notes/月球.md", File: filepath.Join(workspaces, zhConv, "notes", "月球.md"), Line: 3},
				}
				if !slices.Equal(out.Sources, want) {
					t.Fatalf("sources = %+v, want %+v", out.Sources, want)
				}
				for _, line := range []string{"[1] Moon facts — " + moonURL, "[2] " + filepath.Join(workspaces, zhConv, "notes", "月球.md") + " (line 3)"} {
					if !strings.Contains(text(res), line) {
						t.Errorf("text lacks %q:\n%s", line, text(res))
					}
				}
			}},
		{name: "list sources of an unknown conversation", tool: ToolListSources, args: map[string]any{"conversation_id": "nope"}, wantErr: `no conversation "nope"`},
		{name: "list sources of a blank conversation id", tool: ToolListSources, args: map[string]any{"conversation_id": "  "}, wantErr: "conversation_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(text(res), tc.wantErr) {
					t.Fatalf("result = %q (isError %v), want an error with %q", text(res), res.IsError, tc.wantErr)
				}
				return
			}
			if res.IsError {
				t.Fatalf("error: %s", text(res))
			}
			tc.check(t, res)
		})
	}
}

// TestToolsListed: without a Researcher the four read tools are listed, each read-only
// with an object schema naming its parameters, and ask_research is not; with one it is,
// not read-only.
func TestToolsListed(t *testing.T) {
	db := openDB(t)
	for _, tc := range []struct {
		name     string
		research Researcher
		want     []string
	}{
		{"without research", nil, []string{ToolListConversations, ToolListSources, ToolReadArtifact, ToolSearch}},
		{"with research", &fakeResearcher{}, []string{ToolAsk, ToolListConversations, ToolListSources, ToolReadArtifact, ToolSearch}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, db, Options{Research: tc.research}, nil)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			params := map[string][]string{}
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				b, _ := json.Marshal(tool.InputSchema)
				var sch struct {
					Type       string         `json:"type"`
					Properties map[string]any `json:"properties"`
					Required   []string       `json:"required"`
				}
				_ = json.Unmarshal(b, &sch)
				if sch.Type != "object" || tool.Description == "" {
					t.Errorf("%s: schema type %q, description %q", tool.Name, sch.Type, tool.Description)
				}
				for p := range sch.Properties {
					params[tool.Name] = append(params[tool.Name], p)
				}
				slices.Sort(params[tool.Name])
				readOnly := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
				if readOnly != (tool.Name != ToolAsk) {
					t.Errorf("%s: readOnlyHint %v", tool.Name, readOnly)
				}
				if out, _ := json.Marshal(tool.OutputSchema); tool.OutputSchema == nil || strings.Contains(string(out), `"null"`) {
					t.Errorf("%s: output schema %s, want one whose arrays are never null (portable to one-type dialects)", tool.Name, out)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, tc.want) {
				t.Fatalf("tools = %v, want %v", names, tc.want)
			}
			want := map[string][]string{ToolSearch: {"limit", "query"}, ToolListConversations: {"cursor", "limit"},
				ToolReadArtifact: {"conversation_id", "id", "version"}, ToolListSources: {"conversation_id"}, ToolAsk: {"conversation_id", "question"}}
			for name, got := range params {
				if !slices.Equal(got, want[name]) {
					t.Errorf("%s parameters = %v, want %v", name, got, want[name])
				}
			}
		})
	}
}

// TestAskResearchRefusedWithoutResearch: a client that calls ask_research anyway gets an
// error saying how the user enables it, and nothing runs.
func TestAskResearchRefusedWithoutResearch(t *testing.T) {
	cs := connect(t, openDB(t), Options{}, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"question": "月球有多远？"}})
	if err == nil || !strings.Contains(err.Error(), "--allow-research") {
		t.Fatalf("ask_research without research: %v, want an error naming --allow-research", err)
	}
}

// fakeResearcher plays a research run: it sends events, then returns result; with block
// set it waits for its context instead, and reports the cancellation on cancelled.
type fakeResearcher struct {
	events    []events.Event
	result    engine.Result
	err       error
	block     bool
	started   chan struct{}
	cancelled chan struct{}
	release   chan struct{} // closed when the test ends

	mu    sync.Mutex
	asked []string // "conversation|question" of each call
}

// Research implements Researcher.
func (f *fakeResearcher) Research(ctx context.Context, conversationID, question string, onEvent func(events.Event)) (engine.Result, error) {
	f.mu.Lock()
	f.asked = append(f.asked, conversationID+"|"+question)
	f.mu.Unlock()
	if f.err != nil {
		return engine.Result{}, f.err
	}
	for _, ev := range f.events {
		onEvent(ev)
	}
	if f.block {
		close(f.started)
		select {
		case <-ctx.Done():
			close(f.cancelled)
		case <-f.release: // the test is over
		}
		return engine.Result{Status: events.Cancelled, Err: context.Cause(ctx)}, nil
	}
	return f.result, nil
}

// event builds a run event with data d.
func event(typ events.Type, agent string, d any) events.Event {
	return events.Event{Type: typ, AgentName: agent, ConversationID: zhConv, MessageID: "run-2", Data: events.MustData(d)}
}

// TestAskResearch: ask_research runs the research through the Researcher, sends a progress
// notification per step worth one (increasing progress, in order) when the client gave a
// token, and returns the answer with the sources it cites or its run recorded and the
// conversation's artifacts; a run that ends without an answer, or cannot start, is a tool
// error saying so.
func TestAskResearch(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	// The run continues the Chinese conversation: it records sources [3] and [4] and cites
	// [1] and [3].
	if err := db.AddMessage(ctx, store.Message{ID: "run-2", ConversationID: zhConv, ParentID: zhConv + "-m1", Content: "远地点呢？"}); err != nil {
		t.Fatal(err)
	}
	for _, src := range []sources.Source{
		{Kind: sources.KindWeb, Location: "https://example.org/apogee", Title: "Apogee", MessageID: "run-2"},
		{Kind: sources.KindWeb, Location: "https://example.org/perigee", Title: "Perigee", MessageID: "run-2"},
	} {
		if _, err := db.AddSource(ctx, zhConv, src); err != nil {
			t.Fatal(err)
		}
	}
	const answer = "远地点约405,500公里[3]，平均距离见[1]。"
	runEvents := []events.Event{
		event(events.AgentStart, "lead_agent", events.DataAgentStart{Round: 1}),
		event(events.LLMChunk, "lead_agent", events.DataLLMChunk{Content: "远"}),
		event(events.ToolStart, "lead_agent", events.DataToolStart{Tool: "call_subagent", Params: json.RawMessage(`{}`)}),
		event(events.SubagentInstruction, "lead_agent", events.DataSubagentInstruction{Target: "search_agent", Instruction: "查找远地点距离"}),
		event(events.ToolStart, "search_agent", events.DataToolStart{Tool: "web_search", Params: json.RawMessage(`{"query":"月球 远地点"}`)}),
		event(events.ToolComplete, "search_agent", events.DataToolComplete{Tool: "web_search", Success: true}),
		event(events.ToolComplete, "search_agent", events.DataToolComplete{Tool: "web_fetch", Error: "timeout"}),
		event(events.PermissionResult, "search_agent", events.DataPermissionResult{Tool: "mcp__files__read", Decision: events.DecisionDeny}),
		event(events.ArtifactChanged, "lead_agent", events.DataArtifactChanged{Artifact: events.ArtifactSnapshot{ID: "research_report", Version: 4, UpdateType: "update"}}),
		event(events.Complete, "lead_agent", map[string]any{}),
	}
	wantProgress := []string{
		"lead_agent → search_agent: 查找远地点距离",
		`search_agent · web_search {"query":"月球 远地点"}`,
		"search_agent · web_fetch failed: timeout",
		"search_agent · mcp__files__read: deny (set to confirm in Settings)",
		"artifact research_report v4 (update)",
		"research complete",
	}
	okResult := engine.Result{ConversationID: zhConv, MessageID: "run-2", Status: events.Complete, Response: answer}

	t.Run("answer, sources and progress", func(t *testing.T) {
		var mu sync.Mutex
		var progress []*mcp.ProgressNotificationParams
		r := &fakeResearcher{events: runEvents, result: okResult}
		cs := connect(t, db, Options{Research: r}, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params)
			mu.Unlock()
		}})
		params := &mcp.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"question": " 远地点呢？ ", "conversation_id": zhConv}}
		params.SetProgressToken("tok-1")
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("ask_research: %v %s", err, text(res))
		}
		if !slices.Equal(r.asked, []string{zhConv + "|远地点呢？"}) {
			t.Errorf("researcher asked %v", r.asked)
		}
		var out AskOutput
		decode(t, res, &out)
		if out.Answer != answer || out.ConversationID != zhConv || out.MessageID != "run-2" || out.URI != ConversationURI(zhConv) {
			t.Errorf("output = %+v", out)
		}
		var ns []int
		for _, s := range out.Sources {
			ns = append(ns, s.N)
		}
		if !slices.Equal(ns, []int{1, 3, 4}) { // [2] is neither cited nor this run's
			t.Errorf("sources = %v, want [1 3 4]", ns)
		}
		if len(out.Artifacts) != 1 || out.Artifacts[0].ID != "research_report" || out.Artifacts[0].Version != 3 {
			t.Errorf("artifacts = %+v", out.Artifacts)
		}
		// The answer's footer lists what it cites; the text adds what the run recorded besides.
		for _, want := range []string{answer, "Other sources this research recorded:\n[4] Perigee — https://example.org/perigee\n", "research_report"} {
			if !strings.Contains(text(res), want) {
				t.Errorf("text lacks %q:\n%s", want, text(res))
			}
		}
		if strings.Contains(text(res), "[1] Moon facts") || strings.Contains(text(res), "[3] Apogee") {
			t.Errorf("text lists cited sources a second time:\n%s", text(res))
		}
		// Notifications are handled as they arrive; the last one may trail the result.
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := len(progress)
			mu.Unlock()
			if n >= len(wantProgress) || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		var msgs []string
		for i, p := range progress {
			msgs = append(msgs, p.Message)
			if p.ProgressToken != "tok-1" || p.Progress != float64(i+1) {
				t.Errorf("notification %d: token %v progress %v, want tok-1 and %d", i, p.ProgressToken, p.Progress, i+1)
			}
		}
		if !slices.Equal(msgs, wantProgress) {
			t.Errorf("progress messages:\n%q\nwant\n%q", msgs, wantProgress)
		}
	})

	t.Run("no token, no notifications", func(t *testing.T) {
		notified := make(chan struct{}, 100)
		cs := connect(t, db, Options{Research: &fakeResearcher{events: runEvents, result: okResult}},
			&mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { notified <- struct{}{} }})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"question": "q"}})
		if err != nil || res.IsError {
			t.Fatalf("ask_research: %v %s", err, text(res))
		}
		// A ping answered means every notification sent before it has been read.
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if len(notified) != 0 {
			t.Errorf("%d progress notifications without a progress token", len(notified))
		}
	})

	for _, tc := range []struct {
		name    string
		r       *fakeResearcher
		wantErr string
	}{
		{"run errors", &fakeResearcher{result: engine.Result{ConversationID: zhConv, Status: events.Error, Err: errors.New("model unreachable")}},
			"ended without an answer (error: model unreachable); conversation_id " + zhConv},
		{"run cannot start", &fakeResearcher{err: engine.ErrBusy}, "could not start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, db, Options{Research: tc.r}, nil)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"question": "q"}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(text(res), tc.wantErr) {
				t.Fatalf("result %q (isError %v), want an error with %q", text(res), res.IsError, tc.wantErr)
			}
		})
	}
}

// TestAskResearchCancel: a client that cancels its call (the protocol's cancel
// notification) stops the research: the Researcher's context ends.
func TestAskResearchCancel(t *testing.T) {
	r := &fakeResearcher{block: true, started: make(chan struct{}), cancelled: make(chan struct{}), release: make(chan struct{})}
	cs := connect(t, openDB(t), Options{Research: r}, nil)
	t.Cleanup(func() { close(r.release) }) // before connect's cleanup, which waits for the call
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"question": "q"}})
		done <- err
	}()
	select {
	case <-r.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the research never started")
	}
	cancel()
	select {
	case <-r.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the call did not stop the research")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool after cancel: %v, want context.Canceled", err)
	}
}

// TestResources: resources/list gives the conversations and their artifacts with MIME
// types; the templates are listed; reading a conversation gives its Markdown (question,
// answer, artifacts, sources), reading an artifact its latest content; an unknown or
// malformed URI is "not found".
func TestResources(t *testing.T) {
	cs := connect(t, openDB(t), Options{}, nil)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range list.Resources {
		got = append(got, r.URI+" "+r.MIMEType+" "+r.Title)
	}
	want := []string{
		"artifactflow://conversation/" + enConv + " text/markdown Coffee in Paris",
		"artifactflow://artifact/" + enConv + "/notes.csv text/csv Cafés",
		"artifactflow://conversation/" + zhConv + " text/markdown 月球距离",
		"artifactflow://artifact/" + zhConv + "/research_report text/markdown 月球距离报告",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("resources:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if list.CacheScope != "private" {
		t.Errorf("resources/list cacheScope = %q, want private (the user's own library)", list.CacheScope)
	}
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, tm := range tmpls.ResourceTemplates {
		uris = append(uris, tm.URITemplate)
	}
	slices.Sort(uris)
	if want := []string{"artifactflow://artifact/{conversation_id}/{artifact_id}", "artifactflow://conversation/{id}"}; !slices.Equal(uris, want) {
		t.Errorf("templates = %v, want %v", uris, want)
	}

	read := func(uri string) (*mcp.ReadResourceResult, error) {
		return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	}
	res, err := read(ConversationURI(zhConv))
	if err != nil {
		t.Fatal(err)
	}
	md := res.Contents[0].Text
	for _, want := range []string{"# 月球距离", "## Question 1\n\n月球离地球有多远？", "## Answer 1\n\n" + zhAnswer,
		"## Artifacts", "[月球距离报告](<artifactflow://artifact/" + zhConv + "/research_report>)", "version 3",
		"## Sources", "- [1] [Moon facts](<" + moonURL + ">) · example.org", "- [2] notes/月球.md (line 3)"} {
		if !strings.Contains(md, want) {
			t.Errorf("conversation Markdown lacks %q:\n%s", want, md)
		}
	}
	if res.CacheScope != "private" {
		t.Errorf("resources/read cacheScope = %q, want private", res.CacheScope)
	}
	if res.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("conversation MIME type = %q", res.Contents[0].MIMEType)
	}
	res, err = read(ArtifactURI(zhConv, "research_report"))
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Contents[0]; c.Text != reportV2 || c.MIMEType != "text/markdown" {
		t.Errorf("artifact resource = %q (%s), want version 3's content as text/markdown", c.Text, c.MIMEType)
	}
	res, err = read(ArtifactURI(enConv, "notes.csv"))
	if err != nil || res.Contents[0].MIMEType != "text/csv" {
		t.Errorf("csv artifact: %v %+v", err, res)
	}
	for _, uri := range []string{ConversationURI("nope"), ArtifactURI(zhConv, "nope"), "artifactflow://artifact/" + zhConv,
		"artifactflow://conversation/" + zhConv + "/extra", "artifactflow://other/x"} {
		if _, err := read(uri); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("read %s: %v, want resource not found", uri, err)
		}
	}
}

// TestURIs: ids with characters that are not URI-safe (an uploaded file's Unicode name)
// round-trip through the resource URIs.
func TestURIs(t *testing.T) {
	for _, tc := range []struct{ conv, id string }{
		{"c1", "research_report"},
		{"6f1c-9a", "报告_2.pdf"},
		{"c 2", "a%b.txt"},
	} {
		uri := ArtifactURI(tc.conv, tc.id)
		parts, ok := parseURI(uri, artifactPrefix, 2)
		if !ok || parts[0] != tc.conv || parts[1] != tc.id {
			t.Errorf("ArtifactURI(%q, %q) = %s parses as %v %v", tc.conv, tc.id, uri, parts, ok)
		}
		cparts, ok := parseURI(ConversationURI(tc.conv), conversationPrefix, 1)
		if !ok || cparts[0] != tc.conv {
			t.Errorf("ConversationURI(%q) parses as %v %v", tc.conv, cparts, ok)
		}
	}
}

// TestMIMEType maps artifact content types to MIME types.
func TestMIMEType(t *testing.T) {
	for ct, want := range map[string]string{
		"": "text/markdown", "markdown": "text/markdown", "Markdown": "text/markdown", "text": "text/plain",
		"html": "text/html", "csv": "text/csv", "json": "application/json", "python": "text/x-python",
		"text/markdown; charset=utf-8": "text/markdown", "binary": "application/octet-stream", "c++": "text/x-c++",
		"weird type!": "text/plain",
	} {
		if got := MIMEType(ct); got != want {
			t.Errorf("MIMEType(%q) = %q, want %q", ct, got, want)
		}
	}
}

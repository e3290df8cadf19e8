package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/localfiles"
	"artifactflow/backend/store"
)

// toolNamesOf returns the names of the tools a request offers.
func toolNamesOf(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, t := range req.Tools {
		if t.Function != nil {
			out = append(out, t.Function.Name)
		}
	}
	return out
}

// filesEngine returns an engine whose runs use a local-file index over a workspace
// folder holding files (slash path → content), and the requests each agent made.
func filesEngine(t *testing.T, files map[string]string, h llmtest.Handler) (*Engine, *store.DB, map[string][]openai.ChatCompletionRequest) {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	reqs := map[string][]openai.ChatCompletionRequest{}
	var m *localfiles.Manager
	e, db, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
		mu.Lock()
		for _, a := range []string{"lead_agent", "search_agent", "crawl_agent"} {
			if isAgent(req, a) {
				reqs[a] = append(reqs[a], req)
			}
		}
		mu.Unlock()
		return h(req, call)
	}, func(d *Deps) { d.Files = m })
	ix, err := localfiles.New(localfiles.Options{DB: db, Workspace: func(context.Context, string) (string, error) { return ws, nil }})
	if err != nil {
		t.Fatal(err)
	}
	m = localfiles.NewManager(ix, localfiles.ManagerOptions{})
	t.Cleanup(m.Close)
	return e, db, reqs
}

// TestLocalFilesOfferedWithFiles: with indexed files the lead's system prompt has a
// <local_files> block saying how many of which kinds, search_agent is offered search_files
// and crawl_agent read_file; search_files numbers the file it finds and the answer citing
// it lists it in its footer.
func TestLocalFilesOfferedWithFiles(t *testing.T) {
	e, _, reqs := filesEngine(t, map[string]string{
		"okapi.md": "# Notes\nThe okapi is a forest giraffe.\n",
		"data.csv": "animal,habitat\nokapi,forest\n",
	}, llmtest.Script(
		call("call_subagent", `{"agent_name":"search_agent","instruction":"search the user's files for okapi"}`),
		call("search_files", `{"query":"forest giraffe"}`),
		llmtest.Reply{Content: "[1] okapi.md (line 2): the okapi is a forest giraffe."},
		call("call_subagent", `{"agent_name":"crawl_agent","instruction":"read okapi.md"}`),
		call("read_file", `{"path":"okapi.md"}`),
		llmtest.Reply{Content: "Source [1]: the okapi is a forest giraffe [1]."},
		llmtest.Reply{Content: "The okapi is a forest giraffe [1]."},
	))
	res, err := e.Ask(context.Background(), Request{Content: "What is an okapi, per my notes?"})
	if err != nil || res.Err != nil {
		t.Fatalf("run: %v / %v", err, res.Err)
	}
	lead := reqs["lead_agent"]
	if len(lead) == 0 {
		t.Fatal("the lead made no request")
	}
	sys := lead[0].Messages[0].Content
	block := sys[strings.Index(sys, "<local_files>"):]
	if !strings.Contains(sys, "<local_files>") || !strings.Contains(block, "2 files (1 .csv, 1 .md)") || !strings.Contains(block, "search_agent") {
		t.Fatalf("lead's system prompt lacks the local_files block:\n%s", sys)
	}
	if got := toolNamesOf(reqs["search_agent"][0]); !slices.Contains(got, "search_files") || !slices.Contains(got, "web_search") {
		t.Errorf("search_agent's tools = %v; want web_search and search_files", got)
	}
	if got := toolNamesOf(reqs["crawl_agent"][0]); !slices.Contains(got, "read_file") {
		t.Errorf("crawl_agent's tools = %v; want read_file", got)
	}
	if got := toolNamesOf(lead[0]); slices.Contains(got, "search_files") || slices.Contains(got, "read_file") {
		t.Errorf("the lead is offered %v; the file tools are the sub-agents'", got)
	}
	// The search result reached search_agent with the file's number.
	second := reqs["search_agent"][1]
	last := second.Messages[len(second.Messages)-1]
	if last.Role != openai.ChatMessageRoleTool || !strings.Contains(last.Content, "[1] okapi.md (line 2)") {
		t.Fatalf("search_files result = %q", last.Content)
	}
	readReq := reqs["crawl_agent"][1]
	if got := readReq.Messages[len(readReq.Messages)-1].Content; !strings.HasPrefix(got, "Source [1]: okapi.md\nLines 1-2 of 2") {
		t.Fatalf("read_file result = %q", got)
	}
	if !strings.Contains(res.Response, "- [1] okapi.md (line 2)") {
		t.Fatalf("answer footer does not list the cited file:\n%s", res.Response)
	}
}

// TestLocalFilesNotOfferedWithout: with an empty workspace (and with no index at all) the
// lead's prompt has no <local_files> block and nobody is offered the file tools.
func TestLocalFilesNotOfferedWithout(t *testing.T) {
	script := func() llmtest.Handler {
		return llmtest.Script(
			call("call_subagent", `{"agent_name":"search_agent","instruction":"search"}`),
			llmtest.Reply{Content: "nothing"},
			llmtest.Reply{Content: "done"},
		)
	}
	check := func(t *testing.T, reqs map[string][]openai.ChatCompletionRequest) {
		t.Helper()
		if strings.Contains(reqs["lead_agent"][0].Messages[0].Content, "<local_files>") {
			t.Fatal("the lead's prompt has a local_files block without files")
		}
		if got := toolNamesOf(reqs["search_agent"][0]); slices.Contains(got, "search_files") || !slices.Contains(got, "web_search") {
			t.Fatalf("search_agent's tools = %v; want web_search only", got)
		}
	}
	t.Run("empty folder", func(t *testing.T) {
		e, _, reqs := filesEngine(t, map[string]string{"picture.png": "not text"}, script())
		if res, err := e.Ask(context.Background(), Request{Content: "q"}); err != nil || res.Err != nil {
			t.Fatalf("run: %v / %v", err, res.Err)
		}
		check(t, reqs)
	})
	t.Run("no index", func(t *testing.T) {
		var mu sync.Mutex
		reqs := map[string][]openai.ChatCompletionRequest{}
		h := script()
		e, _, _, _ := newEngine(t, func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
			mu.Lock()
			for _, a := range []string{"lead_agent", "search_agent"} {
				if isAgent(req, a) {
					reqs[a] = append(reqs[a], req)
				}
			}
			mu.Unlock()
			return h(req, call)
		})
		if res, err := e.Ask(context.Background(), Request{Content: "q"}); err != nil || res.Err != nil {
			t.Fatalf("run: %v / %v", err, res.Err)
		}
		check(t, reqs)
	})
}

package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/web"
)

// Research speed (make bench): the latencies of the scripted world.
const (
	researchModelLatency = 600 * time.Millisecond // each model reply
	researchPageLatency  = 600 * time.Millisecond // each page
	researchPages        = 3
)

// researchURL finds the page URL in a crawl_agent instruction.
var researchURL = regexp.MustCompile(`https?://\S+`)

// researchHandler scripts a research over the wire: the lead sends crawl_agent to read
// researchPages pages, all in one reply (together) or one per reply; each crawl_agent
// fetches its page with web_fetch, then reports; the lead answers once it has every
// report. Every reply comes after researchModelLatency.
func researchHandler(pages []string, together bool) llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		time.Sleep(researchModelLatency)
		results := 0
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleTool {
				results++
			}
		}
		if isAgent(req, "crawl_agent") {
			// Its memory holds its earlier tasks: only the newest one counts.
			if last := req.Messages[len(req.Messages)-1]; last.Role == openai.ChatMessageRoleTool {
				return llmtest.Reply{Content: "Source [1]: the page says what it says."}
			}
			u := researchURL.FindString(req.Messages[len(req.Messages)-1].Content)
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "f", Name: "web_fetch", Arguments: jsonArgs(map[string]string{"url": u})}}}
		}
		if results >= len(pages) {
			return llmtest.Reply{Content: "Here is what the pages say [1]."}
		}
		var calls []llmtest.ToolCall
		for i, p := range pages {
			if !together && i != results {
				continue
			}
			calls = append(calls, subagentCall(fmt.Sprint("c", i), "crawl_agent", "Read "+p+" and report what it says."))
		}
		return llmtest.Reply{ToolCalls: calls}
	}
}

// researchWall runs one research through an llm.Client on the llmtest server and a real
// fetcher on a page server, and returns its wall time.
func researchWall(b *testing.B, together bool) time.Duration {
	b.Helper()
	pagesSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(researchPageLatency):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>Page %s</title></head><body><p>The text of %s.</p></body></html>", r.URL.Path, r.URL.Path)
	}))
	defer pagesSrv.Close()
	pages := make([]string, researchPages)
	for i := range pages {
		pages[i] = fmt.Sprintf("%s/page%d", pagesSrv.URL, i+1)
	}
	srv := llmtest.NewServer(b, researchHandler(pages, together))
	model, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", RetryDelay: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), fmt.Sprint("research-", together, ".db")))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fetcher := web.NewFetcher(web.FetcherConfig{AllowPrivate: true})
	e, err := New(Config{Store: db, Deps: func() (Deps, error) {
		return Deps{Model: model, ModelName: "m", Mode: toolcall.ModeNative, Fetcher: fetcher}, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	start := time.Now()
	res, err := e.Ask(context.Background(), Request{Content: "What do the three pages say?"})
	wall := time.Since(start)
	if err != nil || res.Status != events.Complete || res.Web == nil || res.Web.Fetches != researchPages || res.Web.FetchesFailed != 0 {
		b.Fatalf("research (together %v): %v %s web %+v", together, err, res.Status, res.Web)
	}
	return wall
}

// BenchmarkResearchSpeed is make bench's research-speed row: the same research (a lead
// reading three pages through crawl_agent; every model reply takes 0.6 s over the wire of
// the llmtest server, every page 0.6 s from a page server through the real fetcher) asked
// with the three sub-agents in one reply and asked one per reply. It reports both wall
// times in seconds (together-s, one-by-one-s) and their ratio (ratio, budget 0.45); run it
// with -benchtime 1x.
func BenchmarkResearchSpeed(b *testing.B) {
	var together, oneByOne time.Duration
	for b.Loop() {
		together += researchWall(b, true)
		oneByOne += researchWall(b, false)
	}
	b.ReportMetric(together.Seconds()/float64(b.N), "together-s")
	b.ReportMetric(oneByOne.Seconds()/float64(b.N), "one-by-one-s")
	b.ReportMetric(together.Seconds()/oneByOne.Seconds(), "ratio")
}

package app

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/sources"
)

// citingResearch scripts a run whose search agent searches (SearXNG answers with the Moon
// page and an unrelated page), whose crawl agent fetches the Moon page, and whose lead
// writes a report citing [1] and [2] and answers citing both.
func (w *world) citingResearch() llmtest.Handler {
	return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		results := toolResults(req)
		switch agentOf(req) {
		case "search_agent":
			if len(results) == 0 {
				return w.toolCall("web_search", map[string]any{"query": "moon distance"})
			}
			return llmtest.Reply{Content: "Results:\n" + results[0]}
		case "crawl_agent":
			if len(results) == 0 {
				return w.toolCall("web_fetch", map[string]any{"url": w.pageURL})
			}
			return llmtest.Reply{Content: "Source [1]: " + factRE.FindString(results[0]) + " [1]"}
		case "lead_agent":
			switch len(results) {
			case 0:
				return w.toolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": "Find sources on the Moon's distance."})
			case 1:
				return w.toolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "Read " + w.pageURL})
			case 2:
				return w.toolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown", "title": "Moon distance",
					"content": "# Moon distance\n\n" + fact + " [1]\n\nAnother page exists [2].\n"})
			default:
				return llmtest.Reply{Content: "The Moon is 384,400 km away on average [1]; see also [2]."}
			}
		}
		return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "unknown agent"}
	}
}

// TestCitedSourcesEndToEnd (issue 9): `artifactflow ask` against the scripted model,
// SearXNG and the web page, in both tool-call formats. The agents see numbered sources,
// the stored answer and stdout end with the footer listing [1] and [2], the report has
// its Sources section, and the three exports of the report (through browser mode, as the
// page calls them) carry the references: Markdown the list, HTML links on [1] and [2],
// DOCX hyperlinks with external relationships.
func TestCitedSourcesEndToEnd(t *testing.T) {
	for _, mode := range []string{"native", "xml"} {
		t.Run(mode, func(t *testing.T) {
			w := newWorld(t, mode, (*world).citingResearch)
			code, stdout, stderr := w.ask(context.Background(), "--allow-private-network", question)
			if code != ExitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			other := w.site.URL + "/other"
			lines := "- [1] [Moon facts](<" + w.pageURL + ">) · 127.0.0.1\n" +
				"- [2] [Unrelated](<" + other + ">) · 127.0.0.1\n"
			wantAnswer := "The Moon is 384,400 km away on average [1]; see also [2].\n\n---\n**Sources**\n" + lines
			if strings.TrimSpace(stdout) != strings.TrimSpace(wantAnswer) {
				t.Errorf("stdout =\n%s\nwant\n%s", stdout, wantAnswer)
			}
			db := w.db()
			var conv, response string
			if err := db.QueryRow(`SELECT conversation_id, graph_response FROM messages`).Scan(&conv, &response); err != nil {
				t.Fatal(err)
			}
			if response != wantAnswer {
				t.Errorf("graph_response =\n%s\nwant\n%s", response, wantAnswer)
			}
			evs := loadEvents(t, db)
			if i := indexOf(evs, 0, "tool_complete", "search_agent", `[1] Moon facts\n    URL: `+w.pageURL); i < 0 {
				t.Error("web_search did not show the agent numbered results")
			}
			if i := indexOf(evs, 0, "tool_complete", "crawl_agent", `Source [1]: `+w.pageURL); i < 0 {
				t.Error("web_fetch did not show the agent the page's number")
			}
			var term events.DataTerminal
			if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &term); err != nil {
				t.Fatal(err)
			}
			if term.Web == nil || term.Web.Searches != 1 || term.Web.Fetches != 1 || len(term.Cited) != 2 {
				t.Errorf("terminal web %+v, cited %v", term.Web, term.Cited)
			}
			var report string
			if err := db.QueryRow(`SELECT content FROM artifacts WHERE id = 'research_report'`).Scan(&report); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(report, "[2].\n\n"+sources.SectionMarker+"\n## Sources\n\n"+lines) {
				t.Errorf("report lacks its Sources section:\n%s", report)
			}

			_, srv, hs := newBrowserServer(t, w, "")
			status, body := post(t, hs.URL+"/api/bind/ConversationService/Sources", srv.Token(), `["`+conv+`"]`)
			var list []sources.Source
			if status != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list) != 2 ||
				list[0].Location != w.pageURL || !list[0].Fetched || list[1].Fetched {
				t.Fatalf("Sources: %d %s", status, body)
			}
			export := func(format string) []byte {
				status, body := post(t, hs.URL+"/api/bind/ArtifactService/Export", srv.Token(), `["`+conv+`","research_report",0,"`+format+`"]`)
				var res ExportResult
				if status != http.StatusOK || json.Unmarshal([]byte(body), &res) != nil || len(res.Data) == 0 {
					t.Fatalf("export %s: %d %.200s", format, status, body)
				}
				return res.Data
			}
			if md := string(export(FormatMarkdown)); !strings.HasSuffix(md, "## Sources\n\n"+lines) {
				t.Errorf("Markdown export:\n%s", md)
			}
			html := string(export(FormatHTML))
			for _, want := range []string{
				`<a href="` + w.pageURL + `" rel="noopener noreferrer">[1]</a>`,
				`<a href="` + other + `" rel="noopener noreferrer">[2]</a>`,
				`<h2>Sources</h2>`,
			} {
				if !strings.Contains(html, want) {
					t.Errorf("HTML export lacks %s", want)
				}
			}
			rels, doc := docxParts(t, export(FormatDOCX))
			for _, u := range []string{w.pageURL, other} {
				if !strings.Contains(rels, `Target="`+u+`" TargetMode="External"`) {
					t.Errorf("DOCX has no hyperlink relationship to %s:\n%s", u, rels)
				}
			}
			if strings.Count(doc, "<w:hyperlink ") < 4 || !strings.Contains(doc, ">[1]</w:t>") || !strings.Contains(doc, ">[2]</w:t>") {
				t.Errorf("DOCX document has %d hyperlinks", strings.Count(doc, "<w:hyperlink "))
			}
		})
	}
}

// docxParts returns the relationships and the main document part of a DOCX file.
func docxParts(t *testing.T, data []byte) (rels, doc string) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		switch f.Name {
		case "word/_rels/document.xml.rels":
			rels = string(b)
		case "word/document.xml":
			doc = string(b)
		}
	}
	return rels, doc
}

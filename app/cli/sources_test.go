package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"artifactflow/app"
	"artifactflow/app/browser"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/events"
	"artifactflow/backend/sources"
)

// TestCitedSourcesEndToEnd: `artifactflow ask` against the scripted model, SearXNG and
// the web page, in both tool-call formats. The agents see numbered sources, the stored
// answer and stdout end with the footer listing [1] and [2], the report has its Sources
// section, and the three exports of the report (through browser mode, as the page calls
// them) carry the references: Markdown the list, HTML links on [1] and [2], DOCX
// hyperlinks with external relationships.
func TestCitedSourcesEndToEnd(t *testing.T) {
	for _, mode := range []string{"native", "xml"} {
		t.Run(mode, func(t *testing.T) {
			w := apptest.NewWorld(t, mode, (*apptest.World).CitingResearch)
			code, stdout, stderr := ask(context.Background(), w, "--allow-private-network", apptest.Question)
			if code != ExitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			other := w.Site.URL + "/other"
			lines := "- [1] [Moon facts](<" + w.PageURL + ">) · 127.0.0.1\n" +
				"- [2] [Unrelated](<" + other + ">) · 127.0.0.1\n"
			wantAnswer := "The Moon is 384,400 km away on average [1]; see also [2].\n\n---\n**Sources**\n" + lines
			if strings.TrimSpace(stdout) != strings.TrimSpace(wantAnswer) {
				t.Errorf("stdout =\n%s\nwant\n%s", stdout, wantAnswer)
			}
			db := w.DB()
			var conv, response string
			if err := db.QueryRow(`SELECT conversation_id, graph_response FROM messages`).Scan(&conv, &response); err != nil {
				t.Fatal(err)
			}
			if response != wantAnswer {
				t.Errorf("graph_response =\n%s\nwant\n%s", response, wantAnswer)
			}
			evs := loadEvents(t, db)
			if i := indexOf(evs, 0, "tool_complete", "search_agent", `[1] Moon facts\n    URL: `+w.PageURL); i < 0 {
				t.Error("web_search did not show the agent numbered results")
			}
			if i := indexOf(evs, 0, "tool_complete", "crawl_agent", `Source [1]: `+w.PageURL); i < 0 {
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

			srv, err := browser.NewServer(newTestCore(t, w), nil)
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			status, body := apptest.Post(t, hs.URL+"/api/bind/ConversationService/Sources", srv.Token(), `["`+conv+`"]`)
			var list []sources.Source
			if status != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list) != 2 ||
				list[0].Location != w.PageURL || !list[0].Fetched || list[1].Fetched {
				t.Fatalf("Sources: %d %s", status, body)
			}
			export := func(format string) []byte {
				status, body := apptest.Post(t, hs.URL+"/api/bind/ArtifactService/Export", srv.Token(), `["`+conv+`","research_report",0,"`+format+`"]`)
				var res app.ExportResult
				if status != http.StatusOK || json.Unmarshal([]byte(body), &res) != nil || len(res.Data) == 0 {
					t.Fatalf("export %s: %d %.200s", format, status, body)
				}
				return res.Data
			}
			if md := string(export(app.FormatMarkdown)); !strings.HasSuffix(md, "## Sources\n\n"+lines) {
				t.Errorf("Markdown export:\n%s", md)
			}
			html := string(export(app.FormatHTML))
			for _, want := range []string{
				`<a href="` + w.PageURL + `" rel="noopener noreferrer">[1]</a>`,
				`<a href="` + other + `" rel="noopener noreferrer">[2]</a>`,
				`<h2>Sources</h2>`,
			} {
				if !strings.Contains(html, want) {
					t.Errorf("HTML export lacks %s", want)
				}
			}
			rels, doc := docxParts(t, export(app.FormatDOCX))
			for _, u := range []string{w.PageURL, other} {
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

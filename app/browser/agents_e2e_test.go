package browser

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/engine"
	"artifactflow/backend/useragents"
)

// TestBrowserE2EAgents runs frontend/e2e/agents.mjs in headless Chromium against browser
// mode: in Settings → Agents a new agent is created from the template, saved with an
// unknown tool (its problem shows with its line, the text is kept), fixed and listed as
// ready; an agent left broken makes the next run show a warning with its file and line,
// and the run completes. Afterwards the agents folder holds reviewer.md, valid and as
// typed, and drafty.md, skipped. Screenshots /tmp/ui-agents.png, /tmp/ui-agents-error.png
// and /tmp/ui-agents-run-warning.png. Needs AF_E2E=1 and a built frontend, like
// TestBrowserE2E.
func TestBrowserE2EAgents(t *testing.T) {
	if os.Getenv("AF_E2E") != "1" {
		t.Skip("set AF_E2E=1 (make test does) to run the browser end-to-end test")
	}
	dist, _ := filepath.Abs("../../frontend/dist")
	if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
		t.Fatalf("frontend not built (%v): run make frontend", err)
	}
	w := apptest.NewWorld(t, "native", nil)
	core, srv, hs := newBrowserServer(t, w, dist)
	if err := runScript(t, 4*time.Minute, "agents.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	cat := useragents.Catalog{Tools: engine.BuiltinTools()}
	for _, a := range core.Engine().Agents() {
		cat.Reserved = append(cat.Reserved, a.Name)
	}
	files, err := useragents.Load(useragents.Dir(w.DataDir), cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != "drafty.md" || files[0].OK() || files[1].Name != "reviewer.md" || !files[1].OK() {
		t.Fatalf("agents folder after the script: %+v", files)
	}
	if r := files[1].Agent; r.Model != "reviewer-model" || len(r.Tools) != 1 || r.Tools[0] != "read_artifact" || r.MaxToolRounds != 4 {
		t.Errorf("reviewer.md as saved: %+v", r)
	}
}

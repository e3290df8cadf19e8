package browser

import (
	"context"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestBrowserE2ECitations runs the real frontend in headless Chromium against browser mode
// (frontend/e2e/citations.mjs) with the scripted research that cites [1] (the fetched Moon
// page) and [2] (a result only listed): the answer's chips, the hover card kept inside the
// window, focus and Enter, the answer's Sources list, the activity summary's counts, chips
// in the report and the panel's Sources tab with its filter. Needs AF_E2E=1 and a built
// frontend, like TestBrowserE2E.
func TestBrowserE2ECitations(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", (*apptest.World).CitingResearch)
	_, srv, hs := newBrowserServer(t, w, dist)
	if err := runScript(t, 3*time.Minute, "citations.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question,
		"AF_SOURCE1_URL="+w.PageURL, "AF_SOURCE1_TITLE=Moon facts", "AF_SOURCE2_TITLE=Unrelated"); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

// TestBrowserE2ESearchFailed runs frontend/e2e/citations-failed.mjs against browser mode
// with search set to Brave and no key: the banner says search is not set up and opens the
// settings; the scripted research then runs with its one search failing (the crawl still
// reads the page, source 1), and the page shows the failure line in the answer's footer,
// the failed search in the activity summary, the banner for a run whose searches all
// failed, and [2] (never recorded) as an unresolved chip. Needs AF_E2E=1 and a built
// frontend, like TestBrowserE2E.
func TestBrowserE2ESearchFailed(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", (*apptest.World).CitingResearch)
	// Not newBrowserServer: its SearXNG URL would choose SearXNG over the stored Brave.
	overrides := config.Settings{BaseURL: w.Model.URL(), Model: "test-model", ToolCallMode: w.Mode, AllowPrivateNetwork: true,
		Search: config.SearchSettings{Provider: "brave"}}
	core, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir, Overrides: overrides})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	srv, hs := serveCore(t, core, dist)
	if err := runScript(t, 3*time.Minute, "citations-failed.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question, "AF_PROBLEM=needs an API key"); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

package browser

import (
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
)

// TestBrowserE2ELayout runs frontend/e2e/layout.mjs in headless Chromium against browser
// mode after the scripted research: the panel's splitter dragged wider (and never past the
// chat column's minimum), the sidebar's moved with the arrow keys and reset by a
// double-click, Ctrl+B and Ctrl+J and the header's buttons hiding and showing the columns,
// the report's full-window Reader closed by Esc, and after a reload the widths, a hidden
// panel and the open conversation back as they were. Needs AF_E2E=1 and a built frontend,
// like TestBrowserE2E.
func TestBrowserE2ELayout(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", nil)
	_, srv, hs := newBrowserServer(t, w, dist)
	if err := runScript(t, 3*time.Minute, "layout.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question, "AF_REPORT_TITLE=Moon distance", "AF_FACT=384,400 km"); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

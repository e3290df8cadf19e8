package browser

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestBrowserE2ELanguage runs frontend/e2e/language.mjs in headless Chromium against browser
// mode after the scripted research: a zh-CN system locale starts in Chinese (and the shortcut
// hint under the composer breaks no Chinese word across lines at any width); in an English
// profile, choosing 中文 in Settings switches the sidebar, the composer, the run's figures and
// the dialog at once and survives a reload; a new English profile then starts in Chinese
// (the choice is in config.json) until "System" is chosen; English chosen on a Chinese
// system sticks. Afterwards config.json holds "en". Screenshots /tmp/ui-language-en.png and
// /tmp/ui-language-zh-CN.png. Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2ELanguage(t *testing.T) {
	if os.Getenv("AF_E2E") != "1" {
		t.Skip("set AF_E2E=1 (make test does) to run the browser end-to-end test")
	}
	dist, _ := filepath.Abs("../../frontend/dist")
	if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
		t.Fatalf("frontend not built (%v): run make frontend", err)
	}
	w := apptest.NewWorld(t, "native", nil)
	_, srv, hs := newBrowserServer(t, w, dist)
	if err := runScript(t, 4*time.Minute, "language.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	stored, err := config.Load(w.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Language != config.LanguageEnglish {
		t.Fatalf("config.json language = %q after choosing English, want en", stored.Language)
	}
}

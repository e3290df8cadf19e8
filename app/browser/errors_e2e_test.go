package browser

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestBrowserE2EErrors runs frontend/e2e/errors.mjs in headless Chromium against browser
// mode with a model endpoint that refuses connections: the failed run shows its code's
// error box with "Open settings" and "Retry", the sidebar badges the conversation
// "Failed", a rejected call carries the AppError JSON, and a deleted conversation shows
// the not_found wording. Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2EErrors(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	core, err := app.NewCore(context.Background(), app.Options{DataDir: filepath.Join(t.TempDir(), "data"),
		Overrides: config.Settings{BaseURL: dead, Model: "test-model"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	srv, hs := serveCore(t, core, dist)
	if err := runScript(t, 3*time.Minute, "errors.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

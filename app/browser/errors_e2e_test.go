package browser

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestBrowserE2EErrors runs frontend/e2e/errors.mjs in headless Chromium against browser
// mode with a model endpoint that refuses connections (issue 10 item 2): the failed run
// shows its code's error box with "Open settings" and "Retry", the sidebar badges the
// conversation "Failed", a rejected call carries the AppError JSON, and a deleted
// conversation shows the not_found wording. Needs AF_E2E=1 and a built frontend, like
// TestBrowserE2E.
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
	srv, err := NewServer(core, os.DirFS(dist))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e/errors.mjs", hs.URL+"/?token="+srv.Token())
	cmd.Dir = "../../frontend"
	cmd.Env = append(os.Environ(), "AF_QUESTION="+apptest.Question)
	out, err := cmd.CombinedOutput()
	t.Logf("errors.mjs output:\n%s", out)
	if err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

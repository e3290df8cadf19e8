package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/browser"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestBrowserE2ESettingsFlags runs the real frontend in headless Chromium against browser
// mode started with `serve --model x --base-url …` over a config.json that stores
// saved-model (frontend/e2e/settings-flags.mjs): the dialog shows the model field
// read-only with "Set by --model for this session", and its Save stores the tool-call
// mode chosen there while config.json keeps saved-model. Needs AF_E2E=1 and a built
// frontend, like TestBrowserE2E.
func TestBrowserE2ESettingsFlags(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.EchoWorld(t)
	if err := config.Save(w.DataDir, config.Settings{Model: "saved-model", ToolCallMode: "native"}); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	g, _, ok := parse(Env{Stdout: &stderr, Stderr: &stderr}, "serve",
		[]string{"--data-dir", w.DataDir, "--model", "x", "--base-url", w.Model.URL()}, nil)
	if !ok {
		t.Fatalf("parse serve flags: %s", stderr.String())
	}
	core, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir, Overrides: g.s})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	srv, err := browser.NewServer(core, os.DirFS(dist))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e/settings-flags.mjs", hs.URL+"/?token="+srv.Token())
	cmd.Dir = "../../frontend"
	out, err := cmd.CombinedOutput()
	t.Logf("settings-flags.mjs output:\n%s", out)
	if err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	got, err := config.Load(w.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "saved-model" || got.BaseURL != "" || got.ToolCallMode != "xml" {
		t.Fatalf("config.json after Save: model %q, base URL %q, mode %q; want saved-model, none, xml", got.Model, got.BaseURL, got.ToolCallMode)
	}
	if s := core.Settings(); s.Model != "x" || s.ToolCallMode != "xml" {
		t.Fatalf("in effect after Save: model %q, mode %q; want the flag's x and the saved xml", s.Model, s.ToolCallMode)
	}
}

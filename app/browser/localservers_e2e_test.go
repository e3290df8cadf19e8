package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/localserver"
)

// TestBrowserE2ELocalServers runs frontend/e2e/local-servers.mjs in headless Chromium
// against browser mode on a data dir whose config.json sets no model (the first launch),
// with "Find local servers" pointed at stand-ins on 127.0.0.1: an Ollama-like server
// (models only on /api/tags), the scripted model server answering /v1/models as LM Studio
// does, and a closed port. The dialog lists the two that answered by itself; one click
// fills the base URL and model, Save stores them, and the research then runs on that
// server. Afterwards config.json holds the found base URL and model. Needs AF_E2E=1 and a
// built frontend, like TestBrowserE2E.
func TestBrowserE2ELocalServers(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", nil)
	w.Model.SetModels("test-model")
	ollama := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(rw, r)
			return
		}
		_, _ = rw.Write([]byte(`{"models":[{"name":"qwen3:8b"}]}`))
	}))
	t.Cleanup(ollama.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	port := func(raw string) int {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := strconv.Atoi(u.Port())
		return p
	}
	lmPort := port(w.Model.URL())
	app.SetLocalServerCandidates([]localserver.Candidate{
		{Name: "Ollama", Port: port(ollama.URL), Ollama: true},
		{Name: "LM Studio", Port: lmPort},
		{Name: "vLLM", Port: port(closedURL)},
	})
	t.Cleanup(func() { app.SetLocalServerCandidates(nil) })

	// The first launch: no model; web search and page reading on the world's loopback
	// servers. The base URL names the scripted server as "localhost", so that the dialog's
	// model list has an endpoint that answers (the default, api.openai.com, is not for a
	// test to reach) and the click's 127.0.0.1 form is a change Save must store.
	if err := config.Save(w.DataDir, config.Settings{BaseURL: "http://localhost:" + strconv.Itoa(lmPort) + "/v1",
		SearxngURL: w.Searx.URL, AllowPrivateNetwork: true}); err != nil {
		t.Fatal(err)
	}
	core, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	srv, hs := serveCore(t, core, dist)
	if err := runScript(t, 4*time.Minute, "local-servers.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_QUESTION="+apptest.Question); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	stored, err := config.Load(w.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://127.0.0.1:" + strconv.Itoa(lmPort) + "/v1"; stored.BaseURL != want || stored.Model != "test-model" {
		t.Fatalf("config.json base_url %q model %q; want %q and test-model", stored.BaseURL, stored.Model, want)
	}
	if w.Model.Calls() == 0 {
		t.Fatal("the research never reached the server found")
	}
}

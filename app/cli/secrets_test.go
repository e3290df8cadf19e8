package cli

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
)

// TestAskKeepsSecrets: `ask` with a model key from --api-key or OPENAI_API_KEY and a
// search key from --search-key, against a model that refuses the key quoting it back and a
// search provider that refuses its key, prints neither key on stdout or stderr (plain and
// --json, warnings included) and writes neither to any file of the data directory (flags
// are never saved, so config.json included).
func TestAskKeepsSecrets(t *testing.T) {
	const (
		modelKey  = "sk-proj-ASKMODELKEY-91b2c3d4e5"
		searchKey = "BSA-ASKSEARCHKEY-0a9b8c7d6e"
	)
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		research := w.Research()
		return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
			if llmtest.LastUserContains(req, "refuse me") {
				return llmtest.Reply{Status: http.StatusUnauthorized,
					ErrorMessage: "Incorrect API key provided: " + modelKey + " (Authorization: Bearer " + modelKey + ")"}
			}
			return research(req, call)
		}
	})
	base := []string{"ask", "--data-dir", w.DataDir, "--base-url", w.Model.URL(), "--model", "test-model",
		"--tool-call-mode", "native", "--allow-private-network", "--search-provider", "brave", "--search-key", searchKey}
	runs := []struct {
		name     string
		env      string // OPENAI_API_KEY
		args     []string
		wantCode int
		wantOut  string // in stdout or stderr: the run did what it should
	}{
		{"refused, --api-key, plain", "", []string{"--api-key", modelKey, "refuse me"}, ExitError, "401"},
		{"refused, --api-key, --json", "", []string{"--api-key", modelKey, "--json", "refuse me"}, ExitError, "model_auth"},
		{"refused, OPENAI_API_KEY", modelKey, []string{"refuse me"}, ExitError, "401"},
		{"research with a refused search key", modelKey, []string{"--json", apptest.Question}, ExitOK,
			"brave search: the API key was refused"},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", r.env)
			var out, errb bytes.Buffer
			code := Main(context.Background(), Env{Args: append(append([]string{}, base...), r.args...), Stdout: &out, Stderr: &errb})
			all := out.String() + errb.String()
			if code != r.wantCode || !strings.Contains(all, r.wantOut) {
				t.Fatalf("exit %d (want %d), output without %q:\n%.2000s", code, r.wantCode, r.wantOut, all)
			}
			for _, secret := range []string{modelKey, searchKey, "ASKMODELKEY", "ASKSEARCHKEY"} {
				if i := strings.Index(all, secret); i >= 0 {
					t.Errorf("the output holds %q: …%s…", secret, all[max(0, i-120):min(len(all), i+40)])
				}
			}
		})
	}
	err := filepath.WalkDir(w.DataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, secret := range []string{modelKey, searchKey, "ASKMODELKEY", "ASKSEARCHKEY"} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds %q", path, secret)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

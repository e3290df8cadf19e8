package cli

import (
	"context"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
)

// TestAskEmptyModelAnswer: a model server whose stream holds no choice at all (a usage
// chunk and [DONE]) is retried, and when it never answers the run ends with an error
// naming the endpoint instead of "complete" with an empty answer.
func TestAskEmptyModelAnswer(t *testing.T) {
	t.Run("empty twice, then the research run", func(t *testing.T) {
		w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
			research := w.Research()
			return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
				if call < 2 {
					return llmtest.Reply{NoChoices: true}
				}
				return research(req, call)
			}
		})
		code, stdout, stderr := ask(context.Background(), w, "--allow-private-network", apptest.Question)
		if code != ExitOK || strings.TrimSpace(stdout) != apptest.FinalReply {
			t.Fatalf("exit %d stdout %q stderr %s", code, stdout, stderr)
		}
	})
	t.Run("always empty", func(t *testing.T) {
		w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
			return func(openai.ChatCompletionRequest, int) llmtest.Reply { return llmtest.Reply{NoChoices: true} }
		})
		code, stdout, stderr := ask(context.Background(), w, apptest.Question)
		if code != ExitError || stdout != "" {
			t.Fatalf("exit %d, stdout %q; want %d and no answer", code, stdout, ExitError)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if line := lines[len(lines)-1]; !strings.HasPrefix(line, "artifactflow: ") || !strings.Contains(line, w.Model.URL()) ||
			!strings.Contains(line, "empty answer after 3 tries") {
			t.Fatalf("stderr must end with one line naming the endpoint and the empty answer, got %q", stderr)
		}
		if typ, d := lastEvent(t, w); typ != "error" || !strings.Contains(d.Error, "empty answer") {
			t.Fatalf("last event %s %+v, want an error", typ, d)
		}
		if w.Model.Calls() != 3 {
			t.Errorf("model calls = %d, want 3 tries", w.Model.Calls())
		}
	})
}

// TestAskServerErrorEscapes: a model server's error message reaches stderr, but without
// the escape sequences it carries.
func TestAskServerErrorEscapes(t *testing.T) {
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return llmtest.Script(llmtest.Reply{Status: 401, ErrorMessage: "bad key\x1b]52;c;cm0gLXJmIH4=\x07, see \x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\\u009b2J"})
	})
	code, _, stderr := ask(context.Background(), w, apptest.Question)
	if code != ExitError {
		t.Fatalf("exit %d, want %d", code, ExitError)
	}
	if c := controlFree([]byte(stderr)); c != "" || strings.Contains(stderr, "evil.example") || strings.Contains(stderr, "cm0gLXJmIH4=") {
		t.Errorf("stderr holds an escape sequence (%s): %q", c, stderr)
	}
	if !strings.Contains(stderr, "401 Unauthorized: bad key, see docs") {
		t.Errorf("stderr lost the server's visible message: %q", stderr)
	}
}

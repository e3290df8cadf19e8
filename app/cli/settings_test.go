package cli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestRunUsesEachAgentsModel (the lead and the sub-agents call their own models in a run,
// seen in the scripted server's log): a real `ask` run with the lead and the sub-agents set
// to different models and sampling sends each agent's requests with its own model name and
// sampling, and leaves unset sampling fields out of the JSON. --sub-model then overrides
// the stored sub-agents' model for one run.
func TestRunUsesEachAgentsModel(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	if err := config.Save(w.DataDir, config.Settings{
		Lead:      config.AgentModel{Model: "lead-model", Temperature: new(0.2)},
		SubAgents: config.AgentModel{Model: "sub-model", TopP: new(0.5), MaxTokens: 300},
	}); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := ask(context.Background(), w, "--allow-private-network", apptest.Question); code != ExitOK {
		t.Fatalf("ask: exit %d: %s", code, stderr)
	}
	type sampling struct {
		Model string   `json:"model"`
		Temp  *float64 `json:"temperature"`
		TopP  *float64 `json:"top_p"`
		Max   *int     `json:"max_tokens"`
	}
	seen := map[string]int{}
	for i, b := range w.Model.Bodies() {
		var req openai.ChatCompletionRequest
		var got sampling
		if err := json.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		agent := apptest.AgentOf(req)
		seen[agent]++
		switch agent {
		case "lead_agent":
			if got.Model != "lead-model" || got.Temp == nil || *got.Temp != 0.2 || got.TopP != nil || got.Max != nil {
				t.Errorf("lead request %d: %s", i, b[:min(len(b), 200)])
			}
		case "search_agent", "crawl_agent":
			if got.Model != "sub-model" || got.Temp != nil || got.TopP == nil || *got.TopP != 0.5 || got.Max == nil || *got.Max != 300 {
				t.Errorf("%s request %d: model %q temperature %v top_p %v max_tokens %v", agent, i, got.Model, got.Temp, got.TopP, got.Max)
			}
		default:
			t.Errorf("request %d from no known agent", i)
		}
	}
	if seen["lead_agent"] == 0 || seen["search_agent"] == 0 || seen["crawl_agent"] == 0 {
		t.Fatalf("requests per agent = %v", seen)
	}

	before := w.Model.Calls()
	if code, _, stderr := ask(context.Background(), w, "--allow-private-network", "--sub-model", "flag-sub", apptest.Question); code != ExitOK {
		t.Fatalf("ask --sub-model: exit %d: %s", code, stderr)
	}
	var subModels []string
	for _, r := range w.Model.Requests()[before:] {
		if a := apptest.AgentOf(r); a == "search_agent" || a == "crawl_agent" {
			subModels = append(subModels, r.Model)
		} else if r.Model != "lead-model" {
			t.Errorf("lead request with model %q", r.Model)
		}
	}
	if len(subModels) == 0 || slices.ContainsFunc(subModels, func(m string) bool { return m != "flag-sub" }) {
		t.Fatalf("sub-agent models with --sub-model flag-sub: %v", subModels)
	}
}

// TestSearchAndModelFlags: the new flags are checked before anything runs: --search-key
// needs --search-provider, and a provider or tool-call mode that does not exist is refused
// naming the setting; --search-provider with --search-key searches there with that key.
func TestSearchAndModelFlags(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	tests := []struct {
		name   string
		extra  []string
		code   int
		stderr string
	}{
		{"key without provider", []string{"--search-key", "k"}, ExitUsage, "--search-key needs --search-provider"},
		{"unknown provider", []string{"--search-provider", "altavista"}, ExitError, `search.provider: "altavista" is not one of`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := ask(context.Background(), w, append(tc.extra, apptest.Question)...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d with %q", code, stderr, tc.code, tc.stderr)
			}
		})
	}
	if w.Model.Calls() != 0 {
		t.Fatalf("a refused command called the model %d times", w.Model.Calls())
	}
	// Brave with the key given on the command line: the stand-in answers only that key.
	code, _, stderr := ask(context.Background(), w, "--allow-private-network", "--search-provider", "brave", "--search-key", apptest.GoodBraveKey, apptest.Question)
	if code != ExitOK {
		t.Fatalf("ask with brave: exit %d: %s", code, stderr)
	}
	found := false
	for _, r := range w.Model.Requests() {
		for _, m := range r.Messages {
			if m.Role == openai.ChatMessageRoleTool && strings.Contains(m.Content, "en.wikipedia.org/wiki/Test") {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no web_search result from the Brave stand-in reached the search agent")
	}
	if s, _ := config.Load(w.DataDir); s.Search.Key("brave") != "" {
		t.Fatal("a key given as a flag was written to config.json")
	}
}

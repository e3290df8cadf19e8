package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func f64(v float64) *float64 { return &v }

// TestValidateNewFields: each bad search or agent field is refused with its name and the
// reason (issue 9: "lead.temperature: 3 is outside 0–2"); good ones pass.
func TestValidateNewFields(t *testing.T) {
	tests := []struct {
		name string
		s    Settings
		want string // "" = valid
	}{
		{"every provider", Settings{Search: SearchSettings{Provider: ProviderExa}}, ""},
		{"unknown provider", Settings{Search: SearchSettings{Provider: "google"}}, `search.provider: "google" is not one of duckduckgo, wikipedia, searxng, tavily, brave, bocha, exa`},
		{"key of a provider", Settings{Search: SearchSettings{Keys: map[string]string{"brave": "BSA-123"}}}, ""},
		{"key of no provider", Settings{Search: SearchSettings{Keys: map[string]string{"bing": "x"}}}, `search.keys: "bing" is not one of`},
		{"blank key", Settings{Search: SearchSettings{Keys: map[string]string{"tavily": "  "}}}, "search.keys.tavily: the key is empty"},
		{"key with a line break", Settings{Search: SearchSettings{Keys: map[string]string{"exa": "ab\ncd"}}}, "search.keys.exa: the key contains spaces or control characters"},
		{"wikipedia language", Settings{Search: SearchSettings{Language: "zh-yue"}}, ""},
		{"simple english", Settings{Search: SearchSettings{Language: "simple"}}, ""},
		{"bad language", Settings{Search: SearchSettings{Language: "English!"}}, `search.language: "English!" is not a Wikipedia language code`},
		{"full lead", Settings{Lead: AgentModel{Model: "gpt-4.1", ToolCallMode: "xml", ContextWindow: 128_000, Temperature: f64(0), TopP: f64(1), MaxTokens: 4096}}, ""},
		{"lead temperature", Settings{Lead: AgentModel{Temperature: f64(3)}}, "lead.temperature: 3 is outside 0–2"},
		{"negative temperature", Settings{SubAgents: AgentModel{Temperature: f64(-0.1)}}, "sub_agents.temperature: -0.1 is outside 0–2"},
		{"top_p", Settings{SubAgents: AgentModel{TopP: f64(1.5)}}, "sub_agents.top_p: 1.5 is outside 0–1"},
		{"max tokens", Settings{Lead: AgentModel{MaxTokens: -5}}, "lead.max_tokens: -5 is outside 1–10000000"},
		{"mode", Settings{SubAgents: AgentModel{ToolCallMode: "json"}}, `sub_agents.tool_call_mode: "json" is not native or xml`},
		{"window", Settings{Lead: AgentModel{ContextWindow: 512}}, "lead.context_window: 512 tokens is outside 2048–10000000"},
		{"model with spaces", Settings{Lead: AgentModel{Model: " m "}}, `lead.model: " m " has leading or trailing spaces`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want ok", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
	// Several problems at once are each reported.
	err := Settings{Lead: AgentModel{Temperature: f64(9)}, Search: SearchSettings{Provider: "x"}}.Validate()
	if err == nil || !strings.Contains(err.Error(), "lead.temperature") || !strings.Contains(err.Error(), "search.provider") {
		t.Fatalf("two problems: %v", err)
	}
}

// TestSearchProviderInEffect: an explicit provider wins; an old config with searxng_url
// and no provider keeps SearXNG; otherwise DuckDuckGo, and WithDefaults says so.
func TestSearchProviderInEffect(t *testing.T) {
	tests := []struct {
		s    Settings
		want string
	}{
		{Settings{}, ProviderDuckDuckGo},
		{Settings{SearxngURL: "http://localhost:8888"}, ProviderSearXNG},
		{Settings{SearxngURL: "http://localhost:8888", Search: SearchSettings{Provider: ProviderBrave}}, ProviderBrave},
		{Settings{Search: SearchSettings{Provider: ProviderWikipedia}}, ProviderWikipedia},
	}
	for _, tc := range tests {
		if got := tc.s.SearchProvider(); got != tc.want {
			t.Errorf("%+v: SearchProvider = %q, want %q", tc.s, got, tc.want)
		}
		if got := tc.s.WithDefaults().Search.Provider; got != tc.want {
			t.Errorf("%+v: WithDefaults provider = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestOldConfigLoadsAndSavesWhole: a config.json written before issue 9 (searxng_url, no
// search, lead or sub_agents) means SearXNG, and saving it back changes no key of it and
// adds none.
func TestOldConfigLoadsAndSavesWhole(t *testing.T) {
	dir := t.TempDir()
	onPath(t, "notify-send")
	old := `{
  "base_url": "http://localhost:11434/v1",
  "api_key": "sk-old",
  "model": "qwen3:8b",
  "tool_call_mode": "xml",
  "searxng_url": "http://localhost:8888",
  "allow_private_network": true,
  "max_upload_mb": 64,
  "models": {"qwen3:8b": {"context_window": 40960, "compact_at_percent": 70}},
  "tool_permissions": {"web_fetch": "confirm"},
  "permission_timeout_seconds": 60,
  "hooks": {"Stop": [{"name": "notify", "command": ["notify-send", "done"]}]}
}`
	path := filepath.Join(dir, ConfigFile)
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.SearchProvider() != ProviderSearXNG {
		t.Fatalf("old config with searxng_url: provider %q, want searxng", s.SearchProvider())
	}
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	var before, after map[string]any
	if err := json.Unmarshal([]byte(old), &before); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &after); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("saving an old config changed it:\nbefore %v\nafter  %v", before, after)
	}
}

// TestNewFieldsRoundTrip: every new field survives Save and Load, a 0 temperature
// included (it is set, not empty).
func TestNewFieldsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := Settings{Model: "deepseek-chat",
		Search:    SearchSettings{Provider: ProviderBrave, Keys: map[string]string{"brave": "BSA-1", "tavily": "tvly-2"}, Language: "de"},
		Lead:      AgentModel{Model: "deepseek-reasoner", ToolCallMode: "xml", ContextWindow: 64_000, Temperature: f64(0), TopP: f64(0.9), MaxTokens: 8000},
		SubAgents: AgentModel{Model: "qwen3:8b", Temperature: f64(0.3)},
	}
	if err := Save(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
}

func TestMergeNewFields(t *testing.T) {
	file := Settings{Model: "m", SearxngURL: "http://localhost:8888",
		Search: SearchSettings{Provider: ProviderTavily, Keys: map[string]string{"tavily": "t-file", "brave": "b-file"}, Language: "en"},
		Lead:   AgentModel{Model: "big", Temperature: f64(0.2), MaxTokens: 100}}
	got := file.Merge(Settings{Search: SearchSettings{Keys: map[string]string{"brave": "b-flag"}},
		Lead: AgentModel{Temperature: f64(0)}, SubAgents: AgentModel{Model: "small"}})
	if got.Search.Provider != ProviderTavily || got.Search.Key("tavily") != "t-file" || got.Search.Key("brave") != "b-flag" || got.Search.Language != "en" {
		t.Fatalf("search after merge = %+v keys %v", got.Search, got.Search.Keys)
	}
	if file.Search.Key("brave") != "b-file" {
		t.Fatal("Merge changed the settings it was called on")
	}
	if got.Lead.Model != "big" || *got.Lead.Temperature != 0 || got.Lead.MaxTokens != 100 || got.SubAgents.Model != "small" {
		t.Fatalf("agents after merge = %+v / %+v", got.Lead, got.SubAgents)
	}
	// --searxng-url alone means: search there.
	if p := file.Merge(Settings{SearxngURL: "http://other:8888"}).SearchProvider(); p != ProviderSearXNG {
		t.Fatalf("--searxng-url: provider %q", p)
	}
	if p := file.Merge(Settings{SearxngURL: "http://other:8888", Search: SearchSettings{Provider: ProviderExa}}).SearchProvider(); p != ProviderExa {
		t.Fatalf("--searxng-url with --search-provider exa: provider %q", p)
	}
}

// TestAgentInheritance: empty fields of Lead and SubAgents inherit the top-level model,
// mode and that model's context; set ones win.
func TestAgentInheritance(t *testing.T) {
	s := Settings{Model: "gpt-4.1", ToolCallMode: "native", CompactAtPercent: 75}.
		WithModelContext("qwen3:8b", ModelContext{ContextWindow: 40_960, CompactAtPercent: 60}).
		WithModelContext("gpt-4.1", ModelContext{ContextWindow: 100_000})
	tests := []struct {
		name string
		a    AgentModel
		want AgentChoice
	}{
		{"empty inherits all", AgentModel{}, AgentChoice{Model: "gpt-4.1", ToolCallMode: "native", ContextWindow: 100_000, CompactAtPercent: 75}},
		{"own model brings its context", AgentModel{Model: "qwen3:8b", ToolCallMode: "xml"},
			AgentChoice{Model: "qwen3:8b", ToolCallMode: "xml", ContextWindow: 40_960, CompactAtPercent: 60}},
		{"own window and sampling", AgentModel{ContextWindow: 8192, Temperature: f64(0.1), TopP: f64(0.5), MaxTokens: 10},
			AgentChoice{Model: "gpt-4.1", ToolCallMode: "native", ContextWindow: 8192, CompactAtPercent: 75, Temperature: f64(0.1), TopP: f64(0.5), MaxTokens: 10}},
		{"unknown model: window by name", AgentModel{Model: "llama3"}, AgentChoice{Model: "llama3", ToolCallMode: "native", ContextWindow: 0, CompactAtPercent: 75}},
	}
	for _, tc := range tests {
		if got := s.Agent(tc.a); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Agent = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestSearchKeysNeverPrinted: printing or logging settings shows which providers have a
// key, never the key.
func TestSearchKeysNeverPrinted(t *testing.T) {
	s := Settings{Search: SearchSettings{Provider: ProviderBrave, Keys: map[string]string{"brave": "BSA-SECRET-77"}}}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("settings", "search", s.Search)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("settings", "search", s.Search)
	for _, out := range []string{fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprint(s.Search), logs.String()} {
		if strings.Contains(out, "BSA-SECRET-77") {
			t.Fatalf("a key was printed: %s", out)
		}
		if !strings.Contains(out, "brave") {
			t.Fatalf("the output does not say which provider has a key: %s", out)
		}
	}
	if got := s.Search.WithKey("brave", "").Keys; got != nil {
		t.Fatalf("removing the only key left %v", got)
	}
}

// TestAgentEndpoint: an agent's own base URL and key win; without its own key an agent
// gets the top-level key only on the top-level endpoint's origin (a key never goes to a
// server it was not given for); without its own base URL it uses the top-level one.
func TestAgentEndpoint(t *testing.T) {
	s := Settings{BaseURL: "https://api.example.com/v1", APIKey: "sk-top"}
	tests := []struct {
		name             string
		a                AgentModel
		wantURL, wantKey string
	}{
		{"nothing of its own", AgentModel{}, "https://api.example.com/v1", "sk-top"},
		{"own key on the top-level endpoint", AgentModel{APIKey: "sk-agent"}, "https://api.example.com/v1", "sk-agent"},
		{"own endpoint and key", AgentModel{BaseURL: "http://127.0.0.1:11434/v1", APIKey: "k2"}, "http://127.0.0.1:11434/v1", "k2"},
		{"own endpoint elsewhere, no key: none sent", AgentModel{BaseURL: "http://127.0.0.1:11434/v1"}, "http://127.0.0.1:11434/v1", ""},
		{"own endpoint on the same origin: the top-level key", AgentModel{BaseURL: "https://API.example.com:443/other/"}, "https://API.example.com:443/other/", "sk-top"},
		{"same host, other scheme: none sent", AgentModel{BaseURL: "http://api.example.com/v1"}, "http://api.example.com/v1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, k := s.AgentEndpoint(tc.a)
			if u != tc.wantURL || k != tc.wantKey {
				t.Errorf("AgentEndpoint(%+v) = %q, %q; want %q, %q", tc.a, u, k, tc.wantURL, tc.wantKey)
			}
			if c := s.Agent(tc.a); c.BaseURL != tc.wantURL || c.APIKey != tc.wantKey {
				t.Errorf("Agent(%+v) endpoint = %q, %q; want %q, %q", tc.a, c.BaseURL, c.APIKey, tc.wantURL, tc.wantKey)
			}
		})
	}
}

// TestValidateAgentEndpoint: an agent's base URL must be an http(s) URL, named by its field.
func TestValidateAgentEndpoint(t *testing.T) {
	err := Settings{SubAgents: AgentModel{BaseURL: "localhost:11434"}, Lead: AgentModel{APIKey: "sk x\n"}}.Validate()
	if err == nil || !strings.Contains(err.Error(), "sub_agents.base_url: must be an absolute http(s) URL") ||
		!strings.Contains(err.Error(), "lead.api_key: has leading or trailing spaces") {
		t.Fatalf("Validate = %v", err)
	}
	if strings.Contains(err.Error(), "sk x") {
		t.Fatalf("the error quotes the key: %v", err)
	}
}

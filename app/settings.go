package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"artifactflow/app/internal/text"
	"artifactflow/backend/config"
	"artifactflow/backend/llm"
	"artifactflow/backend/web"
)

// SettingsService reads and saves the settings.
type SettingsService struct{ core *Core }

// Get returns the effective settings; the API key itself is never returned.
func (s *SettingsService) Get() (SettingsView, error) {
	return s.core.settingsView(), nil
}

// Save validates in and writes config.json (mode 0600). An empty APIKey keeps the stored
// key unless ClearAPIKey is set. ContextWindow and CompactAtPercent are stored for in.Model
// alone (issue 4: a threshold per model; with no model, for every model without its own);
// other models keep theirs. in.Search, in.Lead, in.SubAgents, in.ModelIdleTimeoutSeconds,
// in.MaxAnswerMB and in.MaxParallelToolCalls replace the stored ones (search keys: see SearchInput); left out
// (nil), they are kept. What the dialog does not
// edit (hooks, other models' context) is kept as stored. Errors wrap config.ErrInvalid and
// name the field ("lead.temperature: 3 is outside 0–2"). A field that a command-line flag or
// OPENAI_API_KEY sets this session (SettingsView.SetBy) keeps its stored value whatever in
// says (issue 10, item 6); every other saved value is used from the next run on.
func (s *SettingsService) Save(in SettingsInput) (SettingsView, error) {
	c := s.core
	c.mu.Lock()
	next := c.settings // hooks are edited in config.json; the dialog keeps them
	next.BaseURL, next.Model, next.ToolCallMode = strings.TrimSpace(in.BaseURL), strings.TrimSpace(in.Model), in.ToolCallMode
	next.SearxngURL, next.AllowPrivateNetwork = strings.TrimSpace(in.SearxngURL), in.AllowPrivateNetwork
	next.MaxUploadMB, next.ToolPermissions, next.PermissionTimeoutSeconds = in.MaxUploadMB, in.ToolPermissions, in.PermissionTimeoutSeconds
	if in.Search != nil {
		next.Search = applySearch(next.Search, *in.Search)
	}
	if in.Lead != nil {
		next.Lead = in.Lead.config()
	}
	if in.SubAgents != nil {
		next.SubAgents = in.SubAgents.config()
	}
	if next.Model != "" {
		next = next.WithModelContext(next.Model, config.ModelContext{ContextWindow: in.ContextWindow, CompactAtPercent: in.CompactAtPercent})
	} else { // no model chosen yet: the values apply to every model without its own
		next.ContextWindow, next.CompactAtPercent = in.ContextWindow, in.CompactAtPercent
	}
	if in.ToolPermissions == nil {
		next.ToolPermissions = c.settings.ToolPermissions // a form without the field keeps them
	}
	if key := strings.TrimSpace(in.APIKey); key != "" {
		next.APIKey = key
	} else if in.ClearAPIKey {
		next.APIKey = ""
	}
	next.LoadRemoteImages = in.LoadRemoteImages
	if in.ModelIdleTimeoutSeconds != nil {
		next.ModelIdleTimeoutSeconds = *in.ModelIdleTimeoutSeconds
	}
	if in.MaxAnswerMB != nil {
		next.MaxAnswerMB = *in.MaxAnswerMB
	}
	if in.MaxParallelToolCalls != nil {
		next.MaxParallelToolCalls = *in.MaxParallelToolCalls
	}
	next = keepOverridden(next, c.settings, c.overrideSources()) // issue 10, item 6: flag values are never saved
	c.mu.Unlock()
	if err := config.Save(c.dataDir, next); err != nil {
		return SettingsView{}, err
	}
	c.mu.Lock()
	c.settings = next
	c.mu.Unlock()
	return c.settingsView(), nil
}

// SetLanguage stores the UI language chosen in Settings ("" = follow the system, "en" or
// "zh-CN"; issue 10, item 1) in config.json, leaving every other setting as stored. The
// window switches its language at once and calls this so the choice survives a new
// profile (browser mode) and the agents know it: the lead answers in it when a question's
// own language is unclear. Another value is invalid_settings naming the language field.
func (s *SettingsService) SetLanguage(lang string) (SettingsView, error) {
	c := s.core
	c.mu.Lock()
	next := c.settings
	next.Language = lang
	c.mu.Unlock()
	if err := config.Save(c.dataDir, next); err != nil {
		return SettingsView{}, fmt.Errorf("settings: save language: %w", err)
	}
	c.mu.Lock()
	c.settings.Language = lang
	c.mu.Unlock()
	return c.settingsView(), nil
}

// ModelContext returns the context settings that apply to model, which need not be the
// chosen one: the settings dialog shows them while the user types another model's name.
func (s *SettingsService) ModelContext(model string) (ModelContextView, error) {
	return modelContextView(s.core.Settings(), model), nil
}

// Bounds of the settings dialog's checks (issue 9, item 7: "a timeout").
const (
	// listModelsTimeout bounds SettingsService.ListModels.
	listModelsTimeout = 15 * time.Second
	// testConnectionTimeout bounds the first byte of SettingsService.TestConnection's call
	// (a local model may need a while to load) and each later silence.
	testConnectionTimeout = 60 * time.Second
	// testSearchTimeout bounds SettingsService.TestSearch (one search, with at most one
	// retry after a 429).
	testSearchTimeout = 45 * time.Second
)

// EndpointPreset is a well-known OpenAI-compatible endpoint the dialog offers (issue 9,
// item 7; the README's table): a display name, the base URL it fills in, an example model
// name, and whether the endpoint needs an API key (local servers do not).
type EndpointPreset struct {
	Name         string `json:"name"`
	BaseURL      string `json:"base_url"`
	ExampleModel string `json:"example_model"`
	NeedsKey     bool   `json:"needs_key"`
}

// presets are the endpoints of the README's "Using it" table, in its order.
var presets = []EndpointPreset{
	{Name: "OpenAI", BaseURL: "https://api.openai.com/v1", ExampleModel: "gpt-4.1-mini", NeedsKey: true},
	{Name: "DeepSeek", BaseURL: "https://api.deepseek.com/v1", ExampleModel: "deepseek-chat", NeedsKey: true},
	{Name: "Qwen (DashScope)", BaseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1", ExampleModel: "qwen-plus", NeedsKey: true},
	{Name: "Ollama", BaseURL: "http://localhost:11434/v1", ExampleModel: "qwen3:8b"},
	{Name: "LM Studio", BaseURL: "http://localhost:1234/v1", ExampleModel: "the loaded model"},
	{Name: "vLLM", BaseURL: "http://localhost:8000/v1", ExampleModel: "the served model"},
}

// Presets returns the endpoint presets: OpenAI, DeepSeek, Qwen (DashScope), Ollama, LM
// Studio and vLLM, each with its base URL and an example model.
func (s *SettingsService) Presets() []EndpointPreset { return slices.Clone(presets) }

// ModelInfo is one model an endpoint lists (GET {base}/models): its id and owner.
type ModelInfo struct {
	ID      string `json:"id"`
	OwnedBy string `json:"owned_by"`
}

// ListModels returns the models the endpoint at baseURL offers (GET {baseURL}/models),
// sorted by id, for the dialog's model field (issue 9: "the model field offers the
// endpoint's /v1/models list"). baseURL "" means the stored one. apiKey "" means the
// stored key, sent only to the stored base URL's origin (scheme, host and port) and never
// when noStoredKey is set (the dialog's "Remove the stored key" is ticked); elsewhere no
// key is sent, and a 401 or 403 says so ("no key sent: the stored key belongs to
// api.openai.com"). The call gives up after 15 s. Errors name the endpoint and say what went
// wrong (llm.ListModels): "llm: GET http://localhost:11434/v1/models: network error: dial
// tcp 127.0.0.1:11434: connect: connection refused", a 401 with the server's message, a
// timeout, or "not a model list" for a base URL that is not an API root.
func (s *SettingsService) ListModels(baseURL, apiKey string, noStoredKey bool) ([]ModelInfo, error) {
	baseURL, apiKey, withheld := s.core.endpoint(baseURL, apiKey, noStoredKey)
	ctx, cancel := context.WithTimeout(context.Background(), listModelsTimeout)
	defer cancel()
	ms, err := llm.ListModels(ctx, llm.Config{BaseURL: baseURL, APIKey: apiKey, FirstByteTimeout: listModelsTimeout})
	if err != nil {
		return nil, withheldNote(err, withheld)
	}
	out := make([]ModelInfo, len(ms))
	for i, m := range ms {
		out[i] = ModelInfo{ID: m.ID, OwnedBy: m.OwnedBy}
	}
	return out, nil
}

// ConnectionResult is the outcome of SettingsService.TestConnection: OK with the call's
// latency in milliseconds (request sent to answer complete), or Error, the exact error (an
// HTTP status with the server's message, a DNS or connection failure, a timeout). Endpoint
// and Model say what was tried.
type ConnectionResult struct {
	OK        bool   `json:"ok"`
	LatencyMS int64  `json:"latency_ms"`
	Error     string `json:"error,omitempty"`
	Endpoint  string `json:"endpoint"`
	Model     string `json:"model"`
}

// TestConnection makes one streamed call with max_tokens 1 to the endpoint and model
// (issue 9: "Test connection makes a one-token call and reports latency or the exact
// error"), tried once. Empty arguments mean the stored base URL, key and model; the stored
// key goes only to the stored base URL's origin and never when noStoredKey is set, as for
// ListModels (a 401 or 403 then says that no key was sent). A failed call is a result with
// OK false, not an error.
func (s *SettingsService) TestConnection(baseURL, apiKey, model string, noStoredKey bool) ConnectionResult {
	baseURL, apiKey, withheld := s.core.endpoint(baseURL, apiKey, noStoredKey)
	if model = strings.TrimSpace(model); model == "" {
		model = s.core.Settings().Model
	}
	res := ConnectionResult{Endpoint: llm.EndpointOf(baseURL), Model: model}
	if model == "" {
		res.Error = "no model: enter the model name first"
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*testConnectionTimeout)
	defer cancel()
	d, err := llm.TestConnection(ctx, llm.Config{BaseURL: baseURL, APIKey: apiKey, Model: model, Logger: s.core.log,
		FirstByteTimeout: testConnectionTimeout, IdleTimeout: testConnectionTimeout})
	if err != nil {
		res.Error = text.OneLine(withheldNote(err, withheld))
		return res
	}
	res.OK, res.LatencyMS = true, max(d.Milliseconds(), 1)
	return res
}

// SearchTestResult is the outcome of SettingsService.TestSearch: OK with the number of
// results and the latency in milliseconds, or Error, the provider-named error ("brave
// search: API key refused: …", "web search is not configured: … needs an API key …").
type SearchTestResult struct {
	OK        bool   `json:"ok"`
	Provider  string `json:"provider"`
	Results   int    `json:"results"`
	LatencyMS int64  `json:"latency_ms"`
	Error     string `json:"error,omitempty"`
}

// TestSearch runs one search for "test" through provider (issue 9: "a Test button per
// provider"): with apiKey, or the provider's stored key when apiKey is ""; for SearXNG
// with baseURL, or the stored SearXNG URL when baseURL is "" (baseURL is ignored for other
// providers). provider "" means the provider in effect. A failed search is a result with OK
// false, not an error.
func (s *SettingsService) TestSearch(provider, apiKey, baseURL string) SearchTestResult {
	st := s.core.Settings()
	if provider = strings.ToLower(strings.TrimSpace(provider)); provider == "" {
		provider = st.SearchProvider()
	}
	res := SearchTestResult{Provider: provider}
	if provider != config.ProviderSearXNG {
		baseURL = ""
	}
	searcher, err := s.core.newSearcher(st, provider, strings.TrimSpace(apiKey), strings.TrimSpace(baseURL))
	if err != nil {
		res.Error = text.OneLine(err)
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), testSearchTimeout)
	defer cancel()
	start := time.Now()
	results, err := searcher.Search(ctx, "test", web.DefaultSearchCount)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%s search: no answer within %s: %w", provider, testSearchTimeout, err)
		}
		res.Error = text.OneLine(err)
		return res
	}
	res.OK, res.Results, res.LatencyMS = true, len(results), max(time.Since(start).Milliseconds(), 1)
	return res
}

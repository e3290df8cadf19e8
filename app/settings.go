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
	"artifactflow/backend/localserver"
	"artifactflow/backend/web"
)

// SettingsService reads and saves the settings.
type SettingsService struct{ core *Core }

// Get returns the effective settings as config.json holds them now (another process's
// save or the user's hand edit shows at once; flags still override), with the revision
// that Save's input names; the API key itself is never returned. Errors: a config.json
// changed by hand so that it cannot be read (config.ErrBadFile, settings_file_invalid,
// naming the file and the problem).
func (s *SettingsService) Get() (SettingsView, error) {
	return s.core.settingsView()
}

// Save writes the dialog's changes to config.json (mode 0600): only the fields in changes
// differs from what the dialog was shown, the settings of in.Revision (SettingsView.Revision;
// "" or a revision this process no longer remembers: config.json as it is now), over the
// file as it is now, under its lock across processes (applyDialog, config.Update). So a
// field another process saved meanwhile, or the user edited by hand (hooks, a removed
// hook, keys this version does not know), is kept unless the user changed that field
// here. An empty APIKey keeps the stored key unless ClearAPIKey is set. ContextWindow and
// CompactAtPercent are the typed model's (a threshold per model; with no model, every
// model's without its own); other models keep theirs. in.Search, in.Lead, in.SubAgents,
// in.ToolPermissions, in.ModelIdleTimeoutSeconds, in.MaxAnswerMB and
// in.MaxParallelToolCalls left out (nil) change nothing (search keys: see SearchInput).
// Errors wrap config.ErrInvalid and name the field ("lead.temperature: 3 is outside 0–2"),
// or are config.ErrBadFile for a config.json that cannot be read (it is not replaced). A
// field that a command-line flag or OPENAI_API_KEY sets this session (SettingsView.SetBy)
// keeps its stored value whatever in says, so a flag's value is never saved; every other
// saved value is used from the next run on.
func (s *SettingsService) Save(in SettingsInput) (SettingsView, error) {
	c := s.core
	src := c.overrideSources()
	base, known := c.settingsAt(in.Revision)
	err := c.updateSettings(func(cur config.Settings) (config.Settings, error) {
		if !known {
			base = cur
		}
		return applyDialog(cur, c.effective(base), in, src), nil
	})
	if err != nil {
		return SettingsView{}, err
	}
	return c.settingsView()
}

// SetLanguage stores the UI language chosen in Settings ("" = follow the system, "en" or
// "zh-CN") in config.json, changing nothing else there (the file as it is now, under its
// lock: config.Update). The window switches its language at once and calls this so the
// choice survives a new profile (browser mode) and the agents know it: the lead answers in
// it when a question's own language is unclear. Another value is invalid_settings naming
// the language field.
func (s *SettingsService) SetLanguage(lang string) (SettingsView, error) {
	c := s.core
	err := c.updateSettings(func(cur config.Settings) (config.Settings, error) {
		cur.Language = lang
		return cur, nil
	})
	if err != nil {
		return SettingsView{}, fmt.Errorf("settings: save language: %w", err)
	}
	return c.settingsView()
}

// ModelContext returns the context settings that apply to model, which need not be the
// chosen one: the settings dialog shows them while the user types another model's name.
func (s *SettingsService) ModelContext(model string) (ModelContextView, error) {
	return modelContextView(s.core.Settings(), model), nil
}

// Bounds of the settings dialog's checks: each has a timeout.
const (
	// listModelsTimeout bounds SettingsService.ListModels.
	listModelsTimeout = 15 * time.Second
	// testConnectionTimeout bounds the first byte of SettingsService.TestConnection's call
	// (a local model may need a while to load) and each later silence.
	testConnectionTimeout = 60 * time.Second
	// testSearchTimeout bounds SettingsService.TestSearch (one search, with at most one
	// retry after a 429).
	testSearchTimeout = 45 * time.Second
	// findLocalServersTimeout bounds SettingsService.FindLocalServers as a whole (each
	// probe has its own 300 ms; Ollama's may take two).
	findLocalServersTimeout = 2 * time.Second
)

// EndpointPreset is a well-known OpenAI-compatible endpoint the dialog offers (the README's
// table): a display name, the base URL it fills in, an example model name, and whether the
// endpoint needs an API key (local servers do not).
type EndpointPreset struct {
	Name         string `json:"name"`
	BaseURL      string `json:"base_url"`
	ExampleModel string `json:"example_model"`
	NeedsKey     bool   `json:"needs_key"`
}

// presets are the endpoints of the README's "Using it" table, in its order: hosted APIs
// through their OpenAI-compatible endpoints (each base URL as the provider's own
// documentation gives it, without a trailing slash: the client adds "/chat/completions"),
// then local servers on their usual ports (the ones FindLocalServers probes).
var presets = []EndpointPreset{
	{Name: "OpenAI", BaseURL: "https://api.openai.com/v1", ExampleModel: "gpt-4.1-mini", NeedsKey: true},
	{Name: "DeepSeek", BaseURL: "https://api.deepseek.com/v1", ExampleModel: "deepseek-chat", NeedsKey: true},
	{Name: "Qwen (DashScope)", BaseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1", ExampleModel: "qwen-plus", NeedsKey: true},
	{Name: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", ExampleModel: "openai/gpt-4.1-mini", NeedsKey: true},
	{Name: "SiliconFlow", BaseURL: "https://api.siliconflow.cn/v1", ExampleModel: "Qwen/Qwen3-8B", NeedsKey: true},
	{Name: "SiliconFlow (international)", BaseURL: "https://api.siliconflow.com/v1", ExampleModel: "Qwen/Qwen3-8B", NeedsKey: true},
	{Name: "Moonshot (Kimi)", BaseURL: "https://api.moonshot.cn/v1", ExampleModel: "kimi-k2.5", NeedsKey: true},
	{Name: "Moonshot (Kimi, international)", BaseURL: "https://api.moonshot.ai/v1", ExampleModel: "kimi-k2.5", NeedsKey: true},
	{Name: "Zhipu (GLM)", BaseURL: "https://open.bigmodel.cn/api/paas/v4", ExampleModel: "glm-4.7", NeedsKey: true},
	{Name: "Z.ai (GLM, international)", BaseURL: "https://api.z.ai/api/paas/v4", ExampleModel: "glm-4.7", NeedsKey: true},
	{Name: "Groq", BaseURL: "https://api.groq.com/openai/v1", ExampleModel: "llama-3.3-70b-versatile", NeedsKey: true},
	{Name: "Together AI", BaseURL: "https://api.together.ai/v1", ExampleModel: "openai/gpt-oss-20b", NeedsKey: true},
	{Name: "Google Gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", ExampleModel: "gemini-2.5-flash", NeedsKey: true},
	{Name: "Anthropic", BaseURL: "https://api.anthropic.com/v1", ExampleModel: "claude-sonnet-4-5", NeedsKey: true},
	{Name: "Ollama", BaseURL: "http://localhost:11434/v1", ExampleModel: "qwen3:8b"},
	{Name: "LM Studio", BaseURL: "http://localhost:1234/v1", ExampleModel: "the loaded model"},
	{Name: "llama.cpp", BaseURL: "http://localhost:8080/v1", ExampleModel: "the loaded model"},
	{Name: "vLLM", BaseURL: "http://localhost:8000/v1", ExampleModel: "the served model"},
}

// Presets returns the endpoint presets, each with its base URL, an example model and
// whether it needs a key: OpenAI, DeepSeek, Qwen (DashScope), OpenRouter, SiliconFlow,
// Moonshot (Kimi), Zhipu (GLM) and Z.ai, Groq, Together AI, Google Gemini and Anthropic
// (their OpenAI-compatible endpoints), then Ollama, LM Studio, llama.cpp and vLLM.
func (s *SettingsService) Presets() []EndpointPreset { return slices.Clone(presets) }

// LocalServer is a model server found on this computer (FindLocalServers): its name
// ("Ollama", "LM Studio", "llama.cpp", "vLLM"), the base URL to use
// ("http://127.0.0.1:11434/v1") and the ids of the models it lists, sorted (empty when it
// has none loaded).
type LocalServer struct {
	Name    string   `json:"name"`
	BaseURL string   `json:"base_url"`
	Models  []string `json:"models"`
}

// localServers are the servers FindLocalServers looks for (localserver.Candidates in the
// app); tests set stand-ins (SetLocalServerCandidates) so that none probes the real ports.
var localServers = localserver.Candidates()

// SetLocalServerCandidates replaces the servers FindLocalServers looks for (name, port on
// 127.0.0.1, whether it is Ollama): the tests of the settings dialog point it at stand-in
// servers, or at none. It must not be called while a Core runs.
func SetLocalServerCandidates(c []localserver.Candidate) { localServers = slices.Clone(c) }

// FindLocalServers looks for model servers on this computer, for the dialog's "Find local
// servers" and the first launch (no model set): Ollama on port 11434, LM Studio 1234,
// llama.cpp 8080 and vLLM 8000, on 127.0.0.1 only, never another address. Each is asked
// GET /v1/models (Ollama also GET /api/tags when that fails), all at once, each request
// given 300 ms; the ones that answer with a model list come back in that order, with their
// models (localserver.Find). A server that is not running, answers something else or is
// too slow is left out; none found is an empty list, never an error. No key is sent.
func (s *SettingsService) FindLocalServers() []LocalServer {
	ctx, cancel := context.WithTimeout(context.Background(), findLocalServersTimeout)
	defer cancel()
	found := localserver.Find(ctx, localServers, localserver.DefaultTimeout)
	out := make([]LocalServer, len(found))
	for i, f := range found {
		out[i] = LocalServer{Name: f.Name, BaseURL: f.BaseURL, Models: f.Models}
	}
	return out
}

// ModelInfo is one model an endpoint lists (GET {base}/models): its id and owner.
type ModelInfo struct {
	ID      string `json:"id"`
	OwnedBy string `json:"owned_by"`
}

// ListModels returns the models the endpoint at baseURL offers (GET {baseURL}/models),
// sorted by id, for the dialog's model field, which offers the endpoint's /v1/models list.
// baseURL "" means the stored one. apiKey "" means the stored key, sent only to the stored
// base URL's origin (scheme, host and port) and never when noStoredKey is set (the dialog's
// "Remove the stored key" is ticked); elsewhere no key is sent, and a 401 or 403 says so
// ("no key sent: the stored key belongs to api.openai.com"). The call gives up after 15 s.
// Errors name the endpoint and say what went wrong (llm.ListModels): "llm: GET
// http://localhost:11434/v1/models: network error: dial tcp 127.0.0.1:11434: connect:
// connection refused", a 401 with the server's message, a timeout, or "not a model list"
// for a base URL that is not an API root. For a refused key or a network failure the
// error carries its Trouble, which becomes the AppError's Fields ("reason": its kind,
// "host", "server", "status"; see troubleError) for the dialog's words.
func (s *SettingsService) ListModels(baseURL, apiKey string, noStoredKey bool) ([]ModelInfo, error) {
	baseURL, apiKey, withheld := s.core.endpoint(baseURL, apiKey, noStoredKey)
	ctx, cancel := context.WithTimeout(context.Background(), listModelsTimeout)
	defer cancel()
	ms, err := llm.ListModels(ctx, llm.Config{BaseURL: baseURL, APIKey: apiKey, FirstByteTimeout: listModelsTimeout,
		HTTPClient: proxyClient(s.core.Settings(), 0)})
	if err != nil {
		err = withheldNote(err, withheld)
		if t := modelTrouble(err, baseURL); t.Kind != "" {
			err = &troubleError{err: err, t: t}
		}
		return nil, err
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
	// Trouble says what kind of failure Error is (a refused key, a server not running, no
	// network), for the dialog's words; empty when OK or when no kind fits.
	Trouble
}

// TestConnection makes one streamed call with max_tokens 1 to the endpoint and model and
// reports the latency or the exact error, tried once. Empty arguments mean the stored base
// URL, key and model; the stored key goes only to the stored base URL's origin and never
// when noStoredKey is set, as for ListModels (a 401 or 403 then says that no key was sent).
// A failed call is a result with OK false, not an error.
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
		HTTPClient:       proxyClient(s.core.Settings(), 0),
		FirstByteTimeout: testConnectionTimeout, IdleTimeout: testConnectionTimeout})
	if err != nil {
		res.Error = text.OneLine(withheldNote(err, withheld))
		res.Trouble = modelTrouble(err, baseURL)
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
	// Trouble says what kind of failure Error is (offline, a refused key, a server not
	// running …), for the dialog's words; empty when OK or when no kind fits.
	Trouble
}

// TestSearch runs one search for "test" through provider (the dialog's Test button per
// provider): with apiKey, or the provider's stored key when apiKey is ""; for SearXNG with
// baseURL, or the stored SearXNG URL when baseURL is "" (baseURL is ignored for other
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
		res.Trouble = searchTrouble(err)
		return res
	}
	res.OK, res.Results, res.LatencyMS = true, len(results), max(time.Since(start).Milliseconds(), 1)
	return res
}

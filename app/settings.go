package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/llm"
	"artifactflow/backend/web"
)

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

// SearchView is the stored search choice as the dialog shows it: Provider is the provider
// in effect (config.Settings.SearchProvider), KeysStored the ids of the providers with a
// stored key (the keys themselves never leave the backend), Language Wikipedia's language
// ("" = from the question's script).
type SearchView struct {
	Provider   string   `json:"provider"`
	KeysStored []string `json:"keys_stored"`
	Language   string   `json:"language"`
}

// SearchProviderView describes one search provider for the dialog (web.Providers): its id
// and display name, whether it needs an API key or a server URL, where to get a key (or
// how to run the server), and whether a key is stored for it.
type SearchProviderView struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	NeedsKey  bool   `json:"needs_key"`
	NeedsURL  bool   `json:"needs_url"`
	KeyURL    string `json:"key_url"`
	KeyStored bool   `json:"key_stored"`
}

// SearchInput is the search part of SettingsInput. Provider is a provider id ("" = the
// default, DuckDuckGo, or SearXNG when a SearXNG URL is set). Keys holds keys typed in the
// dialog by provider id: an empty or missing key keeps the stored one. ClearKeys lists
// providers whose stored key is removed (a key typed in Keys for the same provider wins).
// Language is Wikipedia's language ("" = from the question's script). The SearXNG URL is
// SettingsInput.SearxngURL.
type SearchInput struct {
	Provider  string            `json:"provider"`
	Keys      map[string]string `json:"keys,omitempty"`
	ClearKeys []string          `json:"clear_keys,omitempty"`
	Language  string            `json:"language"`
}

// AgentModelSettings is the model of one kind of agent (config.AgentModel; issue 9, item
// 7): the lead, or the sub-agents (search and crawl). Empty fields inherit: Model "" and
// ToolCallMode "" the model and mode above, ContextWindow 0 that model's context window
// (tokens); Temperature (0–2), TopP (0–1) and MaxTokens (tokens per answer, 0 = unset) are
// sent to the model only when set (null / 0 = not sent).
type AgentModelSettings struct {
	Model         string   `json:"model"`
	ToolCallMode  string   `json:"tool_call_mode"`
	ContextWindow int      `json:"context_window"`
	Temperature   *float64 `json:"temperature"`
	TopP          *float64 `json:"top_p"`
	MaxTokens     int      `json:"max_tokens"`
}

func agentSettingsOf(a config.AgentModel) AgentModelSettings {
	return AgentModelSettings{Model: a.Model, ToolCallMode: a.ToolCallMode, ContextWindow: a.ContextWindow,
		Temperature: a.Temperature, TopP: a.TopP, MaxTokens: a.MaxTokens}
}

func (a AgentModelSettings) config() config.AgentModel {
	return config.AgentModel{Model: strings.TrimSpace(a.Model), ToolCallMode: a.ToolCallMode, ContextWindow: a.ContextWindow,
		Temperature: a.Temperature, TopP: a.TopP, MaxTokens: a.MaxTokens}
}

// applySearch lays the dialog's search input over the stored search settings: provider
// and language replaced, keys cleared then typed keys stored (empty ones keep the stored
// key).
func applySearch(s config.SearchSettings, in SearchInput) config.SearchSettings {
	s.Provider = strings.ToLower(strings.TrimSpace(in.Provider))
	s.Language = strings.TrimSpace(in.Language)
	for _, id := range in.ClearKeys {
		s = s.WithKey(id, "")
	}
	ids := make([]string, 0, len(in.Keys))
	for id := range in.Keys {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if key := strings.TrimSpace(in.Keys[id]); key != "" {
			s = s.WithKey(id, key)
		}
	}
	return s
}

// searchView is the search part of the settings view for the effective settings s.
func (c *Core) searchView(s config.Settings, v *SettingsView) {
	v.Search = SearchView{Provider: s.SearchProvider(), KeysStored: s.Search.StoredKeys(), Language: s.Search.Language}
	for _, p := range web.Providers() {
		v.SearchProviders = append(v.SearchProviders, SearchProviderView{ID: p.ID, Name: p.Name, NeedsKey: p.NeedsKey,
			NeedsURL: p.NeedsURL, KeyURL: p.KeyURL, KeyStored: s.Search.Key(p.ID) != ""})
	}
	if _, err := c.newSearcher(s, s.SearchProvider(), "", ""); err != nil {
		v.SearchProblem = err.Error()
	} else {
		v.SearchReady = true
	}
}

// newSearcher builds the searcher of provider from the effective settings s; key and
// baseURL, when not empty, stand in for the stored key and SearXNG URL (the dialog's
// Test button with what the user typed). Errors are web.NewSearcher's: ErrNotConfigured
// (the message says what is missing and where to set it), ErrUnknownProvider, ErrBadURL.
func (c *Core) newSearcher(s config.Settings, provider, key, baseURL string) (web.Searcher, error) {
	if key == "" {
		key = s.Search.Key(provider)
	}
	if baseURL == "" {
		if provider == config.ProviderSearXNG {
			baseURL = s.SearxngURL
		} else {
			baseURL = searchEndpoints[provider] // tests only: a local stand-in for the API
		}
	}
	return web.NewSearcher(web.SearchConfig{Provider: provider, APIKey: key, BaseURL: baseURL, Language: s.Search.Language,
		Client: &http.Client{Timeout: searchTimeout}})
}

// searchEndpoints replaces search providers' API endpoints, by provider id: the package's
// tests set it (TestMain, before any test runs) to a local stand-in for every provider, so
// that no test reaches a real search engine. nil in the app.
var searchEndpoints map[string]string

// failedSearcher answers every search with the error that kept the chosen provider from
// being set up, so web_search tells the agents (and the run's footer tells the user) what
// to fix instead of failing without a reason.
type failedSearcher struct{ err error }

// Search returns the setup error.
func (f failedSearcher) Search(context.Context, string, int) ([]web.SearchResult, error) {
	return nil, f.err
}

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

// endpoint returns the base URL and key a check of the dialog uses: baseURL, else the
// effective one; apiKey when one is typed, else the effective (stored) key, but only when
// noStoredKey is false and baseURL has the effective base URL's origin (sameKeyOrigin), so
// that the stored key never goes to a server it was not given for (a preset picked or a
// URL typed in the dialog). withheld is the effective base URL's host when the stored key
// was kept back because the origins differ, else "" (for withheldNote).
func (c *Core) endpoint(baseURL, apiKey string, noStoredKey bool) (url, key, withheld string) {
	st := c.Settings()
	if baseURL = strings.TrimSpace(baseURL); baseURL == "" {
		baseURL = st.BaseURL
	}
	if key = strings.TrimSpace(apiKey); key != "" || noStoredKey || st.APIKey == "" {
		return baseURL, key, ""
	}
	if !sameKeyOrigin(baseURL, st.BaseURL) {
		return baseURL, "", originHost(st.BaseURL)
	}
	return baseURL, st.APIKey, ""
}

// origin is the scheme, host and port of an http(s) URL: lower case, the host without a
// trailing dot, the port made explicit (80 for http, 443 for https).
type origin struct{ scheme, host, port string }

// originOf returns raw's origin; ok is false unless raw is an absolute http(s) URL with a
// host.
func originOf(raw string) (o origin, ok bool) {
	u, err := neturl.Parse(strings.TrimSpace(raw))
	if err != nil {
		return origin{}, false
	}
	o = origin{scheme: strings.ToLower(u.Scheme), host: strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), port: u.Port()}
	if o.host == "" || (o.scheme != "http" && o.scheme != "https") {
		return origin{}, false
	}
	if o.port == "" {
		o.port = map[string]string{"http": "80", "https": "443"}[o.scheme]
	}
	return o, true
}

// sameKeyOrigin reports whether the http(s) URLs a and b have the same scheme, host and port
// (case, a trailing slash or dot and a default port written out make no difference).
func sameKeyOrigin(a, b string) bool {
	oa, okA := originOf(a)
	ob, okB := originOf(b)
	return okA && okB && oa == ob
}

// originHost is the host (and port, when written) of the http(s) URL raw as the note on a
// withheld key names it, or raw itself when it is not such a URL.
func originHost(raw string) string {
	if u, err := neturl.Parse(strings.TrimSpace(raw)); err == nil && u.Host != "" {
		return strings.ToLower(u.Host)
	}
	return strings.TrimSpace(raw)
}

// refusedStatus matches the HTTP status of an llm error for a refused key: 401 or 403.
var refusedStatus = regexp.MustCompile(`: 40[13]\b`)

// withheldNote adds to err, when the endpoint refused the call (401 or 403) and the stored
// key was kept back from it (withheld, the stored key's host; see Core.endpoint), why no
// key was sent: "… 401 Unauthorized: … (no key sent: the stored key belongs to
// api.openai.com)". Other errors come back unchanged.
func withheldNote(err error, withheld string) error {
	if err == nil || withheld == "" || !errors.Is(err, llm.ErrRejected) || !refusedStatus.MatchString(err.Error()) {
		return err
	}
	return fmt.Errorf("%w (no key sent: the stored key belongs to %s)", err, withheld)
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
	res := ConnectionResult{Endpoint: strings.TrimRight(baseURL, "/") + "/chat/completions", Model: model}
	if model == "" {
		res.Error = "no model: enter the model name first"
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*testConnectionTimeout)
	defer cancel()
	d, err := llm.TestConnection(ctx, llm.Config{BaseURL: baseURL, APIKey: apiKey, Model: model, Logger: s.core.log,
		FirstByteTimeout: testConnectionTimeout, IdleTimeout: testConnectionTimeout})
	if err != nil {
		res.Error = oneLine(withheldNote(err, withheld))
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
		res.Error = oneLine(err)
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
		res.Error = oneLine(err)
		return res
	}
	res.OK, res.Results, res.LatencyMS = true, len(results), max(time.Since(start).Milliseconds(), 1)
	return res
}

// SourceEnvAPIKey is the SettingsView.SetBy value of "api_key" when the key in use comes
// from the OPENAI_API_KEY environment variable (issue 10, item 6).
const SourceEnvAPIKey = "OPENAI_API_KEY"

// overrideSources returns what sets each setting this session instead of config.json
// (issue 10, item 6: "Settings show which values come from flags"), keyed by the
// SettingsView field's JSON name ("model", "base_url", "api_key", "tool_call_mode",
// "searxng_url", "allow_private_network", "search.provider", "search.keys.<provider id>",
// "lead.model", "sub_agents.model"): the flag as typed ("--model"), or SourceEnvAPIKey for
// a key from the environment. A field not in the map comes from config.json (or its
// default). The map is never nil.
func (c *Core) overrideSources() map[string]string {
	o := c.overrides
	src := map[string]string{}
	set := func(field, flag string, on bool) {
		if on {
			src[field] = flag
		}
	}
	set("api_key", SourceEnvAPIKey, os.Getenv("OPENAI_API_KEY") != "")
	set("api_key", "--api-key", o.APIKey != "")
	set("base_url", "--base-url", o.BaseURL != "")
	set("model", "--model", o.Model != "")
	set("tool_call_mode", "--tool-call-mode", o.ToolCallMode != "")
	set("searxng_url", "--searxng-url", o.SearxngURL != "")
	set("allow_private_network", "--allow-private-network", o.AllowPrivateNetwork)
	set("search.provider", "--searxng-url", o.SearxngURL != "") // Merge: a SearXNG URL also picks SearXNG
	set("search.provider", "--search-provider", o.Search.Provider != "")
	for id, key := range o.Search.Keys {
		set("search.keys."+id, "--search-key", key != "")
	}
	set("lead.model", "--lead-model", o.Lead.Model != "")
	set("sub_agents.model", "--sub-model", o.SubAgents.Model != "")
	return src
}

// keepOverridden returns next, the settings the dialog is saving, with every field that a
// flag (or OPENAI_API_KEY) sets this session put back to its stored value: the dialog
// shows such a field read-only with the flag's value, and that value must never reach
// config.json (issue 10, item 6). Fields without an override are next's.
func keepOverridden(next, stored config.Settings, src map[string]string) config.Settings {
	if src["api_key"] != "" {
		next.APIKey = stored.APIKey
	}
	if src["base_url"] != "" {
		next.BaseURL = stored.BaseURL
	}
	if src["model"] != "" {
		next.Model = stored.Model
	}
	if src["tool_call_mode"] != "" {
		next.ToolCallMode = stored.ToolCallMode
	}
	if src["searxng_url"] != "" {
		next.SearxngURL = stored.SearxngURL
	}
	if src["allow_private_network"] != "" {
		next.AllowPrivateNetwork = stored.AllowPrivateNetwork
	}
	if src["search.provider"] != "" {
		next.Search.Provider = stored.Search.Provider
	}
	for field := range src {
		if id, ok := strings.CutPrefix(field, "search.keys."); ok {
			next.Search = next.Search.WithKey(id, stored.Search.Key(id))
		}
	}
	if src["lead.model"] != "" {
		next.Lead.Model = stored.Lead.Model
	}
	if src["sub_agents.model"] != "" {
		next.SubAgents.Model = stored.SubAgents.Model
	}
	return next
}

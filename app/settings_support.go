package app

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"regexp"

	"strings"

	"artifactflow/backend/config"
	"artifactflow/backend/llm"
	"artifactflow/backend/netproxy"
	"artifactflow/backend/tokens"
	"artifactflow/backend/web"
)

func modelContextView(s config.Settings, model string) ModelContextView {
	model = strings.TrimSpace(model)
	window, percent := s.ContextFor(model)
	v := ModelContextView{Model: model, ContextWindow: window, EffectiveContextWindow: window, CompactAtPercent: percent,
		Vision: s.VisionFor(model), VisionByName: config.VisionByName(model)}
	if window == 0 {
		v.EffectiveContextWindow = tokens.ContextWindow(model)
	}
	return v
}

// settingsView is the dialog's view of config.json as it is now (storedSettings), with
// its revision. Errors: storedSettings'.
func (c *Core) settingsView() (SettingsView, error) {
	stored, rev, err := c.storedSettings()
	if err != nil {
		return SettingsView{}, err
	}
	s := c.effective(stored)
	mc := modelContextView(s, s.Model)
	v := SettingsView{Revision: rev, BaseURL: s.BaseURL, APIKeySet: s.APIKey != "", Model: s.Model, ToolCallMode: s.ToolCallMode,
		SearxngURL: s.SearxngURL, AllowPrivateNetwork: s.AllowPrivateNetwork, MaxUploadMB: s.MaxUploadMB, MaxUploadMBLimit: config.MaxUploadMBLimit,
		ContextWindow: mc.ContextWindow, EffectiveContextWindow: mc.EffectiveContextWindow, CompactAtPercent: mc.CompactAtPercent,
		Vision: mc.Vision, VisionByName: mc.VisionByName,
		ToolPermissions: s.ToolPermissions, PermissionTimeoutSeconds: s.PermissionTimeoutSeconds, DataDir: c.dataDir,
		Lead: agentSettingsOf(s.Lead), SubAgents: agentSettingsOf(s.SubAgents), SetBy: c.overrideSources(),
		LoadRemoteImages: s.LoadRemoteImages, Language: s.Language,
		ModelIdleTimeoutSeconds: s.ModelIdleTimeoutSeconds, MaxAnswerMB: s.MaxAnswerMB, MaxParallelToolCalls: s.MaxParallelToolCalls}
	if v.LoadRemoteImages == "" {
		v.LoadRemoteImages = config.LoadImagesAsk
	}
	if v.ToolPermissions == nil {
		v.ToolPermissions = map[string]string{}
	}
	_, src := proxyOf(s)
	v.Proxy, v.ProxySource, v.ProxyInEffect = netproxy.Redacted(s.Proxy), src.Kind, src.Proxy
	c.searchView(s, &v)
	return v, nil
}

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

// AgentModelSettings is the model of one kind of agent (config.AgentModel): the lead, or
// the sub-agents (search and crawl). Empty fields inherit: Model "" and ToolCallMode "" the
// model and mode above, ContextWindow 0 that model's context window (tokens); Temperature
// (0–2), TopP (0–1) and MaxTokens (tokens per answer, 0 = unset) are sent to the model only
// when set (null / 0 = not sent).
//
// BaseURL is the agent's own endpoint ("" = the base URL above); APIKey is a key typed for
// it (input only: the view never carries a key; "" keeps the stored one), APIKeySet says
// that one is stored, and ClearAPIKey (input only) removes it. Without a key of its own the
// agent uses the key above when its endpoint has the same scheme, host and port, else none.
type AgentModelSettings struct {
	Model         string   `json:"model"`
	BaseURL       string   `json:"base_url"`
	APIKey        string   `json:"api_key,omitempty"`
	APIKeySet     bool     `json:"api_key_set"`
	ClearAPIKey   bool     `json:"clear_api_key,omitempty"`
	ToolCallMode  string   `json:"tool_call_mode"`
	ContextWindow int      `json:"context_window"`
	Temperature   *float64 `json:"temperature"`
	TopP          *float64 `json:"top_p"`
	MaxTokens     int      `json:"max_tokens"`
}

func agentSettingsOf(a config.AgentModel) AgentModelSettings {
	return AgentModelSettings{Model: a.Model, BaseURL: a.BaseURL, APIKeySet: a.APIKey != "", ToolCallMode: a.ToolCallMode, ContextWindow: a.ContextWindow,
		Temperature: a.Temperature, TopP: a.TopP, MaxTokens: a.MaxTokens}
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
		Client: proxyClient(s, searchTimeout)})
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

// endpoint returns the base URL and key a check of the dialog uses: baseURL, else the
// effective one; apiKey when one is typed, else a stored key (the effective top-level key,
// else the lead's or the sub-agents' own), but only when noStoredKey is false and baseURL
// has the origin of the endpoint that key was stored for (config.SameOrigin), so that a stored
// key never goes to a server it was not given for (a preset picked or a URL typed in the
// dialog). withheld is the host of the first stored key's endpoint when every stored key
// was kept back because the origins differ, else "" (for withheldNote).
func (c *Core) endpoint(baseURL, apiKey string, noStoredKey bool) (url, key, withheld string) {
	st := c.Settings()
	if baseURL = strings.TrimSpace(baseURL); baseURL == "" {
		baseURL = st.BaseURL
	}
	if key = strings.TrimSpace(apiKey); key != "" || noStoredKey {
		return baseURL, key, ""
	}
	// The stored keys, each with the endpoint it was given for: the top-level one, then
	// the lead's and the sub-agents' own (an agent's key without its own base URL belongs
	// to the top-level endpoint).
	stored := [][2]string{{st.BaseURL, st.APIKey}}
	for _, a := range []config.AgentModel{st.Lead, st.SubAgents} {
		if k := strings.TrimSpace(a.APIKey); k != "" {
			u := strings.TrimSpace(a.BaseURL)
			if u == "" {
				u = st.BaseURL
			}
			stored = append(stored, [2]string{u, k})
		}
	}
	for _, e := range stored {
		if e[1] != "" && config.SameOrigin(baseURL, e[0]) {
			return baseURL, e[1], ""
		}
	}
	for _, e := range stored {
		if e[1] != "" {
			return baseURL, "", originHost(e[0])
		}
	}
	return baseURL, "", ""
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

// SourceEnvAPIKey is the SettingsView.SetBy value of "api_key" when the key in use comes
// from the OPENAI_API_KEY environment variable.
const SourceEnvAPIKey = "OPENAI_API_KEY"

// overrideSources returns what sets each setting this session instead of config.json (the
// dialog shows which values come from flags), keyed by the SettingsView field's JSON name
// ("model", "base_url", "api_key", "tool_call_mode", "searxng_url",
// "allow_private_network", "proxy", "search.provider", "search.keys.<provider id>", "lead.model",
// "sub_agents.model"): the flag as typed ("--model"), or SourceEnvAPIKey for a key from the
// environment. A field not in the map comes from config.json (or its default). The map is
// never nil.
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
	set("proxy", "--proxy", o.Proxy != "")
	set("search.provider", "--searxng-url", o.SearxngURL != "") // Merge: a SearXNG URL also picks SearXNG
	set("search.provider", "--search-provider", o.Search.Provider != "")
	for id, key := range o.Search.Keys {
		set("search.keys."+id, "--search-key", key != "")
	}
	set("lead.model", "--lead-model", o.Lead.Model != "")
	set("sub_agents.model", "--sub-model", o.SubAgents.Model != "")
	return src
}

// SetSearchEndpoints points the web search providers named in endpoints (provider id →
// base URL) at other servers: the tests of the command line and of browser mode call it
// before any test runs so that none reaches the real web. It must not be called while a
// Core runs.
func SetSearchEndpoints(endpoints map[string]string) { searchEndpoints = endpoints }

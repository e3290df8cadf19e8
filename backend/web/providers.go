package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Search provider errors callers branch on. Every search error wraps the relevant one, and
// its message starts with the provider's id ("brave search: …").
var (
	// ErrUnknownProvider means SearchConfig.Provider is not one of Providers()' ids.
	ErrUnknownProvider = errors.New("unknown search provider")
	// ErrRateLimited means the provider answered 429 Too Many Requests twice (the second
	// time after waiting its Retry-After), asked for a wait longer than MaxRetryAfter, or
	// (DuckDuckGo) served its bot check instead of results. Such errors also wrap
	// ErrHTTPStatus when an HTTP status caused them.
	ErrRateLimited = errors.New("rate limited")
	// ErrAuth means the provider refused the API key (401 or 403, or the provider's own
	// "invalid key" answer); the message tells the user to check the key in Settings.
	// Such errors also wrap ErrHTTPStatus.
	ErrAuth = errors.New("API key refused")
)

// Provider ids, the values of SearchConfig.Provider and ProviderInfo.ID.
const (
	ProviderDuckDuckGo = "duckduckgo"
	ProviderWikipedia  = "wikipedia"
	ProviderSearXNG    = "searxng"
	ProviderTavily     = "tavily"
	ProviderBrave      = "brave"
	ProviderBocha      = "bocha"
	ProviderExa        = "exa"
)

// DefaultProvider is the provider used when none is chosen: it needs no key and no server.
const DefaultProvider = ProviderDuckDuckGo

// DefaultSearchTimeout bounds one HTTP request of a search when the caller's client has no
// Timeout of its own (the default client has exactly this one).
const DefaultSearchTimeout = 20 * time.Second

// MaxRetryAfter is the longest wait honoured before the one retry after a 429. A server
// asking for longer gets no retry: the search fails at once with ErrRateLimited, naming the
// wait, instead of holding the agent for a retry that would fail again.
const MaxRetryAfter = 30 * time.Second

// ProviderInfo describes one search provider for the Settings dialog. ID is the value
// stored in the settings; Name is for display; NeedsKey means an API key is required;
// NeedsURL means a server URL is required (SearXNG); KeyURL is where the user gets a key
// (for SearXNG: how to run an instance), or "".
type ProviderInfo struct {
	ID, Name           string
	NeedsKey, NeedsURL bool
	KeyURL             string
}

// providers lists every provider, the default first.
var providers = []ProviderInfo{
	{ID: ProviderDuckDuckGo, Name: "DuckDuckGo"},
	{ID: ProviderWikipedia, Name: "Wikipedia"},
	{ID: ProviderSearXNG, Name: "SearXNG", NeedsURL: true, KeyURL: "https://docs.searxng.org/admin/installation.html"},
	{ID: ProviderTavily, Name: "Tavily", NeedsKey: true, KeyURL: "https://app.tavily.com/home"},
	{ID: ProviderBrave, Name: "Brave Search", NeedsKey: true, KeyURL: "https://api-dashboard.search.brave.com/app/keys"},
	{ID: ProviderBocha, Name: "Bocha (博查)", NeedsKey: true, KeyURL: "https://open.bochaai.com"},
	{ID: ProviderExa, Name: "Exa", NeedsKey: true, KeyURL: "https://dashboard.exa.ai/api-keys"},
}

// Providers returns every search provider, the default (DuckDuckGo) first. The slice is a
// copy the caller may change.
func Providers() []ProviderInfo {
	return append([]ProviderInfo(nil), providers...)
}

// providerInfo returns the entry for id, or false.
func providerInfo(id string) (ProviderInfo, bool) {
	for _, p := range providers {
		if p.ID == id {
			return p, true
		}
	}
	return ProviderInfo{}, false
}

// SearchConfig chooses and configures a search provider for NewSearcher.
//
// Provider is one of Providers()' ids ("" means DefaultProvider; case and surrounding space
// are ignored). APIKey is the provider's key (Tavily, Brave, Bocha, Exa); it never appears in
// an error. BaseURL is SearXNG's instance URL; for the other providers it overrides the API
// endpoint (used by tests and proxies; for Wikipedia a "{lang}" in it is replaced by the
// language). Language is Wikipedia's language code (e.g. "de", "zh"): "" picks it from the
// query's script, else "en"; DuckDuckGo sends it as Accept-Language. Client is the HTTP
// client (nil: one with a DefaultSearchTimeout timeout; a client without a Timeout gets
// that bound per request).
type SearchConfig struct {
	Provider, APIKey, BaseURL, Language string
	Client                              *http.Client
}

// NewSearcher returns the Searcher for cfg.Provider. Errors: ErrUnknownProvider for an id
// not in Providers(); ErrNotConfigured when the provider needs an API key and APIKey is
// blank, or is SearXNG and BaseURL is blank (the message says where to get a key and to
// set it in Settings); ErrBadURL for a BaseURL that is not an absolute http(s) URL; an
// error for a Language that is not a language code.
func NewSearcher(cfg SearchConfig) (Searcher, error) {
	id := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if id == "" {
		id = DefaultProvider
	}
	info, ok := providerInfo(id)
	if !ok {
		ids := make([]string, len(providers))
		for i, p := range providers {
			ids[i] = p.ID
		}
		return nil, fmt.Errorf("%w %q: choose one of %s", ErrUnknownProvider, cfg.Provider, strings.Join(ids, ", "))
	}
	if id == ProviderSearXNG {
		return NewSearXNG(cfg.BaseURL, cfg.Client)
	}
	key := strings.TrimSpace(cfg.APIKey)
	if info.NeedsKey && key == "" {
		return nil, fmt.Errorf("%w: %s needs an API key: get one at %s and enter it in Settings → Search",
			ErrNotConfigured, info.Name, info.KeyURL)
	}
	api, err := newAPIClient(id, key, cfg.Client)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSpace(cfg.BaseURL)
	switch id {
	case ProviderDuckDuckGo:
		return newDuckDuckGo(api, base, strings.TrimSpace(cfg.Language))
	case ProviderWikipedia:
		return newWikipedia(api, base, cfg.Language)
	case ProviderTavily:
		return newTavily(api, base)
	case ProviderBrave:
		return newBrave(api, base)
	case ProviderBocha:
		return newBocha(api, base)
	case ProviderExa:
		return newExa(api, base)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownProvider, id) // unreachable: every listed id is handled above
}

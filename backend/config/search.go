package config

import (
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Search provider ids, as package web names them (web.Providers).
const (
	ProviderDuckDuckGo = "duckduckgo"
	ProviderWikipedia  = "wikipedia"
	ProviderSearXNG    = "searxng"
	ProviderTavily     = "tavily"
	ProviderBrave      = "brave"
	ProviderBocha      = "bocha"
	ProviderExa        = "exa"
)

// DefaultSearchProvider is the provider used when none is chosen and no SearXNG URL is
// set: it needs no key and no server (the default must need no key).
const DefaultSearchProvider = ProviderDuckDuckGo

// searchProviders are the ids Validate accepts, the default first. The list is the one of
// web.Providers; a test in package app checks the two agree.
var searchProviders = []string{ProviderDuckDuckGo, ProviderWikipedia, ProviderSearXNG, ProviderTavily,
	ProviderBrave, ProviderBocha, ProviderExa}

// SearchProviders returns the provider ids Settings accept, the default first (a copy).
func SearchProviders() []string { return slices.Clone(searchProviders) }

// SearchSettings choose the web search provider (json "search").
//
// Provider is a provider id ("" = DefaultSearchProvider, unless the old top-level
// searxng_url is set: then ProviderSearXNG, so a config.json written before providers
// existed keeps searching where it did; see Settings.SearchProvider). SearXNG's instance
// URL stays in Settings.SearxngURL.
//
// Keys maps a provider id to its API key. Keys are stored in config.json (mode 0600) like
// the model's key, and never logged: SearchSettings' String and LogValue show only which
// providers have one; views sent to the UI must say "stored", never the key.
//
// Language is Wikipedia's language edition ("en", "zh", "de", "simple", ...): "" follows
// the question's script.
type SearchSettings struct {
	Provider string            `json:"provider,omitempty"`
	Keys     map[string]string `json:"keys,omitempty"`
	Language string            `json:"language,omitempty"`
}

// Key returns the stored key of provider ("" when none).
func (s SearchSettings) Key(provider string) string { return s.Keys[provider] }

// WithKey returns s with provider's key set to key (trimmed), or removed when key is
// empty. The map is copied, so s is untouched.
func (s SearchSettings) WithKey(provider, key string) SearchSettings {
	next := make(map[string]string, len(s.Keys)+1)
	for k, v := range s.Keys {
		next[k] = v
	}
	if key = strings.TrimSpace(key); key == "" {
		delete(next, provider)
	} else {
		next[provider] = key
	}
	if len(next) == 0 {
		next = nil
	}
	s.Keys = next
	return s
}

// StoredKeys returns the ids of the providers with a stored key, sorted.
func (s SearchSettings) StoredKeys() []string {
	ids := make([]string, 0, len(s.Keys))
	for id, k := range s.Keys {
		if k != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// String shows s without its keys (only which providers have one), so printing settings
// never prints a key.
func (s SearchSettings) String() string {
	return fmt.Sprintf("{provider:%s keys stored:%v language:%s}", s.Provider, s.StoredKeys(), s.Language)
}

// LogValue keeps the keys out of logs (slog.LogValuer): only which providers have one.
func (s SearchSettings) LogValue() slog.Value {
	return slog.GroupValue(slog.String("provider", s.Provider), slog.Any("keys_stored", s.StoredKeys()),
		slog.String("language", s.Language))
}

// SearchProvider returns the provider in effect: Search.Provider, else ProviderSearXNG
// when the old searxng_url is set (config.json from before providers), else
// DefaultSearchProvider.
func (s Settings) SearchProvider() string {
	switch {
	case s.Search.Provider != "":
		return s.Search.Provider
	case s.SearxngURL != "":
		return ProviderSearXNG
	default:
		return DefaultSearchProvider
	}
}

// languageRE matches a Wikipedia language edition's subdomain: "en", "zh-yue", "simple".
var languageRE = regexp.MustCompile(`^[a-z]{2,12}(-[a-z0-9]{1,12}){0,3}$`)

// validSearch checks the search settings' shapes; each problem names its field
// ("search.provider: …", "search.keys.brave: …", "search.language: …").
func validSearch(s SearchSettings) []string {
	var problems []string
	if s.Provider != "" && !slices.Contains(searchProviders, s.Provider) {
		problems = append(problems, fmt.Sprintf("search.provider: %q is not one of %s", s.Provider, strings.Join(searchProviders, ", ")))
	}
	ids := make([]string, 0, len(s.Keys))
	for id := range s.Keys {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		key := s.Keys[id]
		switch {
		case !slices.Contains(searchProviders, id):
			problems = append(problems, fmt.Sprintf("search.keys: %q is not one of %s", id, strings.Join(searchProviders, ", ")))
		case strings.TrimSpace(key) == "":
			problems = append(problems, fmt.Sprintf("search.keys.%s: the key is empty", id))
		case strings.IndexFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
			// Never quote the key itself.
			problems = append(problems, fmt.Sprintf("search.keys.%s: the key contains spaces or control characters", id))
		}
	}
	if s.Language != "" && !languageRE.MatchString(s.Language) {
		problems = append(problems, fmt.Sprintf("search.language: %q is not a Wikipedia language code such as en, zh or de", s.Language))
	}
	return problems
}

// mergeSearch lays o's non-empty fields over s (flags over config.json): the provider,
// the language and each key o holds.
func mergeSearch(s, o SearchSettings) SearchSettings {
	if o.Provider != "" {
		s.Provider = o.Provider
	}
	if o.Language != "" {
		s.Language = o.Language
	}
	ids := make([]string, 0, len(o.Keys))
	for id := range o.Keys {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if o.Keys[id] != "" {
			s = s.WithKey(id, o.Keys[id])
		}
	}
	return s
}

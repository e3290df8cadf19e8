package app

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"artifactflow/backend/config"
)

// Keys the search stand-in knows (testSearchStandIn).
const (
	goodBraveKey = "BSA-good-key-0001"
	badBraveKey  = "BSA-bad-key-SECRET"
)

// TestMain points every search provider but SearXNG (whose URL each test sets) at a
// local stand-in before any test runs: since DuckDuckGo became the default, a run without
// a SearXNG URL would otherwise search the real web.
func TestMain(m *testing.M) {
	srv := httptest.NewServer(testSearchStandIn())
	searchEndpoints = map[string]string{}
	for _, id := range config.SearchProviders() {
		if id != config.ProviderSearXNG {
			searchEndpoints[id] = srv.URL + "/" + id
		}
	}
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

// testSearchStandIn answers Brave's API (GET /brave?q=…, X-Subscription-Token) with two
// results for goodBraveKey and Brave's 401 for any other key; every other provider gets a
// 503, so a test that searches without choosing a provider fails loudly instead of
// reaching the internet.
func testSearchStandIn() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/brave", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("X-Subscription-Token") != goodBraveKey {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":401}}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "search", "web": map[string]any{"results": []map[string]any{
			{"title": "Test - Wikipedia", "url": "https://en.wikipedia.org/wiki/Test", "description": "A test is …"},
			{"title": "Speedtest", "url": "https://www.speedtest.net/", "description": "Test your connection."},
		}}})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "search stand-in: no provider here (tests never search the real web)", http.StatusServiceUnavailable)
	})
	return mux
}

package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/localserver"
	"artifactflow/backend/web"
)

func fptr(v float64) *float64 { return &v }

// newSettingsCore opens a Core on a fresh data directory with no command-line flags, so
// the settings under test are the stored ones.
func newSettingsCore(t *testing.T, dir string) (*Core, *SettingsService) {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "")
	core, err := NewCore(context.Background(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	return core, &SettingsService{core}
}

// inputFromView is what the settings dialog sends back when the user changes nothing:
// the view's values and no key typed.
func inputFromView(v SettingsView) SettingsInput {
	lead, sub := v.Lead, v.SubAgents
	return SettingsInput{BaseURL: v.BaseURL, Model: v.Model, ToolCallMode: v.ToolCallMode, SearxngURL: v.SearxngURL,
		AllowPrivateNetwork: v.AllowPrivateNetwork, MaxUploadMB: v.MaxUploadMB, ContextWindow: v.ContextWindow,
		CompactAtPercent: v.CompactAtPercent, ToolPermissions: v.ToolPermissions, PermissionTimeoutSeconds: v.PermissionTimeoutSeconds,
		Search: &SearchInput{Provider: v.Search.Provider, Language: v.Search.Language}, Lead: &lead, SubAgents: &sub}
}

// TestSettingsRoundTripNewFields (settings round-trip for per-agent models): every new
// field saved through SettingsService comes back in Get; saving the view back unchanged, as
// the dialog does, loses nothing in config.json; the keys are stored but never in the view;
// an empty key field keeps a key and an explicit clear removes it.
func TestSettingsRoundTripNewFields(t *testing.T) {
	dir := t.TempDir()
	_, svc := newSettingsCore(t, dir)
	in := SettingsInput{BaseURL: "http://localhost:11434/v1", APIKey: "sk-model", Model: "qwen3:8b", ToolCallMode: "native",
		SearxngURL: "http://localhost:8888", MaxUploadMB: 20, PermissionTimeoutSeconds: 120, CompactAtPercent: 80,
		Search:    &SearchInput{Provider: "brave", Keys: map[string]string{"brave": "BSA-SECRET-1", "tavily": "tvly-SECRET-2", "exa": ""}, Language: "de"},
		Lead:      &AgentModelSettings{Model: "qwen3:32b", ToolCallMode: "xml", ContextWindow: 64_000, Temperature: fptr(0), TopP: fptr(0.9), MaxTokens: 4000},
		SubAgents: &AgentModelSettings{Model: "qwen3:4b", Temperature: fptr(0.7)},
	}
	v1, err := svc.Save(in)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The tool-call mode, upload limit, permission wait and threshold sent are the defaults
	// the empty settings showed: unchanged, so not written (they stay defaults).
	want := config.Settings{BaseURL: in.BaseURL, APIKey: "sk-model", Model: "qwen3:8b", SearxngURL: in.SearxngURL,
		Search:    config.SearchSettings{Provider: "brave", Keys: map[string]string{"brave": "BSA-SECRET-1", "tavily": "tvly-SECRET-2"}, Language: "de"},
		Lead:      config.AgentModel{Model: "qwen3:32b", ToolCallMode: "xml", ContextWindow: 64_000, Temperature: fptr(0), TopP: fptr(0.9), MaxTokens: 4000},
		SubAgents: config.AgentModel{Model: "qwen3:4b", Temperature: fptr(0.7)},
	}
	if !reflect.DeepEqual(stored, want) {
		t.Fatalf("config.json after Save:\n got %+v\nwant %+v", stored, want)
	}
	b, err := json.Marshal(v1)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "SECRET") || strings.Contains(string(b), "sk-model") {
		t.Fatalf("the view carries a key: %s", b)
	}
	if !reflect.DeepEqual(v1.Search.KeysStored, []string{"brave", "tavily"}) || v1.Search.Provider != "brave" || v1.Search.Language != "de" {
		t.Fatalf("search view = %+v", v1.Search)
	}
	if !reflect.DeepEqual(v1.Lead, *in.Lead) || !reflect.DeepEqual(v1.SubAgents, *in.SubAgents) {
		t.Fatalf("agents view = %+v / %+v", v1.Lead, v1.SubAgents)
	}
	v2, err := svc.Get()
	if err != nil || !reflect.DeepEqual(v1, v2) {
		t.Fatalf("Get after Save differs:\n%+v\n%+v (%v)", v1, v2, err)
	}
	if _, err := svc.Save(inputFromView(v2)); err != nil {
		t.Fatal(err)
	}
	again, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, stored) {
		t.Fatalf("saving the view back changed config.json:\n got %+v\nwant %+v", again, stored)
	}

	// Clear tavily's key, type a new one for brave, leave exa's empty: nothing else moves.
	next := inputFromView(v2)
	next.Search.ClearKeys = []string{"tavily"}
	next.Search.Keys = map[string]string{"brave": " BSA-NEW ", "exa": ""}
	v3, err := svc.Save(next)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v3.Search.KeysStored, []string{"brave"}) {
		t.Fatalf("keys stored after clearing tavily = %v", v3.Search.KeysStored)
	}
	if s, _ := config.Load(dir); s.Search.Key("brave") != "BSA-NEW" || s.Search.Key("tavily") != "" {
		t.Fatalf("keys in config.json = %v", s.Search.StoredKeys())
	}

	// A form without the new sections (an older page) keeps them as stored.
	old := inputFromView(v3)
	old.Search, old.Lead, old.SubAgents = nil, nil, nil
	if _, err := svc.Save(old); err != nil {
		t.Fatal(err)
	}
	if s, _ := config.Load(dir); s.Lead.Model != "qwen3:32b" || s.SubAgents.Model != "qwen3:4b" || s.Search.Provider != "brave" {
		t.Fatalf("a form without the new fields dropped them: %+v", s)
	}
}

// TestSettingsSaveNamesTheField: a bad value is refused naming its field as the dialog
// expects ("lead.temperature: …"), and nothing is stored.
func TestSettingsSaveNamesTheField(t *testing.T) {
	dir := t.TempDir()
	_, svc := newSettingsCore(t, dir)
	_, err := svc.Save(SettingsInput{Model: "m", Lead: &AgentModelSettings{Temperature: fptr(3)},
		Search: &SearchInput{Provider: "altavista"}})
	if err == nil || !strings.Contains(err.Error(), "lead.temperature: 3 is outside 0–2") || !strings.Contains(err.Error(), `search.provider: "altavista" is not one of`) {
		t.Fatalf("Save = %v", err)
	}
	if _, statErr := os.Stat(dir + "/" + config.ConfigFile); statErr == nil {
		t.Fatal("an invalid save wrote config.json")
	}
}

// TestSearchReadiness (a banner when search is unset): search_ready is false, with the
// reason, when the provider in effect lacks its key or URL.
func TestSearchReadiness(t *testing.T) {
	tests := []struct {
		name     string
		s        config.Settings
		provider string
		ready    bool
		problem  string
	}{
		{"fresh install: DuckDuckGo", config.Settings{}, "duckduckgo", true, ""},
		{"old config with a SearXNG URL", config.Settings{SearxngURL: "http://localhost:8888"}, "searxng", true, ""},
		{"brave without a key", config.Settings{Search: config.SearchSettings{Provider: "brave", Keys: map[string]string{"tavily": "t"}}}, "brave", false, "Brave Search needs an API key"},
		{"brave with its key", config.Settings{Search: config.SearchSettings{Provider: "brave", Keys: map[string]string{"brave": "k"}}}, "brave", true, ""},
		{"searxng without a URL", config.Settings{Search: config.SearchSettings{Provider: "searxng"}}, "searxng", false, "SearXNG URL"},
		{"wikipedia needs nothing", config.Settings{Search: config.SearchSettings{Provider: "wikipedia"}}, "wikipedia", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := config.Save(dir, tc.s); err != nil {
				t.Fatal(err)
			}
			_, svc := newSettingsCore(t, dir)
			v, err := svc.Get()
			if err != nil {
				t.Fatal(err)
			}
			if v.Search.Provider != tc.provider || v.SearchReady != tc.ready || !strings.Contains(v.SearchProblem, tc.problem) || (tc.ready && v.SearchProblem != "") {
				t.Fatalf("provider %q ready %v problem %q; want %q %v %q", v.Search.Provider, v.SearchReady, v.SearchProblem, tc.provider, tc.ready, tc.problem)
			}
			if len(v.SearchProviders) != len(web.Providers()) || v.SearchProviders[0].ID != "duckduckgo" {
				t.Fatalf("providers = %+v", v.SearchProviders)
			}
		})
	}
}

// TestProvidersAgree: config validates exactly the provider ids package web offers.
func TestProvidersAgree(t *testing.T) {
	var ids []string
	for _, p := range web.Providers() {
		ids = append(ids, p.ID)
	}
	if !reflect.DeepEqual(ids, config.SearchProviders()) {
		t.Fatalf("web.Providers %v, config.SearchProviders %v", ids, config.SearchProviders())
	}
}

// TestPresetsMatchREADME: each endpoint preset is a row of the README's table with the
// same base URL and example model, in the same order.
func TestPresetsMatchREADME(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(readme), "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "| ") && strings.Contains(l, " | `http") {
			rows = append(rows, l)
		}
	}
	ps := (&SettingsService{}).Presets()
	if len(ps) != 18 || len(rows) != len(ps) {
		t.Fatalf("%d presets, %d README rows: %q", len(ps), len(rows), rows)
	}
	for i, p := range ps {
		cells := strings.Split(strings.Trim(rows[i], "| "), " | ")
		if len(cells) != 3 || cells[0] != p.Name || cells[1] != "`"+p.BaseURL+"`" || strings.Trim(cells[2], "`") != p.ExampleModel {
			t.Errorf("preset %+v, README row %q", p, rows[i])
		}
	}
}

// TestSettingsListModels: the stored endpoint and key by default, or the ones given; a
// clear error naming the endpoint.
func TestSettingsListModels(t *testing.T) {
	var auth []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"qwen3:8b","object":"model","owned_by":"library"},{"id":"llama3.1:8b","object":"model","owned_by":"library"}]}`))
	}))
	t.Cleanup(hs.Close)
	dir := t.TempDir()
	if err := config.Save(dir, config.Settings{BaseURL: hs.URL + "/v1", APIKey: "sk-stored"}); err != nil {
		t.Fatal(err)
	}
	_, svc := newSettingsCore(t, dir)
	ms, err := svc.ListModels("", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].ID != "llama3.1:8b" || ms[1].ID != "qwen3:8b" || ms[1].OwnedBy != "library" {
		t.Fatalf("models = %+v", ms)
	}
	if _, err := svc.ListModels(hs.URL+"/v1", "sk-typed", false); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(auth, []string{"Bearer sk-stored", "Bearer sk-typed"}) {
		t.Fatalf("keys sent = %q", auth)
	}
	_, err = svc.ListModels(hs.URL+"/api", "", false)
	if err == nil || !strings.Contains(err.Error(), hs.URL+"/api/models") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("wrong path: err = %v", err)
	}
}

// TestSettingsStoredKeyOnlyToItsOrigin (review S2): the dialog's ListModels and
// TestConnection send the stored key only to the stored base URL's scheme, host and port
// (written in any case, with a trailing slash); to another host, port or scheme they send
// no key and a 401 says why; a typed key is sent wherever it is typed for; and "Remove the
// stored key" (noStoredKey) sends none even to the stored endpoint. A key stored for an
// agent's own endpoint goes to that endpoint's origin and nowhere else.
func TestSettingsStoredKeyOnlyToItsOrigin(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path == "/v1/models" && r.Header.Get("Authorization") != "" {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m1","object":"model","owned_by":"me"}]}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"You didn't provide an API key.","type":"invalid_request_error"}}`))
	})
	stored := httptest.NewServer(handler)
	t.Cleanup(stored.Close)
	other := httptest.NewServer(handler) // another port on the same host
	t.Cleanup(other.Close)
	storedHost := strings.TrimPrefix(stored.URL, "http://")
	port := storedHost[strings.LastIndex(storedHost, ":")+1:]

	tests := []struct {
		name        string
		storedBase  string // the stored base URL ("" = the stored server's /v1)
		base, key   string
		noStoredKey bool
		subBase     string // the sub-agents' own stored base URL, with the key sk-sub
		wantAuth    string
		note        bool // the 401 says the stored key was kept back
	}{
		{name: "a sub-agent's stored key to its own endpoint", base: other.URL + "/v1", subBase: other.URL + "/v1", wantAuth: "Bearer sk-sub"},
		{name: "a sub-agent's stored key nowhere else", base: "http://localhost:" + port + "/v1", subBase: other.URL + "/v1", note: true},
		{name: "the stored base URL", base: "", wantAuth: "Bearer sk-stored"},
		{name: "same origin written otherwise", base: "HTTP://LocalHost:" + port + "/v1/", storedBase: "http://localhost:" + port + "/v1", wantAuth: "Bearer sk-stored"},
		{name: "another port", base: other.URL + "/v1", note: true},
		{name: "another host", base: "http://localhost:" + port + "/v1", note: true},
		{name: "another scheme", base: stored.URL + "/v1", storedBase: "https://" + storedHost + "/v1", note: true},
		{name: "a typed key to another host", base: other.URL + "/v1", key: "sk-typed", wantAuth: "Bearer sk-typed"},
		{name: "clear ticked", base: stored.URL + "/v1", noStoredKey: true},
		{name: "clear ticked with a key typed", base: stored.URL + "/v1", key: "sk-new", noStoredKey: true, wantAuth: "Bearer sk-new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			storedBase := cmp.Or(tc.storedBase, stored.URL+"/v1")
			st := config.Settings{BaseURL: storedBase, APIKey: "sk-stored", Model: "m1"}
			if tc.subBase != "" {
				st.SubAgents = config.AgentModel{BaseURL: tc.subBase, APIKey: "sk-sub"}
			}
			if err := config.Save(dir, st); err != nil {
				t.Fatal(err)
			}
			_, svc := newSettingsCore(t, dir)
			mu.Lock()
			auth = nil
			mu.Unlock()
			_, listErr := svc.ListModels(tc.base, tc.key, tc.noStoredKey)
			res := svc.TestConnection(tc.base, tc.key, "", tc.noStoredKey)
			mu.Lock()
			got := slices.Clone(auth)
			mu.Unlock()
			if !reflect.DeepEqual(got, []string{tc.wantAuth, tc.wantAuth}) {
				t.Fatalf("Authorization sent by ListModels and TestConnection = %q, want %q", got, tc.wantAuth)
			}
			if (tc.wantAuth == "") != (listErr != nil) {
				t.Fatalf("ListModels err = %v", listErr)
			}
			note := "no key sent: the stored key belongs to " + strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(storedBase, "https://"), "http://"))
			note = strings.TrimSuffix(note, "/v1")
			for _, msg := range []string{fmt.Sprint(listErr), res.Error} {
				if strings.Contains(msg, note) != tc.note {
					t.Errorf("error %q: want the note %q: %v", msg, note, tc.note)
				}
				if strings.Contains(msg, "sk-stored") || strings.Contains(msg, "sk-sub") {
					t.Errorf("error quotes the stored key: %s", msg)
				}
			}
			if tc.note && !errors.Is(listErr, llm.ErrRejected) {
				t.Errorf("ListModels err %v does not wrap llm.ErrRejected", listErr)
			}
		})
	}
}

// TestSettingsTestSearchKeyStaysWithItsProvider (review S2): a keyed provider's stored key
// goes only to that provider's API, whatever URL the dialog passes; the URL is SearXNG's
// alone (web.NewSearXNG takes no key).
func TestSettingsTestSearchKeyStaysWithItsProvider(t *testing.T) {
	var hits atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(elsewhere.Close)
	dir := t.TempDir()
	if err := config.Save(dir, config.Settings{Search: config.SearchSettings{Keys: map[string]string{"brave": apptest.GoodBraveKey}}}); err != nil {
		t.Fatal(err)
	}
	_, svc := newSettingsCore(t, dir)
	if r := svc.TestSearch("brave", "", elsewhere.URL); !r.OK || r.Results != 2 {
		t.Fatalf("TestSearch(brave, \"\", other URL) = %+v", r)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the URL given for brave got %d requests", n)
	}
}

// TestSameKeyOrigin: scheme, host and port decide; case, a trailing slash or dot, the path
// and a default port written out do not.
func TestSameKeyOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://api.openai.com/v1", "https://API.OpenAI.com:443/v1/", true},
		{"https://api.openai.com/v1", "https://api.openai.com./other", true},
		{"http://localhost/v1", "http://localhost:80", true},
		{"http://[::1]:8000/v1", "http://[::1]:8000/", true},
		{"https://api.openai.com/v1", "http://api.openai.com/v1", false},
		{"https://api.openai.com/v1", "https://api.openai.com:8443/v1", false},
		{"https://api.openai.com/v1", "https://api.openai.com.evil.example/v1", false},
		{"https://api.openai.com/v1", "https://api.deepseek.com/v1", false},
		{"https://api.openai.com/v1", "api.openai.com/v1", false},
		{"", "", false},
	}
	for _, tc := range tests {
		if got := config.SameOrigin(tc.a, tc.b); got != tc.want {
			t.Errorf("config.SameOrigin(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestSettingsTestConnection: one max_tokens-1 call to the stored or given endpoint and
// model, its latency, or the server's exact error.
func TestSettingsTestConnection(t *testing.T) {
	srv := llmtest.NewServer(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if req.Model == "missing" {
			return llmtest.Reply{Status: http.StatusNotFound, ErrorMessage: "model 'missing' not found, try pulling it first"}
		}
		return llmtest.Reply{Content: "OK"}
	})
	dir := t.TempDir()
	if err := config.Save(dir, config.Settings{BaseURL: srv.URL(), Model: "stored-model"}); err != nil {
		t.Fatal(err)
	}
	_, svc := newSettingsCore(t, dir)
	res := svc.TestConnection("", "", "", false)
	if !res.OK || res.LatencyMS <= 0 || res.Model != "stored-model" || res.Error != "" {
		t.Fatalf("TestConnection = %+v", res)
	}
	if r := srv.Requests(); len(r) != 1 || r[0].MaxTokens != 1 || r[0].Model != "stored-model" {
		t.Fatalf("requests = %+v", r)
	}
	res = svc.TestConnection(srv.URL(), "", "missing", false)
	if res.OK || !strings.Contains(res.Error, "404") || !strings.Contains(res.Error, "model 'missing' not found, try pulling it first") {
		t.Fatalf("unknown model: %+v", res)
	}
	if srv.Calls() != 2 {
		t.Fatalf("the failed test was retried: %d calls", srv.Calls())
	}
	// A password written into the base URL is a secret too: the result shows where the
	// call went, not the password.
	const password = "s3cret-in-the-url"
	withUser := strings.Replace(srv.URL(), "http://", "http://me:"+password+"@", 1)
	for _, model := range []string{"stored-model", "missing"} {
		res = svc.TestConnection(withUser, "", model, false)
		if shown := fmt.Sprintf("%+v", res); strings.Contains(shown, password) || !strings.Contains(res.Endpoint, "/chat/completions") {
			t.Errorf("connection test with a password in the base URL shows it: %s", shown)
		}
	}
}

// TestSettingsTestSearch: one search through the chosen provider with the stored or the
// typed key, its result count, or the provider-named error (never the key).
func TestSettingsTestSearch(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	dir := t.TempDir()
	if err := config.Save(dir, config.Settings{Search: config.SearchSettings{Keys: map[string]string{"brave": apptest.GoodBraveKey}}}); err != nil {
		t.Fatal(err)
	}
	_, svc := newSettingsCore(t, dir)
	tests := []struct {
		name               string
		provider, key, url string
		ok                 bool
		results            int
		errHas             string
	}{
		{"searxng at the URL typed", "searxng", "", w.Searx.URL, true, 2, ""},
		{"brave with the stored key", "brave", "", "", true, 2, ""},
		{"brave with a bad key typed", "brave", apptest.BadBraveKey, "", false, 0, "brave"},
		{"tavily without a key", "tavily", "", "", false, 0, "needs an API key"},
		{"searxng without a URL", "searxng", "", "", false, 0, "SearXNG URL"},
		{"an unknown provider", "altavista", "", "", false, 0, "altavista"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := svc.TestSearch(tc.provider, tc.key, tc.url)
			if r.OK != tc.ok || r.Results != tc.results || !strings.Contains(r.Error, tc.errHas) || (tc.ok && r.LatencyMS <= 0) {
				t.Fatalf("TestSearch = %+v", r)
			}
			if strings.Contains(r.Error, apptest.BadBraveKey) || strings.Contains(r.Error, apptest.GoodBraveKey) {
				t.Fatalf("the error quotes a key: %s", r.Error)
			}
		})
	}
}

// TestDepsPerAgent: each agent's model, mode, context and sampling reach the engine;
// with only the lead's model set, the sub-agents use it (with their own other fields);
// a sub-agent model brings its own stored context window and threshold.
func TestDepsPerAgent(t *testing.T) {
	dir := t.TempDir()
	s := config.Settings{BaseURL: "http://localhost:11434/v1",
		Lead:      config.AgentModel{Model: "big", ToolCallMode: "xml", ContextWindow: 50_000, Temperature: fptr(0.1)},
		SubAgents: config.AgentModel{MaxTokens: 700},
	}.WithModelContext("small", config.ModelContext{ContextWindow: 8192, CompactAtPercent: 60})
	if err := config.Save(dir, s); err != nil {
		t.Fatal(err)
	}
	core, svc := newSettingsCore(t, dir)
	d, err := core.deps()
	if err != nil {
		t.Fatal(err)
	}
	if d.ModelName != "big" || d.Mode != "xml" || d.ContextWindow != 50_000 || d.LeadSampling.Temperature == nil || *d.LeadSampling.Temperature != 0.1 || d.LeadSampling.MaxTokens != 0 {
		t.Fatalf("lead: %s %s window %d sampling %+v", d.ModelName, d.Mode, d.ContextWindow, d.LeadSampling)
	}
	if sub := d.SubAgents; sub == nil || sub.Name != "big" || sub.Mode != "native" || sub.Sampling.MaxTokens != 700 || sub.Sampling.Temperature != nil {
		t.Fatalf("sub-agents with only the lead's model set: %+v", d.SubAgents)
	}
	v, err := svc.Get()
	if err != nil {
		t.Fatal(err)
	}
	in := inputFromView(v)
	in.SubAgents.Model = "small"
	if _, err := svc.Save(in); err != nil {
		t.Fatal(err)
	}
	if d, err = core.deps(); err != nil {
		t.Fatal(err)
	}
	if sub := d.SubAgents; sub.Name != "small" || sub.ContextWindow != 8192 || sub.CompactAt != 0.6 {
		t.Fatalf("sub-agents on small: %+v", sub)
	}
}

// TestPresetsHostedAPIs: the hosted APIs' OpenAI-compatible endpoints are offered with
// the base URLs their documentation gives, each needing a key, and every preset's base
// URL is an http(s) URL the client can append "/chat/completions" to (no trailing slash).
func TestPresetsHostedAPIs(t *testing.T) {
	want := map[string]string{
		"OpenRouter":      "https://openrouter.ai/api/v1",
		"SiliconFlow":     "https://api.siliconflow.cn/v1",
		"Moonshot (Kimi)": "https://api.moonshot.cn/v1",
		"Zhipu (GLM)":     "https://open.bigmodel.cn/api/paas/v4",
		"Groq":            "https://api.groq.com/openai/v1",
		"Together AI":     "https://api.together.ai/v1",
		"Google Gemini":   "https://generativelanguage.googleapis.com/v1beta/openai",
		"Anthropic":       "https://api.anthropic.com/v1",
	}
	got := map[string]EndpointPreset{}
	for _, p := range (&SettingsService{}).Presets() {
		got[p.Name] = p
		if u, err := url.Parse(p.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || strings.HasSuffix(p.BaseURL, "/") {
			t.Errorf("preset %s: base URL %q", p.Name, p.BaseURL)
		}
	}
	for name, base := range want {
		if p, ok := got[name]; !ok || p.BaseURL != base || !p.NeedsKey || p.ExampleModel == "" {
			t.Errorf("preset %s = %+v (present %v); want base URL %s, a key needed and an example model", name, p, ok, base)
		}
	}
}

// TestFindLocalServers: the bound method offers the local servers that answer with their
// models (here a stand-in answering like LM Studio on a loopback port) and leaves out a
// closed port; with none answering it is an empty list, which the page gets as [].
func TestFindLocalServers(t *testing.T) {
	lm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"qwen3-8b"}]}`))
	}))
	t.Cleanup(lm.Close)
	u, _ := url.Parse(lm.URL)
	port, _ := strconv.Atoi(u.Port())
	closed := httptest.NewServer(http.NotFoundHandler())
	cu, _ := url.Parse(closed.URL)
	closedPort, _ := strconv.Atoi(cu.Port())
	closed.Close()
	t.Cleanup(func() { localServers = nil })

	svc := &SettingsService{}
	localServers = []localserver.Candidate{{Name: "Ollama", Port: closedPort, Ollama: true}, {Name: "LM Studio", Port: port}}
	got := svc.FindLocalServers()
	want := []LocalServer{{Name: "LM Studio", BaseURL: "http://127.0.0.1:" + u.Port() + "/v1", Models: []string{"qwen3-8b"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("FindLocalServers = %+v; want %+v", got, want)
	}
	localServers = localServers[:1]
	if b, _ := json.Marshal(svc.FindLocalServers()); string(b) != "[]" {
		t.Fatalf("FindLocalServers with none answering = %s; want []", b)
	}
}

package app

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
)

// keyedServer is a scripted model server behind a front that lets through only requests
// carrying its own key (anything else gets the 401 an API gives), recording which agents
// reached it and which Authorization headers it refused.
type keyedServer struct {
	front   *httptest.Server
	mu      sync.Mutex
	agents  map[string]int // agent name → requests answered
	refused []string       // Authorization headers refused
}

func newKeyedServer(t *testing.T, key string, h llmtest.Handler) *keyedServer {
	t.Helper()
	k := &keyedServer{agents: map[string]int{}}
	model := llmtest.NewServer(t, func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
		k.mu.Lock()
		k.agents[apptest.AgentOf(req)]++
		k.mu.Unlock()
		return h(req, call)
	})
	target, _ := url.Parse(strings.TrimSuffix(model.URL(), "/v1"))
	proxy := httputil.NewSingleHostReverseProxy(target)
	k.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+key {
			k.mu.Lock()
			k.refused = append(k.refused, got)
			k.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(k.front.Close)
	return k
}

func (k *keyedServer) URL() string { return k.front.URL + "/v1" }

func (k *keyedServer) seen() (map[string]int, []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	agents := map[string]int{}
	for a, n := range k.agents {
		agents[a] = n
	}
	return agents, append([]string(nil), k.refused...)
}

// TestAgentEndpointsPerAgent (a base URL and key per agent section): with the lead set to
// one server and key, and the sub-agents to another, in the settings dialog (Save), a
// research run's lead requests reach only the lead's server with the lead's key, and the
// search and crawl agents' requests reach only theirs with their key; the top-level
// endpoint gets nothing. The settings view says which agents have a key and never carries
// one; config.json holds both keys.
func TestAgentEndpointsPerAgent(t *testing.T) {
	const (
		globalKey = "sk-GLOBAL-0a1b2c"
		leadKey   = "sk-LEAD-3d4e5f"
		subKey    = "ollama-SUB-6a7b8c"
	)
	w := apptest.NewWorld(t, "native", nil)
	research := w.Research()
	global := newKeyedServer(t, globalKey, research)
	lead := newKeyedServer(t, leadKey, research)
	sub := newKeyedServer(t, subKey, research)

	core, svc := newSettingsCore(t, w.DataDir)
	v, err := svc.Get()
	if err != nil {
		t.Fatal(err)
	}
	in := inputFromView(v)
	in.BaseURL, in.APIKey, in.Model, in.SearxngURL, in.AllowPrivateNetwork = global.URL(), globalKey, "test-model", w.Searx.URL, true
	in.Lead.BaseURL, in.Lead.APIKey = lead.URL(), leadKey
	in.SubAgents.BaseURL, in.SubAgents.APIKey, in.SubAgents.Model = sub.URL(), subKey, "local-model"
	saved, err := svc.Save(in)
	if err != nil {
		t.Fatal(err)
	}
	if !saved.Lead.APIKeySet || !saved.SubAgents.APIKeySet || saved.Lead.BaseURL != lead.URL() || saved.SubAgents.BaseURL != sub.URL() {
		t.Fatalf("the view after Save: lead %+v, sub-agents %+v", saved.Lead, saved.SubAgents)
	}
	if saved.Lead.APIKey != "" || saved.SubAgents.APIKey != "" {
		t.Fatalf("the view carries an agent's key: lead %q, sub-agents %q", saved.Lead.APIKey, saved.SubAgents.APIKey)
	}
	cfg, err := os.ReadFile(filepath.Join(w.DataDir, config.ConfigFile))
	if err != nil || !strings.Contains(string(cfg), leadKey) || !strings.Contains(string(cfg), subKey) {
		t.Fatalf("config.json does not hold the agents' keys (%v): %s", err, cfg)
	}

	ev, _ := runToEnd(t, core, apptest.Question)
	if ev.Type != events.Complete {
		t.Fatalf("the run ended %s %s", ev.Type, ev.Data)
	}
	leadSeen, leadRefused := lead.seen()
	subSeen, subRefused := sub.seen()
	globalSeen, globalRefused := global.seen()
	if len(leadRefused)+len(subRefused)+len(globalRefused) > 0 {
		t.Errorf("refused keys: lead's server %q, sub-agents' server %q, top-level server %q", leadRefused, subRefused, globalRefused)
	}
	if leadSeen["lead_agent"] == 0 || len(leadSeen) != 1 {
		t.Errorf("the lead's server answered %v; want lead_agent only", leadSeen)
	}
	if subSeen["search_agent"] == 0 || subSeen["crawl_agent"] == 0 || len(subSeen) != 2 {
		t.Errorf("the sub-agents' server answered %v; want search_agent and crawl_agent only", subSeen)
	}
	if len(globalSeen) != 0 {
		t.Errorf("the top-level server answered %v; want nothing (every agent has its own)", globalSeen)
	}
}

// TestAgentEndpointsLeadOnly: with only the lead's model set, on its own endpoint and key,
// the sub-agents run that model where the lead does (the model name belongs to that
// server), not on the top-level endpoint.
func TestAgentEndpointsLeadOnly(t *testing.T) {
	const leadKey = "sk-LEADONLY-1f2e3d"
	w := apptest.NewWorld(t, "native", nil)
	research := w.Research()
	global := newKeyedServer(t, "sk-unused-global", research)
	lead := newKeyedServer(t, leadKey, research)
	if err := config.Save(w.DataDir, config.Settings{BaseURL: global.URL(), SearxngURL: w.Searx.URL, AllowPrivateNetwork: true,
		Lead: config.AgentModel{Model: "big", BaseURL: lead.URL(), APIKey: leadKey}}); err != nil {
		t.Fatal(err)
	}
	core, _ := newSettingsCore(t, w.DataDir)
	ev, _ := runToEnd(t, core, apptest.Question)
	if ev.Type != events.Complete {
		t.Fatalf("the run ended %s %s", ev.Type, ev.Data)
	}
	leadSeen, leadRefused := lead.seen()
	globalSeen, _ := global.seen()
	if len(leadRefused) > 0 || leadSeen["lead_agent"] == 0 || leadSeen["search_agent"] == 0 || leadSeen["crawl_agent"] == 0 {
		t.Errorf("the lead's server answered %v, refused %q; want every agent, none refused", leadSeen, leadRefused)
	}
	if len(globalSeen) != 0 {
		t.Errorf("the top-level server answered %v; want nothing", globalSeen)
	}
}

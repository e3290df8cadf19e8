package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
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

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a slog handler.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSecretsStayOut (issue 11, item 4): with a model API key and a search provider key
// stored, against a model endpoint and a search provider that both refuse the key and
// quote it back in their error bodies (as some do, in part or whole), a failed run, a run
// whose web search fails, Test connection and Test search leave the keys in config.json
// alone: not in the SQLite database or its -wal / -shm files, nor in any other file of the
// data directory (drafts, blobs, api.json), nor in the stored events, the slog output
// (app logger and slog.Default, at debug level), the settings view, the conversation list,
// the dialog's check results or the AppError the page is shown. The same holds for a key
// stored for one agent section (the lead's), refused and quoted back likewise.
func TestSecretsStayOut(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	const (
		modelKey  = "sk-proj-MODELKEY-7c1e0b9a44d2f3"
		leadKey   = "sk-proj-LEADKEY-91e4c2d7b0a355"
		searchKey = "BSA-SEARCHKEY-5d8f2a61c09e7b"
	)
	secrets := []string{modelKey, leadKey, searchKey, "MODELKEY-7c1e0b9a44d2f3", "LEADKEY-91e4c2d7b0a355", "SEARCHKEY-5d8f2a61c09e7b"}

	// The search provider answers 401 quoting the token it was given.
	var seenToken sync.Map
	brave := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := r.Header.Get("X-Subscription-Token")
		seenToken.Store(tok, true)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The subscription token %s is invalid (X-Subscription-Token: %s).","status":401}}`, tok, tok)
	}))
	t.Cleanup(brave.Close)
	saved := searchEndpoints
	searchEndpoints = maps.Clone(saved)
	searchEndpoints[config.ProviderBrave] = brave.URL + "/brave"
	t.Cleanup(func() { searchEndpoints = saved })

	// The model refuses the key, quoting it, for a question asking for that and for
	// Test connection; otherwise it does the scripted research (whose search fails).
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		research := w.Research()
		return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
			if apptest.AgentOf(req) == "" || llmtest.LastUserContains(req, "refuse me") {
				return llmtest.Reply{Status: http.StatusUnauthorized,
					ErrorMessage: "Incorrect API key provided: " + modelKey + ". You sent Authorization: Bearer " + modelKey}
			}
			if apptest.AgentOf(req) == "lead_agent" && llmtest.LastUserContains(req, "refuse the lead") {
				return llmtest.Reply{Status: http.StatusUnauthorized,
					ErrorMessage: "Incorrect API key provided: " + leadKey + ". You sent Authorization: Bearer " + leadKey}
			}
			return research(req, call)
		}
	})
	var seenAuth sync.Map
	target, _ := url.Parse(strings.TrimSuffix(w.Model.URL(), "/v1"))
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		seenAuth.Store(r.Header.Get("Authorization"), true)
		proxy.ServeHTTP(rw, r)
	}))
	t.Cleanup(front.Close)

	logs := &lockedBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	prevDefault := slog.Default()
	slog.SetDefault(logger)
	t.Cleanup(func() { slog.SetDefault(prevDefault) })

	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Logger: logger,
		Overrides: config.Settings{BaseURL: front.URL + "/v1", Model: "test-model", ToolCallMode: "native", AllowPrivateNetwork: true}})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = core.Close(context.Background())
		}
	})
	svc := &SettingsService{core}
	if _, err := svc.Save(SettingsInput{APIKey: modelKey,
		Search: &SearchInput{Provider: config.ProviderBrave, Keys: map[string]string{config.ProviderBrave: searchKey}}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(w.DataDir, config.ConfigFile))
	if err != nil || !bytes.Contains(cfg, []byte(modelKey)) || !bytes.Contains(cfg, []byte(searchKey)) {
		t.Fatalf("config.json does not hold the keys (%v): the test would prove nothing", err)
	}

	var shown []string // everything the user or a log could see, labelled
	show := func(label string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		shown = append(shown, label+": "+string(b))
	}

	// A run the model refuses: it fails with model_auth.
	refused, res1 := runToEnd(t, core, "refuse me, please")
	var term events.DataTerminal
	if refused.Type != events.Error || json.Unmarshal(refused.Data, &term) != nil || term.Code != CodeModelAuth {
		t.Fatalf("the refused run ended %s %s; want an error with code %s", refused.Type, refused.Data, CodeModelAuth)
	}
	show("terminal event", refused)
	show("AppError", ToAppError(fmt.Errorf("%s", term.Error)))
	// A research run whose web search is refused: it completes without search results.
	done, res2 := runToEnd(t, core, apptest.Question)
	if done.Type != events.Complete {
		t.Fatalf("the research run ended %s %s; want complete", done.Type, done.Data)
	}
	searchFailed := false
	for _, r := range []SendResult{res1, res2} {
		evs, err := (&ConversationService{core}).Events(r.ConversationID, r.MessageID)
		if err != nil || len(evs) == 0 {
			t.Fatalf("events of %s: %v (%d)", r.MessageID, err, len(evs))
		}
		for _, ev := range evs {
			show("stored event", ev)
			var tc events.DataToolComplete
			if ev.Type == events.ToolComplete && json.Unmarshal(ev.Data, &tc) == nil && tc.Tool == "web_search" && !tc.Success {
				searchFailed = true
			}
		}
	}
	if !searchFailed {
		t.Fatal("no failed web_search in the research run: the search key was never refused")
	}
	// The lead's own key (a key per agent section): a run the endpoint refuses it for.
	if _, err := svc.Save(SettingsInput{Lead: &AgentModelSettings{APIKey: leadKey}}); err != nil {
		t.Fatal(err)
	}
	if cfg, err := os.ReadFile(filepath.Join(w.DataDir, config.ConfigFile)); err != nil || !bytes.Contains(cfg, []byte(leadKey)) {
		t.Fatalf("config.json does not hold the lead's key (%v): the test would prove nothing", err)
	}
	leadRefused, res3 := runToEnd(t, core, "refuse the lead, please")
	if leadRefused.Type != events.Error || json.Unmarshal(leadRefused.Data, &term) != nil || term.Code != CodeModelAuth {
		t.Fatalf("the run refusing the lead's key ended %s %s; want an error with code %s", leadRefused.Type, leadRefused.Data, CodeModelAuth)
	}
	show("terminal event (lead's key)", leadRefused)
	show("AppError (lead's key)", ToAppError(fmt.Errorf("%s", term.Error)))
	evs, err := (&ConversationService{core}).Events(res3.ConversationID, res3.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		show("stored event (lead's key)", ev)
	}
	if _, ok := seenAuth.Load("Bearer " + leadKey); !ok {
		t.Fatal("the model endpoint never got the lead's key: the test would prove nothing")
	}
	show("connection test", svc.TestConnection("", "", "", false))
	show("search test", svc.TestSearch(config.ProviderBrave, "", ""))
	view, _ := svc.Get()
	show("settings view", view)
	list, _ := (&ConversationService{core}).List()
	show("conversation list", list)
	if _, ok := seenAuth.Load("Bearer " + modelKey); !ok {
		t.Fatal("the model endpoint never got the key: the test would prove nothing")
	}
	if _, ok := seenToken.Load(searchKey); !ok {
		t.Fatal("the search provider never got the key: the test would prove nothing")
	}

	files := func(when string) {
		err := filepath.WalkDir(w.DataDir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == config.ConfigFile {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(w.DataDir, path)
			shown = append(shown, fmt.Sprintf("file %s (%s): %s", rel, when, b))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files("while open")
	if err := core.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	closed = true
	files("after close")
	shown = append(shown, "slog output: "+logs.String())

	for _, s := range shown {
		for _, secret := range secrets {
			if i := strings.Index(s, secret); i >= 0 {
				label, _, _ := strings.Cut(s, ": ")
				t.Errorf("%s holds the secret %q: …%s…", label, secret, s[max(0, i-120):min(len(s), i+len(secret)+40)])
			}
		}
	}
}

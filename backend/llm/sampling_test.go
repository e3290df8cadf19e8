package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

func f32(v float32) *float32 { return &v }

// TestSamplingOnTheWire: sampling fields are in the request body exactly when set, a 0
// included, and the body stays valid JSON; OpenAI's reasoning models get
// max_completion_tokens instead of the max_tokens they refuse.
func TestSamplingOnTheWire(t *testing.T) {
	tests := []struct {
		name     string
		model    string
		sampling llm.Sampling
		want     map[string]any // sampling keys present in the body and their values
	}{
		{"unset sends nothing", "", llm.Sampling{}, map[string]any{}},
		{"all set", "", llm.Sampling{Temperature: f32(0.5), TopP: f32(0.25), MaxTokens: 512},
			map[string]any{"temperature": 0.5, "top_p": 0.25, "max_tokens": 512.0}},
		{"zero temperature and top_p are sent", "", llm.Sampling{Temperature: f32(0), TopP: f32(0)},
			map[string]any{"temperature": 0.0, "top_p": 0.0}},
		{"zero temperature alone", "", llm.Sampling{Temperature: f32(0), MaxTokens: 7},
			map[string]any{"temperature": 0.0, "max_tokens": 7.0}},
		{"max tokens alone", "", llm.Sampling{MaxTokens: 1}, map[string]any{"max_tokens": 1.0}},
		{"reasoning model gets max_completion_tokens", "o3-mini", llm.Sampling{MaxTokens: 100},
			map[string]any{"max_completion_tokens": 100.0}},
	}
	keys := []string{"temperature", "top_p", "max_tokens", "max_completion_tokens"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Content: "ok"}))
			h := newHarness(t, srv.URL(), nil)
			req := llm.Request{Model: tc.model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Sampling: tc.sampling}
			if _, err := h.client.Stream(context.Background(), req, nil); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			bodies := srv.Bodies()
			if len(bodies) != 1 {
				t.Fatalf("%d requests, want 1", len(bodies))
			}
			var got map[string]any
			if err := json.Unmarshal(bodies[0], &got); err != nil {
				t.Fatalf("body is not JSON: %v\n%s", err, bodies[0])
			}
			present := map[string]any{}
			for _, k := range keys {
				if v, ok := got[k]; ok {
					present[k] = v
				}
			}
			if !reflect.DeepEqual(present, tc.want) {
				t.Fatalf("sampling on the wire = %v, want %v\nbody: %s", present, tc.want, bodies[0])
			}
			if got["stream"] != true || got["messages"] == nil {
				t.Fatalf("the rest of the request was damaged: %s", bodies[0])
			}
		})
	}
}

// TestSamplingZeroSurvivesRetry: the body with an added 0 is sent again whole on a retry.
func TestSamplingZeroSurvivesRetry(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Status: 503}, llmtest.Reply{Content: "ok"}))
	h := newHarness(t, srv.URL(), nil)
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Sampling: llm.Sampling{Temperature: f32(0)}}
	if _, err := h.client.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	for i, b := range srv.Bodies() {
		if !strings.Contains(string(b), `"temperature":0`) {
			t.Errorf("try %d lost the zero temperature: %s", i+1, b)
		}
	}
}

func TestListModels(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script())
	srv.SetModels("qwen3:8b", "llama3.1:8b", "qwen3:8b", " ")
	got, err := llm.ListModels(context.Background(), llm.Config{BaseURL: srv.URL() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	if want := []string{"llama3.1:8b", "qwen3:8b"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %q, want %q (sorted, deduplicated, no blank)", ids, want)
	}
}

// TestListModelsErrors: each failure names the endpoint, wraps the sentinel callers
// branch on, quotes the server's message and never the key.
func TestListModelsErrors(t *testing.T) {
	var sawAuth string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /auth/v1/models", func(w http.ResponseWriter, r *http.Request) {
		sawAuth = r.Header.Get("Authorization")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + testKey + `","type":"invalid_request_error"}}`))
	})
	mux.HandleFunc("GET /busy/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("GET /page/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html><body>Welcome</body></html>"))
	})
	release := make(chan struct{})
	mux.HandleFunc("GET /slow/v1/models", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(release) })
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	tests := []struct {
		name     string
		cfg      llm.Config
		sentinel error
		contains []string
	}{
		{"401 with the server's message", llm.Config{BaseURL: hs.URL + "/auth/v1", APIKey: testKey}, llm.ErrRejected,
			[]string{"GET " + hs.URL + "/auth/v1/models", "401 Unauthorized", "Incorrect API key provided: [REDACTED]"}},
		{"503 is transient", llm.Config{BaseURL: hs.URL + "/busy/v1"}, llm.ErrUnavailable, []string{"503", "overloaded"}},
		{"a web page is not a model list", llm.Config{BaseURL: hs.URL + "/page/v1"}, llm.ErrBadAnswer, []string{"not a model list"}},
		{"refused connection", llm.Config{BaseURL: closedURL + "/v1"}, llm.ErrUnavailable, []string{"network error", closedURL + "/v1/models"}},
		{"timeout", llm.Config{BaseURL: hs.URL + "/slow/v1", FirstByteTimeout: 300 * time.Millisecond}, llm.ErrTimeout, []string{"timed out", "300ms"}},
		{"bad base URL", llm.Config{BaseURL: "localhost:11434"}, llm.ErrConfig, []string{"base URL"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := llm.ListModels(context.Background(), tc.cfg)
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("err = %v, want %v", err, tc.sentinel)
			}
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the key: %v", err)
			}
		})
	}
	if sawAuth != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the bearer key", sawAuth)
	}
}

// TestTestConnection: one call with max_tokens 1, its latency, or the exact error after a
// single try (no retries: the user waits for the button).
func TestTestConnection(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Content: "OK"}))
	d, err := llm.TestConnection(context.Background(), llm.Config{BaseURL: srv.URL(), Model: "m1", MaxTries: 5})
	if err != nil || d <= 0 {
		t.Fatalf("TestConnection = %v, %v", d, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "m1" || reqs[0].MaxTokens != 1 || !reqs[0].Stream {
		t.Fatalf("requests = %+v, want one streamed call of m1 with max_tokens 1", reqs)
	}

	bad := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Status: 401, ErrorMessage: "Incorrect API key provided"}))
	_, err = llm.TestConnection(context.Background(), llm.Config{BaseURL: bad.URL(), Model: "m1", APIKey: testKey})
	if !errors.Is(err, llm.ErrRejected) || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "Incorrect API key provided") {
		t.Fatalf("401: err = %v", err)
	}

	busy := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Status: 503}))
	if _, err = llm.TestConnection(context.Background(), llm.Config{BaseURL: busy.URL(), Model: "m1"}); !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("503: err = %v", err)
	}
	if busy.Calls() != 1 {
		t.Fatalf("503 was tried %d times, want once", busy.Calls())
	}

	// A name that does not resolve, without asking any DNS server: the dialer fails as
	// the resolver would.
	dnsFail := &http.Client{Transport: &http.Transport{DialContext: func(_ context.Context, _, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}}}
	_, err = llm.TestConnection(context.Background(), llm.Config{BaseURL: "http://model.invalid/v1", Model: "m1", HTTPClient: dnsFail})
	if !errors.Is(err, llm.ErrUnavailable) || !strings.Contains(err.Error(), "no such host") || !strings.Contains(err.Error(), "model.invalid") {
		t.Fatalf("DNS failure: err = %v", err)
	}

	silent := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Hang: llmtest.HangBeforeHeaders}))
	_, err = llm.TestConnection(context.Background(), llm.Config{BaseURL: silent.URL(), Model: "m1", FirstByteTimeout: 300 * time.Millisecond})
	if !errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("silent server: err = %v", err)
	}

	if _, err = llm.TestConnection(context.Background(), llm.Config{BaseURL: srv.URL()}); !errors.Is(err, llm.ErrConfig) {
		t.Fatalf("no model: err = %v", err)
	}
}

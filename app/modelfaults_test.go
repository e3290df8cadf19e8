package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

// TestModelFaultCodes: each way a model can misbehave ends in a stable error code for the
// page: silence past the idle timeout is model_unreachable (retryable, saying so instead
// of blaming the base URL), an answer over the cap model_answer_too_large, a stream
// without choices model_unavailable (retryable), a body that is not an event stream
// model_rejected.
func TestModelFaultCodes(t *testing.T) {
	raw := func(body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/v1"
	}
	scripted := func(r llmtest.Reply) string {
		return llmtest.NewServer(t, func(openai.ChatCompletionRequest, int) llmtest.Reply { return r }).URL()
	}
	tests := []struct {
		name      string
		base      string
		edit      func(*llm.Config)
		code      string
		retryable bool
		message   string // a piece of the message; "" = any
	}{
		{"silent mid-stream", scripted(llmtest.Reply{Content: "a first piece", Hang: llmtest.HangMidStream}),
			func(c *llm.Config) { c.IdleTimeout = 200 * time.Millisecond }, CodeModelUnreachable, true, "longer than the idle timeout"},
		{"silent after the headers", scripted(llmtest.Reply{Content: "never sent", Hang: llmtest.HangAfterHeaders}),
			func(c *llm.Config) { c.FirstByteTimeout = 200 * time.Millisecond }, CodeModelUnreachable, true, "did not start answering in time"},
		{"answer over the cap", scripted(llmtest.Reply{Content: strings.Repeat("x", 4096)}),
			func(c *llm.Config) { c.MaxAnswerBytes = 1024 }, CodeModelTooLarge, false, ""},
		{"no choices", scripted(llmtest.Reply{NoChoices: true}), nil, CodeModelUnavailable, true, ""},
		{"not an event stream", raw(`{"object":"chat.completion","choices":[]}`), nil, CodeModelRejected, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := llm.Config{BaseURL: tc.base, Model: "m", MaxTries: 1}
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			c, err := llm.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err = c.Stream(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
			ae := ToAppError(fmt.Errorf("lead_agent: %w", err))
			if err == nil || ae.Code != tc.code || ae.Retryable != tc.retryable || ae.Detail == "" || !strings.Contains(ae.Message, tc.message) {
				t.Fatalf("%v -> %+v; want code %s, retryable %v, a message with %q and the detail", err, ae, tc.code, tc.retryable, tc.message)
			}
		})
	}
}

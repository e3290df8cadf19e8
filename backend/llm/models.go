package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// DefaultListTimeout bounds ListModels and TestConnection when Config.FirstByteTimeout is
// zero: long enough for a remote endpoint, short enough for a button in a dialog.
const DefaultListTimeout = 20 * time.Second

// maxModelsBody caps the bytes ListModels reads of an answer (OpenRouter's list of a few
// hundred models is about 1 MiB).
const maxModelsBody = 8 << 20

// ErrBadAnswer: the endpoint answered 2xx with something that is not the OpenAI format
// asked for (not JSON, or JSON without the expected fields). The base URL most likely
// names a web page or another API rather than the /v1 root of a model server.
var ErrBadAnswer = errors.New("llm: not an OpenAI-compatible answer")

// ModelInfo is one model an endpoint offers: its id (the name to put in Settings) and its
// owner as the endpoint reports it ("" when it does not).
type ModelInfo struct {
	ID      string `json:"id"`
	OwnedBy string `json:"owned_by"`
}

// ListModels asks the endpoint of cfg for its models: GET {BaseURL}/models, the OpenAI
// "list models" call that Ollama, LM Studio, vLLM, DeepSeek and DashScope answer too
// (the model field offers the endpoint's /v1/models list). Only BaseURL, APIKey,
// HTTPClient and FirstByteTimeout (the bound on the whole call; 0 means
// DefaultListTimeout) are used; cfg.Model may be empty. The ids come back sorted, without
// duplicates or empty ids.
//
// Errors name the endpoint ("llm: GET http://localhost:11434/v1/models: …") with the
// API key redacted and wrap: ErrConfig for a bad BaseURL; ErrRejected for a 4xx other
// than 429 (the server's message included, e.g. a 401's "Incorrect API key provided");
// ErrUnavailable for 429, a 5xx or a network failure (DNS, refused connection); ErrTimeout
// past the timeout; ErrTooLarge for an answer over 8 MiB; ErrBadAnswer for a 2xx that is
// not a model list; ctx's error when ctx ends first.
func ListModels(ctx context.Context, cfg Config) ([]ModelInfo, error) {
	u, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	endpoint := strings.TrimRight(u.Redacted(), "/") + "/models"
	target := strings.TrimRight(u.String(), "/") + "/models"
	c := &Client{apiKey: cfg.APIKey}
	timeout := cmp.Or(cfg.FirstByteTimeout, DefaultListTimeout)
	tctx, cancel := context.WithTimeoutCause(ctx, timeout, errListTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("llm: GET %s: %v: %w", endpoint, c.clean(err.Error()), ErrConfig)
	}
	req.Header.Set("Accept", "application/json")
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// failAs builds the error: "llm: GET <endpoint>: <what>: <msg>" wrapping kind and,
	// for a network error, the transport's error; HTTPStatus gives code.
	failAs := func(kind error, what, msg string, code int, cause error) error {
		return &callError{method: http.MethodGet, endpoint: endpoint, tries: 1,
			f: failure{kind: kind, what: what, msg: c.clean(msg), code: code, cause: cause}}
	}
	fail := func(kind error, what, msg string) error { return failAs(kind, what, msg, 0, nil) }
	timedOut := func() error {
		if ctx.Err() != nil {
			return fmt.Errorf("llm: GET %s: %w", endpoint, ctx.Err())
		}
		return fail(ErrTimeout, "timed out", fmt.Sprintf("no complete answer within %s", timeout))
	}
	resp, err := hc.Do(req)
	if err != nil {
		if tctx.Err() != nil {
			return nil, timedOut()
		}
		cause := err
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			cause = ue.Err
		}
		return nil, failAs(ErrUnavailable, "network error", cause.Error(), 0, transportCause(cause))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxModelsBody+1))
	if err != nil {
		if tctx.Err() != nil {
			return nil, timedOut()
		}
		return nil, fail(ErrUnavailable, "network error", err.Error())
	}
	if len(body) > maxModelsBody {
		return nil, fail(ErrTooLarge, "answer too large", fmt.Sprintf("over %d bytes", maxModelsBody))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, failAs(statusKind(resp.StatusCode), statusText(resp.Status, resp.StatusCode), errorMessage(body), resp.StatusCode, nil)
	}
	var list struct {
		Data *[]ModelInfo `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Data == nil {
		return nil, fail(ErrBadAnswer, "not a model list", "expected JSON {\"data\": [{\"id\": …}]}; is the base URL the API root, e.g. …/v1?")
	}
	out := make([]ModelInfo, 0, len(*list.Data))
	for _, m := range *list.Data {
		if m.ID = strings.TrimSpace(m.ID); m.ID != "" {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b ModelInfo) int { return strings.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b ModelInfo) bool { return a.ID == b.ID }), nil
}

// errListTimeout is the cause of ListModels' own deadline.
var errListTimeout = errors.New("llm: list timeout")

// errorMessage is the message of an OpenAI-style error body ({"error": {"message": …}}
// or {"error": "…"} or {"message": …}), else the body itself.
func errorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var text string
		switch {
		case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(e.Error, &text) == nil && text != "":
			return text
		case e.Message != "":
			return e.Message
		}
	}
	return string(body)
}

// TestConnection makes the smallest real call to the endpoint and model of cfg: one
// streamed chat completion of one short user message with max_tokens 1, tried once
// (cfg.MaxTries is ignored), bounded by cfg.FirstByteTimeout (0 means DefaultListTimeout)
// for its first byte and by DefaultListTimeout for each later silence. It returns the
// time from sending the request to the end of the answer.
//
// The error is Stream's, exact and on one line: "llm: POST
// http://host/v1/chat/completions: 401 Unauthorized: Incorrect API key provided",
// "…: network error: dial tcp: lookup nohost: no such host", "…: timed out: no response
// headers within 20s", or ErrConfig for a bad BaseURL or an empty model.
func TestConnection(ctx context.Context, cfg Config) (time.Duration, error) {
	cfg.MaxTries = 1
	cfg.FirstByteTimeout = cmp.Or(cfg.FirstByteTimeout, DefaultListTimeout)
	cfg.IdleTimeout = cmp.Or(cfg.IdleTimeout, DefaultListTimeout)
	c, err := New(cfg)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	_, err = c.Stream(ctx, Request{
		Messages: []Message{{Role: RoleUser, Content: "Reply with the single word OK."}},
		Sampling: Sampling{MaxTokens: 1},
	}, nil)
	if err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

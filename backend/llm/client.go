package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"
)

// Defaults for Config fields left zero.
const (
	DefaultMaxTries   = 3
	DefaultRetryDelay = time.Second
)

// maxRetryDelay is where the doubling of the retry delay stops.
const maxRetryDelay = time.Minute

// Config configures a Client for one OpenAI-compatible endpoint and default model.
type Config struct {
	// BaseURL is the API root that /chat/completions is appended to, an absolute http(s)
	// URL without query or fragment, e.g. "https://api.openai.com/v1",
	// "https://api.deepseek.com/v1", "http://localhost:11434/v1" (Ollama),
	// "http://localhost:1234/v1" (LM Studio).
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>"; empty sends no header (Ollama).
	// It never appears in errors or logs.
	APIKey string
	// Model is the default model name, used when Request.Model is empty.
	Model string
	// MaxTries is the most attempts per Stream call (first try included); 0 means
	// DefaultMaxTries.
	MaxTries int
	// RetryDelay is the wait before the second try, doubled before each further one
	// (1s, 2s, 4s, ... stopping at one minute); 0 means DefaultRetryDelay.
	RetryDelay time.Duration
	// HTTPClient sends the requests; nil means a new http.Client without a timeout
	// (bound calls with the context instead: streams can be long).
	HTTPClient *http.Client
	// Sleep waits d between tries and returns early with ctx's error when ctx is done;
	// nil means a real timer. Tests inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives a Warn record per retry; nil means slog.Default().
	Logger *slog.Logger
}

// Client streams chat completions from one OpenAI-compatible endpoint through go-openai,
// retrying transient failures. It implements Model and is safe for concurrent use.
type Client struct {
	endpoint   string // POST target with any userinfo redacted, for errors and logs
	model      string
	apiKey     string // kept only to scrub it from server messages
	ocfg       openai.ClientConfig
	http       *http.Client
	maxTries   int
	retryDelay time.Duration
	sleep      func(ctx context.Context, d time.Duration) error
	log        *slog.Logger
}

var _ Model = (*Client)(nil)

// New checks cfg and returns a Client. Errors wrap ErrConfig: BaseURL not an absolute
// http(s) URL or carrying a query or fragment, Model empty, MaxTries or RetryDelay negative.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		reason := err.Error()
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			reason = ue.Err.Error() // without the URL itself, which may hold credentials
		}
		return nil, fmt.Errorf("llm: base URL is not a valid URL (%s): %w", reason, ErrConfig)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL %q is not an absolute http:// or https:// URL: %w", u.Redacted(), ErrConfig)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("llm: base URL %q must not have a query or fragment: %w", u.Redacted(), ErrConfig)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("llm: model name is empty: %w", ErrConfig)
	}
	if cfg.MaxTries < 0 || cfg.RetryDelay < 0 {
		return nil, fmt.Errorf("llm: MaxTries (%d) and RetryDelay (%s) must not be negative: %w", cfg.MaxTries, cfg.RetryDelay, ErrConfig)
	}

	base := strings.TrimRight(cfg.BaseURL, "/")
	ocfg := openai.DefaultConfig(cfg.APIKey)
	ocfg.BaseURL = base
	c := &Client{
		endpoint:   strings.TrimRight(u.Redacted(), "/") + "/chat/completions",
		model:      cfg.Model,
		apiKey:     cfg.APIKey,
		ocfg:       ocfg,
		http:       cfg.HTTPClient,
		maxTries:   cfg.MaxTries,
		retryDelay: cfg.RetryDelay,
		sleep:      cfg.Sleep,
		log:        cfg.Logger,
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.maxTries == 0 {
		c.maxTries = DefaultMaxTries
	}
	if c.retryDelay == 0 {
		c.retryDelay = DefaultRetryDelay
	}
	if c.sleep == nil {
		c.sleep = sleep
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// Endpoint is the URL requests are posted to, BaseURL + "/chat/completions", with any
// password in it redacted.
func (c *Client) Endpoint() string { return c.endpoint }

// Model is the default model name from Config.
func (c *Client) Model() string { return c.model }

// Stream sends req as one streamed chat completion (stream_options.include_usage set,
// req.Tools as function tools) and assembles the Response: content and reasoning text
// (reasoning_content deltas, and a leading <think>...</think> block of the content), tool
// calls assembled from their deltas by index, usage, finish reason and model.
//
// onDelta (nil allowed) is called from this goroutine for each text piece as it arrives,
// and with Delta{Reset: true} before a retry of a stream that broke after delivering text.
//
// Failures are retried up to MaxTries tries with exponential backoff when they are HTTP 429,
// any 5xx, a network error (including an http.Client timeout), an error event inside the
// stream, or a stream that ends before both [DONE] and a finish_reason (either one makes
// it complete; a stream cut after finish_reason keeps its answer, usage then being zero).
// Other statuses fail at once. The error after the last try is one line naming the endpoint,
// status and number of tries, and wraps ErrUnavailable, ErrStreamBroken (which also
// matches ErrUnavailable) or ErrRejected. When ctx ends, Stream returns at once with an
// error wrapping ctx.Err(). On error the Response is zero.
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	if onDelta == nil {
		onDelta = func(Delta) {}
	}
	creq, err := c.chatRequest(req)
	if err != nil {
		return Response{}, err
	}
	var (
		last      *failure
		delivered bool // the last try delivered text through onDelta
	)
	for try := 1; ; try++ {
		if try > 1 {
			delay := c.backoff(try - 1)
			c.log.Warn("llm: retrying", "endpoint", c.endpoint, "status", last.what,
				"attempt", try, "max_tries", c.maxTries, "delay", delay, "error", last.msg)
			if err := c.sleep(ctx, delay); err != nil {
				return Response{}, fmt.Errorf("llm: POST %s: waiting to retry after %s: %w", c.endpoint, last.what, err)
			}
			if delivered {
				onDelta(Delta{Reset: true})
			}
		}
		var resp Response
		resp, delivered, last = c.try(ctx, creq, onDelta)
		if last == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{}, fmt.Errorf("llm: POST %s: %w", c.endpoint, ctx.Err())
		}
		if last.kind == ErrRejected || try >= c.maxTries {
			return Response{}, &callError{endpoint: c.endpoint, f: *last, tries: try}
		}
	}
}

// backoff is the wait after the n-th failed try: RetryDelay doubled n-1 times, doubling no
// further once it reaches maxRetryDelay.
func (c *Client) backoff(n int) time.Duration {
	d := c.retryDelay
	for i := 1; i < n && d < maxRetryDelay; i++ {
		d *= 2
	}
	return d
}

// try makes one streamed request. It returns the response, whether any text reached
// onDelta, and the failure (nil on success).
func (c *Client) try(ctx context.Context, creq openai.ChatCompletionRequest, onDelta func(Delta)) (Response, bool, *failure) {
	// Tap the response body to see whether "data: [DONE]" arrived: go-openai reports it
	// and a body that simply ends the same way, as io.EOF.
	var tap *doneTap
	ocfg := c.ocfg
	ocfg.HTTPClient = doerFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := c.http.Do(r)
		if err == nil {
			tap = &doneTap{ReadCloser: resp.Body}
			resp.Body = tap
		}
		return resp, err
	})
	stream, err := openai.NewClientWithConfig(ocfg).CreateChatCompletionStream(ctx, creq)
	if err != nil {
		if tap != nil {
			_ = tap.Close() // go-openai reads an error body but leaves it open
		}
		return Response{}, false, c.openFailure(err)
	}
	defer func() { _ = stream.Close() }()

	a := assembler{onDelta: onDelta}
	for {
		chunk, err := stream.Recv()
		if err == nil {
			a.add(chunk)
			if ctx.Err() != nil { // stop now, even if the rest of the stream is buffered
				return Response{}, a.delivered, c.streamFailure(ctx.Err())
			}
			continue
		}
		if errors.Is(err, io.EOF) && tap.done() || a.finish != "" {
			if !errors.Is(err, io.EOF) {
				c.log.Warn("llm: stream failed after finish_reason; keeping the answer", "endpoint", c.endpoint,
					"error", c.clean(err.Error()))
			}
			return a.response(creq.Model), a.delivered, nil
		}
		return Response{}, a.delivered, c.streamFailure(err)
	}
}

// chatRequest converts req to go-openai's request; an empty message list or a message
// without a role is refused with ErrRejected.
func (c *Client) chatRequest(req Request) (openai.ChatCompletionRequest, error) {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionRequest{}, fmt.Errorf("llm: request has no messages: %w", ErrRejected)
	}
	model := req.Model
	if model == "" {
		model = c.model
	}
	msgs := make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		if m.Role == "" {
			return openai.ChatCompletionRequest{}, fmt.Errorf("llm: message %d has no role: %w", i, ErrRejected)
		}
		msgs[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if args == "" {
				args = "{}" // endpoints require the field; go-openai omits it when empty
			}
			msgs[i].ToolCalls = append(msgs[i].ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: args}})
		}
	}
	var tools []openai.Tool
	for _, t := range req.Tools {
		params := t.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		tools = append(tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return openai.ChatCompletionRequest{
		Model:         model,
		Messages:      msgs,
		Tools:         tools,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}, nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// doerFunc adapts a function to go-openai's HTTPDoer.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

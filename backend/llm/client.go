package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
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
	// DefaultFirstByteTimeout is generous because a local model may legitimately say
	// nothing for minutes: Ollama sends even its response headers only with the first
	// token, after loading the model and reading the whole prompt, which on a CPU takes
	// minutes for a long research context.
	DefaultFirstByteTimeout = 10 * time.Minute
	// DefaultIdleTimeout is shorter, but not short: Ollama holds back a native tool call
	// until the model has written all of it, so a gap can last as long as generating a
	// long create_artifact call (thousands of tokens at a few tokens per second on a CPU).
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultMaxAnswerBytes (4 MiB) is far beyond any model's output limit (128k tokens
	// are about 512 KiB of text).
	DefaultMaxAnswerBytes = 4 << 20
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
	// (streams can be long; the timeouts below bound silence instead), on
	// http.DefaultTransport (30 s to connect, 10 s for the TLS handshake). A client of
	// your own keeps working with the timeouts below: they cancel the request's context
	// rather than relying on the transport.
	HTTPClient *http.Client
	// FirstByteTimeout bounds the wait from sending a request to the first byte of the
	// streamed answer: the response headers and then the first chunk must both arrive
	// within it. Past it the try fails with ErrTimeout and is retried like a network
	// error. 0 means DefaultFirstByteTimeout (10 minutes: long enough for a local model
	// on a CPU to load and read a long prompt; see there).
	FirstByteTimeout time.Duration
	// IdleTimeout bounds each silence once the answer has started: a body read that
	// waits longer than this for a byte fails the try with ErrTimeout, retried like a
	// network error. Time the caller spends in onDelta does not count. 0 means
	// DefaultIdleTimeout (5 minutes).
	IdleTimeout time.Duration
	// MaxAnswerBytes bounds one answer's content, reasoning and tool-call text (ids,
	// names, arguments) together, in bytes; the stream on the wire is bounded by
	// multiples of it (see Stream). Past it the try fails with ErrTooLarge, which is
	// not retried. 0 means DefaultMaxAnswerBytes (4 MiB).
	MaxAnswerBytes int64
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
	firstByte  time.Duration
	idle       time.Duration
	maxAnswer  int64
	sleep      func(ctx context.Context, d time.Duration) error
	log        *slog.Logger
}

var _ Model = (*Client)(nil)

// New checks cfg and returns a Client. Errors wrap ErrConfig: BaseURL not an absolute
// http(s) URL or carrying a query or fragment, Model empty, MaxTries, RetryDelay,
// FirstByteTimeout, IdleTimeout or MaxAnswerBytes negative.
func New(cfg Config) (*Client, error) {
	u, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("llm: model name is empty: %w", ErrConfig)
	}
	if cfg.MaxTries < 0 || cfg.RetryDelay < 0 {
		return nil, fmt.Errorf("llm: MaxTries (%d) and RetryDelay (%s) must not be negative: %w", cfg.MaxTries, cfg.RetryDelay, ErrConfig)
	}
	if cfg.FirstByteTimeout < 0 || cfg.IdleTimeout < 0 || cfg.MaxAnswerBytes < 0 {
		return nil, fmt.Errorf("llm: FirstByteTimeout (%s), IdleTimeout (%s) and MaxAnswerBytes (%d) must not be negative: %w",
			cfg.FirstByteTimeout, cfg.IdleTimeout, cfg.MaxAnswerBytes, ErrConfig)
	}

	base := strings.TrimRight(cfg.BaseURL, "/")
	ocfg := openai.DefaultConfig(cfg.APIKey)
	ocfg.BaseURL = base
	c := &Client{
		endpoint:   chatURL(u),
		model:      cfg.Model,
		apiKey:     cfg.APIKey,
		ocfg:       ocfg,
		http:       cfg.HTTPClient,
		maxTries:   cfg.MaxTries,
		retryDelay: cfg.RetryDelay,
		firstByte:  cmp.Or(cfg.FirstByteTimeout, DefaultFirstByteTimeout),
		idle:       cmp.Or(cfg.IdleTimeout, DefaultIdleTimeout),
		maxAnswer:  cmp.Or(cfg.MaxAnswerBytes, DefaultMaxAnswerBytes),
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

// parseBaseURL checks an endpoint's base URL: an absolute http(s) URL without query or
// fragment. Errors wrap ErrConfig and never quote a password the URL holds.
func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		reason := err.Error()
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			reason = ue.Err.Error() // without the URL itself, which may hold credentials
		}
		return nil, fmt.Errorf("llm: base URL is not a valid URL (%s): %w", reason, ErrConfig)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Not quoted: without "//" a password stays in the opaque part Redacted leaves.
		return nil, fmt.Errorf("llm: base URL is not an absolute http:// or https:// URL (scheme %q): %w", u.Scheme, ErrConfig)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("llm: base URL %q must not have a query or fragment: %w", u.Redacted(), ErrConfig)
	}
	return u, nil
}

// chatURL is the chat completions URL of a parsed base URL, with any password redacted.
func chatURL(u *url.URL) string { return strings.TrimRight(u.Redacted(), "/") + "/chat/completions" }

// EndpointOf is the URL a client for baseURL posts to (baseURL + "/chat/completions"), with
// any password in it redacted, as Client.Endpoint gives it: for showing to the user before
// or without a client. A base URL that does not parse gives "(invalid URL)" rather than
// quoting it.
func EndpointOf(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Not an http(s) URL: "user:secret@host/v1" parses as scheme "user" with the
		// rest opaque, which Redacted would show as it is.
		return "(invalid URL)"
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	return chatURL(u)
}

// Endpoint is the URL requests are posted to, BaseURL + "/chat/completions", with any
// password in it redacted.
func (c *Client) Endpoint() string { return c.endpoint }

// Model is the default model name from Config.
func (c *Client) Model() string { return c.model }

// IdleTimeout is the longest silence allowed once an answer streams (Config.IdleTimeout,
// or DefaultIdleTimeout when that was 0).
func (c *Client) IdleTimeout() time.Duration { return c.idle }

// MaxAnswerBytes is the cap, in bytes, on one answer's content, reasoning and tool-call
// text (Config.MaxAnswerBytes, or DefaultMaxAnswerBytes when that was 0).
func (c *Client) MaxAnswerBytes() int64 { return c.maxAnswer }

// Stream sends req as one streamed chat completion (stream_options.include_usage set,
// req.Tools as function tools) and assembles the Response: content and reasoning text
// (from reasoning_content, reasoning or reasoning_details deltas, and a leading
// <think>...</think> block of the content), tool calls assembled from their deltas by
// index, usage, finish reason and model.
//
// onDelta (nil allowed) is called from this goroutine for each text piece as it arrives,
// and with Delta{Reset: true} before a retry of a stream that broke after delivering text.
//
// Failures are retried up to MaxTries tries with exponential backoff when they are HTTP 429,
// any 5xx, a network error (including an http.Client timeout), an error the server sends
// inside a 2xx answer that the request did not cause (see eventFilter and
// streamError.kind: one it caused is not retried and wraps ErrRejected), a stream that ends before both [DONE] and a finish_reason (either one makes
// it complete; a stream cut after finish_reason keeps its answer, usage then being zero),
// a timeout (Config.FirstByteTimeout, Config.IdleTimeout), or an empty answer: [DONE]
// after no content, reasoning, tool call or finish_reason at all.
// Other statuses fail at once, and so does an answer over the size limits: content,
// reasoning and tool-call text over Config.MaxAnswerBytes (m), more than 256 tool calls,
// or on the wire a body over 64·m bytes, a line over 6·m + 64 KiB, or over m bytes of
// lines that are not data (comments, event names). An HTTP error body is read up to
// 64 KiB. The error after the last try is one line naming the endpoint,
// status and number of tries, and wraps ErrUnavailable, ErrStreamBroken, ErrTimeout or
// ErrEmptyAnswer or ErrNoChoices (these also match ErrUnavailable), ErrTooLarge, ErrNotStream
// (a 2xx body without any "data:" line: not retried) or ErrRejected.
// When ctx ends, Stream returns at once, even from a silent connection, with an error
// wrapping ctx.Err(). On error the Response is zero.
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	if onDelta == nil {
		onDelta = func(Delta) {}
	}
	creq, zeros, err := c.chatRequest(req)
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
		resp, delivered, last = c.try(ctx, creq, zeros, onDelta)
		if last == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{}, fmt.Errorf("llm: POST %s: %w", c.endpoint, ctx.Err())
		}
		if !last.retryable() || try >= c.maxTries {
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

// try makes one streamed request; zeros are the sampling fields to send as 0 (see
// chatRequest). It returns the response, whether any text reached onDelta, and the
// failure (nil on success).
func (c *Client) try(ctx context.Context, creq openai.ChatCompletionRequest, zeros []string, onDelta func(Delta)) (Response, bool, *failure) {
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := startWatchdog(cancel, c.firstByte, c.idle)
	defer wd.stop()

	// Tap the response body to see whether "data: [DONE]" arrived: go-openai reports it
	// and a body that simply ends the same way, as io.EOF. Under the tap, the guard
	// bounds what the body can make us hold, and the watchdog bounds each read.
	var (
		tap                 *doneTap
		guard               *bodyGuard
		filter              *eventFilter // nil for an error status
		status, contentType string       // of the response, for notStreamFailure
	)
	ocfg := c.ocfg
	ocfg.HTTPClient = doerFunc(func(r *http.Request) (*http.Response, error) {
		if err := addZeroFields(r, zeros); err != nil {
			return nil, err
		}
		resp, err := c.http.Do(r)
		if err != nil {
			return resp, err
		}
		wd.gotHeaders()
		status, contentType = statusText(resp.Status, resp.StatusCode), resp.Header.Get("Content-Type")
		body := io.ReadCloser(&watchedBody{ReadCloser: resp.Body, w: wd})
		if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusBadRequest {
			body = &errorBody{ReadCloser: body, left: maxErrorBody} // go-openai reads it all
		} else {
			guard = newBodyGuard(body, c.maxAnswer)
			body = guard
		}
		tap = &doneTap{ReadCloser: body}
		resp.Body = tap
		if guard != nil {
			filter = newEventFilter(tap)
			resp.Body = struct {
				io.Reader
				io.Closer
			}{filter, tap}
		}
		return resp, nil
	})
	stream, err := openai.NewClientWithConfig(ocfg).CreateChatCompletionStream(tctx, creq)
	if err != nil {
		if tap != nil {
			_ = tap.Close() // go-openai reads an error body but leaves it open
		}
		if f := limitFailure(tctx, guard, err); f != nil {
			return Response{}, false, f
		}
		return Response{}, false, c.openFailure(err)
	}
	defer func() { _ = stream.Close() }()

	a := assembler{onDelta: onDelta, maxSize: c.maxAnswer}
	for {
		raw, err := stream.RecvRaw()
		var chunk streamChunk
		if err == nil {
			chunk, err = decodeChunk(raw)
		}
		if err == nil {
			if err := a.addChunk(chunk); err != nil {
				return Response{}, a.delivered, limitFailure(tctx, guard, err)
			}
			if ctx.Err() != nil { // stop now, even if the rest of the stream is buffered
				return Response{}, a.delivered, c.streamFailure(ctx.Err())
			}
			continue
		}
		if f := limitFailure(tctx, guard, err); f != nil {
			return Response{}, a.delivered, f
		}
		if filter != nil && filter.streamErr != nil {
			// Checked before finish_reason: OpenRouter ends a stream cut at the token
			// limit with finish_reason "length" and then the error that explains it.
			return Response{}, a.delivered, c.inStreamFailure(filter.streamErr)
		}
		if errors.Is(err, io.EOF) && tap.done() || a.finish != "" {
			if !errors.Is(err, io.EOF) {
				c.log.Warn("llm: stream failed after finish_reason; keeping the answer", "endpoint", c.endpoint,
					"error", c.clean(err.Error()))
			}
			if a.empty() {
				if a.chunks > 0 && a.choices == 0 {
					msg := fmt.Sprintf("the stream ended with [DONE] after %d chunks, none of them with a choice", a.chunks)
					if a.chunks == 1 {
						msg = "the stream ended with [DONE] after 1 chunk without a choice"
					}
					return Response{}, false, &failure{kind: ErrNoChoices, what: "empty answer", msg: msg + ` ("choices": [] throughout)`}
				}
				return Response{}, false, &failure{kind: ErrEmptyAnswer, what: "empty answer",
					msg: "the stream ended with [DONE] before any content, reasoning, tool call or finish_reason"}
			}
			return a.response(creq.Model), a.delivered, nil
		}
		if guard != nil && guard.notStream() && !strings.HasPrefix(strings.ToLower(contentType), "text/event-stream") {
			return Response{}, false, c.notStreamFailure(status, contentType, guard.head)
		}
		return Response{}, a.delivered, c.streamFailure(err)
	}
}

// chatRequest converts req to go-openai's request; an empty message list or a message
// without a role is refused with ErrRejected. zeros names the sampling fields set to 0,
// which go-openai would leave out of the body (its fields are omitempty): the request's
// doer writes them in (addZeroFields).
func (c *Client) chatRequest(req Request) (creq openai.ChatCompletionRequest, zeros []string, err error) {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionRequest{}, nil, fmt.Errorf("llm: request has no messages: %w", ErrRejected)
	}
	model := req.Model
	if model == "" {
		model = c.model
	}
	msgs := make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		if m.Role == "" {
			return openai.ChatCompletionRequest{}, nil, fmt.Errorf("llm: message %d has no role: %w", i, ErrRejected)
		}
		msgs[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.Images) > 0 { // content parts: the text, then each image as a data URL
			parts := make([]openai.ChatMessagePart, 0, len(m.Images)+1)
			if m.Content != "" {
				parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content})
			}
			for _, im := range m.Images {
				parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
					ImageURL: &openai.ChatMessageImageURL{URL: im.DataURL()}})
			}
			msgs[i].Content, msgs[i].MultiContent = "", parts
		}
		if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			msgs[i].ReasoningContent = m.ReasoningContent // see Message
		}
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
	creq = openai.ChatCompletionRequest{
		Model:         model,
		Messages:      msgs,
		Tools:         tools,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	zeros = applySampling(&creq, req.Sampling)
	return creq, zeros, nil
}

// WireRequest returns the chat completion request Stream sends for req, as the endpoint
// decodes it from the JSON body: model is the default when req.Model is empty, sampling
// values of 0 are present, stream and include_usage are set. It lets a test double answer
// in the wire's terms without a server (llmtest.Fake). Errors: ErrRejected (wrapped) for
// a request Stream would refuse before sending it (no messages, a message without role).
func WireRequest(model string, req Request) (openai.ChatCompletionRequest, error) {
	creq, zeros, err := (&Client{model: model}).chatRequest(req)
	if err != nil {
		return openai.ChatCompletionRequest{}, err
	}
	body, err := json.Marshal(creq)
	if err != nil {
		return openai.ChatCompletionRequest{}, fmt.Errorf("llm: encode the request: %w", err)
	}
	r := &http.Request{Body: io.NopCloser(bytes.NewReader(body))}
	if err := addZeroFields(r, zeros); err != nil {
		return openai.ChatCompletionRequest{}, err
	}
	if body, err = io.ReadAll(r.Body); err != nil {
		return openai.ChatCompletionRequest{}, fmt.Errorf("llm: read the request body: %w", err)
	}
	var out openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &out); err != nil {
		return openai.ChatCompletionRequest{}, fmt.Errorf("llm: decode the request body: %w", err)
	}
	return out, nil
}

// applySampling sets the sampling fields of s that are set on creq and returns the names
// of those set to 0 ("temperature", "top_p"), which go-openai's omitempty fields cannot
// carry. MaxTokens goes in max_tokens, which every OpenAI-compatible server reads, except
// for the OpenAI reasoning models go-openai refuses it for (o1, o3, o4, gpt-5 ...): they
// get max_completion_tokens.
func applySampling(creq *openai.ChatCompletionRequest, s Sampling) (zeros []string) {
	if s.Temperature != nil {
		if creq.Temperature = *s.Temperature; creq.Temperature == 0 {
			zeros = append(zeros, "temperature")
		}
	}
	if s.TopP != nil {
		if creq.TopP = *s.TopP; creq.TopP == 0 {
			zeros = append(zeros, "top_p")
		}
	}
	if s.MaxTokens > 0 {
		creq.MaxTokens = s.MaxTokens
		if errors.Is(openai.NewReasoningValidator().Validate(*creq), openai.ErrReasoningModelMaxTokensDeprecated) {
			creq.MaxTokens, creq.MaxCompletionTokens = 0, s.MaxTokens
		}
	}
	return zeros
}

// addZeroFields writes each of fields with the value 0 at the start of r's JSON object
// body (go-openai left them out as empty, so no key is repeated). Nothing to add leaves
// r untouched.
func addZeroFields(r *http.Request, fields []string) error {
	if len(fields) == 0 || r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		return fmt.Errorf("llm: read the request body: %w", err)
	}
	body = bytes.TrimLeft(body, " \t\r\n")
	if len(body) < 2 || body[0] != '{' {
		return fmt.Errorf("llm: the request body is not a JSON object: %w", ErrRejected)
	}
	var b bytes.Buffer
	b.Grow(len(body) + 20*len(fields))
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:0", f)
	}
	rest := body[1:]
	if t := bytes.TrimLeft(rest, " \t\r\n"); len(t) > 0 && t[0] != '}' {
		b.WriteByte(',')
	}
	b.Write(rest)
	out := b.Bytes()
	r.Body = io.NopCloser(bytes.NewReader(out))
	r.ContentLength = int64(len(out))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return nil
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

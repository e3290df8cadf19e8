package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"
)

// Sentinel errors that callers of New and Client.Stream branch on with errors.Is.
var (
	// ErrConfig: New was given an unusable Config (bad BaseURL, empty Model, negative limits).
	ErrConfig = errors.New("llm: invalid config")
	// ErrUnavailable: every try failed with a transient failure (HTTP 429, a 5xx, a network
	// error, an error inside the stream that the request did not cause, a broken stream, a
	// timeout or an empty answer); trying later may work.
	ErrUnavailable = errors.New("llm: endpoint unavailable")
	// ErrRejected: the request was refused and retrying it unchanged cannot help, either by
	// the endpoint (a 4xx other than 429: bad key, unknown model, invalid request; or an
	// error inside a 2xx answer with such a code or saying the request was invalid; the
	// error includes the server's message) or before sending (no messages, a message
	// without a role, a request go-openai refuses or cannot encode).
	ErrRejected = errors.New("llm: request rejected")
	// ErrStreamBroken: the last try's stream ended (connection closed or reset, malformed
	// chunk) before both [DONE] and a finish_reason. A broken stream is one kind of
	// unavailability, so errors.Is(err, ErrUnavailable) is true for it as well: callers
	// that only ask "transient or not" need one check.
	ErrStreamBroken = fmt.Errorf("llm: stream broken: %w", ErrUnavailable)
	// ErrTimeout: the last try's endpoint stayed silent too long: no response headers or
	// no first byte of the answer within Config.FirstByteTimeout of sending the request, or
	// no byte for Config.IdleTimeout while streaming. The error says which. It is a kind of
	// unavailability: errors.Is(err, ErrUnavailable) is true for it as well.
	ErrTimeout = fmt.Errorf("llm: timed out: %w", ErrUnavailable)
	// ErrIdleTimeout: the kind of ErrTimeout where the answer had started streaming and
	// then no byte came for Config.IdleTimeout (the "model idle timeout" setting);
	// errors.Is(err, ErrTimeout) and ErrUnavailable are true for it as well.
	ErrIdleTimeout = fmt.Errorf("llm: idle timeout: %w", ErrTimeout)
	// ErrEmptyAnswer: the last try's stream completed ([DONE]) without producing anything:
	// no content, reasoning or tool call, and no finish_reason. It is a kind of
	// unavailability: errors.Is(err, ErrUnavailable) is true for it as well.
	ErrEmptyAnswer = fmt.Errorf("llm: empty answer: %w", ErrUnavailable)
	// ErrNoChoices: the last try's stream completed ([DONE]) after chunks none of which
	// held a choice ("choices": [] throughout), as some servers do when generation fails
	// silently. It is a kind of empty answer (errors.Is(err, ErrEmptyAnswer) and
	// ErrUnavailable are true for it as well), retried like one.
	ErrNoChoices = fmt.Errorf("llm: no choices: %w", ErrEmptyAnswer)
	// ErrNotStream: the endpoint answered 2xx, without Content-Type text/event-stream,
	// with a body that has neither a "data:" line nor an SSE comment (a whole JSON
	// chat.completion, an HTML page), not the server-sent event stream that was asked for: it ignores "stream": true, or the base URL is not an
	// OpenAI-compatible API root. Retrying cannot help, so it is a kind of rejection:
	// errors.Is(err, ErrRejected) is true for it as well. The error quotes the body's start.
	ErrNotStream = fmt.Errorf("llm: not an event stream: %w", ErrRejected)
	// ErrTooLarge: the answer went over Config.MaxAnswerBytes of content, reasoning and
	// tool-call text, or over maxToolCalls tool calls, or its stream over the wire limits
	// derived from MaxAnswerBytes (see Stream). It is not retried: the same request would
	// most likely run away again. The error names the limit.
	ErrTooLarge = errors.New("llm: answer too large")
)

// maxMessageLen bounds the server or transport message quoted in an error, in bytes.
const maxMessageLen = 300

// failure is why one try failed.
type failure struct {
	kind  error  // ErrUnavailable, ErrStreamBroken, ErrTimeout, ErrEmptyAnswer, ErrNoChoices, ErrTooLarge, ErrNotStream or ErrRejected
	what  string // HTTP status ("503 Service Unavailable") or kind of failure ("network error")
	msg   string // the server's or transport's message: one line, API key redacted
	code  int    // the HTTP status code when the endpoint answered with one, else 0
	cause error  // the transport's error (a *net.OpError, *net.DNSError …) of a network error, else nil; never holds the key
}

// callError is what Stream returns after its last try: one line such as
// "llm: POST http://host/v1/chat/completions: 503 Service Unavailable after 3 tries:
// upstream overloaded", wrapping the failure's sentinel.
type callError struct {
	method   string // "" means POST
	endpoint string
	f        failure
	tries    int
}

func (e *callError) Error() string {
	var b strings.Builder
	b.WriteString("llm: ")
	b.WriteString(cmp.Or(e.method, "POST"))
	b.WriteString(" ")
	b.WriteString(e.endpoint)
	b.WriteString(": ")
	b.WriteString(e.f.what)
	if e.tries > 1 {
		fmt.Fprintf(&b, " after %d tries", e.tries)
	}
	if e.f.msg != "" {
		b.WriteString(": ")
		b.WriteString(e.f.msg)
	}
	return b.String()
}

// Unwrap returns the failure's sentinel and, for a network error, the transport's error,
// so callers can tell a refused connection or a name that does not resolve
// (netcause.Of).
func (e *callError) Unwrap() []error {
	if e.f.cause != nil {
		return []error{e.f.kind, e.f.cause}
	}
	return []error{e.f.kind}
}

// HTTPStatus returns the HTTP status code (401, 429, 503, …) with which the endpoint
// refused the last try of the Stream or ListModels call that returned err (err may be wrapped), or 0
// when err is no such failure or the last try got no status (a network error, a timeout,
// a broken stream). Callers use it to tell a refused key (401/403) from a rate limit (429).
func HTTPStatus(err error) int {
	if ce := (*callError)(nil); errors.As(err, &ce) {
		return ce.f.code
	}
	return 0
}

// openFailure classifies an error from opening the stream (sending the request and
// reading the status): 429 and 5xx are transient, other statuses rejected; transport
// errors are transient; anything else (go-openai refusing the request) is rejected.
func (c *Client) openFailure(err error) *failure {
	if apiErr := (*openai.APIError)(nil); errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0 {
		return &failure{kind: statusKind(apiErr.HTTPStatusCode), what: statusText(apiErr.HTTPStatus, apiErr.HTTPStatusCode),
			msg: c.clean(apiErr.Message), code: apiErr.HTTPStatusCode}
	}
	if reqErr := (*openai.RequestError)(nil); errors.As(err, &reqErr) {
		return &failure{kind: statusKind(reqErr.HTTPStatusCode), what: statusText(reqErr.HTTPStatus, reqErr.HTTPStatusCode),
			msg: c.clean(string(reqErr.Body)), code: reqErr.HTTPStatusCode}
	}
	if urlErr := (*url.Error)(nil); errors.As(err, &urlErr) {
		return &failure{kind: ErrUnavailable, what: "network error", msg: c.clean(urlErr.Err.Error()), cause: transportCause(urlErr.Err)}
	}
	if netErr := net.Error(nil); errors.As(err, &netErr) {
		return &failure{kind: ErrUnavailable, what: "network error", msg: c.clean(err.Error()), cause: transportCause(netErr)}
	}
	return &failure{kind: ErrRejected, what: "invalid request", msg: c.clean(err.Error())}
}

// transportCause is err as a failure's cause, or nil when err is a context error (an
// http.Client timeout or a cancelled request): a call error must not match
// context.DeadlineExceeded or context.Canceled, which mean the caller's own context ended.
func transportCause(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// streamFailure classifies an error that ended a stream before it was complete: an error
// go-openai read from the stream itself is transient (eventFilter normally reads such
// errors first; see inStreamFailure); anything else breaks the stream.
func (c *Client) streamFailure(err error) *failure {
	if apiErr := (*openai.APIError)(nil); errors.As(err, &apiErr) {
		return &failure{kind: ErrUnavailable, what: "error event in stream", msg: c.clean(apiErr.Message)}
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) {
		msg = "stream ended without [DONE] or finish_reason"
	}
	return &failure{kind: ErrStreamBroken, what: "stream broken", msg: c.clean(msg)}
}

// inStreamFailure is the failure for an error the server sent inside a 2xx answer (see
// eventFilter): its own message, key redacted; not retried when the request caused it
// (streamError.kind); code is the error's code when that is an HTTP status, so
// HTTPStatus tells a rate limit or a refused key inside a stream as well.
func (c *Client) inStreamFailure(se *streamError) *failure {
	what := "error event in stream"
	if se.body {
		what = "error body with a 2xx status"
	}
	msg := se.message
	if se.code != 0 {
		msg = fmt.Sprintf("%s (code %d)", msg, se.code)
	} else if se.codeStr != "" {
		msg = fmt.Sprintf("%s (code %s)", msg, se.codeStr)
	}
	return &failure{kind: se.kind(), what: what, msg: c.clean(msg), code: se.httpCode()}
}

// notStreamFailure is the failure for a 2xx answer whose body has no "data:" line at all
// (see ErrNotStream); head is the body's start.
func (c *Client) notStreamFailure(status, contentType string, head []byte) *failure {
	if contentType == "" {
		contentType = "none"
	}
	return &failure{kind: ErrNotStream, what: "not an event stream", msg: fmt.Sprintf(
		"the endpoint answered %s (Content-Type %s) with a body that has no data: lines; it may ignore \"stream\": true, "+
			"or the base URL is not an OpenAI-compatible API root: %s", status, contentType, c.clean(strings.ToValidUTF8(string(head), "")))}
}

// retryable reports whether another try may succeed: the failure is a kind of
// ErrUnavailable.
func (f *failure) retryable() bool { return errors.Is(f.kind, ErrUnavailable) }

// limitFailure is the failure for a try ended by the watchdog (a *stallError as the
// cause of the try's context) or by a size limit (a *tooLargeError from the body guard or
// the assembler), or nil when neither ended it. These are checked before the error
// go-openai returns, which may report the same event as a cancelled request, a read
// error or an error event assembled from junk lines.
func limitFailure(tctx context.Context, guard *bodyGuard, err error) *failure {
	if stall := (*stallError)(nil); errors.As(context.Cause(tctx), &stall) {
		kind := ErrTimeout
		if stall.idle {
			kind = ErrIdleTimeout
		}
		return &failure{kind: kind, what: "timed out", msg: stall.msg}
	}
	big := (*tooLargeError)(nil)
	if guard != nil && errors.As(guard.tooLarge(), &big) || errors.As(err, &big) {
		return &failure{kind: ErrTooLarge, what: "answer too large", msg: big.msg}
	}
	return nil
}

// statusKind is the sentinel for an HTTP status: 429 and 5xx are transient, others rejected.
func statusKind(code int) error {
	if code == http.StatusTooManyRequests || code >= 500 {
		return ErrUnavailable
	}
	return ErrRejected
}

// statusText is the status line ("503 Service Unavailable"), built from the code when the
// response had none.
func statusText(status string, code int) string {
	if status != "" {
		return status
	}
	return fmt.Sprintf("%d %s", code, http.StatusText(code))
}

// clean makes a server or transport message fit for errors and logs: the API key
// replaced by [REDACTED], whitespace runs collapsed to one space (one line), and at most
// maxMessageLen bytes.
func (c *Client) clean(s string) string {
	if c.apiKey != "" {
		s = strings.ReplaceAll(s, c.apiKey, "[REDACTED]")
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxMessageLen {
		return s
	}
	cut := maxMessageLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

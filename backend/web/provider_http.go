package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"artifactflow/backend/netcause"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Limits shared by the search providers.
const (
	// maxSnippetRunes caps a result's snippet (runes); a longer one is cut and ends in "…".
	maxSnippetRunes = 600
	// maxErrorExcerpt caps the part of an error body quoted in an error message (runes).
	maxErrorExcerpt = 200
	// defaultRetryAfter is the wait before the retry after a 429 without a usable Retry-After.
	defaultRetryAfter = time.Second
	// redacted replaces the API key wherever it would appear in an error message.
	redacted = "[redacted]"
)

// userAgent identifies the app to the key-based APIs and to Wikimedia, whose policy asks for
// a descriptive agent (https://meta.wikimedia.org/wiki/User-Agent_policy).
const userAgent = "ArtifactFlow-Desktop/1.0 (local research assistant; Go net/http)"

// apiClient is the HTTP core every provider but SearXNG's legacy client shares: it sends one
// request, retries once after a 429, reads the body through a size cap and turns failures
// into searchErrors that name the provider and never contain the API key. It is safe for
// concurrent use; sleep and now are replaced by tests.
type apiClient struct {
	id         string // provider id, the first word of every error
	prefix     string // start of every error message: "<id> search" unless set otherwise
	name       string // display name, for the "check the key" hint
	key        string // API key ("" for keyless providers); redacted from errors
	needsKey   bool   // a 401/403 means the key was refused (else: the request was)
	client     *http.Client
	perRequest time.Duration // per-attempt timeout when client has none, else 0
	maxBody    int64         // bytes

	sleep   func(ctx context.Context, d time.Duration) error
	now     func() time.Time
	maxWait time.Duration // longest Retry-After honoured
}

// newAPIClient returns the core for provider id with the given key and client (nil: a
// client with a DefaultSearchTimeout timeout).
func newAPIClient(id, key string, client *http.Client) (*apiClient, error) {
	info, ok := providerInfo(id)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownProvider, id)
	}
	a := &apiClient{id: id, name: info.Name, key: key, needsKey: info.NeedsKey, client: client, maxBody: maxSearchResponse,
		sleep: waitCtx, now: time.Now, maxWait: MaxRetryAfter}
	if a.client == nil {
		a.client = &http.Client{Timeout: DefaultSearchTimeout}
	}
	if a.client.Timeout == 0 {
		a.perRequest = DefaultSearchTimeout
	}
	return a, nil
}

// waitCtx waits d or until ctx ends, whichever is first; it returns ctx's error in the
// second case.
func waitCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// searchError is a search failure: msg (already free of the API key) and the errors it
// wraps for errors.Is (sentinels, context errors, the transport error when it holds no key).
type searchError struct {
	msg     string
	wrapped []error
}

// Error returns the message, which starts with the provider's id.
func (e *searchError) Error() string { return e.msg }

// Unwrap returns the wrapped errors.
func (e *searchError) Unwrap() []error { return e.wrapped }

// fail builds a searchError "<prefix>: <format…>" wrapping causes; the key is replaced by
// "[redacted]" in the message, and a cause whose own message holds the key is not wrapped
// (only the sentinels it matches are).
func (a *apiClient) fail(causes []error, format string, args ...any) error {
	prefix := a.prefix
	if prefix == "" {
		prefix = a.id + " search"
	}
	msg := a.redact(prefix + ": " + fmt.Sprintf(format, args...))
	var wrapped []error
	for _, c := range causes {
		if c == nil {
			continue
		}
		if a.key != "" && strings.Contains(c.Error(), a.key) {
			for _, s := range []error{ErrAuth, ErrRateLimited, ErrHTTPStatus, ErrTimeout, context.Canceled, context.DeadlineExceeded} {
				if errors.Is(c, s) {
					wrapped = append(wrapped, s)
				}
			}
			continue
		}
		wrapped = append(wrapped, c)
	}
	return &searchError{msg: msg, wrapped: wrapped}
}

// redact replaces every occurrence of the API key in s.
func (a *apiClient) redact(s string) string {
	if a.key == "" {
		return s
	}
	return strings.ReplaceAll(s, a.key, redacted)
}

// errorInfo is what a provider's error body says: its message; whether it means the key
// was refused even though the status is not 401/403 (Brave's 422 SUBSCRIPTION_TOKEN_INVALID);
// and a hint that replaces the generic advice at the end of the error (SearXNG's
// settings.yml fixes).
type errorInfo struct {
	msg  string
	auth bool
	hint string
}

// errorParser reads a provider's error body; it returns the zero errorInfo when it cannot.
type errorParser func(status int, body []byte) errorInfo

// apiResponse is a successful (2xx) answer.
type apiResponse struct {
	status int
	header http.Header
	body   []byte
}

// send sends the request build makes (called again for the retry) and returns the 2xx
// answer. A 429 is retried once after the server's Retry-After (seconds or an HTTP date;
// none or unreadable: 1 s), unless that is longer than maxWait; a second 429 gives
// ErrRateLimited. 401/403 (or a body parseErr reads as a refused key) gives ErrAuth; any
// other non-2xx ErrHTTPStatus with an excerpt of the body. A cancelled ctx, during the
// request or the wait, gives an error wrapping ctx's error.
func (a *apiClient) send(ctx context.Context, build func(context.Context) (*http.Request, error), parseErr errorParser) (*apiResponse, error) {
	for attempt := 1; ; attempt++ {
		resp, err := a.once(ctx, build)
		if err != nil {
			return nil, err
		}
		if resp.status != http.StatusTooManyRequests {
			if resp.status >= 200 && resp.status < 300 {
				return resp, nil
			}
			return nil, a.statusError(resp, parseErr)
		}
		detail := a.excerpt(resp, parseErr)
		hint := advice(resp, parseErr, "wait a little or choose another provider in Settings → Search")
		if attempt == 2 {
			return nil, a.fail([]error{ErrRateLimited, ErrHTTPStatus},
				"rate limited (HTTP 429 Too Many Requests%s) again after one retry; %s", detail, hint)
		}
		wait, ok := a.retryAfter(resp.header)
		if !ok {
			return nil, a.fail([]error{ErrRateLimited, ErrHTTPStatus},
				"rate limited (HTTP 429 Too Many Requests%s); the server asks to wait %s, more than the %s this app waits; %s",
				detail, wait.Round(time.Second), a.maxWait, hint)
		}
		slog.Debug("search rate limited; retrying once", "provider", a.id, "wait", wait)
		if err := a.sleep(ctx, wait); err != nil {
			return nil, a.fail([]error{err}, "rate limited (HTTP 429); stopped while waiting %s to retry: %v", wait, err)
		}
	}
}

// once sends one request and reads its whole body (at most maxBody bytes).
func (a *apiClient) once(ctx context.Context, build func(context.Context) (*http.Request, error)) (*apiResponse, error) {
	rctx := ctx
	if a.perRequest > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, a.perRequest)
		defer cancel()
	}
	req, err := build(rctx)
	if err != nil {
		return nil, a.fail([]error{err}, "build request: %v", err)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, a.transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, a.maxBody+1))
	if err != nil {
		return nil, a.transportError(ctx, fmt.Errorf("read answer: %w", err))
	}
	if int64(len(body)) > a.maxBody {
		return nil, a.fail(nil, "the answer is larger than the %d-byte limit", a.maxBody)
	}
	return &apiResponse{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// transportError wraps a failed request: ctx's own error when the caller cancelled,
// ErrTimeout when the per-request limit or the client's Timeout ran out. The message says
// the cause first and briefly (netcause.Describe: "cannot resolve html.duckduckgo.com (you
// may be offline, …)", "connection refused by 127.0.0.1:8888 (…)"), without the request's
// method and URL, so a clipped message still holds the cause; err stays wrapped.
func (a *apiClient) transportError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return a.fail([]error{ctxErr, err}, "%s", netcause.Describe(err))
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		limit := a.client.Timeout
		if limit == 0 {
			limit = a.perRequest
		}
		return a.fail([]error{ErrTimeout, err}, "no answer within %s", limit)
	}
	return a.fail([]error{err}, "%s", netcause.Describe(err))
}

// statusError turns a non-2xx, non-429 answer into ErrAuth or ErrHTTPStatus.
func (a *apiClient) statusError(resp *apiResponse, parseErr errorParser) error {
	info := errorInfo{}
	if parseErr != nil {
		info = parseErr(resp.status, resp.body)
	}
	detail := a.excerpt(resp, parseErr)
	authStatus := resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden
	switch {
	case a.needsKey && (authStatus || info.auth):
		return a.fail([]error{ErrAuth, ErrHTTPStatus}, "the API key was refused (HTTP %d %s%s); %s",
			resp.status, http.StatusText(resp.status), detail, advice(resp, parseErr, "check the "+a.name+" API key in Settings → Search"))
	case authStatus:
		return a.fail([]error{ErrHTTPStatus}, "%s refused the request (HTTP %d %s%s); %s",
			a.name, resp.status, http.StatusText(resp.status), detail, advice(resp, parseErr, "try again later or choose another provider in Settings → Search"))
	}
	msg := fmt.Sprintf("%v %d %s%s", ErrHTTPStatus, resp.status, http.StatusText(resp.status), detail)
	if info.hint != "" {
		msg += "; " + info.hint
	}
	return a.fail([]error{ErrHTTPStatus}, "%s", msg)
}

// advice returns parseErr's hint for resp, or def.
func advice(resp *apiResponse, parseErr errorParser, def string) string {
	if parseErr != nil {
		if h := parseErr(resp.status, resp.body).hint; h != "" {
			return h
		}
	}
	return def
}

// excerpt returns ": <provider message>" (or ": <start of the body as text>"), or "" for an
// empty body. The key is redacted before the text is cut to maxErrorExcerpt runes, so a
// key straddling the cut leaves none of its characters (fail redacts the whole message
// again).
func (a *apiClient) excerpt(resp *apiResponse, parseErr errorParser) string {
	msg := ""
	if parseErr != nil {
		msg = parseErr(resp.status, resp.body).msg
	}
	if msg == "" {
		msg = a.quoteText(resp.body)
	}
	msg = cutEllipsis(a.redact(oneLine(msg)), maxErrorExcerpt)
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// quoteText returns the start of body as one line of plain text with the API key redacted,
// for quoting in an error message. Only the first maxQuotedBody bytes are read; when the body
// is longer, a tail that could be the first part of the key is dropped too (the rest of the
// key was cut off, so redact cannot recognise it).
func (a *apiClient) quoteText(body []byte) string {
	s := a.redact(oneLine(resultText(string(utf8Prefix(body, maxQuotedBody)))))
	if len(body) > maxQuotedBody && a.key != "" {
		for n := min(len(a.key)-1, len(s)); n > 0; n-- {
			if strings.HasSuffix(s, a.key[:n]) {
				return strings.TrimRight(s[:len(s)-n], " ")
			}
		}
	}
	return s
}

// retryAfter reads Retry-After (delay-seconds or an HTTP date). It reports false, with the
// asked wait, when that is longer than maxWait; no header or an unreadable one means
// defaultRetryAfter.
func (a *apiClient) retryAfter(h http.Header) (time.Duration, bool) {
	d := defaultRetryAfter
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
			secs = max(secs, 0)
			if secs > int64(a.maxWait/time.Second) { // checked first: a huge value would overflow
				return time.Duration(min(secs, 1<<31)) * time.Second, false
			}
			d = time.Duration(secs) * time.Second
		} else if t, err := http.ParseTime(v); err == nil {
			d = max(t.Sub(a.now()), 0)
		}
	}
	if d > a.maxWait {
		return d, false
	}
	return d, true
}

// decodeJSON decodes an answer's body into v; the error says the body was not the
// provider's JSON format and quotes its start, the key redacted before the cut.
func (a *apiClient) decodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return a.fail(nil, "the answer is not %s's JSON format (%v): %s", a.name, err, cutEllipsis(a.quoteText(body), 80))
	}
	return nil
}

// providerEndpoint returns override (an absolute http(s) URL) or, when it is "", def.
func providerEndpoint(id, override, def string) (string, error) {
	if override == "" {
		return def, nil
	}
	u, err := url.Parse(override)
	if err != nil {
		return "", fmt.Errorf("%w: %s endpoint %q: %w", ErrBadURL, id, override, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%w: %s endpoint %q must be an absolute http:// or https:// URL", ErrBadURL, id, override)
	}
	return override, nil
}

// searchCount maps web_search's count to 1..MaxSearchCount (0 or less: DefaultSearchCount).
func searchCount(count int) int {
	if count <= 0 {
		return DefaultSearchCount
	}
	return min(count, MaxSearchCount)
}

// resultList collects at most limit results, skipping those without an absolute http(s)
// URL and repeats of a URL already listed.
type resultList struct {
	engine string
	limit  int
	out    []SearchResult
	seen   map[string]bool
}

// newResultList starts a list for engine (the SearchResult.Engine of each result).
func newResultList(engine string, limit int) *resultList {
	return &resultList{engine: engine, limit: limit, out: make([]SearchResult, 0, limit), seen: map[string]bool{}}
}

// full reports whether limit results are listed.
func (r *resultList) full() bool { return len(r.out) >= r.limit }

// add appends one result unless the list is full or link is not a usable URL. Title and
// snippet are reduced to plain text (the snippet cut to maxSnippetRunes); an empty title
// becomes the URL.
func (r *resultList) add(title, link, snippet, published string) {
	r.addFrom("", title, link, snippet, published)
}

// addFrom is add with the result's Engine set to engine ("" = the list's engine), for
// SearXNG, whose results each name the engine that found them.
func (r *resultList) addFrom(engine, title, link, snippet, published string) {
	if r.full() {
		return
	}
	link, ok := resultURL(link)
	if !ok || r.seen[link] {
		return
	}
	r.seen[link] = true
	if engine == "" {
		engine = r.engine
	}
	res := SearchResult{
		Title:         resultText(title),
		URL:           link,
		Snippet:       cutEllipsis(resultText(utf8Prefix(snippet, maxRawSnippet)), maxSnippetRunes),
		Engine:        engine,
		PublishedDate: strings.TrimSpace(published),
	}
	if res.Title == "" {
		res.Title = link
	}
	r.out = append(r.out, res)
}

// resultURL returns raw trimmed when it is an absolute http(s) URL with a host.
func resultURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return raw, true
	}
	return "", false
}

// resultText reduces a title or snippet that may hold HTML markup and entities ("<strong>",
// "<span class=searchmatch>", "&amp;") to plain text with single spaces. Text inside script
// and style elements is dropped; block elements and <br> separate words.
func resultText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return oneLine(s)
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return oneLine(b.String())
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				skip++
			case atom.Br, atom.P, atom.Div, atom.Li, atom.Tr, atom.Td, atom.Th, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				b.WriteByte(' ')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				skip = max(skip-1, 0)
			case atom.P, atom.Div, atom.Li, atom.Tr, atom.Td, atom.Th, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				b.WriteByte(' ')
			}
		}
	}
}

// oneLine trims s and turns every run of white space (as unicode.IsSpace) into one space.
// It builds only its result: splitting into fields first would cost a string header (16
// bytes) per word, eight times the text for "a a a …".
func oneLine(s string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			i += size
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) - i)
		} else if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteString(s[i : i+size]) // the bytes as given, an invalid one included
		i += size
	}
	return b.String()
}

// cutEllipsis cuts s to at most n runes, ending a cut string in "…".
func cutEllipsis(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, _ := Truncate(s, n-1)
	return strings.TrimRight(cut, " ") + "…"
}

// errorBodyField reads the first non-empty string among the given top-level or nested fields
// of a JSON error body, e.g. errorBodyField(body, "message", "msg", "error.detail"). A field
// that is an object or array is skipped. A body over maxQuotedBody bytes is not an error
// envelope and gives "": decoded into generic values, eight megabytes of "{}," would take
// hundreds of megabytes.
func errorBodyField(body []byte, paths ...string) string {
	if len(body) > maxQuotedBody {
		return ""
	}
	var root any
	if json.Unmarshal(body, &root) != nil {
		return ""
	}
	for _, p := range paths {
		v := root
		for _, k := range strings.Split(p, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

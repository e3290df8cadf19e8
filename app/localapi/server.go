// Package localapi is ArtifactFlow's local HTTP API for declared session artifacts
// (contract in docs/ARCHITECTURE.md, "Contracts other code relies on"), served on 127.0.0.1
// by the window and by `artifactflow serve`, for scripts and tools of the same user. The
// session id of every route is a conversation id.
//
// Routes (all answer JSON; every request needs `Authorization: Bearer <token>`):
//
//	GET    /capabilities                            {v:1, features:["session_artifacts"], server, limits}
//	GET    /session/:id/artifacts                   {v:1, sessionId, artifacts:[...]}
//	POST   /session/:id/artifacts                   one artifact, or {artifacts:[...], clientId?}
//	                                                -> {v:1, sessionId, changes:[...]}
//	DELETE /session/:id/artifacts/:artifactId       -> {v:1, sessionId, changes:[...]} ([] when absent)
//	GET    /session/:id/events                      text/event-stream of artifact_changed events
//
// Errors are {v:1, error:{code, message, field?}}: 400 VALIDATION_FAILED (field names the
// offending field), 401 UNAUTHORIZED, 403 FORBIDDEN (foreign Host, Origin or
// Sec-Fetch-Site, or a client-retained artifact another client asked to remove), 404
// SESSION_NOT_FOUND or NOT_FOUND (no such route), 405 METHOD_NOT_ALLOWED (with Allow),
// 408 REQUEST_TIMEOUT (the body came too slowly; the connection is closed), 413
// PAYLOAD_TOO_LARGE, 429 RATE_LIMITED (past the request rate, with Retry-After; or an event
// stream past Options.MaxStreams open ones, without: a slot frees when a stream closes),
// 500 INTERNAL. A request
// answered with an error changed nothing.
//
// Security: the API is for programs, not web pages. A request whose Host header is not
// the address it listens on (127.0.0.1:PORT or localhost:PORT) is refused, which defeats
// DNS rebinding; so is any request carrying an Origin header (a page's fetch always sends
// one, even "null") or a Sec-Fetch-Site header other than "none". Refused requests change
// nothing. The token lives in <data-dir>/api.json (mode 0600) while the app runs (Start).
//
// Client identity: POST and DELETE name the calling client by a "clientId" body field,
// a ?clientId= query parameter or the X-Client-Id header (several must agree). A request
// naming none is the client AnonymousClient. Over this API a caller is always a client,
// never the user, so a client-retained artifact can be removed only by a client that
// retains it.
package localapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
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

	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// Protocol constants.
const (
	// Version is the "v" of every response and event.
	Version = 1
	// FeatureSessionArtifacts is the capability that announces these routes.
	FeatureSessionArtifacts = "session_artifacts"
	// EventArtifactChanged is the SSE event name (and "type") of a declared change.
	EventArtifactChanged = "artifact_changed"
	// ClientIDHeader names the calling client, as does a "clientId" field or query parameter.
	ClientIDHeader = "X-Client-Id"
	// AnonymousClient is the client id of a request that names none.
	AnonymousClient = "anonymous"
	// MaxClientIDLen is the longest client id in bytes; ids are ASCII letters, digits and
	// . _ - : @ / +.
	MaxClientIDLen = 128
	// MaxBatch is the most artifacts one POST may carry.
	MaxBatch = declared.MaxPerConversation
)

// Defaults of Options.
const (
	DefaultMaxBody   = 1 << 20          // bytes of a request body
	DefaultRate      = 20               // requests per second per token, sustained
	DefaultBurst     = 40               // requests per token at once
	DefaultHeartbeat = 15 * time.Second // SSE comment interval
	// DefaultMaxStreams is how many event streams one token may hold open at once. A
	// stream costs about 150 KB (its buffer of sseBuffer changes) and a connection; one
	// more is answered 429 RATE_LIMITED until one closes. A client needs one per
	// conversation it watches.
	DefaultMaxStreams = 16
	sseBuffer         = 1024             // live changes a slow stream may lag before it is closed
	sseWriteTimeout   = 30 * time.Second // one SSE write
)

// Error codes of the envelope.
const (
	CodeValidation       = "VALIDATION_FAILED"
	CodeUnauthorized     = "UNAUTHORIZED"
	CodeForbidden        = "FORBIDDEN"
	CodeSessionNotFound  = "SESSION_NOT_FOUND"
	CodeNotFound         = "NOT_FOUND"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodePayloadTooLarge  = "PAYLOAD_TOO_LARGE"
	CodeRequestTimeout   = "REQUEST_TIMEOUT"
	CodeRateLimited      = "RATE_LIMITED"
	CodeInternal         = "INTERNAL"
)

// Declared is the declared-artifact service the API serves; *declared.Service implements
// it (see that package for the semantics and errors of each method).
type Declared interface {
	UpsertReport(ctx context.Context, conversationID string, inputs []declared.Input, strict bool) (declared.Report, error)
	List(ctx context.Context, conversationID string) ([]declared.Artifact, error)
	Recheck(ctx context.Context, conversationID, artifactID string) (declared.Artifact, error)
	RemoveReport(ctx context.Context, conversationID, artifactID, clientID string) (declared.Report, error)
	ChangesSince(ctx context.Context, conversationID string, after int64, limit int) ([]declared.LoggedChange, error)
}

// Options configure a Server. Declared and Subscribe are required.
type Options struct {
	Declared Declared
	// Subscribe registers fn for every declared-artifact change of every conversation
	// from now on, after it is logged, in log order (app.Core.SubscribeDeclared), and
	// returns a function that unregisters it. fn does not block.
	Subscribe func(fn func(conversationID string, ch declared.LoggedChange)) (remove func())
	// Token is the bearer token; "" makes a random one (32 bytes, hex).
	Token string
	// MaxBody caps a request body in bytes; 0 means DefaultMaxBody.
	MaxBody int64
	// Rate (requests per second) and Burst size the per-token token bucket; 0 means
	// DefaultRate and DefaultBurst.
	Rate  float64
	Burst int
	// Heartbeat is the SSE comment interval; 0 means DefaultHeartbeat.
	Heartbeat time.Duration
	// MaxStreams caps the event streams open at once per token; 0 means DefaultMaxStreams.
	MaxStreams int
	// ReadHeaderTimeout, ReadTimeout and IdleTimeout bound, on the server Start runs, the
	// reading of a request's headers, of a whole request (headers and body; an event
	// stream lifts it once it starts) and a kept-alive connection's wait for its next
	// request: a slow or silent client is disconnected. 0 means DefaultReadHeaderTimeout,
	// DefaultReadTimeout and DefaultIdleTimeout.
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// Logger receives refusals and internal errors; nil means slog.Default().
	Logger *slog.Logger
}

// Server is the local API's http.Handler. It is safe for concurrent use.
type Server struct {
	opts    Options
	token   string
	log     *slog.Logger
	limiter *limiter
	streams *streamSlots
}

// New returns a Server. Errors: a missing Declared or Subscribe; no randomness for the token.
func New(opts Options) (*Server, error) {
	if opts.Declared == nil || opts.Subscribe == nil {
		return nil, errors.New("localapi: Declared and Subscribe are required")
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Rate <= 0 {
		opts.Rate = DefaultRate
	}
	if opts.Burst <= 0 {
		opts.Burst = DefaultBurst
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = DefaultMaxStreams
	}
	if opts.ReadHeaderTimeout <= 0 {
		opts.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	token := opts.Token
	if token == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("localapi: make token: %w", err)
		}
		token = hex.EncodeToString(b)
	}
	return &Server{opts: opts, token: token, log: opts.Logger, limiter: newLimiter(opts.Rate, opts.Burst, time.Now),
		streams: newStreamSlots(opts.MaxStreams)}, nil
}

// Token returns the bearer token clients must present.
func (s *Server) Token() string { return s.token }

// Capabilities is the answer of GET /capabilities.
type Capabilities struct {
	V        int      `json:"v"`
	Features []string `json:"features"`
	Server   string   `json:"server"` // "artifactflow"
	Limits   Limits   `json:"limits"`
}

// Limits are the bounds a client must respect (sizes in bytes, rates per second).
// MaxStreams is how many event streams one token may hold open at once.
type Limits struct {
	MaxBodyBytes        int64   `json:"maxBodyBytes"`
	MaxBatch            int     `json:"maxBatch"`
	MaxArtifacts        int     `json:"maxArtifactsPerSession"`
	MaxTitleChars       int     `json:"maxTitleChars"`
	MaxDescriptionChars int     `json:"maxDescriptionChars"`
	MaxMetadataBytes    int     `json:"maxMetadataBytes"`
	RequestsPerSecond   float64 `json:"requestsPerSecond"`
	Burst               int     `json:"burst"`
	MaxStreams          int     `json:"maxStreams"`
}

// ArtifactsEnvelope is the answer of GET /session/:id/artifacts; Artifacts is never null.
type ArtifactsEnvelope struct {
	V         int                 `json:"v"`
	SessionID string              `json:"sessionId"`
	Artifacts []declared.Artifact `json:"artifacts"`
}

// ArtifactEnvelope is the answer of GET /session/:id/artifacts/:artifactId: the one artifact
// as it stands after its workspace file, if it has one, was checked again just now.
type ArtifactEnvelope struct {
	V         int               `json:"v"`
	SessionID string            `json:"sessionId"`
	Artifact  declared.Artifact `json:"artifact"`
}

// MutationResult is the answer of POST and DELETE; Changes is never null (created and
// updated first, then removed).
//
// Dropped (POST, absent when empty) lists the inputs that were not stored because the
// session was full and client artifacts were over their reservation: each names the
// input's position in the request ("index", 0 for a single artifact), "reason" "quota"
// and a "message". A client over its reservation loses its own oldest artifacts first;
// only when it has none left are its newest inputs dropped; the agent's and the hooks'
// artifacts within their reservations are never evicted for it.
//
// Released (DELETE, absent when false) says that the artifact stays: the calling client's
// retention was lifted, but other clients still retain it (Changes is empty). The
// artifact is removed when its last retaining client removes it, or by the user.
type MutationResult struct {
	V         int                `json:"v"`
	SessionID string             `json:"sessionId"`
	Changes   []declared.Change  `json:"changes"`
	Dropped   []declared.Dropped `json:"dropped,omitempty"`
	Released  bool               `json:"released,omitempty"`
}

// ErrorEnvelope is the body of every error answer.
type ErrorEnvelope struct {
	V     int       `json:"v"`
	Error ErrorBody `json:"error"`
}

// ErrorBody is an error's code (Code* constants), a message for people and, for
// VALIDATION_FAILED, the JSON name of the offending field ("url", "metadata.key",
// "artifacts[2].title" in a batch, "clientId").
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

// Event is the data of one SSE event: {v:1, type:"artifact_changed", data:{sessionId, change}}.
// The SSE id is the change's sequence number in the conversation's change log.
type Event struct {
	V    int       `json:"v"`
	Type string    `json:"type"`
	Data EventData `json:"data"`
}

// EventData is an artifact_changed event's session and change.
type EventData struct {
	SessionID string          `json:"sessionId"`
	Change    declared.Change `json:"change"`
}

// apiError is an answer with an error envelope.
type apiError struct {
	status int
	body   ErrorBody
}

func (e *apiError) Error() string { return e.body.Code + ": " + e.body.Message }

func errorf(status int, code, field, format string, args ...any) *apiError {
	return &apiError{status: status, body: ErrorBody{Code: code, Message: fmt.Sprintf(format, args...), Field: field}}
}

// ServeHTTP implements http.Handler: the guards (Host, Origin, token, rate), then the routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if e := s.guard(r); e != nil {
		if e.status == http.StatusUnauthorized {
			h.Set("WWW-Authenticate", `Bearer realm="artifactflow"`)
		}
		writeError(w, e)
		return
	}
	if ok, wait := s.limiter.allow(s.token); !ok {
		h.Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		writeError(w, errorf(http.StatusTooManyRequests, CodeRateLimited, "", "too many requests: retry after %s", wait.Round(time.Millisecond)))
		return
	}
	s.route(w, r)
}

// guard returns why r must be refused before anything else happens, or nil.
func (s *Server) guard(r *http.Request) *apiError {
	if !s.hostAllowed(r) {
		s.log.Warn("localapi: refused a request for another host (DNS rebinding?)", "host", r.Host, "path", r.URL.Path)
		return errorf(http.StatusForbidden, CodeForbidden, "", "Host %q is not this API's address", r.Host)
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		s.log.Warn("localapi: refused a request from a web page", "origin", origins[0], "path", r.URL.Path)
		return errorf(http.StatusForbidden, CodeForbidden, "", "requests from web pages (Origin %q) are refused: the local API is for programs", origins[0])
	}
	if site := r.Header.Values("Sec-Fetch-Site"); len(site) > 0 && (len(site) > 1 || site[0] != "none") {
		s.log.Warn("localapi: refused a cross-site request", "sec_fetch_site", site[0], "path", r.URL.Path)
		return errorf(http.StatusForbidden, CodeForbidden, "", "requests from web pages (Sec-Fetch-Site %q) are refused", site[0])
	}
	auth := r.Header.Values("Authorization")
	var got string
	if len(auth) == 1 {
		if scheme, tok, ok := strings.Cut(auth[0], " "); ok && strings.EqualFold(scheme, "Bearer") {
			got = strings.TrimSpace(tok)
		}
	}
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
		return errorf(http.StatusUnauthorized, CodeUnauthorized, "", "missing or wrong bearer token (see api.json in the data directory)")
	}
	return nil
}

// hostAllowed reports whether r's Host header names the loopback address and port the
// request arrived on: 127.0.0.1:PORT or localhost:PORT. The port comes from the
// connection's local address (http.LocalAddrContextKey); without one nothing is allowed.
func (s *Server) hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	tcp, ok := local.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return false
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || port != strconv.Itoa(tcp.Port) {
		return false
	}
	return host == "127.0.0.1" || strings.EqualFold(host, "localhost")
}

// route dispatches an authorized request by path and method.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	segs, ok := splitPath(r.URL)
	switch {
	case !ok:
		writeError(w, errorf(http.StatusNotFound, CodeNotFound, "", "no such route %q", r.URL.EscapedPath()))
	case len(segs) == 1 && segs[0] == "capabilities":
		if allow(w, r, http.MethodGet) {
			s.capabilities(w)
		}
	case len(segs) == 3 && segs[0] == "session" && segs[2] == "artifacts":
		switch r.Method {
		case http.MethodGet:
			s.list(w, r, segs[1])
		case http.MethodPost:
			s.add(w, r, segs[1])
		default:
			allow(w, r, http.MethodGet, http.MethodPost)
		}
	case len(segs) == 4 && segs[0] == "session" && segs[2] == "artifacts":
		switch r.Method {
		case http.MethodGet:
			s.get(w, r, segs[1], segs[3])
		case http.MethodDelete:
			s.remove(w, r, segs[1], segs[3])
		default:
			allow(w, r, http.MethodGet, http.MethodDelete)
		}
	case len(segs) == 3 && segs[0] == "session" && segs[2] == "events":
		if allow(w, r, http.MethodGet) {
			s.events(w, r, segs[1])
		}
	default:
		writeError(w, errorf(http.StatusNotFound, CodeNotFound, "", "no such route %q", r.URL.EscapedPath()))
	}
}

// splitPath returns the unescaped, non-empty segments of u's path; false when the path is
// not absolute, has an empty segment or does not unescape.
func splitPath(u *url.URL) ([]string, bool) {
	p := u.EscapedPath()
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	segs := strings.Split(p[1:], "/")
	for i, seg := range segs {
		v, err := url.PathUnescape(seg)
		if err != nil || v == "" {
			return nil, false
		}
		segs[i] = v
	}
	return segs, true
}

// allow reports whether r's method is one of methods, else answers 405 with Allow.
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	writeError(w, errorf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "", "%s is not allowed here; use %s", r.Method, strings.Join(methods, " or ")))
	return false
}

func (s *Server) capabilities(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, Capabilities{V: Version, Features: []string{FeatureSessionArtifacts}, Server: "artifactflow",
		Limits: Limits{MaxBodyBytes: s.opts.MaxBody, MaxBatch: MaxBatch, MaxArtifacts: declared.MaxPerConversation,
			MaxTitleChars: declared.MaxTitleRunes, MaxDescriptionChars: declared.MaxDescription,
			MaxMetadataBytes: declared.MaxMetadataBytes, RequestsPerSecond: s.opts.Rate, Burst: s.opts.Burst,
			MaxStreams: s.opts.MaxStreams}})
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, session string) {
	arts, err := s.opts.Declared.List(r.Context(), session)
	if err != nil {
		s.fail(w, r, err, "")
		return
	}
	if arts == nil {
		arts = []declared.Artifact{}
	}
	writeJSON(w, http.StatusOK, ArtifactsEnvelope{V: Version, SessionID: session, Artifacts: arts})
}

// get answers one artifact. A workspace file's containment and realpath check runs again
// now, whatever the list's refresh interval says, so a file deleted or swapped for a link
// leaving the workspace a moment ago reads as missing here. 404 NOT_FOUND when the session
// has no artifact with that id, 404 SESSION_NOT_FOUND when there is no such session.
func (s *Server) get(w http.ResponseWriter, r *http.Request, session, artifactID string) {
	a, err := s.opts.Declared.Recheck(r.Context(), session, artifactID)
	if errors.Is(err, declared.ErrNoArtifact) {
		writeError(w, errorf(http.StatusNotFound, CodeNotFound, "", "no artifact with this id in the session"))
		return
	}
	if err != nil {
		s.fail(w, r, err, "")
		return
	}
	writeJSON(w, http.StatusOK, ArtifactEnvelope{V: Version, SessionID: session, Artifact: a})
}

func (s *Server) add(w http.ResponseWriter, r *http.Request, session string) {
	body, e := s.readBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	req, e := parseAddBody(body)
	if e != nil {
		writeError(w, e)
		return
	}
	client, e := clientID(r, req.clientID)
	if e != nil {
		writeError(w, e)
		return
	}
	for i := range req.inputs {
		req.inputs[i].Source = declared.SourceClient
		req.inputs[i].ClientID = client
	}
	rep, err := s.opts.Declared.UpsertReport(r.Context(), session, req.inputs, true)
	if err != nil {
		prefix := ""
		if req.batch {
			prefix = "artifacts[%d]."
		}
		s.fail(w, r, err, prefix)
		return
	}
	writeMutation(w, session, rep)
}

func (s *Server) remove(w http.ResponseWriter, r *http.Request, session, artifactID string) {
	body, e := s.readBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	var bodyClient string
	if len(bytes.TrimSpace(body)) > 0 {
		var b map[string]json.RawMessage
		if err := json.Unmarshal(body, &b); err != nil || b == nil {
			writeError(w, errorf(http.StatusBadRequest, CodeValidation, "", "the body of DELETE, when present, must be a JSON object {\"clientId\": ...}"))
			return
		}
		for k, v := range b {
			if k != "clientId" {
				writeError(w, errorf(http.StatusBadRequest, CodeValidation, k, "unknown field"))
				return
			}
			if err := json.Unmarshal(v, &bodyClient); err != nil {
				writeError(w, errorf(http.StatusBadRequest, CodeValidation, "clientId", "must be a string"))
				return
			}
		}
	}
	client, e := clientID(r, bodyClient)
	if e != nil {
		writeError(w, e)
		return
	}
	rep, err := s.opts.Declared.RemoveReport(r.Context(), session, artifactID, client)
	if err != nil {
		s.fail(w, r, err, "")
		return
	}
	writeMutation(w, session, rep)
}

// writeMutation answers a mutation's report as a MutationResult.
func writeMutation(w http.ResponseWriter, session string, rep declared.Report) {
	changes := rep.Changes
	if changes == nil {
		changes = []declared.Change{}
	}
	writeJSON(w, http.StatusOK, MutationResult{V: Version, SessionID: session, Changes: changes, Dropped: rep.Dropped, Released: rep.Released})
}

// readBody reads r's body up to the cap, never more than MaxBody+1 bytes of it: 413 beyond
// the cap (at once, without reading, when Content-Length announces it), 408 when the
// server's ReadTimeout ran out first.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	if r.ContentLength > s.opts.MaxBody {
		return nil, errorf(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "", "the body is %d bytes; the limit is %d", r.ContentLength, s.opts.MaxBody)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return nil, errorf(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "", "the body exceeds the limit of %d bytes", s.opts.MaxBody)
	case errors.As(err, &netErr) && netErr.Timeout():
		return nil, errorf(http.StatusRequestTimeout, CodeRequestTimeout, "", "the body was not received in time (%s for the whole request); send it at once", s.opts.ReadTimeout)
	case err != nil:
		return nil, errorf(http.StatusBadRequest, CodeValidation, "", "could not read the body: %v", err)
	}
	return body, nil
}

// fail answers err from the service: 400 for validation (field prefixed, with the
// input's index, by fieldPrefix when the request was a batch), 403 for a retained
// artifact, 404 for an unknown session, 500 otherwise (logged, not shown).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error, fieldPrefix string) {
	var fe *declared.FieldError
	switch {
	case errors.As(err, &fe):
		field := fe.Field
		if fieldPrefix != "" {
			field = fmt.Sprintf(fieldPrefix, fe.Index) + field
		}
		writeError(w, errorf(http.StatusBadRequest, CodeValidation, field, "%s", fe.Message))
	case errors.Is(err, declared.ErrValidation):
		writeError(w, errorf(http.StatusBadRequest, CodeValidation, "", "%v", err))
	case errors.Is(err, declared.ErrForbidden):
		writeError(w, errorf(http.StatusForbidden, CodeForbidden, "", "another client retains this artifact; a client may only release an artifact it retains itself"))
	case errors.Is(err, store.ErrNotFound):
		writeError(w, errorf(http.StatusNotFound, CodeSessionNotFound, "", "no session (conversation) with this id"))
	case r.Context().Err() != nil:
		// The client went away or the server is stopping: nobody reads an answer.
		writeError(w, errorf(http.StatusServiceUnavailable, CodeInternal, "", "request cancelled"))
	default:
		s.log.Error("localapi: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, errorf(http.StatusInternalServerError, CodeInternal, "", "internal error (see the app's log)"))
	}
}

// clientID returns the calling client's id from the body value, the ?clientId= query
// parameter and the X-Client-Id header: AnonymousClient when none is given; 400 when
// they disagree or the id is malformed.
func clientID(r *http.Request, fromBody string) (string, *apiError) {
	var ids []string
	if fromBody != "" {
		ids = append(ids, fromBody)
	}
	ids = append(ids, r.URL.Query()["clientId"]...)
	ids = append(ids, r.Header.Values(ClientIDHeader)...)
	if len(ids) == 0 {
		return AnonymousClient, nil
	}
	for _, id := range ids[1:] {
		if id != ids[0] {
			return "", errorf(http.StatusBadRequest, CodeValidation, "clientId", "the clientId field, query parameter and %s header disagree", ClientIDHeader)
		}
	}
	if msg := checkClientID(ids[0]); msg != "" {
		return "", errorf(http.StatusBadRequest, CodeValidation, "clientId", "%s", msg)
	}
	return ids[0], nil
}

// CheckClientID returns nil when id is a valid client id (1-MaxClientIDLen ASCII letters,
// digits and . _ - : @ / +), else an error saying why.
func CheckClientID(id string) error {
	if msg := checkClientID(id); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// checkClientID returns why id is not a valid client id, or "".
func checkClientID(id string) string {
	if id == "" || len(id) > MaxClientIDLen {
		return fmt.Sprintf("must be 1-%d characters", MaxClientIDLen)
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-:@/+", c) >= 0
		if !ok {
			return "may hold only ASCII letters, digits and . _ - : @ / +"
		}
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(ErrorEnvelope{V: Version, Error: ErrorBody{Code: CodeInternal, Message: "could not encode the answer"}})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, ErrorEnvelope{V: Version, Error: e.body})
}

package localapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// ErrNoServer is returned (wrapped) by Discover when no app serves the API for a data
// directory: no api.json, its process is gone, or its API does not answer.
var ErrNoServer = errors.New("no running ArtifactFlow serves this data directory")

// ErrNoAnswer: api.json names a running process, but its API did not answer as one
// (timed out, refused, or lacks the session_artifacts feature). The app may be busy: a
// caller must not write the database behind its back (its window and event streams would
// miss the change), but report the error.
var ErrNoAnswer = errors.New("the running ArtifactFlow's local API did not answer")

// clientTimeout bounds one request of a Client (the probe in Discover: probeTimeout).
const (
	clientTimeout = 30 * time.Second
	probeTimeout  = 3 * time.Second
)

// APIError is an error answer of the API. It unwraps to declared.ErrValidation
// (VALIDATION_FAILED), declared.ErrForbidden (FORBIDDEN) or store.ErrNotFound
// (SESSION_NOT_FOUND), so callers branch the same way over HTTP as on the database.
type APIError struct {
	Status  int    // HTTP status
	Code    string // Code* constant
	Message string
	Field   string // "" unless a field is at fault
}

// Error returns "<field>: <message>" or the message alone.
func (e *APIError) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

// Unwrap returns the sentinel matching Code, or nil.
func (e *APIError) Unwrap() error {
	switch e.Code {
	case CodeValidation:
		return declared.ErrValidation
	case CodeForbidden:
		return declared.ErrForbidden
	case CodeSessionNotFound:
		return store.ErrNotFound
	}
	return nil
}

// Client talks to a running app's local API, as the command line does.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// Discover reads <dataDir>/api.json and returns a Client when its process is alive and
// its API answers GET /capabilities with the session_artifacts feature; the caller closes
// it. Errors, wrapped with the reason: ErrNoServer when no app serves the data directory
// (no or malformed api.json, its process ended, nothing listens at its address);
// ErrNoAnswer when one seems to but did not answer as expected (a timeout, a refusal such
// as a stale token, no session_artifacts feature).
func Discover(ctx context.Context, dataDir string) (*Client, error) {
	d, err := ReadDiscovery(dataDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoServer, err)
	}
	if !pidAlive(d.PID) {
		return nil, fmt.Errorf("%w: process %d of %s has ended", ErrNoServer, d.PID, DiscoveryFile)
	}
	c, err := NewClient(d)
	if err != nil { // not an address an app of ours would write
		return nil, fmt.Errorf("%w: %w", ErrNoServer, err)
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var caps Capabilities
	if err := c.do(pctx, http.MethodGet, "/capabilities", nil, "", &caps); err != nil {
		c.Close()
		if errors.Is(err, syscall.ECONNREFUSED) { // nothing listens: the pid was reused after a crash
			return nil, fmt.Errorf("%w: nothing listens at %s: %w", ErrNoServer, d.URL, err)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrNoAnswer, d.URL, err)
	}
	for _, f := range caps.Features {
		if f == FeatureSessionArtifacts {
			return c, nil
		}
	}
	c.Close()
	return nil, fmt.Errorf("%w: %s lacks the %s feature", ErrNoAnswer, d.URL, FeatureSessionArtifacts)
}

// NewClient returns a Client for d, whose URL must be http://127.0.0.1:PORT (the token is
// sent nowhere else). It uses no proxy and follows no redirect.
func NewClient(d Discovery) (*Client, error) {
	u, err := url.Parse(d.URL)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.User != nil || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("localapi: %q is not a local API URL (http://127.0.0.1:PORT)", d.URL)
	}
	u.Path = ""
	return &Client{base: u, token: d.Token, http: &http.Client{
		Timeout:       clientTimeout,
		Transport:     &http.Transport{Proxy: nil, MaxIdleConns: 2, IdleConnTimeout: 10 * time.Second},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// Close closes the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// List returns the session's artifacts (GET /session/:id/artifacts).
func (c *Client) List(ctx context.Context, sessionID string) ([]declared.Artifact, error) {
	var env ArtifactsEnvelope
	if err := c.do(ctx, http.MethodGet, "/session/"+url.PathEscape(sessionID)+"/artifacts", nil, "", &env); err != nil {
		return nil, err
	}
	return env.Artifacts, nil
}

// Get returns one artifact of the session (GET /session/:id/artifacts/:artifactId), its
// workspace file checked again just now. Errors: an *APIError with CodeNotFound when the
// session has no such artifact, CodeSessionNotFound when there is no such session.
func (c *Client) Get(ctx context.Context, sessionID, artifactID string) (declared.Artifact, error) {
	var env ArtifactEnvelope
	if err := c.do(ctx, http.MethodGet, "/session/"+url.PathEscape(sessionID)+"/artifacts/"+url.PathEscape(artifactID), nil, "", &env); err != nil {
		return declared.Artifact{}, err
	}
	return env.Artifact, nil
}

// Add registers inputs as client clientID ("" for AnonymousClient) through POST
// /session/:id/artifacts: one input as a single artifact (errors name its field plainly),
// several as a batch. Only the payload fields of each Input are sent. It returns the
// changes; AddResult also tells which inputs were dropped.
func (c *Client) Add(ctx context.Context, sessionID, clientID string, inputs []declared.Input) ([]declared.Change, error) {
	res, err := c.AddResult(ctx, sessionID, clientID, inputs)
	return res.Changes, err
}

// AddResult is Add returning the whole answer (MutationResult: changes, and the inputs
// dropped because client artifacts were over their reservation of a full session).
func (c *Client) AddResult(ctx context.Context, sessionID, clientID string, inputs []declared.Input) (MutationResult, error) {
	var body any = map[string]any{"artifacts": inputs}
	if len(inputs) == 1 {
		body = inputs[0]
	}
	b, err := json.Marshal(body)
	if err != nil {
		return MutationResult{}, fmt.Errorf("localapi: encode artifacts: %w", err)
	}
	var res MutationResult
	if err := c.do(ctx, http.MethodPost, "/session/"+url.PathEscape(sessionID)+"/artifacts", b, clientID, &res); err != nil {
		return MutationResult{}, err
	}
	return res, nil
}

// Remove removes one artifact as client clientID ("" for AnonymousClient) through
// DELETE /session/:id/artifacts/:artifactId; no change when it does not exist, or when
// other clients still retain it (RemoveResult tells that case apart: Released).
func (c *Client) Remove(ctx context.Context, sessionID, artifactID, clientID string) ([]declared.Change, error) {
	res, err := c.RemoveResult(ctx, sessionID, artifactID, clientID)
	return res.Changes, err
}

// RemoveResult is Remove returning the whole answer (MutationResult: the removal, or
// Released when only the client's retention was lifted).
func (c *Client) RemoveResult(ctx context.Context, sessionID, artifactID, clientID string) (MutationResult, error) {
	var res MutationResult
	path := "/session/" + url.PathEscape(sessionID) + "/artifacts/" + url.PathEscape(artifactID)
	if err := c.do(ctx, http.MethodDelete, path, nil, clientID, &res); err != nil {
		return MutationResult{}, err
	}
	return res, nil
}

// do sends one request and decodes a 200 answer into out, or returns an *APIError.
func (c *Client) do(ctx context.Context, method, path string, body []byte, clientID string, out any) error {
	u := *c.base
	u.RawPath = path
	u.Path, _ = url.PathUnescape(path)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("localapi: %s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if clientID != "" {
		req.Header.Set(ClientIDHeader, clientID)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("localapi: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("localapi: %s %s: read the answer: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var env ErrorEnvelope
		if json.Unmarshal(b, &env) != nil || env.Error.Code == "" {
			return &APIError{Status: resp.StatusCode, Code: CodeInternal, Message: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))}
		}
		return &APIError{Status: resp.StatusCode, Code: env.Error.Code, Message: env.Error.Message, Field: env.Error.Field}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("localapi: %s %s: malformed answer: %w", method, path, err)
	}
	return nil
}

package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/config"
	"artifactflow/backend/procgroup"
)

// errTimedOut is the cause of a context ended by a server's timeout_seconds.
var errTimedOut = errors.New("the server's timeout_seconds passed")

// minSecret is the shortest env or header value hidden from logs and errors: shorter
// values ("1", "on") are too common to hide and too short to be secrets.
const minSecret = 4

// server is one configured server and its connection, if any.
type server struct {
	m    *Manager
	name string
	log  *serverLog
	// ctx is the parent of the server's starts and background listings; shutdown cancels
	// it, so a start in progress ends at once.
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	cfg       config.MCPServer
	invalid   string // why the entry cannot be used (it fails validation), "" when it can
	state     string
	errKind   error  // ErrUnavailable or ErrTimeout, for the last failure
	err       string // the last failure, secrets hidden
	conn      *conn  // the live connection; nil unless running
	tools     []Tool // listed when last running
	failures  int    // failures in a row (the backoff's n)
	retryAt   time.Time
	startDone chan struct{} // non-nil while a start runs; closed when it ends
	junk      int           // stdout lines that were not JSON-RPC, over the server's life
	transport string        // the transport last connected over ("" before)
	down      bool          // shut down for good (removed, replaced or the manager closed)
}

func newServer(m *Manager, name string, cfg config.MCPServer) *server {
	ctx, cancel := context.WithCancel(m.base)
	s := &server{m: m, name: name, cfg: cfg, state: StateStopped, ctx: ctx, cancel: cancel,
		log: newServerLog(m.opts.LogDir, name, secretsOf(cfg))}
	if err := config.ValidateMCPServer(name, cfg); err != nil {
		s.invalid = err.Error()
		s.state, s.errKind, s.err = StateFailed, ErrUnavailable, s.invalid
	}
	return s
}

// secretsOf returns cfg's env and header values long enough to hide.
func secretsOf(cfg config.MCPServer) []string {
	return slices.DeleteFunc(cfg.Secrets(), func(v string) bool { return len(v) < minSecret })
}

func (s *server) config() config.MCPServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// setConfig takes the keys that do not change the connection (agents, permission,
// disabled_tools, timeout_seconds).
func (s *server) setConfig(cfg config.MCPServer) {
	s.mu.Lock()
	s.cfg = cfg
	s.mu.Unlock()
}

func (s *server) timeout() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Duration(s.cfg.Timeout()) * time.Second
}

func (s *server) cachedTools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools)
}

// setTools replaces the tool list when c is still the live connection.
func (s *server) setTools(c *conn, tools []Tool) {
	s.mu.Lock()
	if s.conn == c {
		s.tools = tools
	}
	s.mu.Unlock()
}

func (s *server) status() Status {
	s.mu.Lock()
	st := Status{Name: s.name, Transport: s.cfg.Kind(), State: s.state, Tools: len(s.tools), Error: s.err, StdoutJunk: s.junk}
	if s.transport != "" {
		st.Transport = s.transport
	}
	if s.cfg.Disabled {
		st.State, st.Error = StateDisabled, ""
	}
	if st.State == StateFailed && time.Now().Before(s.retryAt) {
		st.RetryAt = s.retryAt
	}
	if s.conn != nil && s.conn.cmd != nil {
		st.PID = s.conn.cmd.Process.Pid
	}
	s.mu.Unlock()
	st.LogTail = s.log.tail(statusTailLines)
	return st
}

// failure is the error for the server's last failure; s.mu is held.
func (s *server) failure() error {
	kind := s.errKind
	if kind == nil {
		kind = ErrUnavailable
	}
	return fmt.Errorf("%w: %s: %s", kind, s.name, s.err)
}

// fail records a failure: state failed, the error (secrets hidden) and the next start's
// earliest time. ranFor is how long the connection that ended had run (0 for a failed
// start): a server that ran past stableAfter starts its backoff over. s.mu is held.
func (s *server) fail(kind error, why string, ranFor time.Duration) {
	if ranFor > stableAfter {
		s.failures = 0
	}
	s.failures++
	s.state, s.errKind, s.err = StateFailed, kind, s.log.redact(why)
	wait := s.m.opts.Backoff(s.failures)
	s.retryAt = time.Now().Add(wait)
	s.log.note("failed: %s (next start at the next use, not before %v from now)", why, wait.Round(time.Millisecond))
}

// ctxError is the error for ctx having ended while waiting for what (a start, a call).
func (s *server) ctxError(ctx context.Context, what string) error {
	if errors.Is(context.Cause(ctx), errTimedOut) {
		return fmt.Errorf("%w: %s did not %s within %v", ErrTimeout, s.name, what, s.timeout())
	}
	return context.Cause(ctx)
}

// session returns the live connection, starting the server when it has none: at once
// when force is set or its backoff has passed, else after the backoff when that ends
// within the server's timeout and before ctx does (otherwise the last failure is
// returned at once). The start itself is bounded by the server's timeout; ctx bounds
// only this caller's wait. A caller waits for at most one start; when that fails, its
// error is returned.
func (s *server) session(ctx context.Context, force bool) (*conn, error) {
	waited := false
	for {
		s.mu.Lock()
		switch {
		case s.down:
			s.mu.Unlock()
			return nil, ErrClosed
		case s.cfg.Disabled:
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %s", ErrDisabled, s.name)
		case s.invalid != "":
			err := s.failure()
			s.mu.Unlock()
			return nil, err
		case s.conn != nil:
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case s.startDone != nil:
			ch := s.startDone
			s.mu.Unlock()
			select {
			case <-ch:
				waited = true
				continue
			case <-ctx.Done():
				return nil, s.ctxError(ctx, "start")
			}
		case waited:
			err := s.failure()
			s.mu.Unlock()
			return nil, err
		}
		if wait := time.Until(s.retryAt); !force && s.state == StateFailed && wait > 0 {
			err := s.failure()
			limit := time.Duration(s.cfg.Timeout()) * time.Second
			s.mu.Unlock()
			if dl, ok := ctx.Deadline(); wait > limit || (ok && time.Until(dl) < wait) {
				return nil, fmt.Errorf("%w (it is started again in %v)", err, wait.Round(time.Second))
			}
			t := time.NewTimer(wait)
			select {
			case <-t.C:
				continue
			case <-ctx.Done():
				t.Stop()
				return nil, s.ctxError(ctx, "start")
			}
		}
		force = false
		ch := make(chan struct{})
		s.startDone, s.state = ch, StateStarting
		cfg := s.cfg
		s.mu.Unlock()
		if !s.m.goBackground(func() { s.start(cfg, ch) }) {
			s.mu.Lock()
			s.startDone, s.state = nil, StateStopped
			s.mu.Unlock()
			close(ch)
			return nil, ErrClosed
		}
	}
}

// start connects to the server and lists its tools, then records the outcome and closes
// done.
func (s *server) start(cfg config.MCPServer, done chan struct{}) {
	defer close(done)
	timeout := max(time.Duration(cfg.Timeout())*time.Second, s.m.opts.MinStartTimeout)
	ctx, cancel := context.WithTimeoutCause(s.ctx, timeout, errTimedOut)
	defer cancel()
	c, tools, err := s.connect(ctx, cfg)
	s.mu.Lock()
	s.startDone = nil
	switch {
	case err == nil && s.down:
		s.mu.Unlock()
		c.stop(s.m.opts.StopWait)
		return
	case err != nil:
		kind := ErrUnavailable
		if errors.Is(context.Cause(ctx), errTimedOut) {
			kind = ErrTimeout
			err = fmt.Errorf("not started within %v: %w", timeout, err)
		}
		if s.down {
			s.state = StateStopped
		} else {
			s.fail(kind, err.Error(), 0)
		}
		s.mu.Unlock()
		return
	}
	s.conn, s.tools, s.state, s.err, s.errKind, s.transport = c, tools, StateRunning, "", nil, c.transport
	c.started = time.Now()
	s.mu.Unlock()
	s.log.note("running with %d tools over %s", len(tools), c.transport)
	if !s.m.goBackground(func() { s.watch(c) }) { // closed meanwhile: Close's shutdown stops c
		return
	}
}

// connect starts or reaches the server, initialises the session and lists the tools.
func (s *server) connect(ctx context.Context, cfg config.MCPServer) (*conn, []Tool, error) {
	c := &conn{server: s}
	client := sdk.NewClient(&sdk.Implementation{Name: "artifactflow", Title: "ArtifactFlow", Version: s.m.opts.ClientVersion},
		&sdk.ClientOptions{
			Logger:       slog.New(slog.NewTextHandler(logWriter{s.log}, &slog.HandlerOptions{Level: slog.LevelWarn})),
			Capabilities: &sdk.ClientCapabilities{}, // no roots, sampling or elicitation
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
				s.toolsChanged(c)
			},
		})
	var err error
	if cfg.Kind() == config.MCPStdio {
		err = s.connectStdio(ctx, cfg, c, client)
	} else {
		err = s.connectHTTP(ctx, cfg, c, client)
	}
	if err != nil {
		return nil, nil, err
	}
	tools, err := listTools(ctx, s.name, c.sess)
	if err != nil {
		why := c.endReason(err)
		c.stop(s.m.opts.StopWait)
		return nil, nil, fmt.Errorf("tools/list: %s", why)
	}
	return c, tools, nil
}

// connectStdio starts cfg.Command in a process group of its own, its stdout filtered to
// JSON-RPC lines (filterStdout) and its stderr to the log, and initialises the session.
func (s *server) connectStdio(ctx context.Context, cfg config.MCPServer, c *conn, client *sdk.Client) error {
	prog := cfg.Command
	if !filepath.IsAbs(prog) {
		p, err := exec.LookPath(prog)
		if err != nil {
			return fmt.Errorf("the program %q is not found on PATH", prog)
		}
		prog = p
	}
	cmd := exec.Command(prog, cfg.Args...)
	cmd.Args[0] = cfg.Command
	cmd.Env = serverEnv(os.Environ(), cfg.Env, runtime.GOOS == "windows")
	cmd.Dir = cfg.Cwd
	if cmd.Dir == "" {
		cmd.Dir, _ = os.UserHomeDir()
	}
	procgroup.Own(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start %s: %w", cfg.Command, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return fmt.Errorf("start %s: %w", cfg.Command, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		outR.Close()
		outW.Close()
		return fmt.Errorf("start %s: %w", cfg.Command, err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	s.log.note("starting %s %s (in %s)", cfg.Command, strings.Join(cfg.Args, " "), cmd.Dir)
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		stdin.Close()
		outR.Close()
		errR.Close()
		return fmt.Errorf("start %s: %w", cfg.Command, err)
	}
	s.log.note("started, pid %d", cmd.Process.Pid)
	pr, pw := io.Pipe()
	c.cmd, c.exited, c.pipes, c.stdout, c.transport = cmd, make(chan struct{}), []*os.File{outR, errR}, pr, config.MCPStdio
	c.readers.Add(3)
	go func() {
		defer c.readers.Done()
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	go func() {
		defer c.readers.Done()
		s.filterStdout(outR, pw)
	}()
	go func() {
		defer c.readers.Done()
		w := &lineWriter{emit: s.log.line, redact: s.log.redact, longest: s.log.longestSecret}
		_, _ = io.Copy(w, errR)
		w.flush()
	}()
	sess, err := client.Connect(ctx, &sdk.IOTransport{Reader: pr, Writer: stdin}, nil)
	if err != nil {
		why := c.endReason(err)
		c.stop(s.m.opts.StopWait)
		return fmt.Errorf("initialize: %s", why)
	}
	c.sess = sess
	return nil
}

// httpTransport is Options.HTTP's transport, or http.DefaultTransport.
func (m *Manager) httpTransport() http.RoundTripper {
	if m.opts.HTTP != nil {
		if rt := m.opts.HTTP(); rt != nil {
			return rt
		}
	}
	return http.DefaultTransport
}

// connectHTTP connects over Streamable HTTP, unless cfg.Transport is sse, and over the
// legacy SSE transport when cfg.Transport is sse or is "" and the server answered the
// Streamable HTTP initialize POST with a 4xx status. cfg.Headers go with every request.
func (s *server) connectHTTP(ctx context.Context, cfg config.MCPServer, c *conn, client *sdk.Client) error {
	if cfg.Transport != config.MCPSSE {
		s.log.note("connecting to %s (Streamable HTTP)", cfg.URL)
		rt := &headerTransport{base: s.m.httpTransport(), headers: cfg.Headers}
		sess, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: &http.Client{Transport: rt}}, nil)
		if err == nil {
			c.sess, c.transport = sess, config.MCPHTTP
			return nil
		}
		status := int(rt.firstPost.Load())
		if cfg.Transport == config.MCPHTTP || status < 400 || status > 499 || ctx.Err() != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		s.log.note("the server answered the Streamable HTTP initialize with HTTP %d; trying the legacy SSE transport", status)
	}
	s.log.note("connecting to %s (SSE)", cfg.URL)
	// The SSE transport's event stream lives as long as the context its Connect gets:
	// give it one that ends with the connection, not with the start's timeout.
	sseCtx, cancel := context.WithCancel(s.ctx)
	rt := &headerTransport{base: s.m.httpTransport(), headers: cfg.Headers}
	t := &detachedTransport{t: &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: &http.Client{Transport: rt}}, ctx: sseCtx, cancel: cancel}
	sess, err := client.Connect(ctx, t, nil)
	if err != nil {
		cancel()
		return fmt.Errorf("initialize (SSE): %w", err)
	}
	c.sess, c.transport, c.cancelSSE = sess, config.MCPSSE, cancel
	return nil
}

// watch waits for the connection's end; an end not asked for (the server exited or
// closed the connection) marks the server failed.
func (s *server) watch(c *conn) {
	err := c.sess.Wait()
	if c.closing.Load() {
		return
	}
	s.lost(c, c.endReason(err))
}

// lost marks the server failed when c, its live connection, broke, and stops c.
func (s *server) lost(c *conn, why string) {
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	s.conn = nil
	s.fail(ErrUnavailable, why, time.Since(c.started))
	s.mu.Unlock()
	c.stop(s.m.opts.StopWait)
}

// callError turns the error of a request on c (tools/call or tools/list, named what)
// into the caller's: the timeout, the caller's cancellation, the server's JSON-RPC
// error, or, when the connection broke, ErrUnavailable (the server is marked failed and
// started again at the next use). Secrets are hidden from the text.
func (s *server) callError(ctx context.Context, c *conn, what string, err error) error {
	if ctx.Err() != nil {
		return s.ctxError(ctx, "answer "+what)
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return &serverError{text: s.log.redact(fmt.Sprintf("%s: %s: %s", s.name, what, werr.Message)), err: werr}
	}
	why := c.endReason(err)
	s.lost(c, why)
	return fmt.Errorf("%w: %s stopped during %s: %s", ErrUnavailable, s.name, what, s.log.redact(why))
}

// serverError is a JSON-RPC error the server answered a request with; its text has the
// server's secrets hidden.
type serverError struct {
	text string
	err  *jsonrpc.Error
}

func (e *serverError) Error() string { return "mcp: " + e.text }
func (e *serverError) Unwrap() error { return e.err }

// toolsChanged lists the tools of c again (the server sent tools/list_changed), in the
// background.
func (s *server) toolsChanged(c *conn) {
	s.m.goBackground(func() {
		s.mu.Lock()
		live := s.conn == c // set after the session is, so c.sess is readable once this holds
		s.mu.Unlock()
		if !live {
			return
		}
		ctx, cancel := context.WithTimeoutCause(s.ctx, s.timeout(), errTimedOut)
		defer cancel()
		tools, err := listTools(ctx, s.name, c.sess)
		if err != nil {
			s.log.note("listing the tools again after tools/list_changed failed: %v", err)
			return
		}
		s.setTools(c, tools)
		s.log.note("tools/list_changed: %d tools now", len(tools))
	})
}

// shutdown stops the server for good: a start in progress is cancelled, the connection
// stopped.
func (s *server) shutdown() {
	s.cancel()
	s.mu.Lock()
	s.down = true
	c, ch := s.conn, s.startDone
	s.conn = nil
	if s.state != StateFailed {
		s.state = StateStopped
	}
	s.mu.Unlock()
	if ch != nil {
		<-ch // the start sees down and stops what it started
	}
	if c != nil {
		c.stop(s.m.opts.StopWait)
		s.log.note("stopped")
	}
}

// listTools lists every tool of sess (all pages).
func listTools(ctx context.Context, server string, sess *sdk.ClientSession) ([]Tool, error) {
	var out []Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil || t.InputSchema == nil {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, Tool{Server: server, Name: t.Name, QualifiedName: QualifiedName(server, t.Name), Title: t.Title,
			Description: t.Description, InputSchema: schema, ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint})
	}
	return out, nil
}

// conn is one connection to a server: the session and, over stdio, the process.
type conn struct {
	server    *server
	sess      *sdk.ClientSession
	transport string
	started   time.Time
	closing   atomic.Bool // stop was called: the session's end is not a failure
	stopOnce  sync.Once
	cancelSSE context.CancelFunc // ends the SSE event stream; nil otherwise

	// stdio only:
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd.Wait returned, exitErr set
	exitErr error
	pipes   []*os.File     // stdout and stderr, read by the readers
	stdout  *io.PipeReader // what filterStdout passes on, read by the session
	readers sync.WaitGroup // cmd.Wait and the stdout and stderr readers
}

// endReason says why the connection ended or a request on it failed: for a stdio server
// that has exited (it is given a moment to), its exit status; else err's text.
func (c *conn) endReason(err error) string {
	if c.cmd != nil {
		select {
		case <-c.exited:
			if c.exitErr != nil {
				return "the server exited (" + c.exitErr.Error() + ")"
			}
			return "the server exited"
		case <-time.After(time.Second):
		}
	}
	if err == nil {
		return "the connection closed"
	}
	return err.Error()
}

// stop ends the connection: the session is closed (over stdio this closes the server's
// input, which asks it to exit), then after wait whatever is left of the process group
// is killed; it returns once the process and the readers of its output have ended.
func (c *conn) stop(wait time.Duration) {
	c.stopOnce.Do(func() {
		c.closing.Store(true)
		if c.sess != nil {
			done := make(chan struct{})
			go func() { // bounded below: an HTTP server may not answer the session's DELETE
				defer close(done)
				_ = c.sess.Close()
			}()
			select {
			case <-done:
			case <-time.After(wait + time.Second):
			}
		}
		if c.cancelSSE != nil {
			c.cancelSSE()
		}
		if c.cmd == nil {
			return
		}
		select {
		case <-c.exited:
		case <-time.After(wait):
		}
		_ = c.stdout.Close()      // filterStdout stops passing lines on and drains the rest
		_ = procgroup.Kill(c.cmd) // the server's own children too, even after it exited
		<-c.exited
		done := make(chan struct{})
		go func() {
			c.readers.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(wait):
			// A process outside the group (one that made itself a session leader) still
			// holds the pipes: stop reading them.
			for _, f := range c.pipes {
				_ = f.Close()
			}
			<-done
		}
		c.server.log.note("process %d ended", c.cmd.Process.Pid)
	})
}

// maxFrame is the longest line filterStdout passes on (the SDK's own limit).
const maxFrame = sdk.DefaultMaxLineLength

// filterStdout copies the JSON-RPC messages the server writes on r (one per line) to w
// and reports every other line (a banner, a debug print) in the log and in
// Status.StdoutJunk instead of passing it on, where it would end the session. At the end
// of r, w is closed.
func (s *server) filterStdout(r io.Reader, w *io.PipeWriter) {
	defer w.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	var werr error
	for {
		line, tooLong, err := readLine(br, maxFrame)
		switch t := bytes.TrimSpace(line); {
		case tooLong:
			s.junkLine(fmt.Sprintf("a line of more than %d bytes (dropped)", maxFrame))
		case len(t) == 0:
		case isJSONRPC(t):
			if werr == nil {
				_, werr = w.Write(append(t, '\n')) // after the session closed: drain until the end
			}
		default:
			s.junkLine(string(t))
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line from br without its newline; a line longer than limit is
// consumed and reported as tooLong with no text. err is the read error (io.EOF at the
// end), the last line coming with it.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// isJSONRPC reports whether b (a trimmed line) is a JSON-RPC message or batch: a JSON
// array, or an object with a "jsonrpc" member.
func isJSONRPC(b []byte) bool {
	switch b[0] {
	case '[':
		return json.Valid(b)
	case '{':
		var v struct {
			Version *string `json:"jsonrpc"`
		}
		return json.Unmarshal(b, &v) == nil && v.Version != nil
	}
	return false
}

// junkLine records a stdout line that is not JSON-RPC.
func (s *server) junkLine(line string) {
	s.mu.Lock()
	s.junk++
	first := s.junk == 1
	s.mu.Unlock()
	s.log.line("stdout (not an MCP message; ignored): " + line)
	if first {
		s.m.log.Warn("an MCP server wrote something other than MCP messages on stdout; it is ignored and copied to the server's log",
			"server", s.name)
	}
}

// logWriter writes what the SDK logs (one record per Write) to the server's log.
type logWriter struct{ l *serverLog }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.line("sdk: " + string(p))
	return len(p), nil
}

// passEnv are the variables of the app's environment a stdio server inherits (the rest,
// the model's API key among them, is not passed): what programs need to run and find
// their files, the locale, and proxies and certificates for npx and uvx to download. On
// Windows names are compared without case.
var passEnv = []string{
	"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR",
	// Windows
	"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT",
	"TEMP", "TMP", "USERNAME", "USERPROFILE", "PROGRAMFILES", "COMSPEC", "WINDIR",
}

// serverEnv returns a stdio server's environment: the variables of environ named in
// passEnv, then extra (the entry's env, sorted by name), which wins over them.
func serverEnv(environ []string, extra map[string]string, foldCase bool) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := extra[k]; over {
			continue
		}
		if slices.ContainsFunc(passEnv, func(p string) bool { return p == k || (foldCase && strings.EqualFold(p, k)) }) {
			out = append(out, kv)
		}
	}
	for _, k := range sortedNames(extra) {
		out = append(out, k+"="+extra[k])
	}
	return out
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// headerTransport adds the entry's headers to every request and keeps the status of the
// first POST (the initialize request), which decides the fallback to SSE.
type headerTransport struct {
	base      http.RoundTripper
	headers   map[string]string
	firstPost atomic.Int32
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost {
		t.firstPost.CompareAndSwap(0, int32(resp.StatusCode))
	}
	return resp, err
}

// detachedTransport connects t with ctx, a context that outlives the Connect call (the
// SSE transport keeps its event stream on the context it connects with), while still
// giving up, and cancelling ctx, when the Connect call's own context ends first.
type detachedTransport struct {
	t      sdk.Transport
	ctx    context.Context
	cancel context.CancelFunc
}

func (d *detachedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	type result struct {
		c   sdk.Connection
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := d.t.Connect(d.ctx)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		d.cancel()
		if r := <-ch; r.c != nil {
			_ = r.c.Close()
		}
		return nil, context.Cause(ctx)
	}
}

// Package mcp is the app's Model Context Protocol client (docs/ARCHITECTURE.md, "MCP
// tools"): a Manager over the official Go SDK that runs the user's MCP servers
// (config.MCPServers) and calls their tools.
//
// Each server is started at its first use (a run whose agents it serves, Settings' Test, a
// tool call), over stdio (its Command, a child of the app in a process group of its own) or
// Streamable HTTP (its URL, falling back to the legacy SSE transport when the server
// answers the first POST with a 4xx status). Its tools are listed once and cached; the
// server's notifications/tools/list_changed lists them again. A server that fails to start
// or crashes is marked failed with the error and the last lines of its log, and started
// again at the next use, no sooner than its backoff allows (1 s after the first failure,
// doubling to 30 s). A call is bounded by the server's timeout_seconds and ends when its
// caller's context does; the SDK then sends the protocol's notifications/cancelled. Its
// stderr, what it writes on stdout that is not JSON-RPC (reported, never fatal) and the
// manager's notes go to <LogDir>/<name>.log (MaxLogBytes, rotated once), with the server's
// env and header values hidden. Close stops every server and kills what is left of each
// stdio server's process group, so no child outlives the app.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/config"
)

// Server states (Status.State).
const (
	StateStopped  = "stopped"  // not started yet, or stopped on purpose
	StateStarting = "starting" // being started and initialised
	StateRunning  = "running"  // connected, with its tools listed
	StateFailed   = "failed"   // its start failed or it stopped by itself (Status.Error)
	StateDisabled = "disabled" // switched off in the settings (config.MCPServer.Disabled)
)

// Errors callers branch on; the manager's errors wrap them.
var (
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("mcp: no such server")
	// ErrDisabled: the server is switched off in the settings.
	ErrDisabled = errors.New("mcp: the server is disabled")
	// ErrTimeout: the server did not start, or did not answer a call, within its
	// timeout_seconds.
	ErrTimeout = errors.New("mcp: the server did not answer in time")
	// ErrUnavailable: the server could not be started, or its connection broke (it
	// crashed, exited or closed the connection); the error says why.
	ErrUnavailable = errors.New("mcp: the server is not available")
	// ErrClosed: the manager was closed.
	ErrClosed = errors.New("mcp: closed")
)

// Defaults of Options.
const (
	// DefaultStopWait is how long a stdio server gets to exit by itself once its input is
	// closed, before its process group is killed.
	DefaultStopWait = 2 * time.Second
	// firstBackoff and maxBackoff bound the wait before a failed server is started again.
	firstBackoff = time.Second
	maxBackoff   = 30 * time.Second
	// stableAfter is how long a server must have run for a crash to count as the first
	// failure again (the backoff starts over).
	stableAfter = time.Minute
	// DefaultMinStartTimeout is Options.MinStartTimeout when unset: the default
	// timeout_seconds.
	DefaultMinStartTimeout = config.DefaultMCPTimeoutSeconds * time.Second
	// DefaultRunStartWait is Options.RunStartWait when unset.
	DefaultRunStartWait = 15 * time.Second
	// statusTailLines is how many of the log's last lines Status carries.
	statusTailLines = 12
)

// Options configure a Manager.
type Options struct {
	// LogDir holds each server's log, <LogDir>/<name>.log (created when first written,
	// mode 0700); the app uses <data-dir>/logs/mcp.
	LogDir string
	// Logger receives the manager's own warnings (never a secret); nil: slog.Default().
	Logger *slog.Logger
	// HTTP, when set, gives the transport a server reached by URL is connected through,
	// asked at each connection, so a changed proxy setting applies to the next start (the
	// app: its proxy setting, like model calls and searches); nil: http.DefaultTransport.
	HTTP func() http.RoundTripper
	// ClientVersion is the version the app reports to servers in initialize; "" means the
	// main module's version from the build information.
	ClientVersion string
	// StopWait is how long a stopping stdio server may take to exit after its input is
	// closed before its group is killed; 0 means DefaultStopWait.
	StopWait time.Duration
	// Backoff, when set, replaces the wait before the start after the n-th failure in a
	// row (n ≥ 1): 1 s, 2 s, 4 s, … up to 30 s by default.
	Backoff func(n int) time.Duration
	// MinStartTimeout is the least time a start (the process or connection, initialize
	// and tools/list) is given, whatever the server's timeout_seconds: npx and uvx may
	// download the server first. 0 means DefaultMinStartTimeout.
	MinStartTimeout time.Duration
	// RunStartWait bounds how long AgentTools waits for servers still starting; one not
	// running by then is left out of that run (its start goes on). 0 means
	// DefaultRunStartWait.
	RunStartWait time.Duration
}

// Tool is one tool of a server as the manager lists it.
type Tool struct {
	// Server is the server's name, Name the tool's own name on that server.
	Server string `json:"server"`
	Name   string `json:"name"`
	// QualifiedName is the name models are offered: mcp__<server>__<tool> (QualifiedName).
	QualifiedName string `json:"qualified_name"`
	Title         string `json:"title,omitempty"`
	Description   string `json:"description,omitempty"`
	// InputSchema is the tool's JSON Schema for its arguments (an object schema; "{}"
	// when the server gave none).
	InputSchema json.RawMessage `json:"input_schema"`
	// ReadOnly is the server's readOnlyHint annotation: the tool does not change its
	// environment.
	ReadOnly bool `json:"read_only"`
}

// Status is what the settings page and `artifactflow mcp list` show of one server.
type Status struct {
	Name string `json:"name"`
	// Transport is config.MCPStdio, MCPHTTP or MCPSSE: the one configured or inferred, or
	// MCPSSE once an HTTP server turned out to speak only the legacy transport.
	Transport string `json:"transport"`
	// State is StateStopped, StateStarting, StateRunning, StateFailed or StateDisabled.
	State string `json:"state"`
	// Tools is the number of tools listed (running, or when last running).
	Tools int `json:"tools"`
	// Error says why the server failed ("" unless State is StateFailed or the entry is
	// invalid), its secrets hidden.
	Error string `json:"error,omitempty"`
	// LogTail is the last lines of the server's log, oldest first.
	LogTail []string `json:"log_tail,omitempty"`
	// StdoutJunk counts the lines the server wrote on stdout that were not JSON-RPC
	// messages (ignored, and copied to its log); a well-behaved server writes none.
	StdoutJunk int `json:"stdout_junk,omitempty"`
	// RetryAt is when a failed server may be started again (zero when it may now).
	RetryAt time.Time `json:"retry_at,omitzero"`
	// PID is the process id of a running stdio server (the leader of its process group),
	// 0 otherwise.
	PID int `json:"pid,omitempty"`
}

// Manager runs the configured MCP servers. Its methods are safe for concurrent use. The
// zero value is not usable: call New.
type Manager struct {
	opts   Options
	log    *slog.Logger
	base   context.Context // parent of every start and background listing; Close cancels it
	cancel context.CancelFunc
	wg     sync.WaitGroup // background work: starts, watches, tool refreshes

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
}

// New returns a Manager with no server; Configure gives it the user's servers.
func New(opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.StopWait <= 0 {
		opts.StopWait = DefaultStopWait
	}
	if opts.Backoff == nil {
		opts.Backoff = defaultBackoff
	}
	if opts.MinStartTimeout <= 0 {
		opts.MinStartTimeout = DefaultMinStartTimeout
	}
	if opts.RunStartWait <= 0 {
		opts.RunStartWait = DefaultRunStartWait
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			opts.ClientVersion = bi.Main.Version
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: opts, log: opts.Logger, base: ctx, cancel: cancel, servers: map[string]*server{}}
}

// defaultBackoff is 1 s after the first failure in a row, doubling up to 30 s.
func defaultBackoff(n int) time.Duration {
	d := firstBackoff
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// goBackground runs f on a goroutine the manager owns (Close waits for it); nothing runs
// once the manager is closed.
func (m *Manager) goBackground(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

// Configure makes cfg the manager's servers. A new server is added stopped (it starts at
// its first use); a server whose connection settings changed (command, args, env, cwd,
// url, headers, transport), that was switched off or removed is stopped in the
// background, and a changed one starts with its new settings at its next use. The other
// keys (agents, permission, disabled_tools, timeout_seconds) apply at once. Configure
// after Close does nothing.
func (m *Manager) Configure(cfg config.MCPServers) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	for name, s := range m.servers {
		next, ok := cfg[name]
		if ok && sameConnection(s.config(), next) {
			s.setConfig(next)
			continue
		}
		delete(m.servers, name)
		m.retire(s)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg)) {
		if _, ok := m.servers[name]; !ok {
			m.servers[name] = newServer(m, name, cfg[name])
		}
	}
}

// retire stops s in the background (Close waits for it); m.mu is held.
func (m *Manager) retire(s *server) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		s.shutdown()
	}()
}

// sameConnection reports whether a and b reach the same server the same way (a running
// server of a may serve b), both switched on or both off.
func sameConnection(a, b config.MCPServer) bool {
	return a.Disabled == b.Disabled && a.Command == b.Command && slices.Equal(a.Args, b.Args) && maps.Equal(a.Env, b.Env) &&
		a.Cwd == b.Cwd && a.URL == b.URL && maps.Equal(a.Headers, b.Headers) && a.Transport == b.Transport
}

// server returns the server named name. Errors: ErrClosed, ErrUnknownServer.
func (m *Manager) server(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	return s, nil
}

// Names returns the configured servers' names, sorted.
func (m *Manager) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.servers))
}

// Status returns the state of server name. Errors: ErrClosed, ErrUnknownServer.
func (m *Manager) Status(name string) (Status, error) {
	s, err := m.server(name)
	if err != nil {
		return Status{}, err
	}
	return s.status(), nil
}

// Statuses returns every configured server's Status, by name.
func (m *Manager) Statuses() []Status {
	var out []Status
	for _, name := range m.Names() {
		if st, err := m.Status(name); err == nil {
			out = append(out, st)
		}
	}
	return out
}

// Tools returns server name's tools, starting it first if it is not running (the start
// is bounded by its timeout_seconds, or Options.MinStartTimeout when longer; the wait for
// it by ctx). The list is the cached one, kept current by the server's
// list_changed notifications; it includes tools the settings disable (the caller
// filters with config.MCPServer.ToolEnabled). Errors: ErrClosed, ErrUnknownServer,
// ErrDisabled, ErrTimeout, ErrUnavailable (with the reason), ctx's.
func (m *Manager) Tools(ctx context.Context, name string) ([]Tool, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	if _, err := s.session(ctx, false); err != nil {
		return nil, err
	}
	return s.cachedTools(), nil
}

// CachedTools returns the tools server name listed when it last ran, without starting
// it (nil when it never ran or is unknown).
func (m *Manager) CachedTools(name string) []Tool {
	s, err := m.server(name)
	if err != nil {
		return nil
	}
	return s.cachedTools()
}

// Test starts server name now, whatever its backoff says (a running server is used as
// it is), and lists its tools afresh; it calls none. It is the settings page's and
// `artifactflow mcp test`'s check. Errors: Tools'.
func (m *Manager) Test(ctx context.Context, name string) ([]Tool, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	c, err := s.session(ctx, true)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, s.timeout(), errTimedOut)
	defer cancel()
	tools, err := listTools(ctx, name, c.sess)
	if err != nil {
		return nil, s.callError(ctx, c, "tools/list", err)
	}
	s.setTools(c, tools)
	return tools, nil
}

// Call calls tool (its name on the server) of server with args, starting the server if
// it is not running (the start is bounded as Tools says). The call itself
// is bounded by the server's timeout_seconds and by ctx;
// when either ends first the SDK sends notifications/cancelled and Call returns. A
// result with IsError set is a result, not an error. Errors: ErrClosed,
// ErrUnknownServer, ErrDisabled, ErrTimeout, ErrUnavailable (the server could not start,
// or crashed or closed the connection during the call: it is started again at the next
// use), a JSON-RPC error of the server (wrapped), ctx's cause.
func (m *Manager) Call(ctx context.Context, server, tool string, args map[string]any) (*sdk.CallToolResult, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	c, err := s.session(ctx, false)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, s.timeout(), errTimedOut)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := c.sess.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, s.callError(ctx, c, tool, err)
	}
	return res, nil
}

// Resolve returns the server and the server's own tool name that qualified (a name
// QualifiedName gave) stands for, among the tools the servers listed; ok is false for a
// name no listed tool has, and for a name tools of two servers share (AgentTools offers
// neither), so a call never reaches a server chosen by chance.
func (m *Manager) Resolve(qualified string) (server, tool string, ok bool) {
	m.mu.Lock()
	servers := slices.Collect(maps.Values(m.servers))
	m.mu.Unlock()
	for _, s := range servers {
		for _, t := range s.cachedTools() {
			if t.QualifiedName != qualified {
				continue
			}
			if ok && t.Server != server {
				return "", "", false
			}
			server, tool, ok = t.Server, t.Name, true
		}
	}
	return server, tool, ok
}

// Log returns server name's log (at most MaxLogBytes; "" when it has none yet), its
// secrets hidden. Errors: ErrClosed, ErrUnknownServer, reading the file.
func (m *Manager) Log(name string) (string, error) {
	s, err := m.server(name)
	if err != nil {
		return "", err
	}
	return s.log.read()
}

// Close stops every server (each stdio server's input is closed, then what is left of
// its process group after Options.StopWait is killed) and waits for the manager's
// background work. Calls in flight end with an error. Later calls return ErrClosed;
// Close again does nothing.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := slices.Collect(maps.Values(m.servers))
	m.servers = map[string]*server{}
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.shutdown()
		}()
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}

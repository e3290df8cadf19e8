package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/mcp"
)

// MCPSecretMask stands for a stored env or header value of an MCP server in
// MCPServerView (the value itself never leaves the backend). Sent back unchanged in
// MCPServerInput it keeps the stored value.
const MCPSecretMask = "••••••••"

// mcpTestWait bounds SettingsService.TestMCPServer whatever the server's timeout_seconds
// (which may be up to an hour, for its start and again for tools/list): Settings' Test and
// the browser-mode request carrying it end by then with "timed out", and a start still
// going on is left to finish (or fail) in the background, where the server's status
// shows it.
const mcpTestWait = 2 * time.Minute

// ErrNoMCPServer: no MCP server of that name is configured (not_found).
var ErrNoMCPServer = errors.New("no such MCP server")

// MCPToolView is one tool of an MCP server as Settings → Tools lists it: Name as the server
// names it, QualifiedName as the models are offered it (mcp__<server>__<tool>), Enabled
// false when the settings disable it (disabled_tools), ReadOnly the server's readOnlyHint
// (such calls may run at once with others).
type MCPToolView struct {
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"`
	Title         string `json:"title"`
	Description   string `json:"description"`
	Enabled       bool   `json:"enabled"`
	ReadOnly      bool   `json:"read_only"`
}

// MCPServerView is one MCP server as Settings → Tools shows it: its entry in config.json
// (mcp_servers) and its state in this process.
//
// Command, Args, Cwd (a local server) or URL (a remote one), Transport as configured (""
// = inferred), Agents as in effect (the default search and crawl agents when the entry
// names none), Permission "confirm" or "auto", Disabled, DisabledTools and
// TimeoutSeconds (in effect, 60 by default). Env and Headers map each name to
// MCPSecretMask when a value is stored ("" when it is empty): the values are secrets
// and never sent to the page.
//
// State is stopped (not started in this process yet), starting, running, failed or
// disabled; ActiveTransport the transport in use or last used (sse once an HTTP server
// turned out to need the legacy transport); Error why it failed, LogTail the last lines of
// its log (secrets hidden), StdoutJunk how many lines it wrote on stdout that were not
// MCP messages, RetryInSeconds how long until a failed server may start again (0: at the
// next use). Tools are the tools listed when it last ran (none before its first start).
type MCPServerView struct {
	Name            string            `json:"name"`
	Command         string            `json:"command"`
	Args            []string          `json:"args"`
	Cwd             string            `json:"cwd"`
	URL             string            `json:"url"`
	Env             map[string]string `json:"env"`
	Headers         map[string]string `json:"headers"`
	Transport       string            `json:"transport"`
	Agents          []string          `json:"agents"`
	Permission      string            `json:"permission"`
	Disabled        bool              `json:"disabled"`
	DisabledTools   []string          `json:"disabled_tools"`
	TimeoutSeconds  int               `json:"timeout_seconds"`
	State           string            `json:"state"`
	ActiveTransport string            `json:"active_transport"`
	Error           string            `json:"error"`
	LogTail         []string          `json:"log_tail"`
	StdoutJunk      int               `json:"stdout_junk"`
	RetryInSeconds  int               `json:"retry_in_seconds"`
	Tools           []MCPToolView     `json:"tools"`
}

// MCPServerInput is an MCP server as the Settings → Tools form sends it (the fields of
// config.MCPServer). An Env or Headers value equal to MCPSecretMask keeps the value stored
// under that name (the form shows the mask for it); a name left out removes its value.
// Agents empty means the default agents; Permission "" means confirm; TimeoutSeconds 0
// means 60. PreviousName, when set and not the saved name, renames that server: its
// entry is removed and its stored secrets are what masked values keep.
type MCPServerInput struct {
	Command        string            `json:"command"`
	Args           []string          `json:"args"`
	Cwd            string            `json:"cwd"`
	URL            string            `json:"url"`
	Env            map[string]string `json:"env"`
	Headers        map[string]string `json:"headers"`
	Transport      string            `json:"transport"`
	Agents         []string          `json:"agents"`
	Permission     string            `json:"permission"`
	Disabled       bool              `json:"disabled"`
	DisabledTools  []string          `json:"disabled_tools"`
	TimeoutSeconds int               `json:"timeout_seconds"`
	PreviousName   string            `json:"previous_name"`
}

// MCPTestResult is the outcome of SettingsService.TestMCPServer: OK with the tools the
// server lists, or the Error it failed with and its log's last lines; DurationMS is how
// long the test took, in milliseconds.
type MCPTestResult struct {
	OK         bool          `json:"ok"`
	Tools      []MCPToolView `json:"tools"`
	Error      string        `json:"error"`
	LogTail    []string      `json:"log_tail"`
	DurationMS int64         `json:"duration_ms"`
}

// MCPImportResult is what SettingsService.ImportMCPServers stored: the servers' names and
// the keys of the pasted entries this app does not use (as "server.key"), which were
// dropped.
type MCPImportResult struct {
	Imported []string `json:"imported"`
	Ignored  []string `json:"ignored"`
}

// mcpServers returns the MCP servers of the effective settings, with the manager
// configured to them (config.json as it is now: a change another process or a hand edit
// made applies here at once).
func (c *Core) mcpServers() config.MCPServers {
	servers := c.Settings().MCPServers
	c.mcp.Configure(servers)
	return servers
}

// MCPServers lists the MCP servers of config.json by name with their state in this
// process (MCPServerView); it starts none. Errors: a config.json that cannot be read
// (settings_file_invalid).
func (s *SettingsService) MCPServers() ([]MCPServerView, error) {
	if _, _, err := s.core.storedSettings(); err != nil {
		return nil, err
	}
	servers := s.core.mcpServers()
	out := make([]MCPServerView, 0, len(servers))
	for _, name := range servers.Names() {
		out = append(out, s.core.mcpServerView(name, servers[name]))
	}
	return out, nil
}

// mcpServerView builds the view of server name (entry srv).
func (c *Core) mcpServerView(name string, srv config.MCPServer) MCPServerView {
	v := MCPServerView{Name: name, Command: srv.Command, Args: nonNil(srv.Args), Cwd: srv.Cwd, URL: srv.URL,
		Env: masked(srv.Env), Headers: masked(srv.Headers), Transport: srv.Transport, Agents: srv.AgentNames(),
		Permission: srv.Policy(), Disabled: srv.Disabled, DisabledTools: nonNil(srv.DisabledTools),
		TimeoutSeconds: srv.Timeout(), State: mcp.StateStopped, LogTail: []string{}, Tools: []MCPToolView{}}
	if st, err := c.mcp.Status(name); err == nil {
		v.State, v.ActiveTransport, v.Error, v.StdoutJunk = st.State, st.Transport, st.Error, st.StdoutJunk
		v.LogTail = nonNil(st.LogTail)
		if !st.RetryAt.IsZero() {
			v.RetryInSeconds = int(time.Until(st.RetryAt).Round(time.Second) / time.Second)
		}
	}
	v.Tools = toolViews(c.mcp.CachedTools(name), srv)
	return v
}

func toolViews(ts []mcp.Tool, srv config.MCPServer) []MCPToolView {
	out := make([]MCPToolView, 0, len(ts))
	for _, t := range ts {
		out = append(out, MCPToolView{Name: t.Name, QualifiedName: t.QualifiedName, Title: t.Title,
			Description: t.Description, Enabled: srv.ToolEnabled(t.Name), ReadOnly: t.ReadOnly})
	}
	return out
}

// masked maps each name of m to MCPSecretMask, or "" for an empty value.
func masked(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if v != "" {
			out[k] = MCPSecretMask
		} else {
			out[k] = ""
		}
	}
	return out
}

// nonNil returns a copy of s, or an empty slice for nil, so JSON carries [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clone(s)
}

// SaveMCPServer stores the MCP server name (created or replaced) as the form in gives it,
// in config.json through its lock (config.Update: only the keys that changed are
// written). Values equal to MCPSecretMask keep the stored secret of that name (of
// in.PreviousName's entry when renaming, which is then removed). A running server whose
// command, arguments, env, folder, URL, headers or transport changed is stopped and
// starts with the new entry at its next use; the other keys apply from the next call.
// Errors: invalid_settings naming the key (mcp_servers.<name>.<key>), a masked value
// with nothing stored under its name (invalid_settings), settings_file_invalid.
func (s *SettingsService) SaveMCPServer(name string, in MCPServerInput) error {
	c := s.core
	err := c.updateSettings(func(cur config.Settings) (config.Settings, error) {
		from := name
		if in.PreviousName != "" && in.PreviousName != name {
			from = in.PreviousName
			if _, ok := cur.MCPServers[from]; !ok {
				return cur, fmt.Errorf("%w: %q", ErrNoMCPServer, from)
			}
		}
		old := cur.MCPServers[from]
		env, err := unmask("env", name, in.Env, old.Env)
		if err != nil {
			return cur, err
		}
		headers, err := unmask("headers", name, in.Headers, old.Headers)
		if err != nil {
			return cur, err
		}
		srv := config.MCPServer{Command: strings.TrimSpace(in.Command), Args: in.Args, Env: env, Cwd: strings.TrimSpace(in.Cwd),
			URL: strings.TrimSpace(in.URL), Headers: headers, Transport: in.Transport, Agents: in.Agents,
			Permission: in.Permission, Disabled: in.Disabled, DisabledTools: in.DisabledTools, TimeoutSeconds: in.TimeoutSeconds}
		if slices.Equal(srv.Agents, config.DefaultMCPAgents) && len(old.Agents) == 0 {
			srv.Agents = nil // the default as shown: keep following it
		}
		if srv.Permission == config.MCPPermissionConfirm && old.Permission == "" {
			srv.Permission = ""
		}
		if srv.TimeoutSeconds == config.DefaultMCPTimeoutSeconds && old.TimeoutSeconds == 0 {
			srv.TimeoutSeconds = 0
		}
		if err := config.ValidateMCPServer(name, srv); err != nil {
			return cur, err
		}
		if from != name {
			cur = cur.WithMCPServer(from, nil)
		}
		return cur.WithMCPServer(name, &srv), nil
	})
	if err != nil {
		return fmt.Errorf("settings: save MCP server %q: %w", name, err)
	}
	c.mcpServers()
	return nil
}

// unmask returns typed with each MCPSecretMask value replaced by stored's value of that
// name; a mask with nothing stored is an *config.InvalidError naming
// mcp_servers.<server>.<what>.<name>.
func unmask(what, server string, typed, stored map[string]string) (map[string]string, error) {
	if len(typed) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(typed))
	for k, v := range typed {
		if v == MCPSecretMask {
			old, ok := stored[k]
			if !ok {
				return nil, &config.InvalidError{Problems: []string{fmt.Sprintf("mcp_servers.%s.%s.%s: no value is stored under this name; type the value", server, what, k)}}
			}
			v = old
		}
		out[k] = v
	}
	return out, nil
}

// RemoveMCPServer removes the MCP server name from config.json (its log stays) and stops
// it. Errors: not_found for a name that is not configured, settings_file_invalid.
func (s *SettingsService) RemoveMCPServer(name string) error {
	err := s.core.updateSettings(func(cur config.Settings) (config.Settings, error) {
		if _, ok := cur.MCPServers[name]; !ok {
			return cur, fmt.Errorf("%w: %q", ErrNoMCPServer, name)
		}
		return cur.WithMCPServer(name, nil), nil
	})
	if err != nil {
		return fmt.Errorf("settings: remove MCP server: %w", err)
	}
	s.core.mcpServers()
	return nil
}

// ImportMCPServers stores the servers of a pasted block (config.ParseMCPServers: Claude
// Desktop's or Cursor's {"mcpServers": {…}}, VS Code's {"servers": {…}} or a bare
// {name: entry}); a server of the same name is replaced. Keys this app does not use are
// dropped and listed in the result. Errors: invalid_request for text that is not such a
// block, invalid_settings naming the bad key of a server (nothing is stored then),
// settings_file_invalid.
func (s *SettingsService) ImportMCPServers(text string) (MCPImportResult, error) {
	servers, ignored, err := config.ParseMCPServers(text)
	if err != nil {
		return MCPImportResult{}, err
	}
	err = s.core.updateSettings(func(cur config.Settings) (config.Settings, error) {
		for _, name := range servers.Names() {
			srv := servers[name]
			if err := config.ValidateMCPServer(name, srv); err != nil {
				return cur, err
			}
			cur = cur.WithMCPServer(name, &srv)
		}
		return cur, nil
	})
	if err != nil {
		return MCPImportResult{}, fmt.Errorf("settings: import MCP servers: %w", err)
	}
	s.core.mcpServers()
	return MCPImportResult{Imported: servers.Names(), Ignored: nonNil(ignored)}, nil
}

// TestMCPServer starts the MCP server name now (a failed one without waiting for its
// backoff; a running one is used as it is) and lists its tools; it calls none. The wait
// is bounded by mcpTestWait (2 minutes), however long the server's own timeout_seconds:
// a start that hangs ends the call with a timed-out result instead of holding it (and,
// in browser mode, its HTTP handler). A server that fails or times out is a result with
// OK false and the error, not an error. Errors: not_found for a name that is not
// configured, settings_file_invalid.
func (s *SettingsService) TestMCPServer(name string) (MCPTestResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.core.mcpTestWait)
	defer cancel()
	return s.testMCPServer(ctx, name)
}

// testMCPServer is TestMCPServer waiting at most as long as the caller's ctx.
func (s *SettingsService) testMCPServer(ctx context.Context, name string) (MCPTestResult, error) {
	servers := s.core.mcpServers()
	srv, ok := servers[name]
	if !ok {
		return MCPTestResult{}, fmt.Errorf("%w: %q", ErrNoMCPServer, name)
	}
	start := time.Now()
	tools, err := s.core.mcp.Test(ctx, name)
	res := MCPTestResult{OK: err == nil, Tools: toolViews(tools, srv), LogTail: []string{}, DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		res.Error = err.Error()
	}
	if st, serr := s.core.mcp.Status(name); serr == nil {
		res.LogTail = nonNil(st.LogTail)
	}
	return res, nil
}

// MCPServerLog returns the MCP server's log (<data-dir>/logs/mcp/<name>.log, at most 1 MiB,
// secrets hidden; "" before its first start). Errors: not_found for a name that is not
// configured.
func (s *SettingsService) MCPServerLog(name string) (string, error) {
	if _, ok := s.core.mcpServers()[name]; !ok {
		return "", fmt.Errorf("%w: %q", ErrNoMCPServer, name)
	}
	return s.core.mcp.Log(name)
}

// SetMCPToolEnabled offers (enabled) or stops offering the tool named tool (its name on
// the server) of the MCP server name to the agents, from the next run: its entry's
// disabled_tools in config.json. Errors: not_found for a server that is not configured,
// settings_file_invalid.
func (s *SettingsService) SetMCPToolEnabled(name, tool string, enabled bool) error {
	err := s.core.updateSettings(func(cur config.Settings) (config.Settings, error) {
		srv, ok := cur.MCPServers[name]
		if !ok {
			return cur, fmt.Errorf("%w: %q", ErrNoMCPServer, name)
		}
		off := slices.DeleteFunc(slices.Clone(srv.DisabledTools), func(t string) bool { return t == tool })
		if !enabled {
			off = append(off, tool)
		}
		if len(off) == 0 {
			off = nil
		}
		srv.DisabledTools = off
		return cur.WithMCPServer(name, &srv), nil
	})
	if err != nil {
		return fmt.Errorf("settings: set MCP tool: %w", err)
	}
	s.core.mcpServers()
	return nil
}

// allowMCPServer stores permission "auto" for the MCP server whose tool qualified is (the
// user chose Always allow for it). It reports whether qualified is an MCP tool.
func (c *Core) allowMCPServer(qualified string) (bool, error) {
	server, _, ok := c.mcp.Resolve(qualified)
	if !ok {
		return false, nil
	}
	return true, c.updateSettings(func(cur config.Settings) (config.Settings, error) {
		srv, ok := cur.MCPServers[server]
		if !ok {
			return cur, nil // removed meanwhile
		}
		srv.Permission = config.MCPPermissionAuto
		next := maps.Clone(cur.MCPServers)
		next[server] = srv
		cur.MCPServers = next
		return cur, nil
	})
}

// mcpToolSource gives each run the tools of the MCP servers (engine.ToolSource): the
// servers serving one of the run's agents are started at the run's start
// (mcp.Manager.AgentTools); images and resources their tools return become declared
// files of the conversation's workspace.
type mcpToolSource struct {
	c       *Core
	servers config.MCPServers
}

// MayOffer implements engine.ToolOfferer: name is mcp__<server>__<tool> of a configured
// server that is switched on (the tool itself is known only once the server runs).
func (m mcpToolSource) MayOffer(name string) bool {
	for server, srv := range m.servers {
		if !srv.Disabled && strings.HasPrefix(name, mcp.ToolPrefix+server+"__") {
			return true
		}
	}
	return false
}

// Tools implements engine.ToolSource.
func (m mcpToolSource) Tools(ctx context.Context, req engine.ToolRequest) engine.ToolSet {
	// The servers as config.json holds them now, not as they were when the run's
	// dependencies were read: a server removed or changed meanwhile (while the run indexed
	// local files, say) must not be put back in the manager or started with its old
	// program and secrets.
	set := m.c.mcp.AgentTools(ctx, m.c.mcpServers(), req.Agents, req.Wanted,
		mcp.ToolEnv{Sources: req.Sources, Declared: m.c.declared, Workspace: m.c.workspace})
	return engine.ToolSet{Tools: set.Tools, Agents: set.Agents, Permissions: set.Policies, Warnings: set.Warnings}
}

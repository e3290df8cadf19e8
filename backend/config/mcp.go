package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/http/httpguts"
)

// MCP server transports (MCPServer.Transport).
const (
	// MCPStdio starts MCPServer.Command and speaks newline-delimited JSON-RPC over its
	// standard input and output.
	MCPStdio = "stdio"
	// MCPHTTP posts to MCPServer.URL (Streamable HTTP); a server that answers the first
	// POST (initialize) with a 4xx status is tried again over MCPSSE, unless Transport
	// names MCPHTTP explicitly.
	MCPHTTP = "http"
	// MCPSSE is the legacy HTTP+SSE transport: a GET on URL opens the event stream.
	MCPSSE = "sse"
)

// MCP server permissions (MCPServer.Permission).
const (
	MCPPermissionConfirm = "confirm"
	MCPPermissionAuto    = "auto"
)

// Limits and defaults of an MCP server entry.
const (
	// DefaultMCPTimeoutSeconds bounds one tool call and a server's start when
	// MCPServer.TimeoutSeconds is 0.
	DefaultMCPTimeoutSeconds = 60
	// MaxMCPTimeoutSeconds is the largest MCPServer.TimeoutSeconds.
	MaxMCPTimeoutSeconds = 3600
	// MaxMCPServerName is the longest server name, in characters.
	MaxMCPServerName = 64
)

// DefaultMCPAgents are the agents a server's tools are offered to when MCPServer.Agents is
// empty: the search and crawl agents (the agents that gather; the lead writes).
var DefaultMCPAgents = []string{"search_agent", "crawl_agent"}

// mcpNameRE is what a server name may be: it becomes part of the tool names models see
// (mcp__<server>__<tool>), which OpenAI-style function names restrict to these characters.
var mcpNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidMCPServerName reports whether name may name an MCP server: 1–64 ASCII letters,
// digits, "_" or "-", without "__" (the separator of mcp__<server>__<tool>: server "a__b"
// with tool "x" and server "a" with tool "b__x" would both be offered as mcp__a__b__x).
func ValidMCPServerName(name string) bool {
	return mcpNameRE.MatchString(name) && !strings.Contains(name, "__")
}

// MCPServer is one entry of Settings.MCPServers (config.json "mcp_servers": {"name":
// entry}), in the shape of Claude Desktop's and Cursor's "mcpServers" entries so a user can
// paste the block they already have (ParseMCPServers):
//
//   - a local server: Command (a program found on PATH, such as npx or uvx, or an absolute
//     path), Args, Env (added to the app's environment) and Cwd (an absolute folder; ""
//     means the user's home folder); it is started as a child of the app and spoken to over
//     its standard input and output;
//   - a remote server: URL (http or https) and Headers sent with every request (an
//     Authorization header, say), over Streamable HTTP with the legacy SSE transport as
//     the fallback (Transport).
//
// Env values and header values are secrets, stored in config.json (mode 0600) like API
// keys: String and LogValue show their names only, the settings page gets them masked, and
// they never reach a log.
//
// The keys the app adds: Agents (the agents the server's tools are offered to; empty means
// DefaultMCPAgents; any agent name, the user's own agents included), Permission
// ("confirm", the default: the user approves each call, or "auto"; "Always allow" in the
// prompt stores "auto"), Disabled (the server is neither started nor offered),
// DisabledTools (tool names as the server gives them, not offered) and TimeoutSeconds
// (one call's and the start's limit; 0 means DefaultMCPTimeoutSeconds).
type MCPServer struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Transport is "" (inferred: MCPStdio with a Command, else MCPHTTP with the SSE
	// fallback), MCPStdio, MCPHTTP (Streamable HTTP only) or MCPSSE (the legacy transport
	// only).
	Transport      string   `json:"transport,omitempty"`
	Agents         []string `json:"agents,omitempty"`
	Permission     string   `json:"permission,omitempty"`
	Disabled       bool     `json:"disabled,omitempty"`
	DisabledTools  []string `json:"disabled_tools,omitempty"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty"`
}

// Kind returns the transport the server is reached by: Transport when set, else MCPStdio
// for a server with a Command and MCPHTTP otherwise.
func (s MCPServer) Kind() string {
	switch {
	case s.Transport != "":
		return s.Transport
	case s.Command != "":
		return MCPStdio
	default:
		return MCPHTTP
	}
}

// AgentNames returns the agents the server's tools are offered to: Agents, or
// DefaultMCPAgents when it is empty (a copy either way).
func (s MCPServer) AgentNames() []string {
	if len(s.Agents) == 0 {
		return slices.Clone(DefaultMCPAgents)
	}
	return slices.Clone(s.Agents)
}

// Policy returns the server's permission: MCPPermissionAuto when Permission says so, else
// MCPPermissionConfirm.
func (s MCPServer) Policy() string {
	if s.Permission == MCPPermissionAuto {
		return MCPPermissionAuto
	}
	return MCPPermissionConfirm
}

// ToolEnabled reports whether the server's tool named tool (as the server names it) is
// offered: it is not in DisabledTools.
func (s MCPServer) ToolEnabled(tool string) bool { return !slices.Contains(s.DisabledTools, tool) }

// Timeout returns TimeoutSeconds, or DefaultMCPTimeoutSeconds when it is 0 or negative.
func (s MCPServer) Timeout() int {
	if s.TimeoutSeconds <= 0 {
		return DefaultMCPTimeoutSeconds
	}
	return s.TimeoutSeconds
}

// secretNameRE marks a name whose value is a secret: an argument flag (--api-key X,
// --token=X), a NAME=value argument, or a header given as an argument ("Authorization:
// Bearer X").
var secretNameRE = regexp.MustCompile(`(?i)key|token|secret|passw|auth|credential|cookie|bearer|session`)

// Secrets returns the server's secret values, non-empty ones, for callers that must keep
// them out of what they show or log (a server's own output included):
//   - its env and header values;
//   - from its url, the user name and password and every query value (a key often rides
//     in ?api_key=…);
//   - from its args, what holds a secret the way env and headers do: the value of a flag
//     or NAME=value whose name looks secret (secretNameRE: --api-key X, --token=X,
//     API_KEY=X), the argument after a header flag (-H, --header) and the value of a
//     "Name: value" header argument (with its Bearer token on its own as well).
func (s MCPServer) Secrets() []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for _, v := range m {
			add(v)
		}
	}
	if u, err := url.Parse(s.URL); err == nil && s.URL != "" {
		if u.User != nil {
			add(u.User.Username())
			if p, ok := u.User.Password(); ok {
				add(p)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v)) // as the URL spells it
			}
		}
	}
	header := func(a string) {
		if name, v, ok := strings.Cut(a, ":"); ok && httpguts.ValidHeaderFieldName(strings.TrimSpace(name)) {
			add(v)
			if f := strings.Fields(v); len(f) == 2 {
				add(f[1]) // the token of "Bearer <token>"
			}
		}
	}
	for i, a := range s.Args {
		flag := strings.TrimLeft(a, "-")
		switch name, v, ok := strings.Cut(flag, "="); {
		case ok && secretNameRE.MatchString(name):
			add(v)
			header(v)
		case a == "-H" || a == "--header":
			if i+1 < len(s.Args) {
				add(s.Args[i+1])
				header(s.Args[i+1])
			}
		case strings.HasPrefix(a, "-") && !ok && secretNameRE.MatchString(flag):
			if i+1 < len(s.Args) && !strings.HasPrefix(s.Args[i+1], "-") {
				add(s.Args[i+1])
			}
		case !strings.HasPrefix(a, "-"):
			if name, _, ok := strings.Cut(a, ":"); ok && secretNameRE.MatchString(name) {
				header(a)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Redact returns text with every one of the server's secrets (Secrets) replaced by
// "[secret]", longest first so a secret holding another is hidden whole.
func (s MCPServer) Redact(text string) string {
	secrets := s.Secrets()
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, v := range secrets {
		text = strings.ReplaceAll(text, v, "[secret]")
	}
	return text
}

// String shows s without its secrets: env and header values are replaced by their names,
// and those in its url and args by "[secret]" (Redact).
func (s MCPServer) String() string {
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = s.Redact(a)
	}
	return fmt.Sprintf("{transport:%s command:%q args:%q cwd:%q url:%q env:%v headers:%v agents:%v permission:%s disabled:%v disabled_tools:%v timeout_seconds:%d}",
		s.Kind(), s.Command, args, s.Cwd, s.Redact(s.URL), sortedKeys(s.Env), sortedKeys(s.Headers), s.AgentNames(), s.Policy(),
		s.Disabled, s.DisabledTools, s.Timeout())
}

// LogValue keeps the secrets out of logs (slog.LogValuer): env and header names only, the
// url with its secrets replaced (Redact).
func (s MCPServer) LogValue() slog.Value {
	return slog.GroupValue(slog.String("transport", s.Kind()), slog.String("command", s.Command), slog.String("url", s.Redact(s.URL)),
		slog.Any("env", sortedKeys(s.Env)), slog.Any("headers", sortedKeys(s.Headers)), slog.Bool("disabled", s.Disabled))
}

// MCPServers are the user's MCP servers by name (Settings.MCPServers).
type MCPServers map[string]MCPServer

// String shows the servers without their secrets (MCPServer.String).
func (m MCPServers) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name + ":" + m[name].String())
	}
	b.WriteByte('}')
	return b.String()
}

// LogValue keeps the secrets out of logs: each server as MCPServer.LogValue.
func (m MCPServers) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		attrs = append(attrs, slog.Any(name, m[name]))
	}
	return slog.GroupValue(attrs...)
}

// Names returns the server names, sorted.
func (m MCPServers) Names() []string { return slices.Sorted(maps.Keys(m)) }

// WithMCPServer returns s with server name set to srv, or removed when srv is nil (the map
// is copied, so s is untouched).
func (s Settings) WithMCPServer(name string, srv *MCPServer) Settings {
	next := maps.Clone(s.MCPServers)
	if next == nil {
		next = MCPServers{}
	}
	if srv == nil {
		delete(next, name)
	} else {
		next[name] = *srv
	}
	if len(next) == 0 {
		next = nil
	}
	s.MCPServers = next
	return s
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// validMCPServers checks every server's shape; each problem names its key as
// mcp_servers.<name>.<key> ("mcp_servers.files.command: …").
func validMCPServers(m MCPServers) []string {
	var problems []string
	for _, name := range m.Names() {
		problems = append(problems, mcpServerProblems(name, m[name])...)
	}
	return problems
}

// ValidateMCPServer checks one server entry being added, edited or imported, and a
// server about to start: Settings.Validate's checks and, besides, a name without "__"
// (which separates the server from the tool in the names models see, mcp__<server>__<tool>:
// server "a__b" tool "x" would be offered under the same name as server "a" tool "b__x").
// Settings.Validate leaves that rule out, so a config.json that already holds such a name
// still saves every other setting; the server itself does not start. The error is an
// *InvalidError (wrapping ErrInvalid) naming each bad key as mcp_servers.<name>.<key>.
func ValidateMCPServer(name string, s MCPServer) error {
	problems := mcpServerProblems(name, s)
	if len(problems) == 0 && strings.Contains(name, "__") {
		problems = []string{fmt.Sprintf(`mcp_servers: %q is not a valid server name: "__" separates the server from the tool in the names models see (mcp__<server>__<tool>); use a single _ or -`, name)}
	}
	if len(problems) > 0 {
		return &InvalidError{Problems: problems}
	}
	return nil
}

// mcpServerProblems returns one problem per bad key of server name.
func mcpServerProblems(name string, s MCPServer) []string {
	if !mcpNameRE.MatchString(name) {
		return []string{fmt.Sprintf("mcp_servers: %q is not a valid server name (1–%d letters, digits, _ or -)", name, MaxMCPServerName)}
	}
	at := "mcp_servers." + name + "."
	var problems []string
	add := func(key, format string, args ...any) {
		problems = append(problems, at+key+": "+fmt.Sprintf(format, args...))
	}
	command := strings.TrimSpace(s.Command)
	switch {
	case command == "" && s.URL == "":
		problems = append(problems, "mcp_servers."+name+": needs a command (a local server) or a url (a remote one)")
	case command != "" && s.URL != "":
		problems = append(problems, "mcp_servers."+name+": has both a command and a url; keep one")
	}
	switch s.Transport {
	case "":
	case MCPStdio:
		if command == "" {
			add("transport", "stdio needs a command")
		}
	case MCPHTTP, MCPSSE:
		if s.URL == "" {
			add("transport", "%s needs a url", s.Transport)
		}
	default:
		add("transport", "%q is not stdio, http or sse", s.Transport)
	}
	if command != "" {
		switch {
		case strings.ContainsRune(s.Command, 0):
			add("command", "contains a NUL character")
		case !filepath.IsAbs(command) && strings.ContainsAny(command, `/\`):
			add("command", "%q is a relative path: use a program found on PATH (npx, uvx, node, …) or an absolute path", command)
		}
	}
	for i, a := range s.Args {
		if strings.ContainsRune(a, 0) {
			add(fmt.Sprintf("args[%d]", i), "contains a NUL character")
		}
	}
	if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
		add("cwd", "%q is not an absolute folder", s.Cwd)
	}
	for _, k := range sortedKeys(s.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			add("env", "%q is not a variable name (no = or NUL)", k)
		} else if strings.ContainsRune(s.Env[k], 0) {
			add("env."+k, "the value contains a NUL character")
		}
	}
	if s.URL != "" && !isHTTPURL(s.URL) {
		add("url", "must be an absolute http(s) URL such as http://127.0.0.1:3001/mcp")
	}
	for _, k := range sortedKeys(s.Headers) {
		if !httpguts.ValidHeaderFieldName(k) {
			add("headers", "%q is not a header name", k)
		} else if !httpguts.ValidHeaderFieldValue(s.Headers[k]) {
			add("headers."+k, "the value has characters a header cannot carry (line breaks, control characters)")
		}
	}
	if command != "" && (len(s.Headers) > 0) {
		add("headers", "headers are for a url; a command takes env")
	}
	for i, a := range s.Agents {
		if a == "" || len(a) > 64 || strings.IndexFunc(a, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			add(fmt.Sprintf("agents[%d]", i), "%q is not an agent name", a)
		}
	}
	switch s.Permission {
	case "", MCPPermissionConfirm, MCPPermissionAuto:
	default:
		add("permission", "%q is not confirm or auto", s.Permission)
	}
	for i, t := range s.DisabledTools {
		if strings.TrimSpace(t) == "" {
			add(fmt.Sprintf("disabled_tools[%d]", i), "is empty")
		}
	}
	if s.TimeoutSeconds < 0 || s.TimeoutSeconds > MaxMCPTimeoutSeconds {
		add("timeout_seconds", "%d is outside 1–%d (0 means %d)", s.TimeoutSeconds, MaxMCPTimeoutSeconds, DefaultMCPTimeoutSeconds)
	}
	return problems
}

// ErrMCPPaste is wrapped by ParseMCPServers' errors.
var ErrMCPPaste = errors.New("not an MCP servers block")

// ParseMCPServers reads a block of MCP servers as other apps write it, for the settings
// page's "paste JSON": {"mcpServers": {name: entry}} (Claude Desktop, Cursor, Claude
// Code), {"mcp_servers": {…}} (this app's config.json), {"servers": {…}} (VS Code), or the
// bare {name: entry, …}. Each entry is an MCPServer; the "type" key other apps use for the
// transport is read as Transport ("stdio", "http", "streamable-http", "streamableHttp" or
// "sse"), and keys this app does not know (autoApprove, alwaysAllow, …) are dropped,
// their names returned in ignored as "name.key". Every server is validated as
// Settings.Validate does.
//
// Errors: text that is not a JSON object of objects (wrapping ErrMCPPaste, with encoding/
// json's reason), no server in it (ErrMCPPaste), or an *InvalidError naming each bad
// server key.
func ParseMCPServers(text string) (servers MCPServers, ignored []string, err error) {
	raw := bytes.TrimSpace(bytes.TrimPrefix([]byte(text), utf8BOM))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrMCPPaste, strings.TrimPrefix(err.Error(), "json: "))
	}
	for _, key := range []string{"mcpServers", "mcp_servers", "servers"} {
		inner, ok := top[key]
		if !ok {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(inner, &m); err != nil {
			return nil, nil, fmt.Errorf("%w: %q must be an object of servers: %v", ErrMCPPaste, key, strings.TrimPrefix(err.Error(), "json: "))
		}
		_, command := m["command"]
		_, url := m["url"]
		if !command && !url { // not a bare server that happens to be named so
			top = m
			break
		}
	}
	if len(top) == 0 {
		return nil, nil, fmt.Errorf("%w: it names no server", ErrMCPPaste)
	}
	known := map[string]bool{}
	for _, f := range []string{"command", "args", "env", "cwd", "url", "headers", "transport", "agents", "permission",
		"disabled", "disabled_tools", "timeout_seconds"} {
		known[f] = true
	}
	servers = MCPServers{}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(top)) {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(top[name], &fields); err != nil {
			return nil, nil, fmt.Errorf("%w: server %q is not an object with command or url", ErrMCPPaste, name)
		}
		var typ string
		if t, ok := fields["type"]; ok {
			if err := json.Unmarshal(t, &typ); err != nil {
				problems = append(problems, "mcp_servers."+name+".type: must be a string")
			}
			delete(fields, "type")
		}
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			if !known[k] {
				ignored = append(ignored, name+"."+k)
				delete(fields, k)
			}
		}
		b, _ := json.Marshal(fields) // re-encoding decoded JSON cannot fail
		var s MCPServer
		if err := json.Unmarshal(b, &s); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				problems = append(problems, fmt.Sprintf("mcp_servers.%s.%s: must be %s", name, te.Field, jsonTypeName(te.Type.Kind().String())))
				continue
			}
			return nil, nil, fmt.Errorf("%w: server %q: %v", ErrMCPPaste, name, err)
		}
		if s.Transport == "" && typ != "" {
			switch strings.ToLower(typ) {
			case "stdio":
				s.Transport = MCPStdio
			case "http", "streamable-http", "streamablehttp", "streamable_http":
				s.Transport = MCPHTTP
			case "sse":
				s.Transport = MCPSSE
			default:
				problems = append(problems, fmt.Sprintf("mcp_servers.%s.type: %q is not stdio, http or sse", name, typ))
			}
		}
		problems = append(problems, mcpServerProblems(name, s)...)
		servers[name] = s
	}
	if len(problems) > 0 {
		return nil, ignored, &InvalidError{Problems: problems}
	}
	return servers, ignored, nil
}

// jsonTypeName names a Go kind the way a user of JSON knows it.
func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice":
		return "a list"
	case "map", "struct":
		return "an object"
	case "bool":
		return "true or false"
	case "int", "int64", "float64":
		return "a number"
	}
	return kind
}

package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"mime"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/sources"
	"artifactflow/backend/tools"
)

// Limits of what one MCP tool call gives the model and keeps.
const (
	// MaxResultRunes caps the text of one call's result given to the model (the rest is
	// cut with a note), as web_fetch's largest page.
	MaxResultRunes = tools.MaxFetchContentRune
	// MaxKeptBytes caps one image, audio clip or embedded resource kept as a file; a larger
	// one is not kept (the result says so).
	MaxKeptBytes = 20 << 20
	// maxLinkSources is how many links of one result get source numbers.
	maxLinkSources = 20
	// WorkspaceDir is the folder, in the conversation's workspace, where the files MCP
	// tools return are kept: <WorkspaceDir>/<server>/<name>.
	WorkspaceDir = "mcp"
)

// ToolEnv is what the agents' MCP tools need of the app in a run: the run's source list
// (the links a result holds become numbered sources), and the declared-artifact store
// with the conversations' workspace folders (images, audio and embedded resources a
// result holds are written to the workspace and declared, so they show in the user's
// artifacts panel). A nil field leaves that part out: links are listed without numbers,
// files are not kept.
type ToolEnv struct {
	Sources   sources.Recorder
	Declared  tools.Declarer
	Workspace func(ctx context.Context, conversationID string) (string, error)
}

// ToolSet is what AgentTools gives one run.
type ToolSet struct {
	// Tools are the agents' tools (each a tools.Tool named Tool.QualifiedName).
	Tools []tools.Tool
	// Agents maps each tool's name to the agents its server's entry offers it to.
	Agents map[string][]string
	// Policies maps each tool's name to its server's permission, config.MCPPermissionConfirm
	// or config.MCPPermissionAuto.
	Policies map[string]string
	// Warnings name each server left out, and why.
	Warnings []string
}

// AgentTools returns the tools of servers for a run whose agents are agents and who list
// the tools wanted in their own tool lists: the servers that are switched on and offered
// to one of agents, or that have a tool named in wanted, are started if they are not
// running (all at once; the wait is bounded by Options.RunStartWait and ctx) and their
// tools that disabled_tools does not list are returned. A server that cannot be started,
// or is still starting when the wait ends (its start goes on, for a later run), is left
// out with a warning. m is configured to servers first.
func (m *Manager) AgentTools(ctx context.Context, servers config.MCPServers, agents, wanted []string, env ToolEnv) ToolSet {
	m.Configure(servers)
	wait, cancel := context.WithTimeout(ctx, m.opts.RunStartWait)
	defer cancel()
	set := ToolSet{Agents: map[string][]string{}, Policies: map[string]string{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range servers.Names() {
		srv := servers[name]
		if srv.Disabled {
			continue
		}
		serves := slices.ContainsFunc(srv.AgentNames(), func(a string) bool { return slices.Contains(agents, a) })
		named := slices.ContainsFunc(wanted, func(w string) bool { return strings.HasPrefix(w, ToolPrefix+name+"__") })
		if !serves && !named {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			listed, err := m.Tools(wait, name)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && wait.Err() != nil && ctx.Err() == nil:
				set.Warnings = append(set.Warnings, fmt.Sprintf("MCP server %s is still starting after %v; its tools are offered from the next run that finds it running",
					name, m.opts.RunStartWait))
				return
			case err != nil:
				set.Warnings = append(set.Warnings, fmt.Sprintf("MCP server %s: %v", name, err))
				return
			}
			for _, t := range listed {
				if !srv.ToolEnabled(t.Name) {
					continue
				}
				set.Tools = append(set.Tools, newAgentTool(m, t, env))
				if serves {
					set.Agents[t.QualifiedName] = srv.AgentNames()
				}
				set.Policies[t.QualifiedName] = srv.Policy()
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(set.Tools, func(a, b tools.Tool) int { return strings.Compare(a.Name(), b.Name()) })
	set.dropCollisions()
	slices.Sort(set.Warnings)
	return set
}

// dropCollisions removes every tool whose name another server's tool also has (set.Tools
// sorted by name), with a warning naming both servers: a model calling that name could
// reach either, so neither is offered. Server names cannot contain "__"
// (config.ValidMCPServerName), but "_" at a name's edge still lets server "a_" with tool
// "b" and server "a" with tool "_b" both give mcp__a___b.
func (set *ToolSet) dropCollisions() {
	kept := set.Tools[:0]
	for i := 0; i < len(set.Tools); {
		j := i + 1
		for j < len(set.Tools) && set.Tools[j].Name() == set.Tools[i].Name() {
			j++
		}
		if j == i+1 {
			kept = append(kept, set.Tools[i])
			i = j
			continue
		}
		name := set.Tools[i].Name()
		var who []string
		for _, t := range set.Tools[i:j] {
			if a, ok := t.(*agentTool); ok {
				who = append(who, fmt.Sprintf("%s (tool %q)", a.t.Server, a.t.Name))
			}
		}
		slices.Sort(who)
		set.Warnings = append(set.Warnings, fmt.Sprintf("MCP tools of %s are all offered as %s; none of them is offered: rename one of the servers",
			strings.Join(who, " and "), name))
		delete(set.Agents, name)
		delete(set.Policies, name)
		i = j
	}
	clear(set.Tools[len(kept):])
	set.Tools = kept
}

// agentTool is one MCP tool as the agents call it (tools.Tool, tools.Schema,
// tools.ReadOnly, tools.PermissionGroup).
type agentTool struct {
	m      *Manager
	t      Tool
	env    ToolEnv
	schema map[string]any
	params []tools.Param
}

func newAgentTool(m *Manager, t Tool, env ToolEnv) *agentTool {
	a := &agentTool{m: m, t: t, env: env}
	if json.Unmarshal(t.InputSchema, &a.schema) != nil || a.schema == nil {
		a.schema = map[string]any{}
	}
	delete(a.schema, "$schema") // meta, not the shape; some endpoints refuse keys they do not know
	if _, ok := a.schema["type"]; !ok {
		a.schema["type"] = "object"
	}
	if _, ok := a.schema["properties"]; !ok {
		a.schema["properties"] = map[string]any{}
	}
	a.params = paramsOf(a.schema)
	return a
}

// Name returns mcp__<server>__<tool>.
func (a *agentTool) Name() string { return a.t.QualifiedName }

// Description is the server's, with where the tool comes from.
func (a *agentTool) Description() string {
	d := strings.TrimSpace(a.t.Description)
	if d == "" {
		d = strings.TrimSpace(a.t.Title)
	}
	from := fmt.Sprintf("(Tool %q of the MCP server %q.)", a.t.Name, a.t.Server)
	if d == "" {
		return from
	}
	return d + "\n" + from
}

// Params lists the schema's top-level properties (for the XML format).
func (a *agentTool) Params() []tools.Param { return slices.Clone(a.params) }

// InputSchema returns the server's JSON Schema for the arguments (tools.Schema).
func (a *agentTool) InputSchema() map[string]any { return a.schema }

// ReadOnly is the server's readOnlyHint: such calls may run at once with others.
func (a *agentTool) ReadOnly() bool { return a.t.ReadOnly }

// PermissionGroup is mcp__<server>: "Always allow" covers the server's every tool.
func (a *agentTool) PermissionGroup() string { return ToolPrefix + a.t.Server }

// paramsOf lists an object schema's properties, in name order, with their types (the
// first non-null of a type list; "string" when none) and descriptions; an object or array
// property's description ends with its schema, so the XML format's model knows the shape
// of the JSON it must write.
func paramsOf(schema map[string]any) []tools.Param {
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	var out []tools.Param
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, _ := props[name].(map[string]any)
		typ := "string"
		switch t := p["type"].(type) {
		case string:
			typ = t
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok && s != "null" {
					typ = s
					break
				}
			}
		}
		desc, _ := p["description"].(string)
		if typ == "object" || typ == "array" {
			b, _ := json.Marshal(p)
			desc = strings.TrimSpace(desc + " JSON " + typ + " matching the schema " + clipRunes(string(b), 600))
		}
		out = append(out, tools.Param{Name: name, Type: typ, Description: desc, Required: required[name]})
	}
	return out
}

// Execute calls the tool on its server and turns the result into the model's text: the
// text content; the links it holds (resource links, and http(s) URLs in the text) as
// numbered sources; images, audio and embedded resources written to the conversation's
// workspace and declared (Result.Metadata: tools.MetaDeclared, tools.MetaSources). An
// error result (isError), the server's error, a timeout or a crash is a failed Result for
// the agent; nothing here ends the run.
func (a *agentTool) Execute(ctx context.Context, params map[string]any) tools.Result {
	res, err := a.m.Call(ctx, a.t.Server, a.t.Name, params)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Fail("the call to %s was cancelled: %v", a.t.QualifiedName, context.Cause(ctx))
		}
		r := tools.Fail("%v", err)
		switch {
		case errors.Is(err, ErrTimeout):
			r.Error += "; try again later, with a smaller request, or go on without this tool"
		case errors.Is(err, ErrUnavailable):
			r.Error += "; it is started again at the next call"
		}
		r.Metadata = map[string]any{tools.MetaFailure: a.t.QualifiedName + ": " + err.Error()}
		return r
	}
	var b strings.Builder
	var recorded []sources.Source
	var changes []declared.Change
	var kept, links []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			appendPart(&b, c.Text)
		case *sdk.ImageContent:
			kept = append(kept, a.keep(ctx, "image", "", c.MIMEType, c.Data, &changes))
		case *sdk.AudioContent:
			kept = append(kept, a.keep(ctx, "audio", "", c.MIMEType, c.Data, &changes))
		case *sdk.ResourceLink:
			title := firstOf(c.Title, c.Name, c.URI)
			if src, ok := a.record(ctx, c.URI, title, c.Description); ok {
				recorded = append(recorded, src)
				links = append(links, fmt.Sprintf("[%d] %s: %s", src.N, title, c.URI))
			} else {
				links = append(links, fmt.Sprintf("- %s: %s", title, c.URI))
			}
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			r := c.Resource
			data := r.Blob
			if r.Text != "" {
				appendPart(&b, fmt.Sprintf("Resource %s (%s):\n%s", r.URI, firstOf(r.MIMEType, "text"), r.Text))
				data = []byte(r.Text)
			}
			kept = append(kept, a.keep(ctx, "resource", r.URI, firstOf(r.MIMEType, "text/plain"), data, &changes))
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if j, err := json.Marshal(res.StructuredContent); err == nil {
			appendPart(&b, string(j))
		}
	}
	text := b.String()
	if res.IsError {
		if strings.TrimSpace(text) == "" {
			text = "the tool reported an error without a message"
		}
		r := tools.Fail("%s", clipRunes(text, MaxResultRunes))
		r.Metadata = map[string]any{tools.MetaFailure: a.t.QualifiedName + ": " + clipRunes(oneLine(text), 200)}
		return r
	}
	for _, u := range urlsIn(text, maxLinkSources) {
		if slices.ContainsFunc(recorded, func(s sources.Source) bool { return s.Location == u }) {
			continue
		}
		if src, ok := a.record(ctx, u, "", ""); ok {
			recorded = append(recorded, src)
			links = append(links, fmt.Sprintf("[%d] %s", src.N, u))
		}
	}
	text = clipRunes(text, MaxResultRunes)
	if len(links) > 0 {
		text += "\n\nLinks in this result (cite a numbered one as [n]):\n" + strings.Join(links, "\n")
	}
	if kept = slices.DeleteFunc(kept, func(s string) bool { return s == "" }); len(kept) > 0 {
		text += "\n\nContent kept as files:\n" + strings.Join(kept, "\n")
	}
	if strings.TrimSpace(text) == "" {
		text = "(the tool returned no content)"
	}
	r := tools.OK(strings.TrimSpace(text))
	r.Metadata = map[string]any{}
	if len(recorded) > 0 {
		r.Metadata[tools.MetaSources] = recorded
	}
	if len(changes) > 0 {
		r.Metadata[tools.MetaDeclared] = changes
	}
	return r
}

// record numbers an http(s) location in the conversation's source list; ok is false for
// another scheme, without a recorder, or when recording fails (logged).
func (a *agentTool) record(ctx context.Context, location, title, excerpt string) (sources.Source, bool) {
	info, ok := tools.CallFrom(ctx)
	lower := strings.ToLower(location)
	if a.env.Sources == nil || !ok || info.ConversationID == "" || !(strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")) {
		return sources.Source{}, false
	}
	if title == "" {
		title = sources.Site(location)
	}
	s, err := a.env.Sources.Record(ctx, info.ConversationID, sources.Source{Kind: sources.KindWeb, Location: location,
		Title: clipRunes(oneLine(title), 200), Site: sources.Site(location), Excerpt: clipRunes(oneLine(excerpt), sources.ExcerptRunes),
		MessageID: info.MessageID})
	if err != nil {
		slog.Warn("mcp: recording a source failed; it is shown without a number", "tool", a.t.QualifiedName, "err", err)
		return sources.Source{}, false
	}
	return s, s.N > 0
}

// keep writes data (what, of type mimeType, from uri when it is a resource) to the
// conversation's workspace as <WorkspaceDir>/<server>/<name>-<hash><ext> and declares it
// (source tool), adding the change to changes; it returns the line the model is told
// ("" when there is nothing to keep), which says why it was not kept when it was not.
func (a *agentTool) keep(ctx context.Context, what, uri, mimeType string, data []byte, changes *[]declared.Change) string {
	if len(data) == 0 {
		return ""
	}
	info, ok := tools.CallFrom(ctx)
	if !ok || info.ConversationID == "" || a.env.Workspace == nil || a.env.Declared == nil {
		return fmt.Sprintf("- a %s (%s, %d bytes), not kept: this session keeps no files", what, mimeType, len(data))
	}
	if len(data) > MaxKeptBytes {
		return fmt.Sprintf("- a %s (%s, %d bytes), not kept: over the %d MiB limit", what, mimeType, len(data), MaxKeptBytes>>20)
	}
	ws, err := a.env.Workspace(ctx, info.ConversationID)
	if err != nil {
		return fmt.Sprintf("- a %s (%s), not kept: %v", what, mimeType, err)
	}
	rel := keptPath(a.t.Server, a.t.Name, uri, mimeType, data)
	abs := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return fmt.Sprintf("- a %s (%s), not kept: %v", what, mimeType, err)
	}
	if err := os.WriteFile(abs, data, 0o600); err != nil {
		return fmt.Sprintf("- a %s (%s), not kept: %v", what, mimeType, err)
	}
	title := fmt.Sprintf("%s from %s (%s)", what, a.t.Name, a.t.Server)
	if uri != "" {
		title = fmt.Sprintf("%s (%s)", cutRunes(uri, 150), a.t.Server)
	}
	ch, err := a.env.Declared.Upsert(ctx, info.ConversationID, []declared.Input{{Title: title, WorkspacePath: rel,
		MimeType: mimeType, Description: fmt.Sprintf("Returned by the MCP tool %s.", a.t.QualifiedName),
		Source: declared.SourceTool, ToolCallID: info.CallID, ToolName: a.t.QualifiedName}}, false)
	if err != nil {
		return fmt.Sprintf("- %s (%s, %d bytes) saved in the workspace, but not listed in the artifacts panel: %v", rel, mimeType, len(data), err)
	}
	*changes = append(*changes, ch...)
	return fmt.Sprintf("- %s (%s, %d bytes), in the user's artifacts panel", rel, mimeType, len(data))
}

// extensionOf returns the file extension for mimeType, else uri's own, else ".bin".
func extensionOf(mimeType, uri string) string {
	known := map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
		"image/svg+xml": ".svg", "audio/wav": ".wav", "audio/x-wav": ".wav", "audio/mpeg": ".mp3", "audio/ogg": ".ogg",
		"text/plain": ".txt", "text/markdown": ".md", "text/html": ".html", "text/csv": ".csv", "application/json": ".json",
		"application/pdf": ".pdf"}
	mt, _, _ := mime.ParseMediaType(mimeType)
	if e, ok := known[mt]; ok {
		return e
	}
	if e := path.Ext(uri); len(e) > 1 && len(e) <= 8 && sanitize(e[1:]) == e[1:] {
		return strings.ToLower(e)
	}
	if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
		return exts[0]
	}
	return ".bin"
}

// urlRE finds http(s) URLs in text; trailing punctuation is trimmed after.
var urlRE = regexp.MustCompile(`https?://[^\s<>"'` + "`" + `\[\]{}|\\^]+`)

// urlsIn returns the distinct http(s) URLs of text, at most limit, in order.
func urlsIn(text string, limit int) []string {
	var out []string
	for _, u := range urlRE.FindAllString(text, -1) {
		u = strings.TrimRight(u, ".,;:!?)")
		if len(u) <= len("https://") || slices.Contains(out, u) {
			continue
		}
		out = append(out, u)
		if len(out) == limit {
			break
		}
	}
	return out
}

func appendPart(b *strings.Builder, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString(s)
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clipRunes cuts s to n runes, adding a note when it cut.
// keptPath is the workspace-relative path a kept image or resource is written to:
// mcp/<server>/<base>-<first 8 hex digits of the content's SHA-256><extension>, where base is
// the resource URI's last element without its extension (else the tool's name), made of
// [A-Za-z0-9_-] only and cut to 60 characters, so the name is one line a file system takes.
func keptPath(server, tool, uri, mimeType string, data []byte) string {
	sum := sha256.Sum256(data)
	base := sanitize(tool)
	if uri != "" {
		if b := strings.TrimSuffix(path.Base(uri), path.Ext(uri)); b != "" && b != "." && b != "/" {
			base = sanitize(b)
		}
	}
	return path.Join(WorkspaceDir, server, cutRunes(base, 60)+"-"+hex.EncodeToString(sum[:4])+extensionOf(mimeType, uri))
}

// cutRunes returns s cut to its first n characters, with nothing appended: for a file
// name or a one-line title, where clipRunes's note on a line of its own does not belong.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("\n… (cut: %d more characters)", len(r)-n)
}

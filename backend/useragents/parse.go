// Package useragents reads the agents the user defines: Markdown files in <data-dir>/agents/,
// each a YAML front matter (name, description, tools, model, max_rounds) and a body of
// instructions, the sub-agent format of Claude Code and qwen-code (docs/ARCHITECTURE.md,
// "User-defined agents"). Parse validates one file and names the line of each problem;
// Load reads the folder, so that a broken file is skipped and said so, never a reason for a
// run to fail. The engine runs the valid ones as sub-agents beside the built-in ones.
package useragents

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"artifactflow/backend/agent"
)

// Limits of an agent file.
const (
	// DefaultMaxRounds is max_rounds when the file leaves it out: the tool rounds the agent
	// may make in one call before it must answer.
	DefaultMaxRounds = 10
	// MaxRounds is the highest max_rounds accepted.
	MaxRounds = 50
	// MaxFileBytes bounds an agent file; a larger one is refused.
	MaxFileBytes = 256 << 10
	// MaxDescriptionRunes bounds description, which goes into the lead's system prompt.
	MaxDescriptionRunes = 1000
	// MaxNameLen bounds name.
	MaxNameLen = 64
)

// Inherit is the model value (and the meaning of no model) that runs the agent on the
// sub-agents' model as Settings choose it.
const Inherit = "inherit"

// CallSubagent is the one built-in tool an agent file may not list: sub-agents do not call
// sub-agents.
const CallSubagent = "call_subagent"

// MCPPrefix starts the name of every tool an MCP server offers (mcp__<server>__<tool>).
// Such names cannot be checked before the servers start, so any well-formed one is
// accepted; an agent whose MCP tool is missing when a run starts runs without it.
const MCPPrefix = "mcp__"

// validName reports whether s is what a name may be: lower-case letters, digits, '-' and
// '_', starting with a letter or digit (no regexp: nothing to compile at start).
func validName(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '-' || r == '_') && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// validMCPName reports whether s is a well-formed MCP tool name: mcp__, a server name of
// letters, digits, '.', '-' and '_', __, and a tool name without spaces.
func validMCPName(s string) bool {
	rest, ok := strings.CutPrefix(s, MCPPrefix)
	if !ok {
		return false
	}
	server, tool, ok := strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" || strings.ContainsFunc(tool, unicode.IsSpace) {
		return false
	}
	return !strings.ContainsFunc(server, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_')
	})
}

// positionRef is a position in a YAML error message: "at [line:column]". It is compiled at
// its first use, which only a broken file reaches.
var positionRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`at \[(\d+):\d+\]`) })

// Catalog is what a file is checked against: the built-in tools an agent may list (Tools)
// and the names of the built-in agents (Reserved), which no file may take. Tools with
// call_subagent left out is also what an agent gets when its file has no tools field.
type Catalog struct {
	Tools    []string
	Reserved []string
}

// Problem is one thing wrong with an agent file: the file's name, the 1-based line of the
// file it is on (0 when it concerns the file as a whole), the front-matter field it
// concerns ("" when none) and what is wrong. String gives "reviewer.md:3: tools: unknown
// tool \"foo\"".
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// String formats p as "<file>:<line>: <field>: <message>", leaving out the line when it
// is 0 and the field when it is "".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ErrInvalid is what Problems.Err wraps: an agent file is not valid.
var ErrInvalid = errors.New("invalid agent file")

// Problems are the problems of one file, in line order.
type Problems []Problem

// Err returns nil when there are no problems, else an error wrapping ErrInvalid whose text
// lists them, one per line.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(lines, "\n"))
}

// parsed collects the problems of the file being parsed.
type parsed struct {
	file     string
	problems Problems
}

// add records a problem on line (0: the whole file) of field ("" when none).
func (p *parsed) add(line int, field, format string, args ...any) {
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
}

// Parse reads one agent file: file is its name (for the problems), content its bytes, cat
// what it is checked against. It returns the agent (valid only when there are no
// problems) and the problems, each with its line:
//   - the file starts with a line "---" and the front matter ends at the next "---" line;
//     it is a YAML mapping (a UTF-8 byte order mark and CRLF line ends are allowed);
//   - name: required, lower-case letters, digits, '-' and '_' (at most MaxNameLen), not
//     the name of a built-in agent;
//   - description: required, at most MaxDescriptionRunes characters: the lead reads it to
//     choose the agent;
//   - tools: a list or a comma-separated string of tool names, each a tool of cat.Tools
//     other than call_subagent, or an MCP tool name (mcp__<server>__<tool>); left out, the
//     agent gets every tool of cat.Tools but call_subagent; an empty list gives it none;
//   - model: "inherit" (the default: the sub-agents' model) or a model name, sent to the
//     sub-agents' endpoint;
//   - max_rounds (Claude Code's maxTurns is read too): 1–MaxRounds, default
//     DefaultMaxRounds;
//   - the body after the front matter is the agent's instructions (its system prompt) and
//     must not be empty.
//
// Other front-matter fields (Claude Code's color or permissionMode …) are ignored.
func Parse(file string, content []byte, cat Catalog) (agent.Config, Problems) {
	p := &parsed{file: file}
	cfg := agent.Config{MaxToolRounds: DefaultMaxRounds, File: file}
	if len(content) > MaxFileBytes {
		p.add(0, "", "the file is %d bytes; an agent file may hold at most %d", len(content), MaxFileBytes)
		return cfg, p.problems
	}
	if !utf8.Valid(content) {
		p.add(0, "", "the file is not UTF-8 text")
		return cfg, p.problems
	}
	text := strings.ReplaceAll(strings.TrimPrefix(string(content), "\ufeff"), "\r\n", "\n")
	front, bodyLine, body, ok := splitFront(text)
	if !ok {
		if bodyLine == 0 {
			p.add(1, "", "the file must start with a line \"---\", then the front matter (name, description, tools, model, max_rounds), then a line \"---\" and the instructions")
		} else {
			p.add(bodyLine, "", "the front matter that starts on line 1 has no closing line \"---\"")
		}
		return cfg, p.problems
	}
	fields := p.mapping(front)
	if fields == nil && len(p.problems) > 0 {
		return cfg, p.problems
	}
	p.fill(&cfg, fields, cat)
	cfg.RolePrompt = strings.TrimSpace(body)
	if cfg.RolePrompt == "" {
		p.add(bodyLine, "instructions", "the text after the front matter is empty: write there what the agent does and how it answers")
	}
	slices.SortStableFunc(p.problems, func(a, b Problem) int { return a.Line - b.Line })
	return cfg, p.problems
}

// splitFront splits text into the front matter (without its "---" lines), the 1-based line
// the body starts on, and the body. ok is false when the first line is not "---" (line 0)
// or no closing "---" follows (line 1).
func splitFront(text string) (front string, bodyLine int, body string, ok bool) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", 0, "", false
	}
	lines := strings.SplitAfter(rest, "\n")
	for i, l := range lines {
		if strings.TrimRight(l, " \t\n") == "---" {
			return strings.Join(lines[:i], ""), i + 3, strings.Join(lines[i+1:], ""), true
		}
	}
	return "", 1, "", false
}

// field is one front-matter key's value node and the line of its key.
type field struct {
	line  int
	value ast.Node
}

// mapping parses the front matter (which starts on line 2 of the file) into its fields by
// key; YAML errors and a front matter that is not a mapping become problems (nil result).
func (p *parsed) mapping(front string) map[string]field {
	const offset = 1 // the front matter's line 1 is the file's line 2
	f, err := parser.ParseBytes([]byte(front), 0)
	if err != nil {
		line, msg := 0, err.Error()
		var pe interface {
			GetToken() *token.Token
			GetMessage() string
		}
		if errors.As(err, &pe) {
			msg = pe.GetMessage()
			if tk := pe.GetToken(); tk != nil && tk.Position != nil {
				line = tk.Position.Line
			}
		}
		if line == 0 {
			line = 1
		}
		// Positions inside the message ("already defined at [1:1]") count from the front
		// matter: say the file's line instead.
		re := positionRef()
		msg = re.ReplaceAllStringFunc(msg, func(ref string) string {
			m := re.FindStringSubmatch(ref)
			n, _ := strconv.Atoi(m[1])
			return "on line " + strconv.Itoa(n+offset)
		})
		p.add(line+offset, "", "the front matter is not valid YAML: %s", msg)
		return nil
	}
	fields := map[string]field{}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return fields
	}
	var values []*ast.MappingValueNode
	switch b := f.Docs[0].Body.(type) {
	case *ast.MappingNode:
		values = b.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{b}
	default:
		p.add(lineOf(b)+offset, "", "the front matter must be fields such as \"name: reviewer\", one per line")
		return nil
	}
	for _, v := range values {
		key := strings.TrimSpace(scalarText(v.Key))
		fields[key] = field{line: lineOf(v.Key) + offset, value: v.Value}
	}
	return fields
}

// fill sets cfg from the fields, adding a problem for each wrong or missing one.
func (p *parsed) fill(cfg *agent.Config, fields map[string]field, cat Catalog) {
	name, ok := fields["name"]
	switch s, isStr := p.str(name, "name"); {
	case !ok:
		p.add(1, "name", "missing: give the agent a name such as \"reviewer\"")
	case !isStr:
	case s == "":
		p.add(name.line, "name", "empty: give the agent a name such as \"reviewer\"")
	case len(s) > MaxNameLen || !validName(s):
		p.add(name.line, "name", "%q is not a valid name: use at most %d lower-case letters, digits, '-' and '_', starting with a letter or digit", s, MaxNameLen)
	case slices.Contains(cat.Reserved, s):
		p.add(name.line, "name", "%q is the name of a built-in agent; choose another", s)
	default:
		cfg.Name = s
	}

	desc, ok := fields["description"]
	switch s, isStr := p.str(desc, "description"); {
	case !ok:
		p.add(1, "description", "missing: say what the agent does and when the lead should call it")
	case !isStr:
	case s == "":
		p.add(desc.line, "description", "empty: say what the agent does and when the lead should call it")
	case utf8.RuneCountInString(s) > MaxDescriptionRunes:
		p.add(desc.line, "description", "%d characters; at most %d (the lead reads it in every round)", utf8.RuneCountInString(s), MaxDescriptionRunes)
	default:
		cfg.Description = s
	}

	if tf, ok := fields["tools"]; ok {
		cfg.Tools = p.tools(tf, cat)
	} else {
		for _, t := range cat.Tools {
			if t != CallSubagent {
				cfg.Tools = append(cfg.Tools, t)
			}
		}
	}

	if mf, ok := fields["model"]; ok {
		if s, isStr := p.str(mf, "model"); isStr {
			switch {
			case s == "" || s == Inherit:
			case strings.ContainsAny(s, " \t\r\n"):
				p.add(mf.line, "model", "%q has a space or a line break; write \"inherit\" or a model name such as \"qwen-plus\"", s)
			default:
				cfg.Model = s
			}
		}
	}

	rounds, ok := fields["max_rounds"]
	key := "max_rounds"
	if turns, has := fields["maxTurns"]; has {
		if ok {
			p.add(turns.line, "maxTurns", "give either max_rounds or maxTurns, not both")
		} else {
			rounds, ok, key = turns, true, "maxTurns"
		}
	}
	if ok {
		if n, good := p.rounds(rounds, key); good {
			cfg.MaxToolRounds = n
		}
	}
}

// str reads f's value as a string (a scalar; null gives ""); isStr is false, with a
// problem added, when it is a list, a mapping or another kind of value. A missing field
// (zero f) gives "", true.
func (p *parsed) str(f field, name string) (s string, isStr bool) {
	if f.value == nil {
		return "", true
	}
	switch v := unwrap(f.value).(type) {
	case *ast.NullNode:
		return "", true
	case *ast.StringNode, *ast.LiteralNode:
		return strings.TrimSpace(scalarText(v)), true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return strings.TrimSpace(v.GetToken().Value), true
	default:
		p.add(f.line, name, "must be text, not %s", kindOf(v))
		return "", false
	}
}

// tools reads the tools field: a list of names or one comma-separated string. Each name
// must be a tool of cat other than call_subagent, or a well-formed MCP tool name. Repeats
// are dropped.
func (p *parsed) tools(f field, cat Catalog) []string {
	type item struct {
		line int
		name string
	}
	var items []item
	switch v := unwrap(f.value).(type) {
	case nil, *ast.NullNode:
	case *ast.SequenceNode:
		for _, e := range v.Values {
			switch s := unwrap(e).(type) {
			case *ast.StringNode, *ast.LiteralNode:
				items = append(items, item{lineOf(e) + 1, strings.TrimSpace(scalarText(s))})
			default:
				p.add(lineOf(e)+1, "tools", "each tool must be a name, not %s", kindOf(s))
			}
		}
	case *ast.StringNode, *ast.LiteralNode:
		for _, n := range strings.Split(scalarText(v), ",") {
			items = append(items, item{f.line, strings.TrimSpace(n)})
		}
	default:
		p.add(f.line, "tools", "must be a list of tool names or one line of names separated by commas, not %s", kindOf(v))
		return nil
	}
	out := []string{}
	for _, it := range items {
		switch {
		case it.name == "":
		case it.name == CallSubagent:
			p.add(it.line, "tools", "%q is the lead's tool: sub-agents do not call sub-agents", it.name)
		case strings.HasPrefix(it.name, MCPPrefix):
			if !validMCPName(it.name) {
				p.add(it.line, "tools", "%q is not an MCP tool name; they read mcp__<server>__<tool>", it.name)
			} else if !slices.Contains(out, it.name) {
				out = append(out, it.name)
			}
		case !slices.Contains(cat.Tools, it.name):
			p.add(it.line, "tools", "unknown tool %q; the tools are %s, and MCP tools (mcp__<server>__<tool>)", it.name, toolList(cat))
		case !slices.Contains(out, it.name):
			out = append(out, it.name)
		}
	}
	return out
}

// rounds reads max_rounds (or maxTurns, named key): a whole number in 1..MaxRounds.
func (p *parsed) rounds(f field, key string) (int, bool) {
	s, isStr := p.str(f, key)
	if !isStr {
		return 0, false
	}
	if s == "" {
		return DefaultMaxRounds, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxRounds {
		p.add(f.line, key, "%q is not a whole number from 1 to %d", s, MaxRounds)
		return 0, false
	}
	return n, true
}

// toolList names the tools an agent may list, for an "unknown tool" problem.
func toolList(cat Catalog) string {
	names := make([]string, 0, len(cat.Tools))
	for _, t := range cat.Tools {
		if t != CallSubagent {
			names = append(names, t)
		}
	}
	return strings.Join(names, ", ")
}

// unwrap returns the value under a tag (!!str) or an anchor (&a).
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return n
		}
	}
}

// scalarText is the text of a scalar node: a string's value (unquoted), a block literal's
// text, else the token's text.
func scalarText(n ast.Node) string {
	switch v := unwrap(n).(type) {
	case *ast.StringNode:
		return v.Value
	case *ast.LiteralNode:
		if v.Value != nil {
			return v.Value.Value
		}
		return ""
	case nil:
		return ""
	default:
		if tk := v.GetToken(); tk != nil {
			return tk.Value
		}
		return ""
	}
}

// lineOf returns the 1-based line of n within the front matter (1 when unknown).
func lineOf(n ast.Node) int {
	if n == nil {
		return 1
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil && tk.Position.Line > 0 {
		return tk.Position.Line
	}
	return 1
}

// kindOf names a node's kind for a problem: "a list", "a mapping" …
func kindOf(n ast.Node) string {
	switch n.(type) {
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.AliasNode:
		return "an alias"
	case *ast.IntegerNode, *ast.FloatNode:
		return "a number"
	case *ast.BoolNode:
		return "true or false"
	default:
		return "this value"
	}
}

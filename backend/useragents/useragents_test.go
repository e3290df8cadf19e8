package useragents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cat is the catalog the tests check against: a few built-in tools and agents.
var cat = Catalog{
	Tools:    []string{"create_artifact", "read_artifact", "call_subagent", "web_search", "web_fetch"},
	Reserved: []string{"lead_agent", "search_agent", "crawl_agent"},
}

const reviewer = `---
name: reviewer
description: Reviews a draft artifact.
tools:
  - read_artifact
model: reviewer-model
max_rounds: 4
---

You are reviewer. Read the artifact and list its problems.
`

// TestParseValid: the fields of a valid file become the agent (the body its instructions),
// in each of the ways the Claude Code and qwen-code format allows writing them.
func TestParseValid(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		tools         []string
		model         string
		rounds        int
	}{
		{"list", reviewer, []string{"read_artifact"}, "reviewer-model", 4},
		{"comma-separated tools, inherit, CRLF and BOM", "\ufeff---\r\nname: reviewer\r\ndescription: Reviews.\r\ntools: read_artifact, web_search ,web_search\r\nmodel: inherit\r\n---\r\nBody\r\n",
			[]string{"read_artifact", "web_search"}, "", DefaultMaxRounds},
		{"tools left out: every built-in but call_subagent; maxTurns", "---\nname: reviewer\ndescription: Reviews.\nmaxTurns: 7\ncolor: blue\n---\nBody\n",
			[]string{"create_artifact", "read_artifact", "web_search", "web_fetch"}, "", 7},
		{"empty list: no tools; MCP tools kept unchecked", "---\nname: reviewer\ndescription: Reviews.\ntools: []\n---\nBody\n", []string{}, "", DefaultMaxRounds},
		{"flow list with an MCP tool, quoted strings, folded description", "---\nname: \"reviewer\"\ndescription: >\n  Reviews\n  drafts.\ntools: [read_artifact, 'mcp__everything__echo']\n---\nBody\n",
			[]string{"read_artifact", "mcp__everything__echo"}, "", DefaultMaxRounds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ps := Parse("reviewer.md", []byte(tc.content), cat)
			if len(ps) > 0 {
				t.Fatalf("problems: %v", ps)
			}
			if cfg.Name != "reviewer" || cfg.Description == "" || !slices.Equal(cfg.Tools, tc.tools) || cfg.Model != tc.model ||
				cfg.MaxToolRounds != tc.rounds || !strings.HasPrefix(cfg.RolePrompt, "You are reviewer") && cfg.RolePrompt != "Body" {
				t.Fatalf("agent %+v; want tools %v, model %q, rounds %d", cfg, tc.tools, tc.model, tc.rounds)
			}
		})
	}
}

// TestParseProblems: each mistake is reported with the file's line it is on and the field,
// and formats as "file:line: field: message".
func TestParseProblems(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string // problems as String() gives them, each a prefix
	}{
		{"unknown tool", "---\nname: reviewer\ndescription: Reviews.\ntools: [read_artifact, foo]\n---\nBody\n",
			[]string{`r.md:4: tools: unknown tool "foo"`}},
		{"unknown tool in a block list", "---\nname: reviewer\ndescription: Reviews.\ntools:\n  - read_artifact\n  - foo\n---\nBody\n",
			[]string{`r.md:6: tools: unknown tool "foo"`}},
		{"call_subagent", "---\nname: reviewer\ndescription: Reviews.\ntools: call_subagent\n---\nBody\n",
			[]string{`r.md:4: tools: "call_subagent" is the lead's tool`}},
		{"malformed MCP name", "---\nname: reviewer\ndescription: Reviews.\ntools: mcp__everything\n---\nBody\n",
			[]string{`r.md:4: tools: "mcp__everything" is not an MCP tool name`}},
		{"built-in agent's name", "---\nname: search_agent\ndescription: Reviews.\n---\nBody\n",
			[]string{`r.md:2: name: "search_agent" is the name of a built-in agent`}},
		{"bad name", "---\ndescription: Reviews.\nname: Code Reviewer\n---\nBody\n",
			[]string{`r.md:3: name: "Code Reviewer" is not a valid name`}},
		{"missing name and description", "---\nmodel: inherit\n---\nBody\n",
			[]string{`r.md:1: name: missing`, `r.md:1: description: missing`}},
		{"rounds out of bounds, model with a space", "---\nname: reviewer\ndescription: Reviews.\nmodel: big model\nmax_rounds: 500\n---\nBody\n",
			[]string{`r.md:4: model: "big model" has a space`, `r.md:5: max_rounds: "500" is not a whole number from 1 to 50`}},
		{"rounds not a number", "---\nname: reviewer\ndescription: Reviews.\nmax_rounds: many\n---\nBody\n",
			[]string{`r.md:4: max_rounds: "many" is not a whole number`}},
		{"description a list", "---\nname: reviewer\ndescription: [a, b]\n---\nBody\n",
			[]string{`r.md:3: description: must be text, not a list`}},
		{"YAML syntax error", "---\nname: reviewer\ndescription: Reviews.\ntools: [read_artifact\n---\nBody\n",
			[]string{`r.md:4: the front matter is not valid YAML`}},
		{"YAML error on a later line", "---\nname: reviewer\ndescription: a: b\n---\nBody\n",
			[]string{`r.md:3: the front matter is not valid YAML`}},
		{"duplicate key", "---\nname: reviewer\ndescription: Reviews.\nname: other\n---\nBody\n",
			[]string{`r.md:4: the front matter is not valid YAML: mapping key "name" already defined on line 2`}},
		{"not a mapping", "---\n- a\n- b\n---\nBody\n",
			[]string{`r.md:2: the front matter must be fields`}},
		{"no front matter", "# Reviewer\nname: reviewer\n",
			[]string{`r.md:1: the file must start with a line "---"`}},
		{"front matter not closed", "---\nname: reviewer\ndescription: Reviews.\n",
			[]string{`r.md:1: the front matter that starts on line 1 has no closing line`}},
		{"empty instructions", "---\nname: reviewer\ndescription: Reviews.\n---\n\n  \n",
			[]string{`r.md:5: instructions: the text after the front matter is empty`}},
		{"both max_rounds and maxTurns", "---\nname: reviewer\ndescription: Reviews.\nmax_rounds: 3\nmaxTurns: 4\n---\nBody\n",
			[]string{`r.md:5: maxTurns: give either max_rounds or maxTurns`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ps := Parse("r.md", []byte(tc.content), cat)
			if len(ps) != len(tc.want) {
				t.Fatalf("problems %v; want %d: %v", ps, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if got := ps[i].String(); !strings.HasPrefix(got, w) {
					t.Errorf("problem %d = %q; want it to start %q", i, got, w)
				}
			}
			if err := ps.Err(); !errors.Is(err, ErrInvalid) {
				t.Errorf("Err() = %v; want ErrInvalid", err)
			}
		})
	}
}

// TestParseLimits: a file over MaxFileBytes and one that is not UTF-8 are refused whole.
func TestParseLimits(t *testing.T) {
	big := reviewer + strings.Repeat("x", MaxFileBytes)
	if _, ps := Parse("r.md", []byte(big), cat); len(ps) != 1 || ps[0].Line != 0 || !strings.Contains(ps[0].Message, "at most") {
		t.Errorf("a file over the limit: %v", ps)
	}
	if _, ps := Parse("r.md", []byte("---\nname: \xff\n---\n"), cat); len(ps) != 1 || !strings.Contains(ps[0].Message, "UTF-8") {
		t.Errorf("a file that is not UTF-8: %v", ps)
	}
}

// TestTemplate: a new agent's template is a valid file for any valid name, and CheckName
// refuses what the name field would refuse.
func TestTemplate(t *testing.T) {
	cfg, ps := Parse("x.md", []byte(Template("fact-checker")), cat)
	if len(ps) > 0 || cfg.Name != "fact-checker" || !slices.Equal(cfg.Tools, []string{"read_artifact", "web_search", "web_fetch"}) {
		t.Fatalf("template: %+v %v", cfg, ps)
	}
	for name, bad := range map[string]bool{"fact-checker": false, "lead_agent": true, "Fact Checker": true, `a"b`: true, "": true} {
		if got := CheckName(name, cat); (got != "") != bad {
			t.Errorf("CheckName(%q) = %q; want a problem: %v", name, got, bad)
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoad: the folder's valid files give agents in file-name order; a broken one, a
// second file with a name already taken, and files past MaxAgents are skipped, each with
// a warning naming the file and line; other files (hidden, not .md, folders) are ignored.
// A missing folder holds no agents.
func TestLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), DirName)
	if files, err := Load(dir, cat); err != nil || files != nil {
		t.Fatalf("missing folder: %v %v", files, err)
	}
	writeFiles(t, dir, map[string]string{
		"a-reviewer.md": reviewer,
		"b-broken.md":   "---\nname: broken\ndescription: Broken.\ntools: [nope]\n---\nBody\n",
		"c-dup.md":      strings.Replace(reviewer, "Reviews a draft", "Another", 1),
		"d-writer.md":   "---\nname: writer\ndescription: Writes.\ntools: create_artifact\n---\nWrite.\n",
		".hidden.md":    reviewer,
		"notes.txt":     reviewer,
	})
	if err := os.Mkdir(filepath.Join(dir, "sub.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	files, err := Load(dir, cat)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"a-reviewer.md", "b-broken.md", "c-dup.md", "d-writer.md"}) {
		t.Fatalf("files %v", names)
	}
	var got []string
	for _, a := range Agents(files) {
		got = append(got, a.Name)
	}
	if !slices.Equal(got, []string{"reviewer", "writer"}) {
		t.Errorf("agents %v; want reviewer and writer", got)
	}
	warns := Warnings(files)
	if len(warns) != 2 || !strings.HasPrefix(warns[0], `b-broken.md:4: tools: unknown tool "nope"`) || !strings.Contains(warns[0], "skipped") ||
		!strings.HasPrefix(warns[1], `c-dup.md:2: name: "reviewer" is already the name of the agent in a-reviewer.md`) {
		t.Errorf("warnings %q", warns)
	}

	many := map[string]string{}
	for i := range MaxAgents + 2 {
		many[fmt.Sprintf("z%02d.md", i)] = strings.Replace(reviewer, "name: reviewer", fmt.Sprintf("name: agent%02d", i), 1)
	}
	dir2 := filepath.Join(t.TempDir(), DirName)
	writeFiles(t, dir2, many)
	files, err = Load(dir2, cat)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(Agents(files)); n != MaxAgents {
		t.Errorf("%d agents; want the first %d", n, MaxAgents)
	}
	if w := Warnings(files); len(w) != 2 || !strings.HasPrefix(w[0], fmt.Sprintf("z%02d.md: skipped: at most", MaxAgents)) {
		t.Errorf("warnings past the limit: %q", w)
	}
}

// TestFolderOperations: Write creates (refusing to replace with create set) and replaces
// files with mode 0600; Read and Remove find them; names that are paths, hidden or not
// .md are refused; missing files are ErrNotFound.
func TestFolderOperations(t *testing.T) {
	dir := filepath.Join(t.TempDir(), DirName)
	if err := Write(dir, "reviewer.md", []byte(reviewer), true); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, "reviewer.md", []byte("x"), true); !errors.Is(err, ErrExists) {
		t.Errorf("create over an existing file: %v; want ErrExists", err)
	}
	if err := Write(dir, "reviewer.md", []byte("changed"), false); err != nil {
		t.Fatal(err)
	}
	b, err := Read(dir, "reviewer.md")
	if err != nil || string(b) != "changed" {
		t.Fatalf("read back %q %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "reviewer.md")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v; want 0600", fi.Mode(), err)
	}
	if err := Write(dir, "big.md", make([]byte, MaxFileBytes+1), false); !errors.Is(err, ErrInvalid) {
		t.Errorf("a file over the limit: %v; want ErrInvalid", err)
	}
	for _, bad := range []string{"../x.md", "a/b.md", ".x.md", "x.txt", ".md", "", "a\x01.md", `a\b.md`} {
		if err := Write(dir, bad, []byte(reviewer), false); !errors.Is(err, ErrBadFileName) {
			t.Errorf("Write(%q) = %v; want ErrBadFileName", bad, err)
		}
		if _, err := Read(dir, bad); !errors.Is(err, ErrBadFileName) {
			t.Errorf("Read(%q) = %v; want ErrBadFileName", bad, err)
		}
	}
	if err := Remove(dir, "reviewer.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir, "reviewer.md"); !errors.Is(err, ErrNotFound) {
		t.Errorf("read a removed file: %v; want ErrNotFound", err)
	}
	if err := Remove(dir, "reviewer.md"); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove a removed file: %v; want ErrNotFound", err)
	}
}

// TestNames: the name rule (lower-case letters, digits, '-' and '_', not first) and the
// MCP tool name shape (mcp__<server>__<tool>).
func TestNames(t *testing.T) {
	for s, want := range map[string]bool{"reviewer": true, "fact-checker_2": true, "9lives": true, "": false, "-x": false, "_x": false,
		"Reviewer": false, "a b": false, "räv": false} {
		if got := validName(s); got != want {
			t.Errorf("validName(%q) = %v; want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{"mcp__everything__echo": true, "mcp__file-system.v2__read_text_file": true, "mcp__s__a__b": true,
		"mcp__everything": false, "mcp____echo": false, "mcp__s__": false, "mcp__a b__c": false, "mcp__s__a b": false, "x__s__t": false} {
		if got := validMCPName(s); got != want {
			t.Errorf("validMCPName(%q) = %v; want %v", s, got, want)
		}
	}
}

package useragents

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"artifactflow/backend/agent"
)

// DirName is the folder of agent files in the data directory.
const DirName = "agents"

// Ext is the extension of an agent file.
const Ext = ".md"

// MaxAgents bounds how many agents the files may define: the lead reads each one's
// description in every round. Valid files past it (in file-name order) are skipped.
const MaxAgents = 32

// Sentinel errors of the folder operations.
var (
	// ErrBadFileName: the name is not that of an agent file in the folder (a path, a hidden
	// file, not ending in .md …).
	ErrBadFileName = errors.New("not an agent file name")
	// ErrNotFound: no such agent file.
	ErrNotFound = errors.New("agent file not found")
	// ErrExists: an agent file of that name exists already.
	ErrExists = errors.New("agent file exists already")
)

// Dir returns the agents folder of the data directory dataDir.
func Dir(dataDir string) string { return filepath.Join(dataDir, DirName) }

// File is one agent file of the folder: its name ("reviewer.md"), the agent it defines
// (meaningful only when Problems is empty) and its problems. A file with problems is
// skipped by runs.
type File struct {
	Name     string
	Agent    agent.Config
	Problems Problems
}

// OK reports whether the file defines an agent that runs.
func (f File) OK() bool { return len(f.Problems) == 0 }

// CheckFileName returns nil when name is the name of an agent file in the folder: a plain
// file name (no folder), not hidden, ending in ".md", at most 255 bytes, without control
// characters. Else an error wrapping ErrBadFileName.
func CheckFileName(name string) error {
	switch {
	case name == "" || len(name) > 255:
		return fmt.Errorf("%w: %q: empty or too long", ErrBadFileName, name)
	case strings.ContainsAny(name, `/\:`) || filepath.Base(name) != name:
		return fmt.Errorf("%w: %q: a file name without a folder", ErrBadFileName, name)
	case strings.HasPrefix(name, "."):
		return fmt.Errorf("%w: %q: a hidden file", ErrBadFileName, name)
	case !strings.HasSuffix(name, Ext) || len(name) == len(Ext):
		return fmt.Errorf("%w: %q: agent files end in %s", ErrBadFileName, name, Ext)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("%w: %q: a control character", ErrBadFileName, name)
	}
	return nil
}

// Load reads the agent files of dir (*.md, not hidden, regular files or links to them) in
// file-name order and parses each (Parse). Beyond each file's own problems, a file whose
// name is already taken by an earlier valid file, and valid files past the MaxAgents-th,
// get a problem. A folder that does not exist holds no agents (nil, nil); a folder that
// cannot be read is an error, and a file that cannot be read is a File with that problem.
func Load(dir string, cat Catalog) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("useragents: read %s: %w", dir, err)
	}
	var files []File
	taken := map[string]string{}
	valid := 0
	for _, e := range entries { // os.ReadDir sorts by name
		name := e.Name()
		if CheckFileName(name) != nil {
			continue
		}
		f := File{Name: name}
		b, rerr := readAgentFile(filepath.Join(dir, name))
		switch {
		case errors.Is(rerr, errNotRegular):
			continue
		case rerr != nil:
			f.Problems = Problems{{File: name, Message: fmt.Sprintf("cannot be read: %v", rerr)}}
		default:
			f.Agent, f.Problems = Parse(name, b, cat)
		}
		if f.OK() {
			if other, dup := taken[f.Agent.Name]; dup {
				f.Problems = append(f.Problems, Problem{File: name, Line: nameLine(b), Field: "name",
					Message: fmt.Sprintf("%q is already the name of the agent in %s", f.Agent.Name, other)})
			} else if valid >= MaxAgents {
				f.Problems = append(f.Problems, Problem{File: name,
					Message: fmt.Sprintf("skipped: at most %d agents are read, and the files before it define that many", MaxAgents)})
			} else {
				taken[f.Agent.Name] = name
				valid++
			}
		}
		files = append(files, f)
	}
	return files, nil
}

// errNotRegular: the entry is not a regular file (a folder, a device …) and is skipped.
var errNotRegular = errors.New("not a regular file")

// readAgentFile reads path, following a link, refusing what is not a regular file and
// reading at most one byte more than MaxFileBytes (Parse then refuses the file as too
// large).
func readAgentFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}

// nameLine is the line of the name field in an agent file's content (for a problem about
// the name), 1 when it cannot be found.
func nameLine(content []byte) int {
	for i, l := range strings.Split(string(content), "\n") {
		if strings.HasPrefix(l, "name:") {
			return i + 1
		}
	}
	return 1
}

// Agents returns the agents of the files without problems, in file order.
func Agents(files []File) []agent.Config {
	var out []agent.Config
	for _, f := range files {
		if f.OK() {
			out = append(out, f.Agent)
		}
	}
	return out
}

// Warnings returns one line per file with problems, saying it is skipped and its first
// problem ("reviewer.md:3: tools: unknown tool \"foo\" (the agent is skipped; 2 problems)").
func Warnings(files []File) []string {
	var out []string
	for _, f := range files {
		if f.OK() {
			continue
		}
		w := f.Problems[0].String() + " (the agent is skipped"
		if n := len(f.Problems); n > 1 {
			w += fmt.Sprintf("; %d problems in all", n)
		}
		out = append(out, w+")")
	}
	return out
}

// Read returns the content of the agent file name in dir. Errors: ErrBadFileName,
// ErrNotFound (wrapped), and read errors.
func Read(dir, name string) ([]byte, error) {
	if err := CheckFileName(name); err != nil {
		return nil, err
	}
	b, err := readAgentFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotRegular) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("useragents: read %s: %w", name, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("useragents: %s is larger than %d bytes", name, MaxFileBytes)
	}
	return b, nil
}

// Write puts content in place of the agent file name in dir (created, mode 0700, when
// missing) through a temporary file with mode 0600, synced and renamed, so a reader never
// sees half a file. With create set an existing file is not replaced (ErrExists). Errors:
// ErrBadFileName, ErrExists, a content over MaxFileBytes, write errors.
func Write(dir, name string, content []byte, create bool) error {
	if err := CheckFileName(name); err != nil {
		return err
	}
	if len(content) > MaxFileBytes {
		return fmt.Errorf("%w: %s: %d bytes; an agent file may hold at most %d", ErrInvalid, name, len(content), MaxFileBytes)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("useragents: create %s: %w", dir, err)
	}
	path := filepath.Join(dir, name)
	if create {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%w: %s", ErrExists, name)
		}
	}
	tmp, err := os.CreateTemp(dir, ".agent-*.tmp")
	if err != nil {
		return fmt.Errorf("useragents: write %s: %w", name, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("useragents: chmod: %w", err)
	}
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return fmt.Errorf("useragents: write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("useragents: sync %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("useragents: close %s: %w", name, err)
	}
	if create {
		// Link fails when the name was taken meanwhile, where a rename would replace it.
		if err := os.Link(tmp.Name(), path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%w: %s", ErrExists, name)
			}
			return fmt.Errorf("useragents: create %s: %w", name, err)
		}
		return nil
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("useragents: replace %s: %w", name, err)
	}
	return nil
}

// Remove deletes the agent file name from dir. Errors: ErrBadFileName, ErrNotFound
// (wrapped), remove errors.
func Remove(dir, name string) error {
	if err := CheckFileName(name); err != nil {
		return err
	}
	err := os.Remove(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return fmt.Errorf("useragents: remove %s: %w", name, err)
	}
	return nil
}

// CheckName returns the problem with name as a new agent's name ("" when there is none):
// the rules of the name field, including that it is not a built-in agent's.
func CheckName(name string, cat Catalog) string {
	_, ps := Parse("x.md", []byte(Template(name)), cat)
	for _, p := range ps {
		if p.Field == "name" {
			return p.Message
		}
	}
	return ""
}

// Template returns the content of a new agent file named name: a front matter with every
// field (tools read_artifact, web_search and web_fetch; model inherit; max_rounds
// DefaultMaxRounds) and instructions to adapt. name is quoted for YAML.
func Template(name string) string {
	return "---\n" +
		"name: " + yamlQuote(name) + "\n" +
		"description: Reviews a draft artifact for accuracy, missing points and unsupported claims. Give it the artifact's id and what to check.\n" +
		"tools: read_artifact, web_search, web_fetch\n" +
		"model: inherit\n" +
		fmt.Sprintf("max_rounds: %d\n", DefaultMaxRounds) +
		"---\n\n" +
		"You are " + name + ", a reviewer working for the lead agent of a research assistant.\n\n" +
		"1. Read the artifact named in your instruction with read_artifact.\n" +
		"2. Check its main claims: search the web for each claim that looks doubtful and read the best source.\n" +
		"3. Answer with a short list of problems, each with the passage, what is wrong and the source that says so, " +
		"then the points the artifact misses. Cite sources by their number [n].\n"
}

// yamlQuote returns s as a YAML double-quoted scalar when it needs quoting, else s.
func yamlQuote(s string) string {
	if validName(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

package app

import (
	"fmt"

	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/useragents"
)

// AgentView is a built-in agent as Settings → Agents shows it (read-only): its name,
// description, tools and tool-round limit.
type AgentView struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tools       []string `json:"tools"`
	MaxRounds   int      `json:"max_rounds"`
}

// AgentProblem is one problem of an agent file: the file, the 1-based line (0: the file
// as a whole), the front-matter field ("" when none) and what is wrong. Text is the whole
// problem as one line, "reviewer.md:3: tools: unknown tool \"foo\"".
type AgentProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Field   string `json:"field"`
	Message string `json:"message"`
	Text    string `json:"text"`
}

// UserAgentView is one file of <data-dir>/agents/ as Settings → Agents lists it: the file
// name, the fields it defines (as far as they could be read), and its problems. An agent
// with problems is skipped by runs until they are fixed. Model is "inherit" when the
// agent runs on the sub-agents' model.
type UserAgentView struct {
	File        string         `json:"file"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Tools       []string       `json:"tools"`
	Model       string         `json:"model"`
	MaxRounds   int            `json:"max_rounds"`
	Problems    []AgentProblem `json:"problems"`
}

// AgentsView is Settings → Agents: the folder of agent files, the built-in agents, the
// user's agent files in file-name order, and the built-in tools an agent file may list
// (besides MCP tools, mcp__<server>__<tool>).
type AgentsView struct {
	Dir     string          `json:"dir"`
	BuiltIn []AgentView     `json:"built_in"`
	User    []UserAgentView `json:"user"`
	Tools   []string        `json:"tools"`
}

// agentCatalog is what agent files are checked against: the built-in tools (engine) and
// the names of the built-in agents.
func (c *Core) agentCatalog() useragents.Catalog {
	cat := useragents.Catalog{Tools: engine.BuiltinTools()}
	for _, a := range c.eng.Agents() {
		cat.Reserved = append(cat.Reserved, a.Name)
	}
	return cat
}

// agentsDir is <data-dir>/agents.
func (c *Core) agentsDir() string { return useragents.Dir(c.dataDir) }

// loadUserAgents reads the agent files as they are now (useragents.Load). A folder that
// cannot be read is logged and gives no agents, with a warning for the run.
func (c *Core) loadUserAgents() ([]useragents.File, []string) {
	files, err := useragents.Load(c.agentsDir(), c.agentCatalog())
	if err != nil {
		c.log.Warn("user-defined agents: the folder cannot be read; runs go on without them", "err", err)
		return nil, []string{fmt.Sprintf("the agents folder cannot be read, so no agent of yours runs: %v", err)}
	}
	warnings := useragents.Warnings(files)
	if len(warnings) > 0 {
		c.log.Warn("user-defined agents: some files have problems and are skipped", "problems", warnings)
	}
	return files, warnings
}

// userAgentDeps adds to d the user-defined agents of the files valid now and the models
// they name: each on the sub-agents' endpoint, key, tool-call mode and sampling (sub, the
// sub-agents' settings as deps resolved them) with the model name it gives and the
// context that Settings give that name (config.Settings.ContextFor). An agent whose model
// cannot be set up is skipped with a warning.
func (c *Core) userAgentDeps(s config.Settings, sub config.AgentModel, d *engine.Deps) {
	files, warnings := c.loadUserAgents()
	d.Warnings = append(d.Warnings, warnings...)
	for _, a := range useragents.Agents(files) {
		if a.Model != "" {
			if _, done := d.AgentModels[a.Model]; !done {
				m := sub
				m.Model, m.ContextWindow = a.Model, 0
				am, err := c.agentModel(s, s.Agent(m))
				if err != nil {
					d.Warnings = append(d.Warnings, fmt.Sprintf("%s: model %q cannot be used (%v); the agent is skipped", a.File, a.Model, err))
					continue
				}
				if d.AgentModels == nil {
					d.AgentModels = map[string]engine.AgentModel{}
				}
				d.AgentModels[a.Model] = am
			}
		}
		d.UserAgents = append(d.UserAgents, a)
	}
}

// UserAgents returns Settings → Agents: the built-in agents, every agent file of
// <data-dir>/agents/ with what it defines and its problems (each with its line), and the
// tools a file may list. The files are read as they are now. Errors: the folder cannot be
// read.
func (s *SettingsService) UserAgents() (AgentsView, error) {
	c := s.core
	cat := c.agentCatalog()
	files, err := useragents.Load(c.agentsDir(), cat)
	if err != nil {
		return AgentsView{}, err
	}
	v := AgentsView{Dir: c.agentsDir(), BuiltIn: []AgentView{}, User: []UserAgentView{}, Tools: []string{}}
	for _, a := range c.eng.Agents() {
		v.BuiltIn = append(v.BuiltIn, AgentView{Name: a.Name, Description: a.Description, Tools: nonNil(a.Tools), MaxRounds: a.MaxToolRounds})
	}
	for _, f := range files {
		v.User = append(v.User, userAgentView(f))
	}
	for _, t := range cat.Tools {
		if t != useragents.CallSubagent {
			v.Tools = append(v.Tools, t)
		}
	}
	return v, nil
}

// userAgentView is the view of one loaded file.
func userAgentView(f useragents.File) UserAgentView {
	a := f.Agent
	model := a.Model
	if model == "" {
		model = useragents.Inherit
	}
	return UserAgentView{File: f.Name, Name: a.Name, Description: a.Description, Tools: nonNil(a.Tools), Model: model,
		MaxRounds: a.MaxToolRounds, Problems: problemViews(f.Problems)}
}

// problemViews converts problems for the page ([] for none).
func problemViews(ps useragents.Problems) []AgentProblem {
	out := make([]AgentProblem, len(ps))
	for i, p := range ps {
		out[i] = AgentProblem{File: p.File, Line: p.Line, Field: p.Field, Message: p.Message, Text: p.String()}
	}
	return out
}

// ReadUserAgent returns the text of the agent file file (a name UserAgents listed, such as
// "reviewer.md"). Errors: not_found, invalid_request for a name that is not an agent file's
// (a path, a hidden file, not .md).
func (s *SettingsService) ReadUserAgent(file string) (string, error) {
	b, err := useragents.Read(s.core.agentsDir(), file)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// SaveUserAgent writes content to the agent file file (created when missing) and returns
// its problems, each with its line ([] when the agent is valid). The content is saved even
// with problems, so nothing typed is lost: the file is skipped by runs until it is fixed,
// and the next run after a save uses it as saved. The other files' problems count too:
// an agent whose name another file took first is reported here. Errors: invalid_request
// for a file name that is not an agent file's or content over 256 KB (nothing is
// written), write errors.
func (s *SettingsService) SaveUserAgent(file, content string) ([]AgentProblem, error) {
	c := s.core
	if err := useragents.Write(c.agentsDir(), file, []byte(content), false); err != nil {
		return nil, err
	}
	files, err := useragents.Load(c.agentsDir(), c.agentCatalog())
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.Name == file {
			return problemViews(f.Problems), nil
		}
	}
	return []AgentProblem{}, nil
}

// NewUserAgent creates <name>.md in the agents folder from a template (useragents.Template:
// every field filled in, instructions to adapt) and returns the file name. Errors:
// validation with field "name" for a name the name field would refuse (the rules, or a
// built-in agent's name), conflict when the file exists or another file's agent has that
// name, write errors.
func (s *SettingsService) NewUserAgent(name string) (string, error) {
	c := s.core
	cat := c.agentCatalog()
	if msg := useragents.CheckName(name, cat); msg != "" {
		return "", &AppError{Code: CodeValidation, Message: "name: " + msg, Fields: map[string]string{"name": msg}}
	}
	files, err := useragents.Load(c.agentsDir(), cat)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		if f.Agent.Name == name {
			return "", fmt.Errorf("%w: %s already defines an agent named %q", useragents.ErrExists, f.Name, name)
		}
	}
	file := name + useragents.Ext
	if err := useragents.Write(c.agentsDir(), file, []byte(useragents.Template(name)), true); err != nil {
		return "", err
	}
	return file, nil
}

// DeleteUserAgent removes the agent file file; runs started from then on no longer offer
// its agent. Errors: not_found, invalid_request for a name that is not an agent file's.
func (s *SettingsService) DeleteUserAgent(file string) error {
	return useragents.Remove(s.core.agentsDir(), file)
}

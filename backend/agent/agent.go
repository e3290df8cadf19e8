// Package agent describes the agents as data: name, description, tools, round limit and
// role prompt, and assembles their system prompts.
package agent

import (
	"embed"
	"fmt"
	"strings"
	"time"
)

//go:embed prompts/*.md
var promptFS embed.FS

// Agent names.
const (
	Lead   = "lead_agent"
	Search = "search_agent"
	Crawl  = "crawl_agent"
)

// Config describes one agent. MaxToolRounds bounds the tool calls the agent may make in
// one activation; the engine enforces it. RolePrompt starts its system prompt: a built-in
// agent's embedded prompt, or the instructions of an agent the user defined (package
// useragents).
type Config struct {
	Name          string
	Description   string
	Capabilities  []string
	Tools         []string
	MaxToolRounds int
	RolePrompt    string
	// Model is the model name a sub-agent sends, on the sub-agents' endpoint; "" runs it on
	// the sub-agents' model as Settings choose it. Only agents the user defines set it.
	Model string
	// File names the file of <data-dir>/agents/ that defines the agent ("reviewer.md");
	// "" for a built-in agent.
	File string
}

// Defaults returns the three agents with their tools and limits: lead_agent
// (artifact tools, record_artifact and call_subagent, 100 rounds), search_agent
// (web_search and search_files, 3), crawl_agent (web_fetch and read_file, 2).
// record_artifact is offered only when the engine has a declared-artifact store; the
// lead's prompt says when to use it. search_files and read_file are offered only when the
// conversation's local-file index holds files.
func Defaults() []Config {
	return []Config{
		{Name: Lead, Description: "Task coordinator and information integrator",
			Tools:         []string{"create_artifact", "update_artifact", "rewrite_artifact", "read_artifact", "record_artifact", "call_subagent"},
			MaxToolRounds: 100, RolePrompt: mustPrompt("lead_agent.md")},
		{Name: Search, Description: "Web search and information retrieval specialist",
			Capabilities: []string{"Web search", "Information retrieval"},
			Tools:        []string{"web_search", "search_files"}, MaxToolRounds: 3, RolePrompt: mustPrompt("search_agent.md")},
		{Name: Crawl, Description: "Web content extraction and cleaning specialist",
			Capabilities: []string{"Deep content extraction", "Web scraping", "IMPORTANT: Instructions must include a specific URL to crawl"},
			Tools:        []string{"web_fetch", "read_file"}, MaxToolRounds: 2, RolePrompt: mustPrompt("crawl_agent.md")},
	}
}

func mustPrompt(name string) string {
	b, err := promptFS.ReadFile("prompts/" + name)
	if err != nil {
		panic("agent: missing embedded prompt " + name)
	}
	return strings.TrimSpace(string(b))
}

// PromptContext is the dynamic part of a system prompt. TaskPlan, Inventory and
// LocalFiles are used for the lead only; ToolInstructions is appended for every agent.
// LocalFiles says what the conversation's indexed local files are
// (localfiles.Summary.Describe); "" when there are none, and then no <local_files> block.
type PromptContext struct {
	Now              time.Time
	TaskPlan         string
	Inventory        string
	SubAgents        []Config
	LocalFiles       string
	ToolInstructions string
	// UILanguage names the language of the user's interface as the prompt says it ("简体中文
	// (zh-CN)", config.LanguageName); "" when unknown. The lead's prompt gets it in a
	// <user_language> block: the language to answer in when the question's own language is
	// unclear.
	UILanguage string
}

// SystemPrompt assembles c's system prompt: role prompt, <system_time>, and for the lead
// the <task_plan>, <artifacts_inventory> and <available_subagents> blocks and, when the
// conversation has indexed local files, <local_files>, and <user_language> (the
// interface language, the fallback of the lead's language rule), then the tool
// instructions.
func (c Config) SystemPrompt(pc PromptContext) string {
	var b strings.Builder
	b.WriteString(c.RolePrompt)
	fmt.Fprintf(&b, "\n\n<system_time>%s</system_time>\n", pc.Now.Format("2006-01-02 15:04 MST (Monday)"))
	if c.Name == Lead {
		b.WriteString("\n<task_plan>\n")
		if pc.TaskPlan == "" {
			b.WriteString("(no task plan yet: create the artifact \"task_plan\" first)")
		} else {
			b.WriteString(pc.TaskPlan)
		}
		b.WriteString("\n</task_plan>\n\n<artifacts_inventory>\n")
		b.WriteString(pc.Inventory)
		b.WriteString("\n</artifacts_inventory>\n")
		if len(pc.SubAgents) > 0 {
			b.WriteString("\n<available_subagents>\n")
			user := false
			for _, s := range pc.SubAgents {
				fmt.Fprintf(&b, "- %s: %s", s.Name, s.Description)
				if len(s.Capabilities) > 0 {
					fmt.Fprintf(&b, " (%s)", strings.Join(s.Capabilities, "; "))
				}
				if s.File != "" {
					b.WriteString(" [defined by the user]")
					user = true
				}
				b.WriteString("\n")
			}
			if user {
				b.WriteString("The user added the agents marked [defined by the user] for work of their own: call one with call_subagent whenever its description fits a step of the task.\n")
			}
			b.WriteString("</available_subagents>\n")
		}
		if pc.LocalFiles != "" {
			b.WriteString("\n<local_files>\n")
			b.WriteString(pc.LocalFiles)
			b.WriteString("\n</local_files>\n")
		}
		b.WriteString("\n<user_language>\n")
		if pc.UILanguage == "" {
			b.WriteString("Not known: use English.")
		} else {
			fmt.Fprintf(&b, "The user's interface language is %s.", pc.UILanguage)
		}
		b.WriteString("\n</user_language>\n")
	}
	if pc.ToolInstructions != "" {
		b.WriteString("\n")
		b.WriteString(pc.ToolInstructions)
		b.WriteString("\n")
	}
	return b.String()
}

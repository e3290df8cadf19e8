package agent

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDefaults pins the three agents (docs/ARCHITECTURE.md, "Contracts other code relies
// on"): the lead comes first, and each agent has exactly its tools and its max_tool_rounds.
func TestDefaults(t *testing.T) {
	want := []struct {
		name   string
		tools  []string
		rounds int
	}{
		{Lead, []string{"create_artifact", "update_artifact", "rewrite_artifact", "read_artifact", "record_artifact", "call_subagent"}, 100},
		{Search, []string{"web_search", "search_files"}, 3},
		{Crawl, []string{"web_fetch", "read_file"}, 2},
	}
	got := Defaults()
	if len(got) != len(want) {
		t.Fatalf("Defaults() has %d agents, want %d", len(got), len(want))
	}
	for i, w := range want {
		a := got[i]
		if a.Name != w.name {
			t.Fatalf("agent %d is %q, want %q", i, a.Name, w.name)
		}
		if a.MaxToolRounds != w.rounds {
			t.Errorf("%s max_tool_rounds = %d, want %d", a.Name, a.MaxToolRounds, w.rounds)
		}
		if !slices.Equal(a.Tools, w.tools) {
			t.Errorf("%s tools = %v, want %v", a.Name, a.Tools, w.tools)
		}
		if !strings.Contains(a.RolePrompt, "You are "+a.Name) {
			t.Errorf("%s role prompt does not say who it is (the engine and tests tell agents apart by it)", a.Name)
		}
	}
}

// TestSystemPrompt: the lead's prompt holds the task plan in full, the inventory and the
// sub-agents; a sub-agent's prompt holds none of them; both end with the tool instructions.
func TestSystemPrompt(t *testing.T) {
	d := Defaults()
	plan := strings.Repeat("- [ ] step\n", 200)
	pc := PromptContext{Now: time.Date(2025, 3, 4, 5, 6, 0, 0, time.UTC), TaskPlan: plan, Inventory: "<artifact id=\"r\"/>",
		SubAgents: d[1:], ToolInstructions: "TOOLS HERE"}
	lead := d[0].SystemPrompt(pc)
	for _, s := range []string{plan, "<artifacts_inventory>\n<artifact id=\"r\"/>", "- search_agent:", "- crawl_agent:", "<system_time>2025-03-04 05:06 UTC (Tuesday)</system_time>"} {
		if !strings.Contains(lead, s) {
			t.Errorf("lead prompt lacks %.60q", s)
		}
	}
	if !strings.HasSuffix(lead, "TOOLS HERE\n") {
		t.Errorf("lead prompt does not end with the tool instructions")
	}
	sub := d[1].SystemPrompt(pc)
	if strings.Contains(sub, "<task_plan>") || strings.Contains(sub, "<available_subagents>") || !strings.Contains(sub, "TOOLS HERE") {
		t.Errorf("search_agent prompt = %.300q", sub)
	}
	if empty := d[0].SystemPrompt(PromptContext{}); !strings.Contains(empty, `create the artifact "task_plan" first`) {
		t.Errorf("lead prompt without a plan does not ask for one")
	}
}

// TestLocalFilesBlock: the lead's prompt has a <local_files> block with the given text
// only when there is one; sub-agents never get it.
func TestLocalFilesBlock(t *testing.T) {
	d := Defaults()
	pc := PromptContext{LocalFiles: "3 files (2 .md, 1 .pdf). Ask search_agent."}
	lead := d[0].SystemPrompt(pc)
	if !strings.Contains(lead, "\n<local_files>\n3 files (2 .md, 1 .pdf). Ask search_agent.\n</local_files>\n") {
		t.Errorf("lead prompt lacks the local_files block:\n%s", lead)
	}
	if strings.Contains(d[0].SystemPrompt(PromptContext{}), "<local_files>") {
		t.Error("lead prompt has a local_files block without local files")
	}
	for _, sub := range d[1:] {
		if strings.Contains(sub.SystemPrompt(pc), "<local_files>") {
			t.Errorf("%s prompt has the lead's local_files block", sub.Name)
		}
	}
}

// TestLeadPromptRecordArtifact: the lead is told what record_artifact is for (resources
// the user will open again) and what it is not for (ordinary reference links, which are
// sources); the sub-agents are not.
func TestLeadPromptRecordArtifact(t *testing.T) {
	d := Defaults()
	lead := d[0].SystemPrompt(PromptContext{})
	for _, s := range []string{"record_artifact", "dataset", "official tool", "reference links", "sources"} {
		if !strings.Contains(lead, s) {
			t.Errorf("lead prompt does not mention %q", s)
		}
	}
	for _, sub := range d[1:] {
		if strings.Contains(sub.SystemPrompt(PromptContext{}), "record_artifact") {
			t.Errorf("%s prompt mentions record_artifact, a lead tool", sub.Name)
		}
	}
}

// TestPromptsAskForNumberedCitations: the lead cites [n] (the number, not a link) in
// answers and reports and never invents a number; the search and crawl agents pass the
// numbers their tools showed on to the lead.
func TestPromptsAskForNumberedCitations(t *testing.T) {
	d := Defaults()
	lead := d[0].SystemPrompt(PromptContext{})
	for _, s := range []string{"<citations>", "[3]", "not a link", "never invent", "result artifacts", "do not add a sources list"} {
		if !strings.Contains(lead, s) {
			t.Errorf("lead prompt does not say %q", s)
		}
	}
	if strings.Contains(lead, "Cite sources as\n   markdown links") {
		t.Error("lead prompt still asks for markdown links")
	}
	for _, sub := range d[1:] {
		p := sub.SystemPrompt(PromptContext{})
		if !strings.Contains(p, "source number") || !strings.Contains(p, "[3]") {
			t.Errorf("%s prompt does not ask to pass source numbers on", sub.Name)
		}
	}
}

// TestLanguageRule: the lead answers and writes artifacts in the question's language and
// falls back to the interface language named in <user_language>; the sub-agents report
// in their instruction's language and get no <user_language>.
func TestLanguageRule(t *testing.T) {
	d := Defaults()
	lead := d[0].SystemPrompt(PromptContext{UILanguage: "简体中文 (zh-CN)"})
	for _, s := range []string{
		"in the language of the user's latest question",
		"use the interface\n  language in <user_language>",
		"<user_language>\nThe user's interface language is 简体中文 (zh-CN).",
	} {
		if !strings.Contains(lead, s) {
			t.Errorf("lead prompt lacks %q", s)
		}
	}
	if unknown := d[0].SystemPrompt(PromptContext{}); !strings.Contains(unknown, "<user_language>\nNot known: use English.") {
		t.Errorf("lead prompt without a UI language lacks the unknown-language note")
	}
	for _, sub := range d[1:] {
		p := sub.SystemPrompt(PromptContext{UILanguage: "简体中文 (zh-CN)"})
		if !strings.Contains(p, "in the language of its instruction") {
			t.Errorf("%s prompt lacks the instruction-language rule", sub.Name)
		}
		if strings.Contains(p, "<user_language>") {
			t.Errorf("%s prompt has a <user_language> block", sub.Name)
		}
	}
}

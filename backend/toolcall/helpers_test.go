package toolcall

import (
	"context"

	"artifactflow/backend/tools"
)

// fakeTool is a tools.Tool with fixed metadata; Execute is never called here.
type fakeTool struct {
	name, desc string
	params     []tools.Param
}

func (f fakeTool) Name() string          { return f.name }
func (f fakeTool) Description() string   { return f.desc }
func (f fakeTool) Params() []tools.Param { return f.params }
func (f fakeTool) Execute(context.Context, map[string]any) tools.Result {
	return tools.Fail("fakeTool %s is not executable", f.name)
}

// testTools mirrors the real tool contracts (docs/ARCHITECTURE.md, "Contracts other code
// relies on") plus one tool with boolean and number parameters.
var testTools = []tools.Tool{
	fakeTool{name: "web_search", desc: "Search the web.", params: []tools.Param{
		{Name: "query", Type: "string", Description: "What to search for.", Required: true},
		{Name: "count", Type: "integer", Description: "How many results."},
	}},
	fakeTool{name: "web_fetch", desc: "Fetch a page.", params: []tools.Param{
		{Name: "url", Type: "string", Description: "The page URL.", Required: true},
		{Name: "max_content_length", Type: "integer", Description: "Character limit."},
	}},
	fakeTool{name: "create_artifact", desc: "Create an artifact.", params: []tools.Param{
		{Name: "id", Type: "string", Required: true},
		{Name: "content_type", Type: "string", Required: true},
		{Name: "title", Type: "string", Required: true},
		{Name: "content", Type: "string", Required: true},
	}},
	fakeTool{name: "update_artifact", desc: "Replace text in an artifact.", params: []tools.Param{
		{Name: "id", Type: "string", Required: true},
		{Name: "old_str", Type: "string", Required: true},
		{Name: "new_str", Type: "string", Required: true},
	}},
	fakeTool{name: "tune", desc: "Adjust settings.", params: []tools.Param{
		{Name: "enabled", Type: "boolean"},
		{Name: "ratio", Type: "number"},
		{Name: "label"},
	}},
	fakeTool{name: "structured", desc: "Takes JSON values, as an MCP tool may.", params: []tools.Param{
		{Name: "filter", Type: "object"},
		{Name: "edits", Type: "array"},
	}},
}

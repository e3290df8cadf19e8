package tools

import (
	"context"
	"slices"
	"testing"
)

// TestReadOnlyDeclarations: exactly the tools that touch no artifact declare themselves
// read-only (their calls may run at once); the artifact tools, read_artifact included, and
// record_artifact are writes, run one at a time in call order, and so is a tool that
// declares nothing.
func TestReadOnlyDeclarations(t *testing.T) {
	all := append(ArtifactTools(nil), RecordArtifact{}, CallSubagent{}, WebSearch{}, WebFetch{}, SearchFiles{}, ReadFile{})
	var readOnly []string
	for _, tool := range all {
		if IsReadOnly(tool) {
			readOnly = append(readOnly, tool.Name())
		}
	}
	slices.Sort(readOnly)
	want := []string{"call_subagent", "read_file", "search_files", "web_fetch", "web_search"}
	if !slices.Equal(readOnly, want) {
		t.Fatalf("read-only tools %v, want %v", readOnly, want)
	}
	if IsReadOnly(undeclared{}) {
		t.Fatal("a tool without the declaration counts as read-only")
	}
}

// undeclared is a tool that says nothing about what it touches.
type undeclared struct{}

func (undeclared) Name() string        { return "custom" }
func (undeclared) Description() string { return "A tool without a declaration." }
func (undeclared) Params() []Param     { return nil }
func (undeclared) Execute(context.Context, map[string]any) Result {
	return OK("")
}

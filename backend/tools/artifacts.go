package tools

import (
	"context"
	"fmt"
	"html"
	"strings"
	"unicode/utf8"

	"artifactflow/backend/artifact"
	"artifactflow/backend/events"
)

// MetaArtifact is the Result.Metadata key holding the events.ArtifactSnapshot after a
// successful artifact operation.
const MetaArtifact = "artifact_snapshot"

// ArtifactTools returns create_artifact, update_artifact, rewrite_artifact and
// read_artifact bound to the run's write-back cache m.
func ArtifactTools(m *artifact.Manager) []Tool {
	return []Tool{createArtifact{m}, updateArtifact{m}, rewriteArtifact{m}, readArtifact{m}}
}

func artifactResult(s events.ArtifactSnapshot, verb string) Result {
	r := OK(fmt.Sprintf("<artifact version=\"%d\"><id>%s</id> %s</artifact>", s.Version, html.EscapeString(s.ID), verb))
	r.Metadata = map[string]any{MetaArtifact: s}
	return r
}

type createArtifact struct{ m *artifact.Manager }

func (createArtifact) Name() string { return "create_artifact" }
func (createArtifact) Description() string {
	return "Create a new artifact (a document kept for the user and as your working memory). Use id \"task_plan\" for your task plan."
}
func (createArtifact) Params() []Param {
	return []Param{
		{Name: "id", Type: "string", Required: true, Description: "Unique id: letters, digits, '_', '-', '.' (e.g. task_plan, research_report)"},
		{Name: "content_type", Type: "string", Required: true, Description: "Format of the content, e.g. markdown, python, csv"},
		{Name: "title", Type: "string", Required: true, Description: "Human-readable title"},
		{Name: "content", Type: "string", Required: true, Description: "Full initial content"},
	}
}
func (t createArtifact) Execute(ctx context.Context, p map[string]any) Result {
	id, err := String(p, "id", true)
	if err != nil {
		return Fail("%v", err)
	}
	ct, _ := String(p, "content_type", false)
	title, _ := String(p, "title", false)
	content, err := String(p, "content", false)
	if err != nil {
		return Fail("%v", err)
	}
	s, err := t.m.Create(ctx, id, ct, title, content)
	if err != nil {
		return Fail("%v", err)
	}
	return artifactResult(s, "Created")
}

type updateArtifact struct{ m *artifact.Manager }

func (updateArtifact) Name() string { return "update_artifact" }
func (updateArtifact) Description() string {
	return "Replace one occurrence of old_str with new_str in an artifact. old_str must match the current text exactly once; include surrounding text to make it unique."
}
func (updateArtifact) Params() []Param {
	return []Param{
		{Name: "id", Type: "string", Required: true, Description: "Artifact id"},
		{Name: "old_str", Type: "string", Required: true, Description: "Exact text to replace"},
		{Name: "new_str", Type: "string", Required: true, Description: "Replacement text (may be empty to delete)"},
	}
}
func (t updateArtifact) Execute(ctx context.Context, p map[string]any) Result {
	id, err := String(p, "id", true)
	if err != nil {
		return Fail("%v", err)
	}
	oldStr, err := String(p, "old_str", true)
	if err != nil {
		return Fail("%v", err)
	}
	newStr, err := String(p, "new_str", false)
	if err != nil {
		return Fail("%v", err)
	}
	s, err := t.m.Update(ctx, id, oldStr, newStr)
	if err != nil {
		return Fail("%v", err)
	}
	return artifactResult(s, "Updated")
}

type rewriteArtifact struct{ m *artifact.Manager }

func (rewriteArtifact) Name() string { return "rewrite_artifact" }
func (rewriteArtifact) Description() string {
	return "Replace the whole content of an existing artifact. Use for large changes."
}
func (rewriteArtifact) Params() []Param {
	return []Param{
		{Name: "id", Type: "string", Required: true, Description: "Artifact id"},
		{Name: "content", Type: "string", Required: true, Description: "New full content"},
	}
}
func (t rewriteArtifact) Execute(ctx context.Context, p map[string]any) Result {
	id, err := String(p, "id", true)
	if err != nil {
		return Fail("%v", err)
	}
	content, err := String(p, "content", false)
	if err != nil {
		return Fail("%v", err)
	}
	s, err := t.m.Rewrite(ctx, id, content)
	if err != nil {
		return Fail("%v", err)
	}
	return artifactResult(s, "Rewritten")
}

type readArtifact struct{ m *artifact.Manager }

func (readArtifact) Name() string { return "read_artifact" }
func (readArtifact) Description() string {
	return "Read the full content of an artifact, optionally an older stored version."
}
func (readArtifact) Params() []Param {
	return []Param{
		{Name: "id", Type: "string", Required: true, Description: "Artifact id"},
		{Name: "version", Type: "integer", Description: "Stored version number; omit for the current content"},
		{Name: "offset", Type: "integer", Description: "Character offset to start reading at (default 0)"},
		{Name: "limit", Type: "integer", Description: fmt.Sprintf("Maximum characters to return (default %d)", DefaultReadLimit)},
	}
}

// Paging of read_artifact, in runes: a long artifact is read in pages so it never floods
// the context.
const (
	DefaultReadLimit = 20000
	MaxReadLimit     = 100000
)

func (t readArtifact) Execute(ctx context.Context, p map[string]any) Result {
	id, err := String(p, "id", true)
	if err != nil {
		return Fail("%v", err)
	}
	version, err := Int(p, "version", 0)
	if err != nil {
		return Fail("%v", err)
	}
	offset, err := Int(p, "offset", 0)
	if err != nil {
		return Fail("%v", err)
	}
	limit, err := Int(p, "limit", DefaultReadLimit)
	if err != nil {
		return Fail("%v", err)
	}
	if offset < 0 || limit < 1 {
		return Fail("offset must be >= 0 and limit >= 1")
	}
	limit = min(limit, MaxReadLimit)
	s, err := t.m.Read(ctx, id, version)
	if err != nil {
		return Fail("%v", err)
	}
	page, total := runeSlice(s.Content, offset, limit)
	var b strings.Builder
	fmt.Fprintf(&b, "<artifact id=%q version=\"%d\" content_type=%q title=%q total_length=\"%d\" offset=\"%d\">\n%s\n</artifact>",
		s.ID, s.Version, s.ContentType, s.Title, total, offset, page)
	if end := offset + utf8.RuneCountInString(page); end < total {
		fmt.Fprintf(&b, "\n(showing characters %d-%d of %d; call read_artifact with offset=%d for more)", offset, end, total, end)
	}
	return OK(b.String())
}

// runeSlice returns up to limit runes of s starting at rune offset, and s's length in runes.
func runeSlice(s string, offset, limit int) (string, int) {
	total := utf8.RuneCountInString(s)
	if offset >= total {
		return "", total
	}
	start, end, i := len(s), len(s), 0
	for pos := range s {
		if i == offset {
			start = pos
		}
		if i == offset+limit {
			end = pos
			break
		}
		i++
	}
	return s[start:end], total
}

package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/sources"
	"artifactflow/backend/store"
)

// Result sizes: defaults when a call gives no limit, and the largest a call may ask for.
const (
	defaultSearchLimit = 10
	maxSearchLimit     = 50
	defaultListLimit   = 20
	maxListLimit       = 100
)

// SearchInput is search_research's arguments.
type SearchInput struct {
	Query string `json:"query" jsonschema:"Words to find, in any language (Chinese and Japanese need no spaces). Every word must occur in the same question, answer, conversation title or artifact; matching is by substring, ignoring case and accents; text in double quotes is one phrase."`
	Limit int    `json:"limit,omitempty" jsonschema:"Most results to return, 1-50 (default 10)."`
}

// SearchResult is one search_research hit: a conversation's title, a question, an answer or
// an artifact (Kind), with a plain-text snippet around the match. MessageID is set for a
// question or an answer, ArtifactID and ArtifactTitle for an artifact; URI is the
// resource to read (the conversation, or the artifact).
type SearchResult struct {
	ConversationID    string    `json:"conversation_id"`
	ConversationTitle string    `json:"conversation_title"`
	UpdatedAt         time.Time `json:"updated_at" jsonschema:"When the conversation last changed (RFC 3339, UTC)."`
	Kind              string    `json:"kind" jsonschema:"Where the words were found: title, question, answer or artifact."`
	MessageID         string    `json:"message_id,omitempty"`
	ArtifactID        string    `json:"artifact_id,omitempty" jsonschema:"For kind artifact: the id to pass to read_artifact with conversation_id."`
	ArtifactTitle     string    `json:"artifact_title,omitempty"`
	Snippet           string    `json:"snippet" jsonschema:"About 120 characters of plain text around the first match; … marks a cut."`
	URI               string    `json:"uri" jsonschema:"The resource holding the match: artifactflow://conversation/<id> or artifactflow://artifact/<conversation_id>/<artifact_id>."`
}

// SearchOutput is search_research's result, best match first.
type SearchOutput struct {
	Results []SearchResult `json:"results"`
}

// ListConversationsInput is list_conversations' arguments.
type ListConversationsInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"Most conversations to return, 1-100 (default 20)."`
	Cursor string `json:"cursor,omitempty" jsonschema:"The next_cursor of the previous call, to get the next page; omit for the most recent conversations."`
}

// ConversationInfo is one conversation in list_conversations: MessageCount counts the
// questions asked in it (every branch); LastStatus is the latest run's status (complete,
// cancelled, error, interrupted or running; empty when it has no message).
type ConversationInfo struct {
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	MessageCount int       `json:"message_count"`
	LastStatus   string    `json:"last_status,omitempty"`
	URI          string    `json:"uri"`
}

// ListConversationsOutput is list_conversations' result, most recently updated first;
// NextCursor is "" on the last page.
type ListConversationsOutput struct {
	Conversations []ConversationInfo `json:"conversations"`
	NextCursor    string             `json:"next_cursor,omitempty"`
}

// ReadArtifactInput is read_artifact's arguments. Artifact ids are unique within a
// conversation only, so the conversation is part of the address.
type ReadArtifactInput struct {
	ConversationID string `json:"conversation_id" jsonschema:"The conversation the artifact belongs to (from search_research or list_conversations)."`
	ID             string `json:"id" jsonschema:"The artifact id, e.g. research_report or task_plan."`
	Version        int    `json:"version,omitempty" jsonschema:"A stored version number (see versions in the result); omit for the latest."`
}

// VersionInfo is one stored version of an artifact: its number (numbers may skip: edits
// within one research run are one version), how it was made (create, update, rewrite,
// user_edit, restore, upload ...), when, and its size in bytes.
type VersionInfo struct {
	Version    int       `json:"version"`
	UpdateType string    `json:"update_type"`
	CreatedAt  time.Time `json:"created_at"`
	Size       int       `json:"size"`
}

// ArtifactOutput is read_artifact's result: the content of Version (the latest,
// CurrentVersion, unless a version was asked for) and every stored version.
type ArtifactOutput struct {
	ConversationID string        `json:"conversation_id"`
	ID             string        `json:"id"`
	Title          string        `json:"title"`
	ContentType    string        `json:"content_type"`
	Version        int           `json:"version"`
	CurrentVersion int           `json:"current_version"`
	Versions       []VersionInfo `json:"versions"`
	Content        string        `json:"content"`
	URI            string        `json:"uri"`
}

// ListSourcesInput is list_sources' arguments.
type ListSourcesInput struct {
	ConversationID string `json:"conversation_id" jsonschema:"The conversation whose sources to list."`
}

// SourceInfo is one numbered source of a conversation: answers and reports cite it as [N].
// A web source has URL; a local file of the conversation's workspace has Path
// (workspace-relative) and File (absolute, when the workspace is known), with Page or Line
// when the hit was located.
type SourceInfo struct {
	N         int    `json:"n"`
	Kind      string `json:"kind" jsonschema:"web or file."`
	Title     string `json:"title,omitempty"`
	URL       string `json:"url,omitempty"`
	Path      string `json:"path,omitempty"`
	File      string `json:"file,omitempty"`
	Page      int    `json:"page,omitempty"`
	Line      int    `json:"line,omitempty"`
	Site      string `json:"site,omitempty"`
	Published string `json:"published,omitempty"`
	Excerpt   string `json:"excerpt,omitempty"`
	Fetched   bool   `json:"fetched" jsonschema:"Whether the page or file was read, not only listed by a search."`
}

// ListSourcesOutput is list_sources' result, in number order.
type ListSourcesOutput struct {
	ConversationID string       `json:"conversation_id"`
	Sources        []SourceInfo `json:"sources"`
}

// readOnly is the annotation of a tool that only reads the library.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &f, OpenWorldHint: &f}
}

// inputSchema is the schema inferred from T with edit applied to its properties.
func inputSchema[T any](edit func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserve: schema of %T: %v", *new(T), err)) // a programming error
	}
	edit(sch.Properties)
	return sch
}

// outputSchema is the schema inferred from T with every slice typed "array" alone: the
// handlers never return a nil slice, and a ["null", "array"] type is less portable (a
// client mapping schemas onto a one-type dialect, such as Gemini's, may reject it).
func outputSchema[T any]() *jsonschema.Schema {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserve: schema of %T: %v", *new(T), err)) // a programming error
	}
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
			s.Type, s.Types = "array", nil
		}
		walk(s.Items)
		for _, p := range s.Properties {
			walk(p)
		}
	}
	walk(sch)
	return sch
}

// bounds sets an integer property's minimum and maximum.
func bounds(p *jsonschema.Schema, lo, hi float64) { p.Minimum, p.Maximum = &lo, &hi }

// nonEmpty requires a string property to hold at least one non-space character.
func nonEmpty(p *jsonschema.Schema) { one := 1; p.MinLength, p.Pattern = &one, `\S` }

func (s *server) addTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: ToolSearch, OutputSchema: outputSchema[SearchOutput](), Annotations: readOnly("Search research"),
		Description: "Full-text search over the user's past research: conversation titles, questions, answers and artifacts " +
			"(reports, plans, uploaded files). Returns the matching documents, best first, each with its conversation, " +
			"kind (title, question, answer, artifact), a snippet and the ids to read more (read_artifact, list_sources, " +
			"or the resource uri).",
		InputSchema: inputSchema[SearchInput](func(p map[string]*jsonschema.Schema) {
			nonEmpty(p["query"])
			bounds(p["limit"], 1, maxSearchLimit)
		})}, s.search)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolListConversations, OutputSchema: outputSchema[ListConversationsOutput](), Annotations: readOnly("List research conversations"),
		Description: "Lists the user's research conversations, most recently updated first, with id, title, times and " +
			"message count. Page on with next_cursor.",
		InputSchema: inputSchema[ListConversationsInput](func(p map[string]*jsonschema.Schema) {
			bounds(p["limit"], 1, maxListLimit)
		})}, s.listConversations)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolReadArtifact, OutputSchema: outputSchema[ArtifactOutput](), Annotations: readOnly("Read an artifact"),
		Description: "Reads an artifact of a research conversation (a report, the task plan, an uploaded file's text): " +
			"its latest content, or a given stored version, with its title, content type and the list of versions.",
		InputSchema: inputSchema[ReadArtifactInput](func(p map[string]*jsonschema.Schema) {
			nonEmpty(p["conversation_id"])
			nonEmpty(p["id"])
			bounds(p["version"], 1, 1<<31-1)
		})}, s.readArtifact)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolListSources, OutputSchema: outputSchema[ListSourcesOutput](), Annotations: readOnly("List a conversation's sources"),
		Description: "Lists the numbered sources of a research conversation (web pages with their URL, local files with " +
			"their path): the [n] that its answers and reports cite.",
		InputSchema: inputSchema[ListSourcesInput](func(p map[string]*jsonschema.Schema) {
			nonEmpty(p["conversation_id"])
		})}, s.listSources)
	if s.opts.Research != nil {
		s.addAsk(srv)
	}
}

// search runs search_research.
func (s *server) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	if len(store.QueryTerms(in.Query)) == 0 {
		return nil, SearchOutput{}, fmt.Errorf("query %q has no word to search for: give letters or digits", in.Query)
	}
	hits, err := s.db.SearchDocuments(ctx, in.Query, min(limit, maxSearchLimit))
	if err != nil {
		return nil, SearchOutput{}, fmt.Errorf("search_research: %w", err)
	}
	out := SearchOutput{Results: make([]SearchResult, len(hits))}
	var b strings.Builder
	if len(hits) == 0 {
		fmt.Fprintf(&b, "Nothing in the research library matches %q.", in.Query)
	}
	for i, h := range hits {
		r := SearchResult{ConversationID: h.ConversationID, ConversationTitle: h.ConversationTitle, UpdatedAt: h.UpdatedAt,
			Kind: h.Kind, MessageID: h.MessageID, ArtifactID: h.ArtifactID, ArtifactTitle: h.ArtifactTitle,
			Snippet: h.Snippet, URI: ConversationURI(h.ConversationID)}
		if h.Kind == store.DocArtifact {
			r.URI = ArtifactURI(h.ConversationID, h.ArtifactID)
		}
		out.Results[i] = r
		fmt.Fprintf(&b, "%d. [%s] %q (conversation_id %s, %s)", i+1, r.Kind, oneLine(h.ConversationTitle), h.ConversationID, h.UpdatedAt.Format(time.DateOnly))
		if r.ArtifactID != "" {
			fmt.Fprintf(&b, "\n   artifact %s %q", r.ArtifactID, oneLine(r.ArtifactTitle))
		}
		fmt.Fprintf(&b, "\n   %s\n   %s\n", r.Snippet, r.URI)
	}
	return textResult(b.String()), out, nil
}

// listConversations runs list_conversations. The cursor is the offset of the next page.
func (s *server) listConversations(ctx context.Context, _ *mcp.CallToolRequest, in ListConversationsInput) (*mcp.CallToolResult, ListConversationsOutput, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = defaultListLimit
	}
	limit = min(limit, maxListLimit)
	offset := 0
	if in.Cursor != "" {
		n, err := strconv.Atoi(in.Cursor)
		if err != nil || n < 0 {
			return nil, ListConversationsOutput{}, fmt.Errorf("cursor %q is not one this server gave: pass next_cursor as returned, or omit it", in.Cursor)
		}
		offset = n
	}
	convs, err := s.db.ListConversations(ctx, limit+1, offset)
	if err != nil {
		return nil, ListConversationsOutput{}, fmt.Errorf("list_conversations: %w", err)
	}
	out := ListConversationsOutput{Conversations: []ConversationInfo{}}
	if len(convs) > limit {
		convs = convs[:limit]
		out.NextCursor = strconv.Itoa(offset + limit)
	}
	ids := make([]string, len(convs))
	for i, c := range convs {
		ids[i] = c.ID
	}
	counts, err := s.db.MessageCounts(ctx, ids)
	if err != nil {
		return nil, ListConversationsOutput{}, fmt.Errorf("list_conversations: %w", err)
	}
	var b strings.Builder
	if len(convs) == 0 {
		b.WriteString("No conversations.")
	}
	for _, c := range convs {
		ci := ConversationInfo{ID: c.ID, Title: c.Title, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
			MessageCount: counts[c.ID], LastStatus: c.LastStatus, URI: ConversationURI(c.ID)}
		out.Conversations = append(out.Conversations, ci)
		fmt.Fprintf(&b, "- %q (id %s, updated %s, %d messages)\n", oneLine(c.Title), c.ID, c.UpdatedAt.Format(time.RFC3339), ci.MessageCount)
	}
	if out.NextCursor != "" {
		fmt.Fprintf(&b, "More: call again with cursor %q.\n", out.NextCursor)
	}
	return textResult(b.String()), out, nil
}

// readArtifact runs read_artifact.
func (s *server) readArtifact(ctx context.Context, _ *mcp.CallToolRequest, in ReadArtifactInput) (*mcp.CallToolResult, ArtifactOutput, error) {
	out, err := s.artifact(ctx, in.ConversationID, in.ID, in.Version)
	if err != nil {
		return nil, ArtifactOutput{}, err
	}
	head := fmt.Sprintf("Artifact %s %q (%s), version %d of %d, conversation %s\n\n", out.ID, oneLine(out.Title), out.ContentType,
		out.Version, out.CurrentVersion, out.ConversationID)
	return textResult(head + out.Content), out, nil
}

// artifact reads artifact id of conversationID at version (0: the latest) with its list of
// versions. Errors name what is missing in words a model can act on.
func (s *server) artifact(ctx context.Context, conversationID, id string, version int) (ArtifactOutput, error) {
	a, err := s.db.GetArtifact(ctx, conversationID, id)
	if errors.Is(err, store.ErrNotFound) {
		return ArtifactOutput{}, fmt.Errorf("no artifact %q in conversation %q (search_research gives artifact ids with their conversation_id): %w", id, conversationID, err)
	}
	if err != nil {
		return ArtifactOutput{}, fmt.Errorf("read_artifact: %w", err)
	}
	infos, err := s.db.ListVersions(ctx, conversationID, id)
	if err != nil {
		return ArtifactOutput{}, fmt.Errorf("read_artifact: %w", err)
	}
	out := ArtifactOutput{ConversationID: conversationID, ID: a.ID, Title: a.Title, ContentType: a.ContentType,
		Version: a.CurrentVersion, CurrentVersion: a.CurrentVersion, Versions: make([]VersionInfo, len(infos)),
		Content: a.Content, URI: ArtifactURI(conversationID, a.ID)}
	nums := make([]string, len(infos))
	for i, v := range infos {
		out.Versions[i] = VersionInfo{Version: v.Version, UpdateType: v.UpdateType, CreatedAt: v.CreatedAt, Size: v.Size}
		nums[i] = strconv.Itoa(v.Version)
	}
	if version > 0 && version != a.CurrentVersion {
		v, err := s.db.GetVersion(ctx, conversationID, id, version)
		if errors.Is(err, store.ErrNotFound) {
			return ArtifactOutput{}, fmt.Errorf("artifact %q has no version %d; its versions are %s: %w", id, version, strings.Join(nums, ", "), err)
		}
		if err != nil {
			return ArtifactOutput{}, fmt.Errorf("read_artifact: %w", err)
		}
		out.Version, out.Content = v.Version, v.Content
	}
	return out, nil
}

// listSources runs list_sources.
func (s *server) listSources(ctx context.Context, _ *mcp.CallToolRequest, in ListSourcesInput) (*mcp.CallToolResult, ListSourcesOutput, error) {
	if _, err := s.db.GetConversation(ctx, in.ConversationID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ListSourcesOutput{}, fmt.Errorf("no conversation %q (list_conversations gives the ids): %w", in.ConversationID, err)
		}
		return nil, ListSourcesOutput{}, fmt.Errorf("list_sources: %w", err)
	}
	list, err := s.db.Sources(ctx, in.ConversationID)
	if err != nil {
		return nil, ListSourcesOutput{}, fmt.Errorf("list_sources: %w", err)
	}
	out := ListSourcesOutput{ConversationID: in.ConversationID, Sources: s.sourceInfos(ctx, in.ConversationID, list)}
	var b strings.Builder
	if len(list) == 0 {
		b.WriteString("This conversation has no sources.")
	}
	for _, src := range out.Sources {
		b.WriteString(sourceLine(src))
		b.WriteByte('\n')
	}
	return textResult(b.String()), out, nil
}

// sourceInfos converts a conversation's sources, resolving file sources against its
// workspace when Options.Workspace is set.
func (s *server) sourceInfos(ctx context.Context, conversationID string, list []sources.Source) []SourceInfo {
	out := make([]SourceInfo, 0, len(list))
	var ws string
	for _, src := range list {
		si := SourceInfo{N: src.N, Kind: src.Kind, Title: src.Title, Site: src.Site, Published: src.Published,
			Excerpt: src.Excerpt, Page: src.Page, Line: src.Line, Fetched: src.Fetched}
		if src.Kind == sources.KindFile {
			si.Path = src.Location
			if ws == "" && s.opts.Workspace != nil {
				var err error
				if ws, err = s.opts.Workspace(ctx, conversationID); err != nil {
					s.log.Warn("mcpserve: workspace of a conversation", "conversation", conversationID, "err", err)
				}
			}
			if ws != "" {
				si.File = filepath.Join(ws, filepath.FromSlash(src.Location))
			}
		} else {
			si.URL = src.Location
		}
		out = append(out, si)
	}
	return out
}

// sourceLine renders one source for a text result: "[n] title — url or path".
func sourceLine(s SourceInfo) string {
	where := s.URL
	if s.Kind == sources.KindFile {
		where = s.Path
		if s.File != "" {
			where = s.File
		}
		switch {
		case s.Page > 0:
			where += fmt.Sprintf(" (p. %d)", s.Page)
		case s.Line > 0:
			where += fmt.Sprintf(" (line %d)", s.Line)
		}
	}
	if t := oneLine(s.Title); t != "" {
		return fmt.Sprintf("[%d] %s — %s", s.N, t, where)
	}
	return fmt.Sprintf("[%d] %s", s.N, where)
}

// textResult is a tool result whose text is s (the SDK adds the structured output).
func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// oneLine trims s and turns every run of white space into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

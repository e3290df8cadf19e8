package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/sources"
	"artifactflow/backend/store"
)

// Resource URIs. A conversation is artifactflow://conversation/<id>; an artifact,
// whose id is unique within its conversation only, is
// artifactflow://artifact/<conversation-id>/<artifact-id>. Ids are percent-encoded as URI
// path segments (an uploaded file's artifact id may hold any letter).
const (
	conversationPrefix = "artifactflow://conversation/"
	artifactPrefix     = "artifactflow://artifact/"
)

// listedConversations is how many of the most recent conversations resources/list gives
// (with their artifacts); older ones are reached through the resource templates and the
// tools.
const listedConversations = 50

// ConversationURI returns the resource URI of conversation id.
func ConversationURI(id string) string { return conversationPrefix + url.PathEscape(id) }

// ArtifactURI returns the resource URI of artifact id of conversation conversationID.
func ArtifactURI(conversationID, id string) string {
	return artifactPrefix + url.PathEscape(conversationID) + "/" + url.PathEscape(id)
}

// parseURI returns the percent-decoded path segments of uri after prefix, when uri starts
// with prefix and has exactly n non-empty segments.
func parseURI(uri, prefix string, n int) ([]string, bool) {
	rest, ok := strings.CutPrefix(uri, prefix)
	if !ok || strings.ContainsAny(rest, "?#") {
		return nil, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != n {
		return nil, false
	}
	for i, p := range parts {
		v, err := url.PathUnescape(p)
		if err != nil || v == "" {
			return nil, false
		}
		parts[i] = v
	}
	return parts, true
}

func (s *server) addResources(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "conversation", Title: "Research conversation",
		URITemplate: conversationPrefix + "{id}", MIMEType: "text/markdown",
		Description: "A research conversation as Markdown: each question and its answer on the conversation's current branch, " +
			"its artifacts (with their resource URIs) and its numbered sources."}, s.readConversationResource)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "artifact", Title: "Research artifact",
		URITemplate: artifactPrefix + "{conversation_id}/{artifact_id}",
		Description: "The latest stored content of an artifact (a report, the task plan, an uploaded file's text); " +
			"its MIME type follows the artifact's content type. Older versions: the read_artifact tool."}, s.readArtifactResource)
}

// listResources answers resources/list: the listedConversations most recently updated
// conversations, each followed by its artifacts.
func (s *server) listResources(ctx context.Context) (*mcp.ListResourcesResult, error) {
	convs, err := s.db.ListConversations(ctx, listedConversations, 0)
	if err != nil {
		return nil, fmt.Errorf("resources/list: %w", err)
	}
	ids := make([]string, len(convs))
	for i, c := range convs {
		ids[i] = c.ID
	}
	arts, err := s.db.ArtifactSummaries(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("resources/list: %w", err)
	}
	byConv := map[string][]store.ArtifactSummary{}
	for _, a := range arts {
		byConv[a.SessionID] = append(byConv[a.SessionID], a)
	}
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}, Cacheable: private}
	for _, c := range convs {
		res.Resources = append(res.Resources, &mcp.Resource{URI: ConversationURI(c.ID), Name: "conversation/" + c.ID,
			Title: c.Title, MIMEType: "text/markdown",
			Description: "Research conversation, updated " + c.UpdatedAt.Format(time.RFC3339)})
		for _, a := range byConv[c.ID] {
			res.Resources = append(res.Resources, &mcp.Resource{URI: ArtifactURI(c.ID, a.ID), Name: "artifact/" + c.ID + "/" + a.ID,
				Title: a.Title, MIMEType: MIMEType(a.ContentType), Size: int64(a.Size),
				Description: fmt.Sprintf("Artifact %s (version %d) of the conversation %q", a.ID, a.CurrentVersion, oneLine(c.Title))})
		}
	}
	return res, nil
}

// readConversationResource reads artifactflow://conversation/<id>.
func (s *server) readConversationResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	parts, ok := parseURI(uri, conversationPrefix, 1)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	md, err := s.conversationMarkdown(ctx, parts[0])
	if errors.Is(err, store.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: md}}}, nil
}

// readArtifactResource reads artifactflow://artifact/<conversation-id>/<artifact-id>.
func (s *server) readArtifactResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	parts, ok := parseURI(uri, artifactPrefix, 2)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	a, err := s.db.GetArtifact(ctx, parts[0], parts[1])
	if errors.Is(err, store.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: MIMEType(a.ContentType), Text: a.Content}}}, nil
}

// conversationMarkdown renders conversation id as Markdown: its title, each question and
// answer on its active branch, its artifacts and its sources. Errors: store.ErrNotFound
// for an unknown conversation, database errors.
func (s *server) conversationMarkdown(ctx context.Context, id string) (string, error) {
	c, err := s.db.GetConversation(ctx, id)
	if err != nil {
		return "", err
	}
	path, err := s.db.MessagePath(ctx, id, "")
	if err != nil {
		return "", err
	}
	arts, err := s.db.ArtifactSummaries(ctx, []string{id})
	if err != nil {
		return "", err
	}
	list, err := s.db.Sources(ctx, id)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	title := oneLine(c.Title)
	if title == "" {
		title = "Untitled conversation"
	}
	fmt.Fprintf(&b, "# %s\n\nConversation `%s`, created %s, updated %s.\n", sources.EscapeMarkdown(title), c.ID,
		c.CreatedAt.Format(time.RFC3339), c.UpdatedAt.Format(time.RFC3339))
	for i, m := range path {
		fmt.Fprintf(&b, "\n## Question %d\n\n%s\n\n## Answer %d\n\n", i+1, strings.TrimSpace(m.Content), i+1)
		switch {
		case m.GraphResponse != "":
			b.WriteString(strings.TrimSpace(m.GraphResponse))
			b.WriteByte('\n')
		case m.Status == store.StatusRunning:
			b.WriteString("_Research still running._\n")
		default:
			fmt.Fprintf(&b, "_No answer (%s)", m.Status)
			if e := oneLine(m.Error); e != "" {
				b.WriteString(": " + sources.EscapeMarkdown(e))
			}
			b.WriteString("._\n")
		}
	}
	if len(arts) > 0 {
		b.WriteString("\n## Artifacts\n\n")
		for _, a := range arts {
			fmt.Fprintf(&b, "- [%s](<%s>): `%s`, %s, version %d\n", sources.EscapeMarkdown(oneLine(a.Title)), ArtifactURI(id, a.ID),
				a.ID, sources.EscapeMarkdown(a.ContentType), a.CurrentVersion)
		}
	}
	if len(list) > 0 {
		b.WriteString("\n## Sources\n\n")
		for _, src := range list {
			b.WriteString("- " + sources.Line(src) + "\n")
		}
	}
	return b.String(), nil
}

// MIMEType returns the MIME type of an artifact's content for its content type: the
// short names agents and uploads use ("markdown", "text", "html", "csv", "json", a
// programming language ...) map to text/markdown, text/plain, text/html, text/csv,
// application/json, text/x-<language> ...; a content type that is already a MIME type is
// kept (lower-cased, without parameters); "" is Markdown, the artifacts' default.
func MIMEType(contentType string) string {
	t := strings.ToLower(strings.TrimSpace(contentType))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	if strings.Contains(t, "/") {
		return t
	}
	switch t {
	case "", "markdown", "md", "gfm", "commonmark":
		return "text/markdown"
	case "text", "txt", "plain", "log":
		return "text/plain"
	case "html", "htm":
		return "text/html"
	case "csv":
		return "text/csv"
	case "tsv":
		return "text/tab-separated-values"
	case "json":
		return "application/json"
	case "yaml", "yml":
		return "application/yaml"
	case "xml":
		return "application/xml"
	case "toml":
		return "application/toml"
	case "binary":
		return "application/octet-stream"
	}
	if len(t) <= 32 && strings.Trim(t, "abcdefghijklmnopqrstuvwxyz0123456789+#._-") == "" {
		return "text/x-" + t
	}
	return "text/plain"
}

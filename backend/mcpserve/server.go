// Package mcpserve is the research library as a Model Context Protocol server
// (docs/ARCHITECTURE.md, "The research library over MCP"): what the user has researched
// (conversations, answers, artifacts and their versions, sources) offered as MCP tools and
// resources to any MCP client (Claude Desktop, Cursor, qwen-code ...), through the official
// Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Tools: search_research, list_conversations, read_artifact and list_sources read the
// database and change nothing (readOnlyHint); ask_research, offered only when
// Options.Research is set, runs a research. Resources: artifactflow://conversation/<id>
// (the conversation as Markdown) and artifactflow://artifact/<conversation-id>/<artifact-id>
// (the artifact's latest content), listed for the most recent conversations.
//
// The package holds the protocol side only: the caller opens the database and, for
// ask_research, supplies the Researcher that runs research on the user's settings, then
// runs the server on a transport (stdio for `artifactflow mcp serve`, in-memory in tests).
package mcpserve

import (
	"context"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// Tool names, as clients call them.
const (
	ToolSearch            = "search_research"
	ToolListConversations = "list_conversations"
	ToolReadArtifact      = "read_artifact"
	ToolListSources       = "list_sources"
	ToolAsk               = "ask_research"
)

// ServerName is the server's name in the MCP handshake (serverInfo.name).
const ServerName = "artifactflow"

// Researcher runs research for ask_research.
type Researcher interface {
	// Research runs question as one research run on the user's settings: in
	// conversationID, continuing its active branch, or in a new conversation when
	// conversationID is "". It calls onEvent with the run's events in order (from any
	// goroutine, one at a time) and returns when the run has ended, with the engine's
	// result (Result.Err says why a run did not complete). Cancelling ctx stops the run.
	// The error return is for a run that could not start (no model configured, an
	// unknown conversation, a run already going there ...).
	Research(ctx context.Context, conversationID, question string, onEvent func(events.Event)) (engine.Result, error)
}

// Options configure the server.
type Options struct {
	// Version is the server's version in the handshake ("dev" when empty).
	Version string
	// Research runs ask_research; nil leaves the tool out of tools/list and makes a call of
	// it fail with ErrResearchDisabled's message.
	Research Researcher
	// Workspace returns the folder of a conversation's workspace, so list_sources can give
	// a local file source's absolute path; nil gives workspace-relative paths only.
	Workspace func(ctx context.Context, conversationID string) (string, error)
	// Logger receives the SDK's and the server's logs; nil discards them. It must not write
	// to the transport's stream (stdout for stdio).
	Logger *slog.Logger
}

// ErrResearchDisabled is the error a call of ask_research gets when the server was started
// without research (Options.Research nil; `artifactflow mcp serve` without
// --allow-research).
var ErrResearchDisabled = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
	Message: "ask_research is disabled: it runs research (model calls at the user's cost, web requests); " +
		"the user can enable it by starting the server with `artifactflow mcp serve --allow-research`"}

// instructions tell the client's model what the server offers.
const instructions = `This server is the user's ArtifactFlow research library: past research questions, ` +
	`the answers, the artifacts (reports, task plans, uploaded files) and the numbered sources the answers cite. ` +
	`Use search_research to find earlier work by words in any language, list_conversations to browse, ` +
	`read_artifact to read a report (or an older version of it) and list_sources to resolve the [n] citations of an answer. ` +
	`ask_research, when offered, runs a new research: it takes minutes and costs the user's model calls, so search first.`

// private is the cache control of every result: private to the user, stale at once.
var private = mcp.Cacheable{TTLMs: 0, CacheScope: "private"}

// server holds what the handlers need.
type server struct {
	db   *store.DB
	opts Options
	log  *slog.Logger
}

// New returns the MCP server over db with the library's tools and resources, and
// ask_research when opts.Research is set. Run it with (*mcp.Server).Run on a transport.
// The handlers only read db; ask_research writes through the Researcher.
func New(db *store.DB, opts Options) *mcp.Server {
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &server{db: db, opts: opts, log: opts.Logger}
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "ArtifactFlow research library", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			Logger:       opts.Logger,
			// The lists never change while the server runs; no logging capability.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
			// The library is the user's own: no cache but the requesting user's may keep a
			// result, and none for long, since research goes on beside the server.
			SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { *c = private },
		})
	s.addTools(srv)
	s.addResources(srv)
	srv.AddReceivingMiddleware(s.middleware)
	return srv
}

// middleware answers what the SDK's own handlers cannot: resources/list from the database
// (the most recent conversations and their artifacts, not a fixed set) and a call of
// ask_research when research is off, with ErrResearchDisabled instead of "unknown tool".
func (s *server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list":
			return s.listResources(ctx)
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok && s.opts.Research == nil && r.Params != nil && r.Params.Name == ToolAsk {
				return nil, ErrResearchDisabled
			}
		}
		return next(ctx, method, req)
	}
}

package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"artifactflow/backend/events"
	"artifactflow/backend/sources"
)

// AskInput is ask_research's arguments.
type AskInput struct {
	Question       string `json:"question" jsonschema:"The research question, in any language. The research searches the web (and the conversation's local files), reads pages and writes a report; it takes minutes."`
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"Continue this conversation: its earlier questions, answers and artifacts are the context. Omit to start a new conversation."`
}

// ArtifactRef names an artifact of the conversation ask_research ran in, to read with
// read_artifact or through URI.
type ArtifactRef struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	ContentType string `json:"content_type"`
	Version     int    `json:"version"`
	URI         string `json:"uri"`
}

// AskOutput is ask_research's result: the answer of a completed research, the sources
// it cites or its run recorded (in number order), and the conversation's artifacts.
type AskOutput struct {
	ConversationID string        `json:"conversation_id"`
	MessageID      string        `json:"message_id"`
	Answer         string        `json:"answer"`
	Sources        []SourceInfo  `json:"sources"`
	Artifacts      []ArtifactRef `json:"artifacts"`
	URI            string        `json:"uri" jsonschema:"The conversation as a resource."`
}

// progressClip is how many characters of an instruction or tool parameters a progress
// message shows.
const progressClip = 100

func (s *server) addAsk(srv *mcp.Server) {
	f, t := false, true
	mcp.AddTool(srv, &mcp.Tool{Name: ToolAsk, OutputSchema: outputSchema[AskOutput](),
		Annotations: &mcp.ToolAnnotations{Title: "Run a research", ReadOnlyHint: false, DestructiveHint: &f, OpenWorldHint: &t},
		Description: "Runs a new research with the user's ArtifactFlow settings (their model and search provider): agents " +
			"search the web, read pages and write a report. Takes minutes and costs model calls; reports progress when " +
			"the request carries a progressToken. Returns the answer, the numbered sources it cites ([n]) and the " +
			"conversation's artifacts (read them with read_artifact). The research is saved in the user's library.",
		InputSchema: inputSchema[AskInput](func(p map[string]*jsonschema.Schema) {
			nonEmpty(p["question"])
		})}, s.ask)
}

// ask runs ask_research: one research run through Options.Research, its events sent as
// progress notifications when the client gave a progress token; the client's cancellation
// (ctx) stops the run.
func (s *server) ask(ctx context.Context, req *mcp.CallToolRequest, in AskInput) (*mcp.CallToolResult, AskOutput, error) {
	token := req.Params.GetProgressToken()
	var mu sync.Mutex
	sent := 0
	onEvent := func(ev events.Event) {
		if token == nil {
			return
		}
		msg := progressMessage(ev)
		if msg == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		sent++
		if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(sent), Message: msg}); err != nil {
			s.log.Debug("mcpserve: progress notification not sent", "err", err)
		}
	}
	res, err := s.opts.Research.Research(ctx, in.ConversationID, strings.TrimSpace(in.Question), onEvent)
	if err != nil {
		return nil, AskOutput{}, fmt.Errorf("the research could not start: %w", err)
	}
	if res.Status != events.Complete {
		why := "unknown reason"
		if res.Err != nil {
			why = res.Err.Error()
		}
		return nil, AskOutput{}, fmt.Errorf("the research ended without an answer (%s: %s); conversation_id %s keeps what it did", res.Status, why, res.ConversationID)
	}
	out := AskOutput{ConversationID: res.ConversationID, MessageID: res.MessageID, Answer: res.Response,
		Sources: []SourceInfo{}, Artifacts: []ArtifactRef{}, URI: ConversationURI(res.ConversationID)}
	// What the run stored is read back with a context of its own: the answer is in hand
	// even when the client has gone.
	rctx := context.WithoutCancel(ctx)
	list, err := s.db.Sources(rctx, res.ConversationID)
	if err != nil {
		return nil, AskOutput{}, fmt.Errorf("ask_research: the answer's sources: %w", err)
	}
	cited := sources.Cited(res.Response)
	var mine []sources.Source
	for _, src := range list {
		if src.MessageID == res.MessageID || slices.Contains(cited, src.N) {
			mine = append(mine, src)
		}
	}
	out.Sources = s.sourceInfos(rctx, res.ConversationID, mine)
	arts, err := s.db.ArtifactSummaries(rctx, []string{res.ConversationID})
	if err != nil {
		return nil, AskOutput{}, fmt.Errorf("ask_research: the conversation's artifacts: %w", err)
	}
	for _, a := range arts {
		out.Artifacts = append(out.Artifacts, ArtifactRef{ID: a.ID, Title: a.Title, ContentType: a.ContentType,
			Version: a.CurrentVersion, URI: ArtifactURI(res.ConversationID, a.ID)})
	}

	// The answer ends with the sources it cites (the engine's footer); the text adds the
	// others the run recorded, which the structured result holds with the cited ones.
	var b strings.Builder
	b.WriteString(strings.TrimSpace(res.Response))
	head := "\n\nOther sources this research recorded:\n"
	if len(cited) == 0 {
		head = "\n\nSources this research recorded:\n"
	}
	for _, si := range out.Sources {
		if !slices.Contains(cited, si.N) {
			b.WriteString(head + sourceLine(si) + "\n")
			head = ""
		}
	}
	if len(out.Artifacts) > 0 {
		fmt.Fprintf(&b, "\nArtifacts (read_artifact with conversation_id %s):\n", res.ConversationID)
		for _, a := range out.Artifacts {
			fmt.Fprintf(&b, "- %s %q, version %d\n", a.ID, oneLine(a.Title), a.Version)
		}
	}
	return textResult(b.String()), out, nil
}

// progressMessage is the progress line for one event of a research run, "" for events
// not worth one (model output chunks, bookkeeping).
func progressMessage(ev events.Event) string {
	switch ev.Type {
	case events.SubagentInstruction:
		var d events.DataSubagentInstruction
		_ = json.Unmarshal(ev.Data, &d)
		return fmt.Sprintf("%s → %s: %s", ev.AgentName, d.Target, clip(d.Instruction, progressClip))
	case events.ToolStart:
		var d events.DataToolStart
		_ = json.Unmarshal(ev.Data, &d)
		if d.Tool == "call_subagent" { // its instruction is the next event
			return ""
		}
		return fmt.Sprintf("%s · %s %s", ev.AgentName, d.Tool, clip(string(d.Params), progressClip))
	case events.ToolComplete:
		var d events.DataToolComplete
		_ = json.Unmarshal(ev.Data, &d)
		if d.Success {
			return ""
		}
		return fmt.Sprintf("%s · %s failed: %s", ev.AgentName, d.Tool, clip(d.Error, progressClip))
	case events.PermissionResult:
		var d events.DataPermissionResult
		_ = json.Unmarshal(ev.Data, &d)
		return fmt.Sprintf("%s · %s: %s (set to confirm in Settings)", ev.AgentName, d.Tool, d.Decision)
	case events.ArtifactChanged:
		var d events.DataArtifactChanged
		_ = json.Unmarshal(ev.Data, &d)
		if d.Declared != nil || d.Artifact.ID == "" {
			return ""
		}
		return fmt.Sprintf("artifact %s v%d (%s)", d.Artifact.ID, d.Artifact.Version, d.Artifact.UpdateType)
	case events.CompactionStart:
		return ev.AgentName + " · compacting its context"
	case events.Complete:
		return "research complete"
	}
	return ""
}

// clip returns s on one line, cut to n characters with "…".
func clip(s string, n int) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

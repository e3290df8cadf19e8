package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/useragents"
)

// reviewerFile is a user-defined agent as a user writes it: a reviewer with only
// read_artifact and its own model.
const reviewerFile = `---
name: reviewer
description: Reviews a draft artifact for unsupported claims. Give it the artifact's id.
tools: [read_artifact]
model: reviewer-model
max_rounds: 3
---

You are reviewer. REVIEWER-INSTRUCTIONS: read the artifact you are given and list its unsupported claims.
`

// reviewerWorld scripts the model: the lead writes a draft, calls reviewer on it (when
// its system prompt offers reviewer; else it answers at once) and answers with the
// reviewer's report; reviewer reads the draft, then reports what it read. Every request
// is kept, by the agent that made it.
type reviewerWorld struct {
	*apptest.World
	mu   sync.Mutex
	reqs map[string][]openai.ChatCompletionRequest
}

func newReviewerWorld(t *testing.T) *reviewerWorld {
	rw := &reviewerWorld{reqs: map[string][]openai.ChatCompletionRequest{}}
	rw.World = apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			results := apptest.ToolResults(req)
			rw.mu.Lock()
			defer rw.mu.Unlock()
			if llmtest.SystemContains(req, "You are reviewer") {
				rw.reqs["reviewer"] = append(rw.reqs["reviewer"], req)
				if len(results) == 0 {
					return w.ToolCall("read_artifact", map[string]any{"id": "draft"})
				}
				return llmtest.Reply{Content: "REVIEW: unsupported: " + results[0]}
			}
			rw.reqs["lead_agent"] = append(rw.reqs["lead_agent"], req)
			if !llmtest.SystemContains(req, "- reviewer:") {
				return llmtest.Reply{Content: "No reviewer today."}
			}
			switch len(results) {
			case 0:
				return w.ToolCall("create_artifact", map[string]any{"id": "draft", "content_type": "markdown", "title": "Draft",
					"content": "The Moon is made of cheese."})
			case 1:
				return w.ToolCall("call_subagent", map[string]any{"agent_name": "reviewer", "instruction": "Review the artifact draft."})
			default:
				return llmtest.Reply{Content: "Answer. " + results[len(results)-1]}
			}
		}
	})
	return rw
}

func (rw *reviewerWorld) requests(agent string) []openai.ChatCompletionRequest {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return slices.Clone(rw.reqs[agent])
}

func writeAgentFile(t *testing.T, dataDir, name, content string) {
	t.Helper()
	dir := useragents.Dir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// metadataOf returns the metadata event of the run res started, as stored.
func metadataOf(t *testing.T, core *Core, res SendResult) events.DataMetadata {
	t.Helper()
	evs, err := core.Store().PathEvents(context.Background(), res.ConversationID, []string{res.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == events.Metadata {
			var md events.DataMetadata
			if err := json.Unmarshal(ev.Data, &md); err != nil {
				t.Fatal(err)
			}
			return md
		}
	}
	t.Fatal("the run has no metadata event")
	return events.DataMetadata{}
}

// TestUserAgentReviewer (acceptance): an agent file in <data-dir>/agents/ — a reviewer with
// only read_artifact and its own model — is called by the scripted lead over HTTP. The
// reviewer's requests carry its instructions as the system prompt, exactly read_artifact
// as tools, and its model name; its report reaches the lead, whose answer holds it; the
// lead was offered reviewer with its description.
func TestUserAgentReviewer(t *testing.T) {
	rw := newReviewerWorld(t)
	writeAgentFile(t, rw.DataDir, "reviewer.md", reviewerFile)
	core := newCore(t, rw.World)
	ev, res := runToEnd(t, core, "Is the Moon made of cheese?")
	if ev.Type != events.Complete {
		t.Fatalf("the run ended %s %s", ev.Type, ev.Data)
	}
	revs := rw.requests("reviewer")
	if len(revs) != 2 {
		t.Fatalf("reviewer made %d requests; want 2", len(revs))
	}
	for i, r := range revs {
		if r.Model != "reviewer-model" {
			t.Errorf("reviewer request %d: model %q; want reviewer-model", i, r.Model)
		}
		var tools []string
		for _, tl := range r.Tools {
			tools = append(tools, tl.Function.Name)
		}
		if !slices.Equal(tools, []string{"read_artifact"}) {
			t.Errorf("reviewer request %d: tools %v; want exactly read_artifact", i, tools)
		}
		if !strings.HasPrefix(r.Messages[0].Content, "You are reviewer. REVIEWER-INSTRUCTIONS:") {
			t.Errorf("reviewer request %d: system prompt %q; want the file's instructions", i, r.Messages[0].Content)
		}
	}
	var answer string
	if err := json.Unmarshal(ev.Data, &struct {
		Response *string `json:"response"`
	}{&answer}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer, "REVIEW: unsupported:") || !strings.Contains(answer, "made of cheese") {
		t.Errorf("the answer %q does not carry the reviewer's report", answer)
	}
	lead := rw.requests("lead_agent")[0]
	if lead.Model != "test-model" || !llmtest.SystemContains(lead, "- reviewer: Reviews a draft artifact for unsupported claims.") {
		t.Errorf("the lead (model %q) was not offered reviewer with its description:\n%s", lead.Model, lead.Messages[0].Content)
	}
	if md := metadataOf(t, core, res); len(md.Warnings) != 0 {
		t.Errorf("warnings for a valid file: %q", md.Warnings)
	}
}

// TestUserAgentBrokenFileSkipped: a broken agent file beside a valid one does not stop
// the run: the run completes with the valid agent, the broken one is not offered, and the
// run's metadata event (sent to the window and stored) says which file is skipped and why,
// with its line.
func TestUserAgentBrokenFileSkipped(t *testing.T) {
	rw := newReviewerWorld(t)
	writeAgentFile(t, rw.DataDir, "reviewer.md", reviewerFile)
	writeAgentFile(t, rw.DataDir, "broken.md", "---\nname: broken\ndescription: Broken.\ntools: [read_artifact, no_such_tool]\n---\nBody.\n")
	core := newCore(t, rw.World)
	var sent []string
	var mu sync.Mutex
	defer core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.Metadata {
			mu.Lock()
			sent = append(sent, string(ev.Data))
			mu.Unlock()
		}
	}))()
	ev, res := runToEnd(t, core, "Is the Moon made of cheese?")
	if ev.Type != events.Complete {
		t.Fatalf("the run ended %s %s", ev.Type, ev.Data)
	}
	if len(rw.requests("reviewer")) == 0 {
		t.Error("the valid agent did not run beside the broken file")
	}
	if lead := rw.requests("lead_agent")[0]; llmtest.SystemContains(lead, "- broken:") {
		t.Error("the lead was offered the broken agent")
	}
	md := metadataOf(t, core, res)
	if len(md.Warnings) != 1 || !strings.HasPrefix(md.Warnings[0], `broken.md:4: tools: unknown tool "no_such_tool"`) ||
		!strings.Contains(md.Warnings[0], "skipped") {
		t.Errorf("stored warnings %q; want broken.md's problem with its line", md.Warnings)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) != 1 || !strings.Contains(sent[0], "broken.md:4") {
		t.Errorf("metadata sent to the window %q; want the warning", sent)
	}
}

// TestUserAgentChangeAppliesToNextRun: an agent file saved in Settings (SaveUserAgent)
// applies to the next run without a restart: its new model and instructions are what the
// reviewer sends; once deleted (DeleteUserAgent) the next run's lead is not offered it.
func TestUserAgentChangeAppliesToNextRun(t *testing.T) {
	rw := newReviewerWorld(t)
	writeAgentFile(t, rw.DataDir, "reviewer.md", strings.Replace(reviewerFile, "model: reviewer-model", "model: inherit", 1))
	core := newCore(t, rw.World)
	svc := &SettingsService{core}
	if ev, _ := runToEnd(t, core, "first"); ev.Type != events.Complete {
		t.Fatalf("first run ended %s %s", ev.Type, ev.Data)
	}
	first := rw.requests("reviewer")
	if len(first) == 0 {
		t.Fatal("first run: the reviewer did not run")
	}
	if first[0].Model != "test-model" {
		t.Fatalf("first run: reviewer's model %q; want the sub-agents' model test-model", first[0].Model)
	}
	changed := strings.Replace(strings.Replace(reviewerFile, "REVIEWER-INSTRUCTIONS", "CHANGED-INSTRUCTIONS", 1), "model: reviewer-model", "model: reviewer-model-2", 1)
	problems, err := svc.SaveUserAgent("reviewer.md", changed)
	if err != nil || len(problems) != 0 {
		t.Fatalf("save: %v %v", problems, err)
	}
	if ev, _ := runToEnd(t, core, "second"); ev.Type != events.Complete {
		t.Fatalf("second run ended %s %s", ev.Type, ev.Data)
	}
	second := rw.requests("reviewer")[len(first):]
	if len(second) == 0 {
		t.Fatal("second run: the reviewer did not run")
	}
	if second[0].Model != "reviewer-model-2" || !strings.Contains(second[0].Messages[0].Content, "CHANGED-INSTRUCTIONS") {
		t.Fatalf("second run: the reviewer did not use the saved file: model %q, system prompt %q", second[0].Model, second[0].Messages[0].Content)
	}
	if err := svc.DeleteUserAgent("reviewer.md"); err != nil {
		t.Fatal(err)
	}
	if ev, _ := runToEnd(t, core, "third"); ev.Type != events.Complete {
		t.Fatalf("third run ended %s %s", ev.Type, ev.Data)
	}
	leads := rw.requests("lead_agent")
	if last := leads[len(leads)-1]; llmtest.SystemContains(last, "- reviewer:") {
		t.Error("the lead was offered the deleted agent")
	}
}

// TestUserAgentBindings: Settings → Agents' methods. NewUserAgent creates <name>.md from
// the template (a valid agent, listed), refuses a built-in agent's name (validation, field
// name) and a name taken (conflict); SaveUserAgent keeps content with problems and returns
// them with their lines; UserAgents lists the built-in agents with their tools and every
// file with its problems; ReadUserAgent reads a file back; names that are paths are
// invalid_request and missing files not_found.
func TestUserAgentBindings(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	svc := &SettingsService{core}
	file, err := svc.NewUserAgent("fact-checker")
	if err != nil || file != "fact-checker.md" {
		t.Fatalf("NewUserAgent: %q %v", file, err)
	}
	for name, code := range map[string]string{"search_agent": CodeValidation, "Fact Checker": CodeValidation, "fact-checker": CodeConflict} {
		_, err := svc.NewUserAgent(name)
		if ae := ToAppError(err); ae == nil || ae.Code != code || (code == CodeValidation && ae.Fields["name"] == "") {
			t.Errorf("NewUserAgent(%q) = %v; want %s", name, ae, code)
		}
	}
	bad := "---\nname: broken\ndescription: Broken.\nmax_rounds: 99\n---\nBody.\n"
	problems, err := svc.SaveUserAgent("broken.md", bad)
	if err != nil || len(problems) != 1 || problems[0].Line != 4 || problems[0].Field != "max_rounds" ||
		!strings.HasPrefix(problems[0].Text, "broken.md:4: max_rounds:") {
		t.Fatalf("SaveUserAgent of a broken file: %+v %v", problems, err)
	}
	if got, err := svc.ReadUserAgent("broken.md"); err != nil || got != bad {
		t.Errorf("ReadUserAgent: %q %v; want the content as saved", got, err)
	}
	v, err := svc.UserAgents()
	if err != nil {
		t.Fatal(err)
	}
	if len(v.BuiltIn) != 3 || v.BuiltIn[1].Name != "search_agent" || !slices.Contains(v.BuiltIn[1].Tools, "web_search") {
		t.Errorf("built-in agents %+v", v.BuiltIn)
	}
	if len(v.User) != 2 || v.User[0].File != "broken.md" || len(v.User[0].Problems) != 1 ||
		v.User[1].File != "fact-checker.md" || v.User[1].Name != "fact-checker" || len(v.User[1].Problems) != 0 || v.User[1].Model != "inherit" {
		t.Errorf("user agents %+v", v.User)
	}
	if v.Dir != filepath.Join(w.DataDir, "agents") || slices.Contains(v.Tools, "call_subagent") || !slices.Contains(v.Tools, "read_artifact") {
		t.Errorf("folder %q, tools %v", v.Dir, v.Tools)
	}
	for _, name := range []string{"../config.json", "a/b.md", ".hidden.md"} {
		if _, err := svc.ReadUserAgent(name); ToAppError(err).Code != CodeInvalidRequest {
			t.Errorf("ReadUserAgent(%q) = %v; want invalid_request", name, err)
		}
		if _, err := svc.SaveUserAgent(name, reviewerFile); ToAppError(err).Code != CodeInvalidRequest {
			t.Errorf("SaveUserAgent(%q) = %v; want invalid_request", name, err)
		}
	}
	if err := svc.DeleteUserAgent("fact-checker.md"); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteUserAgent("fact-checker.md"); ToAppError(err).Code != CodeNotFound {
		t.Errorf("deleting a deleted file: %v; want not_found", err)
	}
	if _, err := svc.ReadUserAgent("fact-checker.md"); ToAppError(err).Code != CodeNotFound {
		t.Errorf("reading a deleted file: %v; want not_found", err)
	}
}

// TestUserAgentModelSettings: an agent's own model runs on the sub-agents' endpoint with
// their tool-call mode (here a server of their own, in xml mode), never on the top-level
// one, and with the context window and compaction threshold Settings give that model name.
func TestUserAgentModelSettings(t *testing.T) {
	top := newReviewerWorld(t)
	sub := newReviewerWorld(t)
	writeAgentFile(t, top.DataDir, "reviewer.md", reviewerFile)
	if err := config.Save(top.DataDir, config.Settings{BaseURL: top.Model.URL(), Model: "test-model", SearxngURL: top.Searx.URL,
		AllowPrivateNetwork: true, SubAgents: config.AgentModel{BaseURL: sub.Model.URL(), Model: "sub-model", ToolCallMode: "xml"},
		Models: map[string]config.ModelContext{"reviewer-model": {ContextWindow: 5000, CompactAtPercent: 60}}}); err != nil {
		t.Fatal(err)
	}
	core, _ := newSettingsCore(t, top.DataDir)
	d, err := core.deps()
	if err != nil {
		t.Fatal(err)
	}
	am, ok := d.AgentModels["reviewer-model"]
	if !ok || am.Name != "reviewer-model" || am.Mode != toolcall.ModeXML || am.ContextWindow != 5000 || am.CompactAt != 0.6 {
		t.Fatalf("the reviewer's model %+v (found %v); want reviewer-model, xml, 5000 tokens, 60%%", am, ok)
	}
	if ev, _ := runToEnd(t, core, "Is the Moon made of cheese?"); ev.Type != events.Complete {
		t.Fatalf("the run ended %s %s", ev.Type, ev.Data)
	}
	if n := len(top.requests("reviewer")); n != 0 {
		t.Errorf("the top-level endpoint got %d reviewer requests; want none", n)
	}
	revs := sub.requests("reviewer")
	if len(revs) == 0 {
		t.Fatal("the sub-agents' endpoint got no reviewer request")
	}
	if r := revs[0]; r.Model != "reviewer-model" || len(r.Tools) != 0 || !llmtest.SystemContains(r, "<tool_call>") {
		t.Errorf("reviewer's request: model %q, %d native tools, xml instructions %v; want reviewer-model in xml mode",
			r.Model, len(r.Tools), llmtest.SystemContains(r, "<tool_call>"))
	}
}

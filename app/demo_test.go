package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
)

// TestDemoData fills the data directory named by AF_DEMO_DIR for screenshots of the real
// window (`artifactflow --data-dir $AF_DEMO_DIR`): a finished research run on the Moon with
// a user edit of its report (two versions to compare) and an uploaded file; and a battery
// conversation whose first run compacted its context (the compaction marker) and whose
// follow-up question was edited and resent (the branch navigator at 2/2). Skipped unless
// AF_DEMO_DIR is set.
func TestDemoData(t *testing.T) {
	dir := os.Getenv("AF_DEMO_DIR")
	if dir == "" {
		t.Skip("set AF_DEMO_DIR to a new directory to create demo data in it")
	}
	w := apptest.NewWorld(t, "native", nil)
	w.DataDir, _ = filepath.Abs(dir)
	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides()})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := core.eng.Ask(context.Background(), engine.Request{Content: apptest.Question}); err != nil || res.Status != events.Complete {
		t.Fatalf("research run: %+v, %v", res, err)
	}
	convs, err := (&ConversationService{core}).List()
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations = %+v, %v", convs, err)
	}
	conv := convs[0].ID
	svc := &ArtifactService{core}
	cur, err := svc.Get(conv, "research_report")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(cur.Content, "384,400 km.", "384,400 km, about 1.28 light-seconds.", 1) + "\n\n## Why it varies\n\nThe orbit is elliptical: about 363,300 km at perigee and 405,500 km at apogee.\n"
	if _, err := svc.Save(conv, "research_report", cur.Version, edited); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Upload(conv, []UploadFile{{Name: "my notes.md", Data: []byte("# My notes\n\n- Check the Apollo retroreflector data\n- Compare with NASA's figure\n")}})
	if err != nil || res[0].Error != "" {
		t.Fatalf("upload = %+v, %v", res, err)
	}
	_ = core.Close(context.Background())

	demoBatteries(t, w.DataDir)
}

// demoBatteries runs the battery conversation against a model whose context window is
// small enough (2,048 tokens) that the first run's report pushes the lead past 80% and
// compacts; then a follow-up, and the follow-up edited and resent as a second branch.
func demoBatteries(t *testing.T, dataDir string) {
	srv := llmtest.NewServer(t, batteryModel)
	overrides := config.Settings{BaseURL: srv.URL(), Model: "demo-model",
		Models: map[string]config.ModelContext{"demo-model": {ContextWindow: 2048}}}
	core, err := NewCore(context.Background(), Options{DataDir: dataDir, Overrides: overrides})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close(context.Background())
	chat := &ChatService{core}
	send := func(req SendRequest) SendResult {
		t.Helper()
		r, err := chat.Send(req)
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(core, r.ConversationID)
		return r
	}
	first := send(SendRequest{Content: "Home battery: lithium iron phosphate or sodium-ion?"})
	followUp := send(SendRequest{ConversationID: first.ConversationID, Content: "How do they cope with cold winters?"})
	send(SendRequest{ConversationID: first.ConversationID, Content: "How do they cope with a garage at -20 °C?", EditOf: followUp.MessageID})

	d, err := (&ConversationService{core}).Get(first.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if got := pathView(d); !strings.Contains(got, "-20 °C? <2/2>") {
		t.Fatalf("battery conversation path = %q, want the edited follow-up at 2/2", got)
	}
	h, err := (&ConversationService{core}).History(first.ConversationID, HistoryRequest{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	compacted := false
	for _, e := range h.Events {
		compacted = compacted || string(e.Type) == "compaction_summary"
	}
	if !compacted {
		t.Fatal("the battery run did not compact; raise the report's size or lower the window")
	}
	for _, m := range d.Messages {
		if m.Status != "complete" {
			t.Fatalf("battery message %q ended %s: %s", m.Content, m.Status, m.Response)
		}
	}
}

// batteryModel scripts the lead of the battery conversation from what each request holds:
// per question, the plan, the report, the ticked plan, then the answer; compaction calls
// get a 7-section summary.
func batteryModel(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
	if llmtest.SystemContains(req, "You compact the working history") {
		return llmtest.Reply{Content: batterySummary}
	}
	q, step := "", 0 // the latest question and the tool results since it
	for _, m := range req.Messages {
		switch {
		case m.Role == openai.ChatMessageRoleUser:
			q, step = m.Content, 0
		case m.Role == openai.ChatMessageRoleTool:
			step++
		}
	}
	call := func(name string, args string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("c%d", len(req.Messages)), Name: name, Arguments: args}}}
	}
	cold := strings.Contains(q, "cold") || strings.Contains(q, "°C")
	if strings.HasPrefix(q, "This conversation was compacted") { // the summary's next step
		step += 2
	}
	switch {
	case !cold && step == 0:
		return call("create_artifact", `{"id":"task_plan","content_type":"markdown","title":"Task plan","content":"# Home battery chemistry\n- [ ] Compare safety, cycle life and cost\n- [ ] Write the comparison"}`)
	case !cold && step == 1:
		return call("create_artifact", fmt.Sprintf(`{"id":"battery_comparison","content_type":"markdown","title":"LFP vs sodium-ion for home storage","content":%q}`, batteryReport))
	case !cold && step == 2:
		return call("rewrite_artifact", `{"id":"task_plan","content":"# Home battery chemistry\n- [x] Compare safety, cycle life and cost\n- [x] Write the comparison"}`)
	case !cold:
		return llmtest.Reply{Content: "For a home battery today, **LFP** is the safer buy: mature, widely sold and warrantied for 6,000+ cycles. " +
			"Sodium-ion is promising, cheaper in materials and better in the cold, but few home products ship with it yet. See *battery_comparison* for the details.",
			Reasoning: "Weigh maturity against material cost."}
	case step == 0:
		return call("update_artifact", `{"id":"battery_comparison","old_str":"## Verdict","new_str":"## In the cold\n\nSodium-ion keeps most of its capacity well below freezing; LFP cells must be warmed before they charge below 0 °C.\n\n## Verdict"}`)
	default:
		if strings.Contains(q, "-20") {
			return llmtest.Reply{Content: "At -20 °C an LFP battery needs its built-in heater before it can charge, which costs energy; sodium-ion charges slowly but safely without one. For an unheated garage, look for an LFP system with cell heating, or a sodium-ion system once one is sold where you live."}
		}
		return llmtest.Reply{Content: "Both cope if installed indoors. Outdoors, sodium-ion loses less capacity in the cold, while LFP needs heating to charge below freezing."}
	}
}

const batterySummary = `## 1. Primary request and intent
The user asked: "Home battery: lithium iron phosphate or sodium-ion?"
## 2. Artifacts and documents
task_plan (2 items), battery_comparison (the comparison, complete draft).
## 3. Tool interactions
create_artifact task_plan; create_artifact battery_comparison.
## 4. Errors and fixes
None.
## 5. Pending tasks
Tick the plan and answer.
## 6. Current work
The comparison is written.
## 7. Next step
Tick both plan items and give the user the verdict.`

var batteryReport = func() string {
	var b strings.Builder
	b.WriteString("# LFP vs sodium-ion for home storage\n\n")
	b.WriteString("| | LFP (LiFePO4) | Sodium-ion |\n|---|---|---|\n| Cycle life | 6,000-10,000 | 3,000-6,000 (early products) |\n| Energy density | 150-180 Wh/kg | 100-160 Wh/kg |\n| Cold charging | needs heating below 0 °C | works to about -20 °C |\n| Materials | lithium, iron, phosphate | sodium, no lithium or cobalt |\n| Availability | widely sold | few home products |\n\n")
	for _, s := range []string{"Safety", "Cycle life", "Cost", "Availability"} {
		fmt.Fprintf(&b, "## %s\n\n", s)
		for i := 0; i < 4; i++ {
			fmt.Fprintf(&b, "%s matters for a home battery that sits in a hallway or garage for fifteen years. Point %d: compare the warranty terms, the certified standards (IEC 62619, UL 9540A) and what the installer will service locally before comparing prices per kilowatt-hour. ", s, i+1)
		}
		b.WriteString("\n\n")
	}
	b.WriteString("## Verdict\n\nBuy LFP today; watch sodium-ion for unheated spaces.\n")
	return b.String()
}()

package windowtest

import (
	"fmt"
	"image"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm/llmtest"
)

// recordedURL is the dataset page the scripted lead records in TestWindowRecordArtifact.
const recordedURL = "https://data.example.org/global-temperature"

// TestWindowRecordArtifact drives a research run in the real desktop window under Xvfb: the
// scripted model's lead calls record_artifact for a dataset's page, the link appears in
// the panel's "Links & files", and a click on it opens the URL in the system browser (the
// session's stand-in xdg-open records what it was asked to open; the app itself never
// requests the URL). The screenshot is window-record-artifact.png.
func TestWindowRecordArtifact(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	model := llmtest.NewServer(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if len(toolResults(req)) == 0 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_rec", Name: "record_artifact",
				Arguments: `{"title":"Global temperature dataset","url":"` + recordedURL + `","kind":"link","description":"Monthly anomalies since 1850","metadata":{"resourceType":"dataset"}}`}}}
		}
		return llmtest.Reply{Content: "I recorded the global temperature dataset in Links & files."}
	})
	dataDir := t.TempDir()
	s.launch("--data-dir", dataDir, "--base-url", model.URL(), "--model", "test-model", "--api-key", "sk-test")
	s.ask("Where can I get global temperature data?")

	db := openDB(t, dataDir)
	waitFor(s.ctx, t, 30*time.Second, "the recorded link in the database", func() bool {
		var n int
		return db.QueryRowContext(s.ctx, `SELECT count(*) FROM declared_artifacts WHERE url = ? AND source = 'tool' AND tool_name = 'record_artifact'`, recordedURL).Scan(&n) == nil && n == 1
	})
	waitRuns(s.ctx, t, db, 1, 30*time.Second)
	img, _ := s.pollShot("window-record-artifact.png", 5*time.Second, func(img image.Image) bool {
		_, ok := firstAccentPixel(img, image.Rect(895, 250, 935, 800))
		return ok // the panel applied the event
	})
	// The link is the only item of Links & files in the right column of the 1280x900
	// window (docs/window-record-artifact.png). Its icon is the first accent-coloured
	// pixel of the column's left edge below the panel's header rows (the Research folder
	// bar, the task plan and the tabs move it as the panel grows); its title sits on the
	// same row, about 125 px right of the icon.
	icon, ok := firstAccentPixel(img, image.Rect(895, 250, 935, 800))
	if !ok {
		t.Fatal("no link icon in Links & files (window-record-artifact.png)")
	}
	s.xdo("mousemove", fmt.Sprint(icon.X+125), fmt.Sprint(icon.Y+6))
	s.xdo("click", "1")
	s.waitOpened(recordedURL)
}

package browser

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
)

// barChart draws a w×h PNG bar chart whose bars have the colours given.
func barChart(t *testing.T, w, h int, bars ...color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(20, h-22, w-20, h-20), image.NewUniform(color.Gray{90}), image.Point{}, draw.Src) // axis
	step := (w - 40) / len(bars)
	for i, c := range bars {
		top := h - 22 - (i+1)*(h-60)/len(bars)
		draw.Draw(img, image.Rect(20+i*step+step/5, top, 20+(i+1)*step-step/5, h-22), image.NewUniform(c), image.Point{}, draw.Src)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pictureURLs returns the image_url parts of the user messages of req.
func pictureURLs(req openai.ChatCompletionRequest) []string {
	var out []string
	for _, m := range req.Messages {
		for _, p := range m.MultiContent {
			if m.Role == openai.ChatMessageRoleUser && p.Type == openai.ChatMessagePartTypeImageURL && p.ImageURL != nil {
				out = append(out, p.ImageURL.URL)
			}
		}
	}
	return out
}

// TestBrowserE2EQuestionImages runs the real frontend in headless Chromium against browser
// mode (frontend/e2e/question-images.mjs): a chart pasted into the composer shows as a
// chip, goes with the question and shows in the sent question above the model's answer;
// a second chart dropped onto the composer goes with a follow-up. The model (vision on
// for it in Settings) receives each picture as an image part, the first again with the
// follow-up. The page's screenshot of the answered picture question is written to
// AF_SHOTS/window-image-question.png when AF_SHOTS is set. Needs AF_E2E=1 and a built
// frontend, like TestBrowserE2E.
func TestBrowserE2EQuestionImages(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	const answer = "The chart shows three bars rising from left to right: each year is higher than the one before."
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return func(openai.ChatCompletionRequest, int) llmtest.Reply { return llmtest.Reply{Content: answer} }
	})
	core, srv, hs := newBrowserServer(t, w, dist)
	settings := core.Services().Settings
	v, err := settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := settings.Save(app.SettingsInput{Revision: v.Revision, BaseURL: v.BaseURL, Model: v.Model, ToolCallMode: v.ToolCallMode,
		SearxngURL: v.SearxngURL, AllowPrivateNetwork: v.AllowPrivateNetwork, MaxUploadMB: v.MaxUploadMB, ContextWindow: v.ContextWindow,
		CompactAtPercent: v.CompactAtPercent, ToolPermissions: v.ToolPermissions, PermissionTimeoutSeconds: v.PermissionTimeoutSeconds,
		Vision: &on}); err != nil {
		t.Fatal(err)
	}
	first := barChart(t, 480, 300, color.RGBA{58, 91, 199, 255}, color.RGBA{88, 140, 220, 255}, color.RGBA{230, 126, 34, 255})
	second := barChart(t, 300, 200, color.RGBA{39, 174, 96, 255}, color.RGBA{192, 57, 43, 255})
	shots := os.Getenv("AF_SHOTS")
	env := []string{"AF_ANSWER=" + answer, "AF_PNG_PASTE=" + base64.StdEncoding.EncodeToString(first),
		"AF_PNG_DROP=" + base64.StdEncoding.EncodeToString(second)}
	if shots != "" {
		env = append(env, "AF_SHOT="+filepath.Join(shots, "window-image-question.png"))
	}
	if err := runScript(t, 3*time.Minute, "question-images.mjs", hs.URL+"/?token="+srv.Token(), nil, env...); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}

	url := func(b []byte) string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b) }
	reqs := w.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want one per question", len(reqs))
	}
	if got := pictureURLs(reqs[0]); len(got) != 1 || got[0] != url(first) {
		t.Errorf("the pasted chart's question carried %d pictures (want the chart as pasted)", len(got))
	}
	if got := pictureURLs(reqs[1]); len(got) != 2 || got[0] != url(first) || got[1] != url(second) {
		t.Errorf("the follow-up carried %d pictures (want the pasted chart with its question, then the dropped one)", len(got))
	}
}

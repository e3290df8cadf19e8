package windowtest

import (
	"fmt"
	"image"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
)

// recordingModel is a scripted model that answers "Noted." and keeps the model name of
// every request it receives.
type recordingModel struct {
	*llmtest.Server
	mu     sync.Mutex
	models []string
}

func newRecordingModel(t *testing.T) *recordingModel {
	m := &recordingModel{}
	m.Server = llmtest.NewServer(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		m.mu.Lock()
		m.models = append(m.models, req.Model)
		m.mu.Unlock()
		return llmtest.Reply{Content: "Noted."}
	})
	return m
}

// seen returns the model names requested so far.
func (m *recordingModel) seen() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.models...)
}

// TestWindowSettingsFlags checks flag-overridden settings in the real window. config.json
// stores the base URL of endpoint A and the model saved-model; the window starts with
// --model some-model. The first question reaches A asking for some-model (the flag wins).
// In Settings (Ctrl+,) the fields are found by Tab and told apart by their value (Ctrl+A,
// Ctrl+C, read with xclip): the Model field holds the flag's some-model and is read-only
// (typing into it leaves the value unchanged); window-settings-flags.png shows it with its
// "Set by --model" note. The Base URL, which no flag sets, is changed to endpoint B and
// saved; the next question goes to B at once, still asking for some-model, and config.json
// holds B's URL with the user's saved-model (the flag's value is never saved).
func TestWindowSettingsFlags(t *testing.T) {
	s := newSession(t, 2*time.Minute)
	a, b := newRecordingModel(t), newRecordingModel(t)
	dataDir := t.TempDir()
	if err := config.Save(dataDir, config.Settings{BaseURL: a.URL(), Model: "saved-model", ToolCallMode: "native"}); err != nil {
		t.Fatal(err)
	}
	s.launch("--data-dir", dataDir, "--model", "some-model")
	s.ask("First question")
	db := openDB(t, dataDir)
	waitRuns(s.ctx, t, db, 1, 30*time.Second)
	if got := a.seen(); len(got) == 0 || got[0] != "some-model" {
		t.Fatalf("endpoint A was asked for %v, want some-model (the flag)", got)
	}

	s.xdo("key", "ctrl+comma")
	dialog := image.Rect(260, 50, 1020, 850) // the Settings dialog, 760 px wide
	s.waitShot("window-settings-open.png", 10*time.Second, "Ctrl+, to open the Settings dialog", func(img image.Image) bool {
		return len(blobs(img, image.Rect(dialog.Min.X, 780, dialog.Max.X, dialog.Max.Y), accent, 800)) == 1 // Save
	})
	// The value of the focused field, by the clipboard ("" when the field is empty or
	// hides its text; only a field's first match counts below).
	value := func() string {
		t.Helper()
		return s.fieldText()
	}
	baseAt, modelAt := -1, -1
	for i := 1; i <= 8 && (baseAt < 0 || modelAt < 0); i++ {
		s.xdo("key", "Tab")
		switch v := value(); {
		case v == a.URL() && baseAt < 0:
			baseAt = i
		case v == "some-model" && modelAt < 0:
			modelAt = i
		}
	}
	if modelAt < 0 || baseAt < 0 {
		t.Fatalf("Tab through Settings: Base URL at %d, Model at %d; want a field holding %s and one holding the flag's some-model", baseAt, modelAt, a.URL())
	}
	s.xdo("type", "xyz")
	if got := value(); got != "some-model" {
		t.Errorf("typing into the Model field set by --model changed it to %q: not read-only", got)
	}
	time.Sleep(300 * time.Millisecond)
	s.shoot("window-settings-flags.png")

	// Back to Base URL, replace it with endpoint B, save.
	for i := modelAt; i > baseAt; i-- {
		s.xdo("key", "shift+Tab")
	}
	if got := value(); got != a.URL() {
		t.Fatalf("Shift+Tab back to Base URL: the field holds %q", got)
	}
	s.xdo("key", "ctrl+a")
	s.xdo("type", b.URL())
	if got := value(); got != b.URL() {
		t.Fatalf("Base URL (no flag) holds %q after typing, want %s: not editable", got, b.URL())
	}
	img := s.shoot("window-settings-edited.png")
	save := blobs(img, image.Rect(dialog.Min.X, 780, dialog.Max.X, dialog.Max.Y), accent, 800)
	if len(save) != 1 {
		t.Fatalf("no Save button at the dialog's foot: %v (window-settings-edited.png)", save)
	}
	s.xdo("mousemove", fmt.Sprint(save[0].Min.X+save[0].Dx()/2), fmt.Sprint(save[0].Min.Y+save[0].Dy()/2), "click", "1")
	waitFor(s.ctx, t, 10*time.Second, "config.json to hold endpoint B", func() bool {
		got, err := config.Load(dataDir)
		return err == nil && got.BaseURL == b.URL()
	})
	if got, _ := config.Load(dataDir); got.Model != "saved-model" {
		t.Errorf("config.json's model after Save = %q, want the user's saved-model (not the flag's)", got.Model)
	}
	s.xdo("key", "Escape")
	time.Sleep(500 * time.Millisecond)

	s.ask("Second question")
	waitRuns(s.ctx, t, db, 2, 30*time.Second)
	if got := b.seen(); len(got) == 0 || got[0] != "some-model" {
		t.Fatalf("after Save, endpoint B was asked %v; want the next run there, for some-model", got)
	}
}

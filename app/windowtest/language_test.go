package windowtest

import (
	"image"
	"image/color"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/config"
	"artifactflow/backend/llm/llmtest"
)

// The scripted conversation of TestWindowLanguage, in each language: a question, and an
// answer with a code block whose two lines have as many characters, one of narrow letters
// and one of wide ones, so a monospace font shows them equally long and a proportional one
// does not.
const (
	languageCode       = "\n\n```python\niiiiiiiiii = 1\nMMMMMMMMMM = 2\n```"
	englishQuestion    = question
	englishAnswer      = "The Moon is about 384,400 km away." + languageCode
	chineseQuestion    = "月球离地球有多远？"
	chineseAnswer      = "月球与地球的平均距离约为 384,400 公里。" + languageCode
	chineseQuestionKey = "月球"
)

// Regions of the default layout that hold only the UI's own words (not the conversation's,
// nor Latin text such as Ctrl+N): the start of the sidebar's New research button and of its
// search box, and the composer's placeholder (right of where the caret blinks).
var (
	newResearch = image.Rect(44, 84, 104, 106)
	searchBox   = image.Rect(38, 128, 96, 150)
	composer    = image.Rect(300, 785, 420, 820)
)

// TestWindowLanguage starts the real window four times on the same scripted conversation,
// asked in English or in Chinese: under an English system locale, under a Chinese one (LANG,
// LANGUAGE and LC_ALL zh_CN.UTF-8), under the English locale with config.json's language set
// to zh-CN, and under the English locale switched to 中文 in the Settings dialog. WebKitGTK
// takes navigator.languages from the C library's locale, which must exist: the test
// generates zh_CN.UTF-8 and en_US.UTF-8 with localedef into a folder of its own (LOCPATH),
// so no system locale is needed, only the locales package's sources. It checks:
//   - the layout is the same in both languages (the sidebar and the panel's edge), while
//     the UI's own text (New research, the search box, the composer's placeholder) differs;
//   - the Chinese system locale gives the same words, pixel for pixel, as Chinese stored in
//     config.json and as Chinese chosen in Settings (at once, and again after a restart):
//     the window really is in Chinese, not merely different;
//   - in both languages the answer's code block is in a monospace font (its line of ten i and
//     its line of ten M are equally long), which under a Chinese locale fontconfig once
//     replaced with a proportional CJK font.
//
// Screenshots: window-en.png and window-zh-CN.png (docs/ has both), window-zh-CN-settings.png
// (the dialog just switched), window-zh-CN-config.png, window-switch-*.png. Chinese glyphs
// need a CJK font (scripts/setup.sh test installs one when none is present).
func TestWindowLanguage(t *testing.T) {
	windowBinary(t)
	if out, _ := exec.Command("fc-list", ":lang=zh").Output(); strings.TrimSpace(string(out)) == "" {
		t.Fatal("no font with Chinese glyphs (fc-list :lang=zh): run scripts/setup.sh test")
	}
	locales := t.TempDir()
	for _, l := range []string{"zh_CN", "en_US"} {
		out, err := exec.Command("localedef", "-i", l, "-f", "UTF-8", filepath.Join(locales, l+".UTF-8")).CombinedOutput()
		if err != nil {
			t.Fatalf("localedef %s (install Debian's locales package): %v\n%s", l, err, out)
		}
	}
	english := []string{"LANG=en_US.UTF-8", "LANGUAGE=en_US:en", "LC_ALL=en_US.UTF-8", "LOCPATH=" + locales}
	chinese := []string{"LANG=zh_CN.UTF-8", "LANGUAGE=zh_CN:zh", "LC_ALL=zh_CN.UTF-8", "LOCPATH=" + locales}

	en := languageShot(t, "window-en.png", english, "", englishQuestion)
	zh := languageShot(t, "window-zh-CN.png", chinese, "", chineseQuestion)
	chosen := languageShot(t, "window-zh-CN-config.png", english, "zh-CN", chineseQuestion)

	const row = 600
	for name, img := range map[string]image.Image{"window-en.png": en, "window-zh-CN.png": zh} {
		if !sidebarShown(img, row) {
			t.Errorf("no sidebar at the window's left edge (%s)", name)
		}
	}
	if a, b := panelEdge(en, row), panelEdge(zh, row); a != b || a < 0 {
		t.Errorf("the panel starts at x=%d in English, x=%d in Chinese: the layout differs", a, b)
	}
	for name, r := range map[string]image.Rectangle{"New research": newResearch, "the search box": searchBox, "the composer": composer} {
		if n := changedPixels(en, zh, r); n < 100 {
			t.Errorf("%s: %d pixels differ between English and Chinese (%v): not translated", name, n, r)
		}
	}
	// Chinese chosen in Settings draws the same words. The system's locale also picks the
	// font of Latin text (fontconfig's sans-serif is a CJK font under zh_CN), so lines sit a
	// pixel or two apart and the composer's hints wrap differently: the sidebar's words are
	// compared, a few pixels of shift allowed.
	for name, r := range map[string]image.Rectangle{"New research": newResearch, "the search box": searchBox} {
		if n := shiftedDiff(zh, chosen, r, 3, 48); n > r.Dx()*r.Dy()/50 {
			t.Errorf("%s: %d pixels differ between the Chinese system locale and Chinese stored in config.json (%v)", name, n, r)
		}
	}
	languageSwitch(t, english, zh)
	for name, img := range map[string]image.Image{"window-en.png": en, "window-zh-CN.png": zh} {
		narrow, wide, ok := codeLineWidths(img)
		if !ok {
			t.Errorf("no code block with two lines in the conversation (%s)", name)
			continue
		}
		if d := wide - narrow; d < -4 || d > 4 {
			t.Errorf("the code block's lines are %d and %d px long: %q and %q do not line up, the code is not in a monospace font (%s)",
				narrow, wide, "iiiiiiiiii = 1", "MMMMMMMMMM = 2", name)
		}
	}
}

// languageSession asks q in a window started with env (and with config.json's language set
// to language, unless empty) and returns the session, its world and the screenshot name of
// the answered conversation. The scripted lead answers in the question's language.
func languageSession(t *testing.T, name string, env []string, language, q string) (*session, *world, image.Image) {
	t.Helper()
	s := newSession(t, 90*time.Second, env...)
	w := newWorld(t, func(w *world) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if agentOf(req) != "lead_agent" {
				return llmtest.Reply{Content: "nothing to do"}
			}
			if strings.Contains(lastUser(req), chineseQuestionKey) {
				return llmtest.Reply{Content: chineseAnswer}
			}
			return llmtest.Reply{Content: englishAnswer}
		}
	})
	if language != "" {
		if err := config.Save(w.dataDir, config.Settings{Language: language}); err != nil {
			t.Fatal(err)
		}
	}
	s.launch(w.args()...)
	s.ask(q)
	waitRuns(s.ctx, t, openDB(t, w.dataDir), 1, 30*time.Second)
	s.xdo("mousemove", "640", "600")
	img := s.waitSettled(name, image.Rect(0, 20, screenW, 880), 15*time.Second, "the answer's code block", func(img image.Image) bool {
		_, _, ok := codeLineWidths(img)
		return ok
	})
	return s, w, img
}

// languageShot is languageSession that closes the window after the screenshot.
func languageShot(t *testing.T, name string, env []string, language, q string) image.Image {
	t.Helper()
	s, _, img := languageSession(t, name, env, language, q)
	s.quit()
	return img
}

// codeLineWidths finds the conversation's code block and returns how long (in pixels, from
// the first to the last pixel of text) its first and second lines are.
func codeLineWidths(img image.Image) (first, second int, ok bool) {
	blocks := blobs(img, column, codeBlock, 5000)
	if len(blocks) != 1 {
		return 0, 0, false
	}
	b := blocks[0].Inset(4)
	text := func(c color.Color) bool {
		r, g, bl, _ := c.RGBA()
		return (r>>8)+(g>>8)+(bl>>8) < 3*180
	}
	// Rows with text, grouped into lines: a gap of up to 2 blank rows (between the dot and
	// the stem of an i) stays within a line.
	var widths []int
	lo, hi, last := 0, 0, -10
	for y := b.Min.Y; y < b.Max.Y; y++ {
		rowLo, rowHi := -1, -1
		for x := b.Min.X; x < b.Max.X; x++ {
			if text(img.At(x, y)) {
				if rowLo < 0 {
					rowLo = x
				}
				rowHi = x
			}
		}
		if rowLo < 0 {
			continue
		}
		if y-last > 3 {
			if last >= 0 {
				widths = append(widths, hi-lo)
			}
			lo, hi = rowLo, rowHi
		}
		lo, hi, last = min(lo, rowLo), max(hi, rowHi), y
	}
	if last >= 0 {
		widths = append(widths, hi-lo)
	}
	if len(widths) != 2 {
		return 0, 0, false
	}
	return widths[0], widths[1], true
}

// sameWords reports whether the sidebar's words (New research, the search box) in img are
// those of want, a few pixels of shift allowed.
func sameWords(want, img image.Image) bool {
	for _, r := range []image.Rectangle{newResearch, searchBox} {
		if shiftedDiff(want, img, r, 3, 48) > r.Dx()*r.Dy()/50 {
			return false
		}
	}
	return true
}

// languageSwitch starts the window under env (English), then chooses 中文 in Settings'
// Language select (Ctrl+, then Tab to the select, the dialog's first field, and Down twice:
// System, English, 中文): config.json keeps the choice, the sidebar shows zh's words as soon
// as the dialog is closed (no Save, no restart), and a restart starts in Chinese.
func languageSwitch(t *testing.T, env []string, zh image.Image) {
	t.Helper()
	s, w, _ := languageSession(t, "window-switch-before.png", env, "", chineseQuestion)
	s.xdo("key", "ctrl+comma")
	s.waitShot("window-switch-settings.png", 10*time.Second, "Ctrl+, to open Settings", func(img image.Image) bool {
		return len(blobs(img, image.Rect(260, 780, 1020, 850), accent, 800)) == 1 // Save, at the foot of the 760 px dialog
	})
	s.xdo("key", "Tab")
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "Down")
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "Down")
	waitFor(s.ctx, t, 10*time.Second, "choosing 中文 in Settings to store zh-CN in config.json", func() bool {
		got, err := config.Load(w.dataDir)
		return err == nil && got.Language == "zh-CN"
	})
	time.Sleep(500 * time.Millisecond) // the dialog's own words switch too (the screenshot shows them)
	s.shoot("window-zh-CN-settings.png")
	s.xdo("key", "Escape") // the modal's backdrop dims the sidebar while it is open
	s.waitShot("window-switch-closed.png", 10*time.Second, "the sidebar's words in Chinese at once, the dialog closed", func(img image.Image) bool {
		return sameWords(zh, img)
	})
	s.quit()
	s.launch(w.args()...)
	s.waitShot("window-switch-restarted.png", 10*time.Second, "a restart to start in Chinese", func(img image.Image) bool {
		return sameWords(zh, img)
	})
}

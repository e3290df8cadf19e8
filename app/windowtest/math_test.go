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

	"artifactflow/backend/llm/llmtest"
)

// mathReport is the Chinese report of TestWindowMathMermaidChinese: inline and display
// math, a Mermaid diagram and a citation (the engine appends the Chinese sources section).
const mathReport = "# 月地距离\n\n" +
	"月球与地球的平均距离约为 $d \\approx 384\\,400\\ \\text{km}$ [1]。光走完这段距离所需的时间为\n\n" +
	"$$\nt = \\frac{d}{c} = \\frac{3.844 \\times 10^{8}\\ \\text{m}}{2.998 \\times 10^{8}\\ \\text{m/s}} \\approx 1.28\\ \\text{s}\n$$\n\n" +
	"```mermaid\ngraph LR\n  A[地球] -->|激光测距| B[月球]\n  B -->|反射| A\n```\n"

// mathResearch is citingResearch whose lead writes mathReport (in Chinese) and answers in Chinese.
func (w *world) mathResearch() llmtest.Handler {
	cite := w.citingResearch()
	return func(req openai.ChatCompletionRequest, i int) llmtest.Reply {
		if agentOf(req) == "lead_agent" {
			switch len(toolResults(req)) {
			case 2:
				return w.toolCall("create_artifact", map[string]any{"id": "research_report", "content_type": "markdown", "title": "月地距离", "content": mathReport})
			case 3:
				return llmtest.Reply{Content: "月球平均距离约 $384\\,400$ km [1]，光需约 $1.28$ 秒。"}
			}
		}
		return cite(req, i)
	}
}

// TestWindowMathMermaidChinese runs a cited research in the real window under the Chinese
// locale, whose report has inline and display math and a Mermaid diagram: the report view
// shows the diagram drawn (Mermaid's node fill, light lavender in the light theme,
// covers thousands of pixels of the artifact panel) and the stored report ends with the Chinese sources
// heading. The screenshot is window-zh-CN-math-mermaid.png (docs/ has it).
func TestWindowMathMermaidChinese(t *testing.T) {
	windowBinary(t)
	if out, _ := exec.Command("fc-list", ":lang=zh").Output(); strings.TrimSpace(string(out)) == "" {
		t.Fatal("no font with Chinese glyphs (fc-list :lang=zh): run scripts/setup.sh test")
	}
	locales := t.TempDir()
	if out, err := exec.Command("localedef", "-i", "zh_CN", "-f", "UTF-8", filepath.Join(locales, "zh_CN.UTF-8")).CombinedOutput(); err != nil {
		t.Fatalf("localedef zh_CN (install Debian's locales package): %v\n%s", err, out)
	}
	s := newSession(t, 2*time.Minute, "LANG=zh_CN.UTF-8", "LANGUAGE=zh_CN:zh", "LC_ALL=zh_CN.UTF-8", "LOCPATH="+locales)
	w := newWorld(t, (*world).mathResearch)
	s.launch(w.args("--allow-private-network")...)
	// Asked in English: xdotool drops Chinese characters it has no key for. The UI and the
	// report are Chinese.
	time.Sleep(2 * time.Second)
	s.ask(question)

	db := openDB(t, w.dataDir)
	t.Cleanup(func() {
		if t.Failed() {
			var status, resp string
			_ = db.QueryRow(`SELECT status, graph_response FROM messages`).Scan(&status, &resp)
			t.Logf("message: %s %q", status, resp)
			s.shoot("window-zh-CN-math-mermaid-failed.png")
		}
	})
	waitRuns(s.ctx, t, db, 1, 60*time.Second)
	var report string
	if err := db.QueryRowContext(s.ctx, `SELECT content FROM artifacts WHERE id = 'research_report'`).Scan(&report); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report, "\n## 来源\n") || !strings.Contains(report, "```mermaid") {
		t.Fatalf("stored report lacks the Chinese sources heading or the diagram:\n%s", report)
	}
	s.xdo("mousemove", "640", "880")
	// Mermaid's default theme fills nodes with #ECECFF (a light lavender the report view
	// uses nowhere else): two nodes cover several thousand pixels.
	nodeFill := func(c color.Color) bool { return near(c, 0xec, 0xec, 0xff, 4) }
	s.waitSettled("window-zh-CN-math-mermaid.png", image.Rect(0, 20, screenW, 880), 45*time.Second, "the report's diagram", func(img image.Image) bool {
		return countPixels(img, image.Rect(884, 380, screenW, 880), nodeFill) > 3000
	})
}

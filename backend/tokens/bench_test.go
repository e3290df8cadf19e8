package tokens

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// Corpora shared by the benchmarks and the exactness tests. Each is built, not fetched:
// no test touches the network.
const (
	englishParagraph = "The Moon's mean distance from Earth is 384,400 km, but it varies by about 5% over an orbit. " +
		"Lunar laser ranging, which bounces pulses off retroreflectors left by Apollo 11, 14 and 15, measures it " +
		"to within a few millimetres; the data show the Moon receding at 3.8 cm a year. Don't confuse that with " +
		"the apparent size change (\"supermoon\"), which is about 14%.\n\n"
	chineseParagraph = "月球是地球唯一的天然卫星，平均距离约为三十八万四千四百公里。阿波罗计划在月面放置了激光反射器，" +
		"科学家通过测量激光往返时间，可以精确到毫米级别。数据显示，月球每年以约三点八厘米的速度远离地球。\n"
	codeSnippet = "func (c *Counter) Observe(raw, reported int) {\n\tif raw <= 0 || reported <= 0 {\n\t\treturn\n\t}\n" +
		"\tr := float64(reported) / float64(raw) // 0.5 <= r <= 3\n\tr = min(max(r, 0.5), 3)\n\tc.mu.Lock()\n" +
		"\tc.ratio = (c.ratio + r) / 2\n\tc.mu.Unlock()\n}\n\n"
)

// repeatTo repeats unit until the result holds at least n bytes.
func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, (n+len(unit)-1)/len(unit))
}

// toolArgsJSON returns the minified JSON arguments of create_artifact calls, about n bytes.
func toolArgsJSON(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		args, _ := json.Marshal(map[string]any{"id": "notes", "content_type": "markdown", "title": "Lunar distance",
			"content": englishParagraph + chineseParagraph, "sources": []string{"https://en.wikipedia.org/wiki/Lunar_distance"},
			"version": i, "scores": []float64{0.91, 0.87, 0.5}})
		b.Write(args)
	}
	return b.String()
}

// randomBase64 returns n bytes of standard base64 with no white space (an inlined image).
func randomBase64(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, n*3/4+3)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

// hostile returns n bytes of each input that made BPE quadratic: one unbroken run of a
// letter, of '[', of one CJK character, of spaces, and random base64.
func hostile(n int) []struct{ name, text string } {
	return []struct{ name, text string }{
		{"y", strings.Repeat("y", n)},
		{"bracket", strings.Repeat("[", n)},
		{"cjk", strings.Repeat("中", n/3)},
		{"spaces", strings.Repeat(" ", n)},
		{"base64", randomBase64(n)},
	}
}

// BenchmarkText counts ordinary texts of 256 KB and hostile runs of 16 KB to 10 MB with an
// empty memo each time, as the first count of a new history does. The MB/s column is the
// figure to compare; the 1 MB and 10 MB runs are feasible only with segmenting.
func BenchmarkText(b *testing.B) {
	type input struct{ name, text string }
	inputs := []input{
		{"english/256KB", repeatTo(englishParagraph, 256<<10)},
		{"chinese/256KB", repeatTo(chineseParagraph, 256<<10)},
		{"code/256KB", repeatTo(codeSnippet, 256<<10)},
		{"json/256KB", toolArgsJSON(256 << 10)},
	}
	for _, size := range []struct {
		name string
		n    int
	}{{"16KB", 16 << 10}, {"64KB", 64 << 10}, {"256KB", 256 << 10}, {"1MB", 1 << 20}, {"10MB", 10 << 20}} {
		for _, h := range hostile(size.n) {
			inputs = append(inputs, input{"hostile-" + h.name + "/" + size.name, h.text})
		}
	}
	for _, model := range []string{"gpt-4o", "deepseek-chat"} {
		c, err := NewCounter(model)
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range inputs {
			b.Run(model+"/"+in.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.text)))
				b.ReportAllocs()
				for b.Loop() {
					clear(c.memo)
					c.Text(in.text)
				}
			})
		}
	}
}

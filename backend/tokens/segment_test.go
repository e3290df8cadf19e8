package tokens

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/llm"
)

// exact is the count before segmenting: the whole text in one call to the encoder.
func exact(c *Counter, s string) int { return len(c.enc.EncodeOrdinary(s)) }

// countSegments counts s cut into segments of at most maxSeg bytes and stretches of at
// most maxRun bytes without a boundary, and returns the count and the number of segments.
func countSegments(c *Counter, s string, maxSeg, maxRun int) (n, segs int) {
	segments(s, maxSeg, maxRun, func(seg string) bool {
		n += exact(c, seg)
		segs++
		return true
	})
	return n, segs
}

var models = []string{"gpt-4o", "deepseek-chat"} // o200k_base and cl100k_base

// TestOrdinaryTextCountsExactly: prose, code and JSON count exactly as before segmenting,
// whether cut every 16 KB (as counted) or at every boundary.
func TestOrdinaryTextCountsExactly(t *testing.T) {
	prettyJSON := "{\n  \"query\": \"lunar distance\",\n  \"max_results\": 5,\n  \"filters\": {\n    \"since\": \"2020-01-01\"\n  }\n}\n"
	texts := []struct{ name, text string }{
		{"english prose", repeatTo(englishParagraph, 64<<10)},
		{"chinese prose", repeatTo(chineseParagraph, 64<<10)},
		{"go code with tabs", repeatTo(codeSnippet, 64<<10)},
		{"minified tool arguments", toolArgsJSON(64 << 10)},
		{"indented JSON", repeatTo(prettyJSON, 64<<10)},
		{"markdown table and rules", repeatTo("| Mission | Year | Reflector |\n|---|---:|---|\n| Apollo 11 | 1969 | 100 cm² |\n\n"+strings.Repeat("-", 80)+"\n", 64<<10)},
		{"urls and paths", repeatTo("See https://en.wikipedia.org/wiki/Lunar_Laser_Ranging_experiment?oldid=1234567#Results and /usr/local/bin/go.\r\n", 64<<10)},
		{"contractions and case", repeatTo("DON'T say it's NASA's; we'll see. They'RE iPhone-WiFi JSONParser O'Brien's 'quoted' ", 64<<10)},
		{"numbers", repeatTo("π≈3.14159265358979, c=299792458 m/s, 1,234,567.89 and ١٢٣٤٥ ", 64<<10)},
		{"russian and arabic", repeatTo("Луна — единственный спутник Земли. القمر هو التابع الطبيعي الوحيد للأرض. ", 64<<10)},
		{"hindi and japanese", repeatTo("चंद्रमा पृथ्वी का एकमात्र प्राकृतिक उपग्रह है। 月は地球の唯一の衛星で、平均距離は約38万km。", 64<<10)},
		{"emoji", repeatTo("Launch 🚀🌕 done 👩‍💻👍🏽 ✔️\n", 64<<10)},
	}
	for _, model := range models {
		c, err := NewCounter(model)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range texts {
			t.Run(model+"/"+tt.name, func(t *testing.T) {
				want := exact(c, tt.text)
				clear(c.memo)
				if got := c.Text(tt.text); got != want {
					t.Errorf("Text = %d, the whole text counts %d", got, want)
				}
				if got, segs := countSegments(c, tt.text, 1, 1<<30); got != want || segs < 100 {
					t.Errorf("cut at all %d boundaries: %d, the whole text counts %d", segs, got, want)
				}
			})
		}
	}
}

// TestBoundaryProperty: random strings over an alphabet chosen to break the boundary
// rules (apostrophes, marks, case changes, CR/LF, '/', joiners, invalid UTF-8) count
// the same cut at every boundary as whole.
func TestBoundaryProperty(t *testing.T) {
	alphabet := []string{"a", "B", "z", "é", "e\u0301", "'", "'s", "'LL", "’", "0", "7", "١", "½", " ", "  ", "\t",
		"\n", "\r\n", "\r", "/", ".", "[", "{\"", "\":", "中", "月", "ा", "्", "क", "\u200d", "👩", "\u00a0", "\u2028",
		"\u3000", "\xff", "\xe4\xb8", "_", "-", "=", "é"}
	r := rand.New(rand.NewPCG(7, 7))
	for _, model := range models {
		c, err := NewCounter(model)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(model, func(t *testing.T) {
			for range 3000 {
				var b strings.Builder
				for range 1 + r.IntN(40) {
					b.WriteString(alphabet[r.IntN(len(alphabet))])
				}
				s := b.String()
				if got, want := first(countSegments(c, s, 1, 1<<30)), exact(c, s); got != want {
					t.Fatalf("%q: cut at every boundary %d, whole %d", s, got, want)
				}
			}
		})
	}
}

func first(n, _ int) int { return n }

// TestHardCutError: a stretch with no boundary is cut every 256 bytes, and each cut moves
// the count by at most 2 tokens (the bound segment.go documents).
func TestHardCutError(t *testing.T) {
	inputs := append(hostile(8<<10), []struct{ name, text string }{
		{"digits", randomFrom("0123456789", 8<<10)},
		{"random letters", randomFrom("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 8<<10)},
		{"punctuation", randomFrom("[]{}()=-+*&^%$#@!~<>?/\\|.,;:\"", 8<<10)},
		{"mixed white space", randomFrom(" \t\n\r", 8<<10)},
		{"devanagari word", repeatTo("क्षि", 8<<10)},
		{"thai word", repeatTo("ภาษาไทย", 8<<10)},
		{"cjk without punctuation", randomFrom("月球是地球唯一的天然卫星平均距离约为三十八万四千四百公里", 8<<10)},
	}...)
	for _, model := range models {
		c, err := NewCounter(model)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			t.Run(model+"/"+in.name, func(t *testing.T) {
				want := exact(c, in.text)
				got, segs := countSegments(c, in.text, maxSegment, maxRun)
				cuts := segs - 1
				if cuts < len(in.text)/(maxRun+maxDefer+4) && in.name != "base64" {
					t.Fatalf("only %d cuts in %d bytes without boundaries", cuts, len(in.text))
				}
				if got < want-2*cuts || got > want+2*cuts {
					t.Fatalf("count %d with %d hard cuts, exactly %d", got, cuts, want)
				}
			})
		}
	}
}

// randomFrom returns about n bytes of runes drawn from alphabet.
func randomFrom(alphabet string, n int) string {
	runes := []rune(alphabet)
	r := rand.New(rand.NewPCG(uint64(n), uint64(len(runes))))
	var b strings.Builder
	for b.Len() < n {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}

// TestHostileRunsCountInBoundedTime: inputs that made BPE quadratic (1 MB of one letter
// was 10 minutes) return within a generous bound, with the count the exact rate of their
// first 8 KB predicts. The real speed is in BenchmarkText.
func TestHostileRunsCountInBoundedTime(t *testing.T) {
	const bound = 10 * time.Second // on a loaded 2-core machine; about 0.3 s in fact
	inputs := []struct{ name, text string }{
		{"1 MB of y", strings.Repeat("y", 1<<20)},
		{"400k [", strings.Repeat("[", 400_000)},
		{"200k of one CJK character", strings.Repeat("中", 200_000)},
		{"1 MB of base64", randomBase64(1 << 20)},
		{"1 MB of spaces", strings.Repeat(" ", 1<<20)},
		{"tool arguments with a 400k [ run", `{"query":"` + strings.Repeat("[", 400_000) + `"}`},
	}
	for _, model := range models {
		c, err := NewCounter(model)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			t.Run(model+"/"+in.name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel() // ends the count if it outlives the bound
				done := make(chan int, 1)
				start := time.Now()
				go func() { n, _ := c.TextContext(ctx, in.text); done <- n }()
				var got int
				select {
				case got = <-done:
				case <-time.After(bound):
					t.Fatalf("counting %d bytes took longer than %v", len(in.text), bound)
				}
				t.Logf("%d bytes: %d tokens in %v", len(in.text), got, time.Since(start))
				sample := in.text[:8<<10]
				want := float64(exact(c, sample)) * float64(len(in.text)) / float64(len(sample))
				if float64(got) < want*0.98 || float64(got) > want*1.02 {
					t.Fatalf("count %d, the rate of the first 8 KB gives %.0f", got, want)
				}
			})
		}
	}
}

// TestCountStopsWhenCancelled: counting 10 MB (seconds of work) through Text, Raw or
// Estimate returns the context's error within a second of its end, and remembers nothing.
func TestCountStopsWhenCancelled(t *testing.T) {
	big := repeatTo(codeSnippet, 10<<20)
	c, err := NewCounter("gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name  string
		count func(context.Context) (int, error)
	}{
		{"TextContext", func(ctx context.Context) (int, error) { return c.TextContext(ctx, big) }},
		{"RawContext of a message", func(ctx context.Context) (int, error) {
			return c.RawContext(ctx, []llm.Message{{Role: llm.RoleUser, Content: "hi"}, {Role: llm.RoleTool, Content: big}}, "")
		}},
		{"EstimateContext of tool arguments", func(ctx context.Context) (int, error) {
			return c.EstimateContext(ctx, []llm.Message{{Role: llm.RoleAssistant,
				ToolCalls: []llm.ToolCall{{Name: "create_artifact", Arguments: big}}}}, `{"tools":[]}`)
		}},
	}
	ends := []struct {
		name string
		end  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancelled during the count", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"deadline during the count", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancelled before", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled},
	}
	for _, call := range calls {
		for _, end := range ends {
			t.Run(call.name+"/"+end.name, func(t *testing.T) {
				ctx, cancel := end.end()
				defer cancel()
				type result struct {
					n   int
					err error
				}
				done := make(chan result, 1)
				go func() { n, err := call.count(ctx); done <- result{n, err} }()
				var res result
				select {
				case res = <-done:
				case <-time.After(time.Second + 50*time.Millisecond):
					t.Fatal("the count went on more than a second after the context ended")
				}
				if !errors.Is(res.err, end.want) || res.n != 0 {
					t.Fatalf("count = %d, %v; want 0 and %v", res.n, res.err, end.want)
				}
				c.mu.Lock()
				defer c.mu.Unlock()
				if len(c.memo) != 0 {
					t.Fatalf("a stopped count left %d memo entries", len(c.memo))
				}
			})
		}
	}
}

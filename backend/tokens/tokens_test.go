package tokens

import (
	"strings"
	"testing"

	"artifactflow/backend/llm"
)

func TestCounter(t *testing.T) {
	tests := []struct {
		name  string
		model string
		text  string
		lo    int
		hi    int
	}{
		{"empty", "gpt-4o", "", 0, 0},
		{"english cl100k", "deepseek-chat", "Hello world", 2, 2},
		{"english o200k", "gpt-4o-mini", "Hello world", 2, 2},
		{"chinese takes a token or two a character", "qwen-plus", "月球距离", 4, 8},
		{"long repeated text grows linearly", "gpt-4o", strings.Repeat(" token", 1000), 1000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCounter(tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Text(tt.text); got < tt.lo || got > tt.hi {
				t.Fatalf("Text(%.40q) = %d, want %d-%d", tt.text, got, tt.lo, tt.hi)
			}
		})
	}
}

func TestObserveCorrects(t *testing.T) {
	c, err := NewCounter("llama3")
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("research ", 500)}}
	raw := c.Raw(msgs, "")
	if est := c.Estimate(msgs, ""); est != raw {
		t.Fatalf("before any report the estimate %d must equal the count %d", est, raw)
	}
	for range 10 {
		c.Observe(raw, raw*2) // the endpoint's tokenizer yields twice as many
	}
	if est := c.Estimate(msgs, ""); est < raw*19/10 || est > raw*2 {
		t.Fatalf("after reports of 2x, estimate %d should approach %d", est, raw*2)
	}
	c.Observe(raw, 0) // no usage reported: ignored
	c.Observe(raw, raw*100)
	if r := c.Ratio(); r > 3 {
		t.Fatalf("ratio %v escaped its bound", r)
	}
}

func TestContextWindow(t *testing.T) {
	for model, want := range map[string]int{
		"gpt-4o-mini": 128_000, "gpt-4.1-mini": 1_047_576, "gpt-5": 272_000, "gpt-5-mini": 272_000, "o3": 128_000,
		"deepseek-chat": 128_000, "qwen-plus": 131_072, "qwen-max": 32_768, "qwen3:8b": 32_768, "mystery": 32_768,
	} {
		if got := ContextWindow(model); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

// BenchmarkRaw counts a 100 KB history the first time (BenchmarkRawCold) and again, as
// every round does (BenchmarkRaw: memoized).
func BenchmarkRawCold(b *testing.B) {
	c, err := NewCounter("gpt-4o")
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The Moon's mean distance from Earth is 384,400 km. ", 2000)
	b.ReportAllocs()
	for b.Loop() {
		c.Text(text[:len(text)-1-b.N%2]) // defeat the memo
		clear(c.memo)
	}
}

func BenchmarkRaw(b *testing.B) {
	c, err := NewCounter("gpt-4o")
	if err != nil {
		b.Fatal(err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("The Moon's mean distance from Earth is 384,400 km. ", 2000)}}
	b.ReportAllocs()
	for b.Loop() {
		c.Raw(msgs, "")
	}
}

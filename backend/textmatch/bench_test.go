package textmatch

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

var (
	benchWords = strings.Fields("the of research result data model survey analysis method table figure " +
		"sample report value error source study group trend market growth rate year policy impact")
	benchHan = []rune("研究数据分析方法结果报告样本市场增长政策影响趋势模型调查问卷表格来源误差年度")
)

// benchDoc returns a deterministic document of about size bytes: Markdown-like lines of
// English words, with every third line Chinese.
func benchDoc(size int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var b strings.Builder
	for line := 0; b.Len() < size; line++ {
		if line%3 == 2 {
			for range 20 + rng.IntN(40) {
				b.WriteRune(benchHan[rng.IntN(len(benchHan))])
			}
			b.WriteString("。\n")
			continue
		}
		b.WriteString("- ")
		for range 8 + rng.IntN(12) {
			b.WriteString(benchWords[rng.IntN(len(benchWords))])
			b.WriteByte(' ')
		}
		b.WriteString("end.\n")
	}
	return b.String()
}

// withTypos returns s with n code points replaced by '#', spread evenly.
func withTypos(s string, n int) string {
	r := []rune(s)
	for i := 1; i <= n; i++ {
		r[i*len(r)/(n+1)] = '#'
	}
	return string(r)
}

func benchReplace(b *testing.B, content, old string, wantLayer int) {
	b.Helper()
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Replace(context.Background(), content, old, "NEW")
		if err != nil || res.Layer != wantLayer {
			b.Fatalf("layer %d, err %v; want layer %d", res.Layer, err, wantLayer)
		}
	}
}

// BenchmarkLayer0_1MB: a unique 100-byte line near the end of a 1 MB document.
func BenchmarkLayer0_1MB(b *testing.B) {
	doc := benchDoc(1<<20, 1)
	needle := "- this line is unique: the quarterly survey results were revised after review.\n"
	doc = doc[:len(doc)-2000] + needle + doc[len(doc)-2000:]
	benchReplace(b, doc, needle, 0)
}

// BenchmarkLayer1_1MB: old_str with ASCII quotes and an invented CJK–Latin space against
// smart quotes near the end of a 1 MB document.
func BenchmarkLayer1_1MB(b *testing.B) {
	doc := benchDoc(1<<20, 2)
	line := "结论:“quarterly survey”显示增长放缓 — 见Table 4。\n"
	doc = doc[:len(doc)-2000] + line + doc[len(doc)-2000:]
	benchReplace(b, doc, "结论:\"quarterly survey\"显示增长放缓 - 见 Table 4。", 1)
}

// BenchmarkLayer2_200KB_1KB: a 1 KB old_str (about 1000 code points, mostly ASCII) with
// five typos against a 200 KB document.
func BenchmarkLayer2_200KB_1KB(b *testing.B) {
	doc := benchDoc(200<<10, 3)
	start := strings.Index(doc[len(doc)/2:], "\n") + len(doc)/2 + 1
	old := withTypos(doc[start:start+1024], 5)
	benchReplace(b, doc, old, 2)
}

// BenchmarkLayer2_200KB_1KB_CJK: as above with a Chinese-only document, so 1 KB of
// old_str is about 340 code points and the document about 68,000.
func BenchmarkLayer2_200KB_1KB_CJK(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 5))
	var sb strings.Builder
	for sb.Len() < 200<<10 {
		sb.WriteRune(benchHan[rng.IntN(len(benchHan))])
	}
	doc := sb.String()
	old := withTypos(doc[len(doc)/2:len(doc)/2+1023], 3) // 341 whole characters
	benchReplace(b, doc, old, 2)
}

// The forward pass of Layer 2 over 200 KB of normalized text with a 1000-code-point
// pattern: the plain dynamic program (before) and the bit-parallel matcher (after).
func benchForward(b *testing.B) (text, pattern []rune) {
	doc := benchDoc(200<<10, 3)
	return []rune(doc), []rune(doc[len(doc)/2 : len(doc)/2+1000])
}

func BenchmarkForwardPassDP(b *testing.B) {
	text, pattern := benchForward(b)
	b.ReportAllocs()
	for b.Loop() {
		dpScores(pattern, text, false)
	}
}

func BenchmarkForwardPassMyers(b *testing.B) {
	text, pattern := benchForward(b)
	mt := newMatcher(pattern)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mt.scores(testBudget(), text, false); err != nil {
			b.Fatal(err)
		}
	}
}

// benchAmbiguous runs Replace on content and old and expects an ambiguity error.
func benchAmbiguous(b *testing.B, content, old string) {
	b.Helper()
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := Replace(context.Background(), content, old, "NEW")
		if !errors.Is(err, ErrAmbiguous) {
			b.Fatalf("err %v; want ErrAmbiguous", err)
		}
	}
}

// BenchmarkLayer2Repetitive_TheData: 207 KB of "the data " repeated, old_str 110 copies
// with one typo each; every place matches equally well.
func BenchmarkLayer2Repetitive_TheData(b *testing.B) {
	benchAmbiguous(b, strings.Repeat("the data ", 23000), strings.Repeat("the dxta ", 110))
}

// BenchmarkLayer2Repetitive_ABC: 210 KB of "abc" repeated, old_str a near copy of 303
// characters.
func BenchmarkLayer2Repetitive_ABC(b *testing.B) {
	benchAmbiguous(b, strings.Repeat("abc", 70000), strings.Repeat("abc", 50)+"abd"+strings.Repeat("abc", 50))
}

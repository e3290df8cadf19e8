package textmatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"
)

// nfd returns s in canonical decomposition: Hangul syllables become conjoining jamo and
// accented letters become base letter plus combining mark.
func nfd(s string) string { return norm.NFD.String(s) }

func TestReplaceSucceeds(t *testing.T) {
	tests := []struct {
		name      string
		content   string
		old, new  string
		want      string
		wantLayer int
		wantMatch string // the original text replaced
	}{
		// Layer 0: exact.
		{"exact ascii", "Hello world\nBye", "world", "Go", "Hello Go\nBye", 0, "world"},
		{"exact chinese task plan", "# 任务计划\n- [✗] 搜索资料\n- [✗] 撰写报告", "- [✗] 搜索资料", "- [✓] 搜索资料",
			"# 任务计划\n- [✓] 搜索资料\n- [✗] 撰写报告", 0, "- [✗] 搜索资料"},
		{"exact japanese", "東京タワーは高さ333メートルです。", "333メートル", "332.9メートル",
			"東京タワーは高さ332.9メートルです。", 0, "333メートル"},
		{"exact wins over normalized look-alike", "say \"hi\" or “hi”", "\"hi\"", "'yo'", "say 'yo' or “hi”", 0, "\"hi\""},

		// Layer 1: normalized.
		{"japanese with invented spaces", "東京タワーは333メートルです。", "東京タワーは 333 メートルです", "X",
			"X。", 1, "東京タワーは333メートルです"},
		{"hangul jamo old vs precomposed content", "한국어 문서입니다. 끝.", nfd("한국어 문서"), "韓國語 文書",
			"韓國語 文書입니다. 끝.", 1, "한국어 문서"},
		{"hangul precomposed old vs jamo content", nfd("한국어 문서입니다."), "문서", "책",
			nfd("한국어 ") + "책" + nfd("입니다."), 1, nfd("문서")},
		{"combining accent in content", "Cafe\u0301 au lait", "Café au", "Coffee with", "Coffee with lait", 1, "Cafe\u0301 au"},
		{"combining accent in old", "naïve résumé", "nai\u0308ve", "naive", "naive résumé", 1, "naïve"},
		{"roman numeral matched whole", "第Ⅳ章 总结", "第IV章", "第五章", "第五章 总结", 1, "第Ⅳ章"},
		{"hit inside Ⅳ ignored, whole hit used", "第Ⅳ章和第Ｉ章", "第I", "第II", "第Ⅳ章和第II章", 1, "第Ｉ"},
		{"ligature", "the ﬁle name", "file name", "path", "the path", 1, "ﬁle name"},
		{"fullwidth", "代号ＡＢＣ１２３。", "ABC123", "XYZ", "代号XYZ。", 1, "ＡＢＣ１２３"},
		{"smart quotes", "He said “hello” and ‘bye’.", "said \"hello\" and 'bye'", "said \"hi\"",
			"He said \"hi\".", 1, "said “hello” and ‘bye’"},
		{"primes", "height 5′10″ tall", "5'10\"", "178 cm", "height 178 cm tall", 1, "5′10″"},
		{"en and em dash", "Years 2019–2020 — a summary", "2019-2020 - a", "2019-2021 - a",
			"Years 2019-2021 - a summary", 1, "2019–2020 — a"},
		{"minus sign", "x − y = 0", "x - y", "y - x", "y - x = 0", 1, "x − y"},
		{"nbsp", "Hello\u00a0world!", "Hello world", "Hi", "Hi!", 1, "Hello\u00a0world"},
		{"ideographic space", "第一章\u3000概述\n内容", "第一章 概述", "第一章 简介", "第一章 简介\n内容", 1, "第一章\u3000概述"},
		{"trailing spaces", "line one   \nline two\t\nline three", "line one\nline two", "L1\nL2",
			"L1\nL2\t\nline three", 1, "line one   \nline two"},
		{"trailing spaces in old", "alpha\nbeta", "alpha  \nbeta", "gamma", "gamma", 1, "alpha\nbeta"},
		{"crlf content lf old", "a1\r\nb2\r\nc3", "a1\nb2", "x", "x\r\nc3", 1, "a1\r\nb2"},
		{"invented space between cjk and latin", "我们使用Python编写脚本。", "使用 Python 编写", "用 Go 编写",
			"我们用 Go 编写脚本。", 1, "使用Python编写"},
		{"space in content missing in old", "我们使用 Python 编写脚本。", "使用Python编写", "用Go编写",
			"我们用Go编写脚本。", 1, "使用 Python 编写"},

		// Layer 2: approximate.
		{"chinese one character typo",
			"# 报告\n本研究使用问卷调查收集数据,共回收有效问卷三百份。\n结论见下文。",
			"本研究使用问卷调差收集数据,共回收有效问卷三百份。", "本研究使用访谈收集数据。",
			"# 报告\n本研究使用访谈收集数据。\n结论见下文。", 2, "本研究使用问卷调查收集数据,共回收有效问卷三百份。"},
		{"typo plus smart quotes costs one edit",
			"Intro.\nShe wrote “the results are prelimnary” in May.\nEnd.",
			"She wrote \"the results are preliminary\" in May.", "She wrote \"final\".",
			"Intro.\nShe wrote \"final\".\nEnd.", 2, "She wrote “the results are prelimnary” in May."},
		{"approximate match never cuts Ⅳ at its end", "abcdefghⅣ", "abcdefghI", "X", "XⅣ", 2, "abcdefgh"},
		{"approximate match never cuts Ⅳ at its start", "ⅣBCDEFGHIJ", "VBCDEFGHIJ", "X", "ⅣX", 2, "BCDEFGHIJ"},
		{"approximate match keeps Ⅳ whole inside", "见第Ⅳ章的内容和结论。", "见第IV章的内容和结沦", "见下文",
			"见下文。", 2, "见第Ⅳ章的内容和结论"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Replace(context.Background(), tt.content, tt.old, tt.new)
			if err != nil {
				t.Fatalf("Replace: %v", err)
			}
			if res.Content != tt.want {
				t.Errorf("Content = %q, want %q", res.Content, tt.want)
			}
			if res.Layer != tt.wantLayer {
				t.Errorf("Layer = %d, want %d", res.Layer, tt.wantLayer)
			}
			if res.Matched != tt.wantMatch {
				t.Errorf("Matched = %q, want %q", res.Matched, tt.wantMatch)
			}
			wantType := UpdateExact
			if tt.wantLayer == 2 {
				wantType = UpdateFuzzy
			}
			if res.UpdateType != wantType {
				t.Errorf("UpdateType = %q, want %q", res.UpdateType, wantType)
			}
			if tt.wantLayer < 2 && res.Similarity != 1 {
				t.Errorf("Similarity = %v, want 1", res.Similarity)
			}
			if tt.wantLayer == 2 && (res.Similarity < MinSimilarity || res.Similarity >= 1) {
				t.Errorf("Similarity = %v, want in [%v, 1)", res.Similarity, MinSimilarity)
			}
			assertOutsideKept(t, tt.content, tt.new, res)
		})
	}
}

// assertOutsideKept checks the property every replacement has: the result is the content
// with exactly [Start, End) swapped for newStr.
func assertOutsideKept(t *testing.T, content, newStr string, res Result) {
	t.Helper()
	if res.Start < 0 || res.Start > res.End || res.End > len(content) {
		t.Fatalf("span [%d, %d) outside content of %d bytes", res.Start, res.End, len(content))
	}
	if want := content[:res.Start] + newStr + content[res.End:]; res.Content != want {
		t.Fatalf("Content = %q, want %q", res.Content, want)
	}
	if res.Matched != content[res.Start:res.End] {
		t.Fatalf("Matched = %q, want content[%d:%d] = %q", res.Matched, res.Start, res.End, content[res.Start:res.End])
	}
}

func TestReplaceFails(t *testing.T) {
	longOld := strings.Repeat("字", MaxFuzzyOldRunes+1)
	tests := []struct {
		name          string
		content, old  string
		wantKind      error
		wantLayer     int
		wantCount     int
		wantLines     []int
		wantCandidate string // "*" means any non-empty candidate
	}{
		{"empty old", "abc", "", ErrEmptyOld, 0, 0, nil, ""},
		{"invalid utf-8 old", "é", "\xa9", ErrInvalidUTF8, 0, 0, nil, ""},
		{"ambiguous exact", "foo\nbar foo\nfoo", "foo", ErrAmbiguous, 0, 3, []int{1, 2, 3}, ""},
		{"ambiguous exact overlapping", "aaa", "aa", ErrAmbiguous, 0, 2, []int{1, 1}, ""},
		{"ambiguous normalized", "“hi” there\n\n“hi” again", "\"hi\"", ErrAmbiguous, 1, 2, []int{1, 3}, ""},
		{"ambiguous approximate", "第一段:我们使用Python编写脚本。\n第二段:我们使用Python编写脚本。",
			"我们使用Pyhton编写脚本", ErrAmbiguous, 2, 2, []int{1, 2}, "我们使用Python编写脚本"},
		{"roman numeral half not replaced", "第Ⅳ章 总结", "第I", ErrNotFound, 2, 0, []int{1}, "第"},
		{"roman numeral first letter not replaced", "第Ⅳ章 总结", "I", ErrNotFound, 2, 0, nil, ""},
		{"unrelated text", "The quick brown fox jumps over the lazy dog.\nSecond line here.",
			"Completely unrelated sentence about databases", ErrNotFound, 2, 0, []int{1}, "*"},
		{"empty content", "", "anything", ErrNotFound, 2, 0, nil, ""},
		{"blank old found nowhere", "a b", "  ", ErrNotFound, 1, 0, nil, ""},
		{"too long for approximate matching", "短文", longOld, ErrTooLong, 2, 0, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Replace(context.Background(), tt.content, tt.old, "NEW")
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("err = %v, want %v", err, tt.wantKind)
			}
			if res != (Result{}) {
				t.Errorf("Result = %+v, want zero on failure", res)
			}
			var me *MatchError
			if !errors.As(err, &me) {
				t.Fatalf("err %T is not a *MatchError", err)
			}
			if me.Layer != tt.wantLayer {
				t.Errorf("Layer = %d, want %d", me.Layer, tt.wantLayer)
			}
			if me.Count != tt.wantCount {
				t.Errorf("Count = %d, want %d", me.Count, tt.wantCount)
			}
			if !equalInts(me.Lines, tt.wantLines) {
				t.Errorf("Lines = %v, want %v", me.Lines, tt.wantLines)
			}
			switch {
			case tt.wantCandidate == "*" && me.Candidate == "":
				t.Errorf("Candidate is empty, want some text")
			case tt.wantCandidate != "*" && me.Candidate != tt.wantCandidate:
				t.Errorf("Candidate = %q, want %q", me.Candidate, tt.wantCandidate)
			}
			if me.Kind == ErrNotFound && me.Similarity >= MinSimilarity {
				t.Errorf("Similarity = %v for a refused match", me.Similarity)
			}
			if err.Error() == "" {
				t.Error("empty error message")
			}
		})
	}
}

func TestReplaceLongOldStrMatchesExactly(t *testing.T) {
	old := strings.Repeat("字", MaxFuzzyOldRunes+1)
	res, err := Replace(context.Background(), "前"+old+"后", old, "新")
	if err != nil {
		t.Fatalf("Replace: %v", err)
	}
	if res.Content != "前新后" || res.Layer != 0 {
		t.Fatalf("got %q at layer %d, want %q at layer 0", res.Content, res.Layer, "前新后")
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		name         string
		content, old string
		want         string
	}{
		{"ambiguous exact", "foo\nbar foo\nfoo", "foo",
			"old_str matches 3 places (lines 1, 2, 3); include more surrounding text so it matches exactly one"},
		{"ambiguous on one line", "aaa", "aa",
			"old_str matches 2 places (line 1); include more surrounding text so it matches exactly one"},
		{"ambiguous normalized", "“hi”\n“hi”", "\"hi\"",
			"old_str matches 2 places once quotes, dashes, spaces and Unicode forms are normalized (lines 1, 2); " +
				"include more surrounding text so it matches exactly one"},
		{"ambiguous approximate", "我们使用Python编写脚本。\n我们使用Python编写脚本。", "我们使用Pyhton编写脚本",
			"old_str matches nowhere exactly, and 2 places match it equally well (similarity 85%; lines 1, 2); " +
				"copy the exact text from read_artifact and include more surrounding text so it matches exactly one place"},
		{"not found with candidate", "alpha\nbeta\nThe quick brown fox jumps.", "The slow green turtle sleeps.",
			"old_str not found; closest text (similarity 37%) at line 3: \"The quick brown fox jumps.\"; " +
				"copy the exact text from read_artifact and retry"},
		{"not found without candidate", "", "xyz", "old_str not found; copy the exact text from read_artifact and retry"},
		{"empty", "abc", "", "old_str is empty; give the exact text to replace, copied from read_artifact " +
			"(use rewrite_artifact to replace the whole content)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Replace(context.Background(), tt.content, tt.old, "x")
			if err == nil {
				t.Fatal("Replace succeeded, want an error")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("message\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestManyHitsAreCountedAndListedWithinBounds(t *testing.T) {
	content := strings.Repeat("x\n", maxCountedHits+50)
	_, err := Replace(context.Background(), content, "x", "y")
	var me *MatchError
	if !errors.As(err, &me) || me.Kind != ErrAmbiguous {
		t.Fatalf("err = %v, want ErrAmbiguous", err)
	}
	if me.Count != maxCountedHits || len(me.Lines) != maxListedLines || me.Lines[9] != 10 {
		t.Fatalf("Count = %d, Lines = %v; want %d hits and lines 1..10", me.Count, me.Lines, maxCountedHits)
	}
	if want := "old_str matches 1000 or more places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …)"; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("message %q does not start with %q", err.Error(), want)
	}
}

func TestCandidateIsTruncated(t *testing.T) {
	para := strings.Repeat("这是一段很长的中文内容用于测试。", 30) // 480 runes
	old := strings.Repeat("完全无关的英文以外的文字组合啊", 20)
	_, err := Replace(context.Background(), para, old, "x")
	var me *MatchError
	if !errors.As(err, &me) || me.Kind != ErrNotFound {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if n := len([]rune(me.Candidate)); n == 0 || n > maxCandidateRunes {
		t.Fatalf("candidate has %d runes, want 1..%d", n, maxCandidateRunes)
	}
}

func TestBudgetAndContext(t *testing.T) {
	content := "本研究使用问卷调查收集数据。"
	old := "本研究使用问卷调差收集数据。"

	t.Run("exhausted budget stops layer 2", func(t *testing.T) {
		_, err := replace(context.Background(), content, old, "x", 0)
		var me *MatchError
		if !errors.As(err, &me) || me.Kind != ErrTimeout || me.Layer != 2 {
			t.Fatalf("err = %#v, want ErrTimeout at layer 2", err)
		}
	})
	t.Run("exhausted budget does not affect layer 0", func(t *testing.T) {
		res, err := replace(context.Background(), content, "问卷", "访谈", 0)
		if err != nil || res.Content != "本研究使用访谈调查收集数据。" {
			t.Fatalf("got %q, %v", res.Content, err)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Replace(ctx, content, old, "x")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRepetitiveTextIsAmbiguousNotTimeout: in content that repeats one phrase thousands
// of times, a near copy of old_str matches equally well almost everywhere. Layer 2 must
// say so (with where, and that more context is needed) instead of anchoring every place
// until SearchBudget runs out.
func TestRepetitiveTextIsAmbiguousNotTimeout(t *testing.T) {
	tests := []struct {
		name         string
		content, old string
		wantSim      string
		distinctLine bool // the places are on different lines
		few          bool // fewer than maxFuzzyPlaces places fit: a lower-bound count of 2 or more
	}{
		{"the data, 110 typos", strings.Repeat("the data ", 23000), strings.Repeat("the dxta ", 110), "88%", false, false},
		{"abc near copy", strings.Repeat("abc", 70000), strings.Repeat("abc", 50) + "abd" + strings.Repeat("abc", 50), "99%", false, false},
		{"long old_str", strings.Repeat("the data ", 8000), strings.Repeat("the dxta ", 500), "88%", false, false},
		{"table rows", strings.Repeat("| 2024 | 数据 | value |\n", 12000),
			strings.Repeat("| 2024 | 数据 | valeu |\n", 20), "90%", true, false},
		{"room for six places only", strings.Repeat("the data ", 3000), strings.Repeat("the dxta ", 500), "88%", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Replace(context.Background(), tt.content, tt.old, "NEW")
			var me *MatchError
			if !errors.As(err, &me) || me.Kind != ErrAmbiguous || me.Layer != 2 {
				t.Fatalf("err = %v, want a Layer 2 ambiguity", err)
			}
			wantPlaces := "11 or more places match it equally well"
			if tt.few {
				if me.Count < 2 || me.Count >= maxFuzzyPlaces || !me.AtLeast || len(me.Lines) != me.Count {
					t.Fatalf("Count = %d (at least: %v), Lines = %v; want 2 to %d places as a lower bound", me.Count, me.AtLeast, me.Lines, maxFuzzyPlaces-1)
				}
				wantPlaces = fmt.Sprintf("%d or more places match it equally well", me.Count)
			} else if me.Count != maxFuzzyPlaces || len(me.Lines) != maxListedLines || !slices.IsSorted(me.Lines) {
				t.Fatalf("Count = %d, Lines = %v; want %d places and %d ascending lines",
					me.Count, me.Lines, maxFuzzyPlaces, maxListedLines)
			}
			if tt.distinctLine && len(slices.Compact(slices.Clone(me.Lines))) != maxListedLines {
				t.Fatalf("Lines = %v, want %d different lines", me.Lines, maxListedLines)
			}
			for _, want := range []string{wantPlaces, "similarity " + tt.wantSim,
				"include more surrounding text"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err.Error(), want)
				}
			}
		})
	}
}

// TestReplaceConcurrent runs Replace (without its time budget, which a loaded machine or
// -race could exhaust) on documents of different sizes and layers, first alone, then
// again with poisoned pools (a reused slice is filled with garbage), then from four
// goroutines at once, so that pooled slices pass between calls; every answer must equal
// the first. A slice handed back while still in use shows up here (and under -race).
func TestReplaceConcurrent(t *testing.T) {
	type replaceCase struct{ content, old string }
	var cases []replaceCase
	for i, size := range []int{3 << 10, 40 << 10, 120 << 10} {
		doc := strings.ReplaceAll(benchDoc(size, uint64(20+i)), " data ", " “data” ")
		mid := strings.Index(doc[len(doc)/2:], "“data”") + len(doc)/2
		mid = strings.LastIndex(doc[:mid], "\n") + 1
		line := doc[mid : mid+strings.Index(doc[mid:], "\n")]
		cases = append(cases,
			replaceCase{doc, withTypos(doc[mid:mid+600], 4)},                                     // Layer 2
			replaceCase{doc, strings.NewReplacer("“", "\"", "”", "\"").Replace(line) + "  \r\n"}, // Layer 1
			replaceCase{doc, "no such text anywhere in the document, not even close"},            // not found
		)
	}
	type answer struct {
		res Result
		err string
	}
	run := func(c replaceCase) answer {
		res, err := replace(context.Background(), c.content, c.old, "NEW", time.Hour) // no timeouts under -race
		if err != nil {
			return answer{res, err.Error()}
		}
		return answer{res, ""}
	}
	want := make([]answer, len(cases))
	for i, c := range cases {
		want[i] = run(c)
	}
	poisonPooled = true
	defer func() { poisonPooled = false }()
	for i, c := range cases {
		if got := run(c); got != want[i] {
			t.Fatalf("case %d with poisoned pools: %+v; without %+v", i, got.err, want[i].err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 40 {
				i := (g + n) % len(cases)
				if got := run(cases[i]); got != want[i] {
					errs <- fmt.Sprintf("goroutine %d, case %d: %+v; alone %+v", g, i, got.err, want[i].err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

package textmatch

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReplacePreservesOutside checks the properties update_artifact relies on: a successful
// Replace changes nothing outside [Start, End) of the original content, never cuts a
// character of valid UTF-8 content, replaces text that is old_str (Layer 0), equals it
// once both are normalized (Layer 1) or is within the allowed edit distance of it once
// both are normalized, with the reported similarity (Layer 2); and a failure is a
// *MatchError of a known kind.
// Run with: go test ./backend/textmatch/ -run '^$' -fuzz FuzzReplacePreservesOutside
func FuzzReplacePreservesOutside(f *testing.F) {
	seeds := []struct{ content, old, new string }{
		{"Hello world", "world", "Go"},
		{"第Ⅳ章 总结", "第I", "第II"},
		{"第Ⅳ章 总结", "I", "X"},
		{"我们使用Python编写脚本。", "使用 Python 编写", "用 Go 编写"},
		{nfd("한국어 문서입니다."), "문서", "책"},
		{"한국어 문서입니다.", nfd("한국어"), "韓國語"},
		{"Cafe\u0301 au lait", "Café", "Coffee"},
		{"Hello\u00a0world\u3000中文", "Hello world 中文", "x"},
		{"He said “hello” — twice  \r\nok", "said \"hello\" - twice\nok", "y"},
		{"本研究使用问卷调查收集数据。", "本研究使用问卷调差收集数据。", "z"},
		{"ﬁle ½ ㎏", "file 1/2", "w"},
		{"aaa", "aa", "b"},
		{"é", "\xa9", "x"},
		{"a\xffb", "a b", "c"},
		{"0   00", "0  0", "0"}, // the span ends in a blank that only its context keeps
	}
	for _, s := range seeds {
		f.Add(s.content, s.old, s.new)
	}
	f.Fuzz(func(t *testing.T, content, old, newStr string) {
		if utf8.RuneCountInString(old) > 300 || len(content) > 5000 {
			t.Skip("keep each input fast; long inputs are covered by benchmarks")
		}
		res, err := Replace(context.Background(), content, old, newStr)
		if err != nil {
			var me *MatchError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *MatchError", err)
			}
			switch me.Kind {
			case ErrNotFound, ErrAmbiguous, ErrTooLong, ErrTimeout, ErrEmptyOld, ErrInvalidUTF8:
			default:
				t.Fatalf("unknown error kind %v", me.Kind)
			}
			if res != (Result{}) {
				t.Fatalf("Result %+v returned with an error", res)
			}
			return
		}
		if res.Start < 0 || res.Start > res.End || res.End > len(content) {
			t.Fatalf("span [%d, %d) outside content of %d bytes", res.Start, res.End, len(content))
		}
		if !strings.HasPrefix(res.Content, content[:res.Start]) || !strings.HasSuffix(res.Content, content[res.End:]) {
			t.Fatalf("text outside [%d, %d) changed: %q → %q", res.Start, res.End, content, res.Content)
		}
		if want := content[:res.Start] + newStr + content[res.End:]; res.Content != want {
			t.Fatalf("Content = %q, want %q", res.Content, want)
		}
		if res.Matched != content[res.Start:res.End] {
			t.Fatalf("Matched = %q, want %q", res.Matched, content[res.Start:res.End])
		}
		if utf8.ValidString(content) && !(utf8.ValidString(content[:res.Start]) && utf8.ValidString(content[res.End:])) {
			t.Fatalf("span [%d, %d) cuts a character of %q", res.Start, res.End, content)
		}
		switch res.Layer {
		case 0:
			if res.Matched != old {
				t.Fatalf("layer 0 replaced %q, not old_str %q", res.Matched, old)
			}
			return
		case 1, 2:
			if res.Start == res.End {
				t.Fatalf("layer %d replaced an empty span", res.Layer)
			}
		default:
			t.Fatalf("Layer = %d", res.Layer)
		}
		// The replaced text is what old_str designates. Normalization depends on context
		// (blanks before a line end or the end of the text are dropped, spaces between CJK
		// and Latin too), so the span is normalized as part of the whole content: its
		// normalized text must equal the normalized old_str (Layer 1) or be within the
		// allowed distance of it (Layer 2).
		nc, err := normalize(testBudget(), content)
		if err != nil {
			t.Fatal(err)
		}
		no, err := normalize(testBudget(), old)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(nc.bounds, int32(res.Start)) || !slices.Contains(nc.bounds, int32(res.End)) {
			t.Fatalf("span [%d, %d) cuts a normalization group of %q (bounds %v)", res.Start, res.End, content, nc.bounds)
		}
		var inSpan []byte
		for i, g := range nc.group {
			if int(nc.bounds[g]) >= res.Start && int(nc.bounds[g+1]) <= res.End {
				inSpan = append(inSpan, nc.text[i])
			}
		}
		if res.Layer == 1 {
			if string(inSpan) != no.text {
				t.Fatalf("layer 1 replaced %q, normalized %q; old_str %q normalizes to %q",
					res.Matched, inSpan, old, no.text)
			}
			// Layer 1 spans start and end on text that normalization keeps, so the span
			// normalized on its own is the same.
			nm, err := normalize(testBudget(), res.Matched)
			if err != nil {
				t.Fatal(err)
			}
			if nm.text != no.text {
				t.Fatalf("layer 1 replaced %q, normalized on its own %q; old_str %q normalizes to %q",
					res.Matched, nm.text, old, no.text)
			}
			return
		}
		p := []rune(no.text)
		d, k := editDistance(p, []rune(string(inSpan))), maxDistance(len(p))
		if d > k {
			t.Fatalf("layer 2 replaced %q, normalized %q, at distance %d from normalized old_str %q; at most %d allowed",
				res.Matched, inSpan, d, no.text, k)
		}
		if want := 1 - float64(d)/float64(len(p)); math.Abs(res.Similarity-want) > 1e-9 || res.Similarity < MinSimilarity {
			t.Fatalf("layer 2 Similarity = %v; distance %d of %d code points gives %v", res.Similarity, d, len(p), want)
		}
	})
}

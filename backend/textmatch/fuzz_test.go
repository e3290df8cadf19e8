package textmatch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReplacePreservesOutside checks the property update_artifact relies on: a successful
// Replace changes nothing outside [Start, End) of the original content, never cuts a
// character of valid UTF-8 content, and a failure is a *MatchError of a known kind.
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
		case 1, 2:
			if res.Start == res.End {
				t.Fatalf("layer %d replaced an empty span", res.Layer)
			}
		default:
			t.Fatalf("Layer = %d", res.Layer)
		}
	})
}

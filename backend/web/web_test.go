package web

import (
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
		cut  bool
	}{
		{"hello", 10, "hello", false},
		{"hello", 5, "hello", false},
		{"hello", 4, "hell", true},
		{"", 3, "", false},
		{"", 0, "", false},
		{"abc", 0, "", true},
		{"abc", -1, "", true},
		{"héllo wörld", 2, "hé", true},
		{"北京天气", 3, "北京天", true},
		{"北京天气", 4, "北京天气", false}, // 12 bytes but 4 runes
		{"a😀b", 2, "a😀", true},
		{"a😀b", 1, "a", true},
		{"\xffab", 2, "\xffa", true}, // an invalid byte counts as one rune
	}
	for _, tc := range tests {
		got, cut := Truncate(tc.s, tc.max)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Truncate(%q, %d) = %q, %v; want %q, %v", tc.s, tc.max, got, cut, tc.want, tc.cut)
		}
		if utf8.ValidString(tc.s) && !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) split a rune: %q", tc.s, tc.max, got)
		}
	}
}

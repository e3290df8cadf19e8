// Package text holds the small text helpers that package app and the command line
// (app/cli) share: one-line clips of user and model text for lists and terminals.
package text

import "strings"

// Clip collapses runs of white space in s to single spaces and cuts the result to n runes,
// the last being "…" when it was cut.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// OneLine flattens an error to a single line for the terminal or a one-line notice;
// a nil error reads "unknown error".
func OneLine(err error) string {
	if err == nil {
		return "unknown error"
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

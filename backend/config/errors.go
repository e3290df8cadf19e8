package config

import (
	"strings"
)

// InvalidError is the error Settings.Validate and ValidateHooks return: the list of
// problems, each "<field>: <what is wrong>" (e.g. "base_url: must be an absolute http(s)
// URL …", "lead.temperature: 3 is outside 0–2"). It wraps ErrInvalid, and its Error text
// is "invalid settings: " followed by the problems joined with "; " (the text callers saw
// before this type existed). Issue 10 item 2: the window reads the fields from Fields
// instead of splitting the text.
type InvalidError struct {
	// Problems are the validation failures in the order found, each "<field>: <message>".
	Problems []string
}

// Error returns "invalid settings: p1; p2; …".
func (e *InvalidError) Error() string {
	return ErrInvalid.Error() + ": " + strings.Join(e.Problems, "; ")
}

// Unwrap returns ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Fields maps each problem's field name ("base_url", "lead.temperature",
// "hooks.PostToolUse[0].command", "models") to its message; a problem without a "field: "
// prefix goes under "" . Two problems of one field are joined with "; ".
func (e *InvalidError) Fields() map[string]string {
	out := make(map[string]string, len(e.Problems))
	for _, p := range e.Problems {
		field, msg, ok := strings.Cut(p, ": ")
		if !ok || strings.ContainsAny(field, " \t") {
			field, msg = "", p
		}
		if prev, dup := out[field]; dup {
			msg = prev + "; " + msg
		}
		out[field] = msg
	}
	return out
}

package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrBadFile: config.json exists but cannot be read as settings (not valid JSON, or a value
// of the wrong type). Load returns it wrapped in a *FileError; Save refuses to write over
// such a file, so a failed load never leads to the user's file being replaced.
var ErrBadFile = errors.New("config: the settings file cannot be read")

// FileError is the error Load (and Update and Save, which will not write over a file Load
// refuses) returns for a config.json that cannot be read. Its text names the file, where
// the problem is and the way out, e.g. "the settings file /x/config.json is not valid JSON
// at line 3, column 5 (invalid character '}' looking for beginning of object key string):
// fix it in a text editor, or move it aside to start with default settings; it was not
// changed", or, for a hook whose program could come from a workspace folder, "the settings
// file /x/config.json has a hook whose program is neither an absolute path nor a program
// found on PATH: hooks.Stop[0] ("notify"): "tools/notify.sh" is a relative path, …: fix it
// in a text editor, …". It wraps ErrBadFile and Err.
type FileError struct {
	// Path is config.json's path.
	Path string
	// Line and Column locate a JSON problem, both from 1; Column counts characters (runes).
	// Both are 0 when Problem is set.
	Line, Column int
	// Syntax is true for text that is not JSON, false for JSON with a value of the wrong
	// type (e.g. a string where a number belongs).
	Syntax bool
	// Problem, when not "", is a rule of the settings that the file, although JSON of the
	// right shape, breaks, naming the setting: its hooks whose programs are not an
	// absolute path or a program found on PATH (HookProgram), "; "-separated.
	Problem string
	// Err is encoding/json's error, or for a Problem an error wrapping ErrHookProgram.
	Err error
}

// Error returns the message for the user (see FileError).
func (e *FileError) Error() string {
	const way = "fix it in a text editor, or move it aside to start with default settings; it was not changed"
	if e.Problem != "" {
		return fmt.Sprintf("the settings file %s %s: %s", e.Path, e.Problem, way)
	}
	what := "is not valid JSON"
	if !e.Syntax {
		what = "has a value of the wrong type"
	}
	return fmt.Sprintf("the settings file %s %s at line %d, column %d (%s): %s",
		e.Path, what, e.Line, e.Column, strings.TrimPrefix(e.Err.Error(), "json: "), way)
}

// Unwrap returns ErrBadFile and Err.
func (e *FileError) Unwrap() []error { return []error{ErrBadFile, e.Err} }

// utf8BOM is the byte-order mark some Windows editors put at the start of a UTF-8 file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeFile decodes the contents b of the settings file at path (a leading UTF-8 BOM is
// skipped; a file of only blanks holds nothing, so it reads as no settings, like a missing
// one). A decoding error gives a *FileError locating it, and so does a hook whose program
// HookProgram refuses (naming the hook); the error of an unknown shape is wrapped with
// ErrBadFile.
func decodeFile(path string, b []byte) (Settings, error) {
	b = bytes.TrimPrefix(b, utf8BOM)
	var s Settings
	if len(bytes.TrimSpace(b)) == 0 {
		return s, nil
	}
	err := json.Unmarshal(b, &s)
	if err == nil {
		if problems := hookProgramProblems(s.Hooks); len(problems) > 0 {
			texts := make([]string, len(problems))
			for i, p := range problems {
				texts[i] = p.String()
			}
			list := strings.Join(texts, "; ")
			return Settings{}, &FileError{Path: path,
				Problem: "has a hook whose program is neither an absolute path nor a program found on PATH: " + list,
				Err:     fmt.Errorf("%w: %s", ErrHookProgram, list)}
		}
		return s, nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off := syn.Offset
		if off >= int64(len(b)) && strings.Contains(syn.Error(), "unexpected end") {
			off = int64(len(b)) + 1 // just after the last character
		}
		line, col := position(b, off)
		return Settings{}, &FileError{Path: path, Line: line, Column: col, Syntax: true, Err: err}
	case errors.As(err, &typ):
		line, col := position(b, typ.Offset)
		return Settings{}, &FileError{Path: path, Line: line, Column: col, Err: err}
	}
	return Settings{}, fmt.Errorf("the settings file %s cannot be read (fix it in a text editor, or move it aside to start with default settings; it was not changed): %w: %w",
		path, ErrBadFile, err)
}

// position turns encoding/json's error offset (the number of bytes read when the error
// was found, so the offending byte is the one before it) into a line and a column in
// characters, both from 1.
func position(b []byte, offset int64) (line, col int) {
	at := int(offset) - 1
	if at < 0 {
		at = 0
	}
	if at > len(b) {
		at = len(b)
	}
	before := b[:at]
	line = 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[start:])
}

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

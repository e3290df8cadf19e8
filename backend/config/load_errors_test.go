package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadBadFileSaysWhereAndIsNeverOverwritten: a config.json that is not valid JSON (or
// has a value of the wrong type) gives ErrBadFile with the file's path, the line and
// column of the problem and the way out, and neither Load nor a later Save changes the
// file.
func TestLoadBadFileSaysWhereAndIsNeverOverwritten(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantLine int
		wantCol  int
		wantText string
	}{
		{"trailing comma", "{\n  \"model\": \"m\",\n  \"base_url\": \"http://x/v1\",\n}\n", 4, 1, "is not valid JSON at line 4, column 1"},
		{"missing quote", "{\n  \"model\": m\n}", 2, 12, "invalid character 'm'"},
		{"cut short", "{\n  \"model\": \"m\",\n  \"lead\": {", 3, 12, "unexpected end of JSON input"},
		{"comment", "// my settings\n{}", 1, 1, "is not valid JSON at line 1, column 1"},
		{"non-ASCII before the error", "{\"model\": \"模型\" \"x\"}", 1, 16, "line 1, column 16"},
		{"wrong type", "{\n  \"max_upload_mb\": \"twenty\"\n}", 2, 27, "has a value of the wrong type at line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ConfigFile)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if !errors.Is(err, ErrBadFile) {
				t.Fatalf("Load error = %v, want ErrBadFile", err)
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Load error = %#v, want a *FileError", err)
			}
			if fe.Path != path || fe.Line != tt.wantLine || fe.Column != tt.wantCol {
				t.Errorf("FileError = %s line %d column %d, want %s line %d column %d", fe.Path, fe.Line, fe.Column, path, tt.wantLine, tt.wantCol)
			}
			for _, want := range []string{"the settings file " + path, tt.wantText, "fix it in a text editor", "move it aside", "it was not changed"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not contain %q", err, want)
				}
			}
			// A save after the failed load (a setting changed in a window that had loaded
			// before the file was broken) refuses too.
			if err := Save(dir, Settings{Model: "other"}); !errors.Is(err, ErrBadFile) {
				t.Errorf("Save over the unreadable file = %v, want ErrBadFile", err)
			}
			b, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(b, []byte(tt.content)) {
				t.Errorf("config.json changed: %q (%v), want %q", b, err, tt.content)
			}
			if st, err := os.Stat(path); err != nil || !st.ModTime().Equal(old) {
				t.Errorf("config.json mtime = %v (%v), want %v", st.ModTime(), err, old)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".config-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestLoadAndSaveGoodFiles: a readable file (with or without a UTF-8 byte-order mark, as
// Windows Notepad writes it; an empty one, which holds nothing to lose) loads, and Save
// replaces it as before.
func TestLoadAndSaveGoodFiles(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{"plain", `{"model":"m"}`},
		{"byte-order mark", "\ufeff{\"model\":\"m\"}"},
		{"empty object", `{}`},
		{"empty file", ""},
		{"only blanks", " \n\t\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(dir); err != nil {
				t.Fatalf("Load: %v", err)
			}
			if err := Save(dir, Settings{Model: "n"}); err != nil {
				t.Fatalf("Save: %v", err)
			}
			s, err := Load(dir)
			if err != nil || s.Model != "n" {
				t.Fatalf("Load after Save = %+v, %v; want model n", s, err)
			}
		})
	}
}

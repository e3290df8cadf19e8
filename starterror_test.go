package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"artifactflow/backend/config"
	"artifactflow/backend/store"
)

// TestStartErrorPage: the page the window shows when it cannot start carries the error's
// text with the file's path, its code, and the wording in the user's language, with the
// text escaped.
func TestStartErrorPage(t *testing.T) {
	corrupt := fmt.Errorf("app: %w", &store.CorruptError{Path: "/home/u/.config/ArtifactFlow/artifactflow.db", Reason: "file is not a database"})
	bad := &config.FileError{Path: `/tmp/<b>&"x"/config.json`, Line: 3, Column: 1, Syntax: true, Err: errors.New("invalid character '}'")}
	tests := []struct {
		name string
		err  error
		lang string
		want []string
		not  []string
	}{
		{"damaged database, English", corrupt, "", []string{"ArtifactFlow could not start", "/home/u/.config/ArtifactFlow/artifactflow.db",
			"move it aside and start again", "database_corrupt", `lang="en"`}, nil},
		{"broken config, Chinese, escaped", bad, config.LanguageChinese, []string{"ArtifactFlow 无法启动", "/tmp/&lt;b&gt;&amp;&#34;x&#34;/config.json",
			"line 3, column 1", "settings_file_invalid", `lang="zh-CN"`}, []string{"<b>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := startErrorPage(tt.err, tt.lang)
			for _, want := range tt.want {
				if !strings.Contains(page, want) {
					t.Errorf("page does not contain %q:\n%s", want, page)
				}
			}
			for _, not := range tt.not {
				if strings.Contains(page, not) {
					t.Errorf("page contains %q unescaped", not)
				}
			}
		})
	}
}

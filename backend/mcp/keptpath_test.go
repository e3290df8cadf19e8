package mcp

import (
	"regexp"
	"strings"
	"testing"
)

// TestKeptPath: a kept result's file name is one line of safe characters whatever the tool
// name or resource URI, cut to 60 characters before its hash and extension.
func TestKeptPath(t *testing.T) {
	long := strings.Repeat("very-long-resource-name-", 8)
	safe := regexp.MustCompile(`^mcp/srv/[A-Za-z0-9_-]{1,60}-[0-9a-f]{8}(\.[a-z0-9]+)?$`)
	for _, tc := range []struct {
		name, tool, uri, mime string
	}{
		{"tool name", "get-tiny-image", "", "image/png"},
		{"long tool name", long, "", "image/png"},
		{"long uri", "read", "file:///docs/" + long + ".txt", "text/plain"},
		{"uri with spaces and newline", "read", "demo://a b\nc.md", "text/markdown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := keptPath("srv", tc.tool, tc.uri, tc.mime, []byte("data"))
			if !safe.MatchString(got) {
				t.Errorf("keptPath = %q; want mcp/srv/<60 safe characters>-<hash><ext>", got)
			}
		})
	}
}

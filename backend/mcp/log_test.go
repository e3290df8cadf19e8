package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerLogRotates: a server's log stays under MaxLogBytes: past it the file becomes
// <name>.log.1 (replacing the one before) and a new one begins; tail gives the last lines
// of the current file; secrets are hidden and an overlong line is cut.
func TestServerLogRotates(t *testing.T) {
	dir := t.TempDir()
	l := newServerLog(dir, "s", []string{"tok-secret-99"})
	line := strings.Repeat("x", 1000)
	for i := range 2*MaxLogBytes/1000 + 100 {
		l.line(line + " tok-secret-99 " + string(rune('a'+i%26)))
	}
	l.line(strings.Repeat("y", 3*maxLogLine))
	l.line("the last line")
	cur, err := os.Stat(filepath.Join(dir, "s.log"))
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.Stat(filepath.Join(dir, "s.log.1"))
	if err != nil {
		t.Fatal(err)
	}
	if cur.Size() >= MaxLogBytes || old.Size() >= MaxLogBytes {
		t.Fatalf("sizes %d and %d, cap %d", cur.Size(), old.Size(), MaxLogBytes)
	}
	text, _ := l.read()
	if strings.Contains(text, "tok-secret-99") || !strings.Contains(text, "[secret]") {
		t.Fatal("the secret is not hidden")
	}
	tail := l.tail(2)
	if len(tail) != 2 || !strings.HasSuffix(tail[1], "the last line") || !strings.HasSuffix(tail[0], "(line cut)") {
		t.Fatalf("tail = %.200q", tail)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("%d files, want the log and one rotated copy", len(entries))
	}
}

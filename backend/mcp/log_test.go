package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/config"
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

// TestServerLogRedactsBeforeCutting: a secret that an overlong line's cut would split, or
// that a server writes across two pieces of a line longer than maxLogLine without a
// newline, is never partly written: the line is redacted whole first.
func TestServerLogRedactsBeforeCutting(t *testing.T) {
	const secret = "tok-secret-99"
	t.Run("a line cut at maxLogLine", func(t *testing.T) {
		l := newServerLog(t.TempDir(), "s", []string{secret})
		l.line(strings.Repeat("x", maxLogLine-5) + secret + " and more")
		text, _ := l.read()
		if strings.Contains(text, secret[:5]) {
			t.Fatalf("part of the secret is in the log: …%s", text[max(len(text)-80, 0):])
		}
		if !strings.Contains(text, "[secr") || !strings.Contains(text, "(line cut)") {
			t.Fatalf("the secret is not marked where the line is cut: …%s", text[max(len(text)-80, 0):])
		}
	})
	t.Run("a line without newline across writes", func(t *testing.T) {
		l := newServerLog(t.TempDir(), "s", []string{secret})
		w := &lineWriter{emit: l.line, redact: l.redact, longest: l.longestSecret}
		_, _ = w.Write([]byte(strings.Repeat("x", maxLogLine-3) + secret[:4]))
		_, _ = w.Write([]byte(secret[4:] + strings.Repeat("y", 100) + "\n"))
		w.flush()
		text, _ := l.read()
		if strings.Contains(text, secret[:4]) || strings.Contains(text, secret[4:]) {
			t.Fatalf("part of the secret is in the log: %q", strings.Trim(text, "xy"))
		}
		if !strings.Contains(text, "[secret]") {
			t.Fatal("the secret is not marked")
		}
	})
}

// TestServerLogPathFromValidNameOnly: a server whose name is not valid (here "../x",
// which would lead out of the log folder) has no log file: nothing is written or read
// outside the folder.
func TestServerLogPathFromValidNameOnly(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "logs")
	outside := filepath.Join(root, "x.log")
	if err := os.WriteFile(outside, []byte("a file of the user's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Options{LogDir: dir})
	t.Cleanup(func() { _ = m.Close() })
	m.Configure(config.MCPServers{"../x": {URL: "http://127.0.0.1:9/mcp"}})
	text, err := m.Log("../x")
	if err != nil || text != "" {
		t.Errorf("Log(../x) = %q, %v; want nothing (the file outside the log folder read)", text, err)
	}
	l := newServerLog(dir, "../y", nil)
	l.note("started")
	if _, err := os.Stat(filepath.Join(root, "y.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a log was written outside the log folder: %v", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "a file of the user's\n" {
		t.Errorf("the file outside changed: %q", b)
	}
}

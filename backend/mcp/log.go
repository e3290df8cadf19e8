package mcp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"artifactflow/backend/config"
)

// Limits of a server's log file.
const (
	// MaxLogBytes caps <name>.log; past it the file is renamed to <name>.log.1 (replacing
	// the one before) and a new one begins, so a server keeps at most twice this on disk.
	MaxLogBytes = 1 << 20
	// maxLogLine caps one line written to the log; the rest is cut with a note.
	maxLogLine = 8 << 10
	// tailBytes is how much of the log's end Tail reads.
	tailBytes = 16 << 10
)

// serverLog is one server's log file <dir>/<name>.log: its stderr line by line, what it
// wrote on stdout that was not JSON-RPC, and the manager's notes (started, exited, failed).
// Each line starts with the time. The server's secrets (env and header values) are
// replaced by "[secret]" before anything is written. Safe for concurrent use.
type serverLog struct {
	path string
	mu   sync.Mutex
	// secrets are the values to hide; replaced whole by setSecrets when the entry changes.
	secrets []string
}

// newServerLog returns the log of server name in dir. The path is built only from a valid
// server name (config.ValidMCPServerName: letters, digits, _ and -, so no separator and no
// ".."); an invalid name's server gets a log that writes and reads nothing, so a name such
// as "../x" can never place or read a file outside dir.
func newServerLog(dir, name string, secrets []string) *serverLog {
	l := &serverLog{secrets: longestFirst(secrets)}
	if config.ValidMCPServerName(name) {
		l.path = filepath.Join(dir, name+".log")
	}
	return l
}

func (l *serverLog) setSecrets(secrets []string) {
	l.mu.Lock()
	l.secrets = longestFirst(secrets)
	l.mu.Unlock()
}

// longestFirst returns secrets sorted longest first, so that a secret holding another is
// replaced whole.
func longestFirst(secrets []string) []string {
	out := slices.Clone(secrets)
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// longestSecret is the length in bytes of the longest secret (0 for none).
func (l *serverLog) longestSecret() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.secrets) == 0 {
		return 0
	}
	return len(l.secrets[0])
}

// redact returns s with every secret replaced by "[secret]".
func (l *serverLog) redact(s string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return redact(s, l.secrets)
}

// redact returns s with each of secrets (non-empty) replaced by "[secret]".
func redact(s string, secrets []string) string {
	for _, v := range secrets {
		if v != "" && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, "[secret]")
		}
	}
	return s
}

// note writes one line of the manager's own, marked "--- ".
func (l *serverLog) note(format string, args ...any) {
	l.line("--- " + fmt.Sprintf(format, args...))
}

// line appends one line, its secrets hidden and then cut at maxLogLine (in that order, so
// a secret the cut would split is never partly written), rotating the file first when it
// is full. Errors writing the log are dropped: a log must never fail a server.
func (l *serverLog) line(s string) {
	s = strings.TrimRight(s, "\r\n")
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path == "" {
		return
	}
	s = redact(s, l.secrets)
	if len(s) > maxLogLine {
		s = s[:maxLogLine] + " … (line cut)"
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return
	}
	if fi, err := os.Stat(l.path); err == nil && fi.Size()+int64(len(s)) >= MaxLogBytes {
		_ = os.Rename(l.path, l.path+".1")
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	_, _ = fmt.Fprintf(f, "%s %s\n", time.Now().Format("2006-01-02 15:04:05.000"), s)
	_ = f.Close()
}

// read returns the log's text (at most MaxLogBytes), "" when there is none yet.
func (l *serverLog) read() (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path == "" {
		return "", nil
	}
	b, err := os.ReadFile(l.path)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("mcp: read %s: %w", l.path, err)
	}
	return string(b), nil
}

// tail returns the log's last n lines (from its last tailBytes), oldest first.
func (l *serverLog) tail(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path == "" {
		return nil
	}
	f, err := os.Open(l.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	off := max(fi.Size()-tailBytes, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil {
		return nil
	}
	if off > 0 { // the first line is probably cut
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines[max(len(lines)-n, 0):]
}

// lineWriter is an io.Writer that hands each complete line to emit (a final line without
// a newline on flush). A line longer than maxLogLine without a newline yet is handed on
// in pieces: each piece is first redacted whole, and the last longest-1 bytes (longest:
// the longest secret) are held back for the next piece, so a secret that spans two
// writes is still hidden whole. It is used by one goroutine.
type lineWriter struct {
	buf     []byte
	emit    func(string)
	redact  func(string) string // nil: nothing to hide
	longest func() int          // the longest secret's length; nil: 0
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLogLine { // a huge line without a newline: write what there is
		text := string(w.buf)
		keep := 0
		if w.redact != nil {
			text = w.redact(text)
		}
		if w.longest != nil {
			keep = min(max(w.longest()-1, 0), len(text)/2)
		}
		w.emit(text[:len(text)-keep])
		w.buf = append(w.buf[:0], text[len(text)-keep:]...)
	}
	return len(p), nil
}

func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.emit(string(w.buf))
		w.buf = nil
	}
}

// Package proctest tells tests which processes are still running, to check that children
// (hooks, MCP servers and what they started) do not outlive what owns them. It reads Linux's
// /proc; a test calling it elsewhere is skipped. Tests only; nothing here ships in the app.
package proctest

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Need skips t where /proc cannot be read (any system but Linux).
func Need(t testing.TB) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
}

// stat returns the state letter and process group of pid from /proc/<pid>/stat; ok is false
// when there is no such process.
func stat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:]) // state, ppid, pgrp, …
	if len(f) < 3 {
		return 0, 0, false
	}
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], pgrp, true
}

// Alive reports whether pid is a running process: it exists and is not a zombie (a
// process that has ended and waits for its parent, or init, to collect it).
func Alive(pid int) bool {
	state, _, ok := stat(pid)
	return ok && state != 'Z' && state != 'X'
}

// Group returns the live (not zombie) processes of process group pgid.
func Group(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pgrp, ok := stat(pid); ok && pgrp == pgid && state != 'Z' && state != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// WaitGone waits up to limit for every process of group pgid to end and fails t naming
// those still running then.
func WaitGone(t testing.TB, pgid int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		left := Group(pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of group %d still running after %v: %v", pgid, limit, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

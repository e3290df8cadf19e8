//go:build !nowindow

package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLightBeside checks how the window build, started directly by the desktop entry, finds
// the window-less build whose children run its parsers' jobs: artifactflow beside it when
// that is a regular executable file and not the window build itself.
func TestLightBeside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("executable bits: the Unix cases below")
	}
	write := func(path string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		setup func(dir string) (self string)
		want  string // relative to dir; "" = none
	}{
		{"beside it", func(dir string) string {
			write(filepath.Join(dir, "artifactflow"), 0o755)
			write(filepath.Join(dir, "artifactflow-window"), 0o755)
			return filepath.Join(dir, "artifactflow-window")
		}, "artifactflow"},
		{"none beside it (the macOS app)", func(dir string) string {
			write(filepath.Join(dir, "artifactflow-window"), 0o755)
			return filepath.Join(dir, "artifactflow-window")
		}, ""},
		{"not executable", func(dir string) string {
			write(filepath.Join(dir, "artifactflow"), 0o644)
			write(filepath.Join(dir, "artifactflow-window"), 0o755)
			return filepath.Join(dir, "artifactflow-window")
		}, ""},
		{"a directory of that name", func(dir string) string {
			if err := os.Mkdir(filepath.Join(dir, "artifactflow"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(filepath.Join(dir, "artifactflow-window"), 0o755)
			return filepath.Join(dir, "artifactflow-window")
		}, ""},
		{"the window build itself installed as artifactflow", func(dir string) string {
			write(filepath.Join(dir, "artifactflow"), 0o755)
			return filepath.Join(dir, "artifactflow")
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			self := c.setup(dir)
			want := ""
			if c.want != "" {
				want = filepath.Join(dir, c.want)
			}
			if got := lightBeside(self); got != want {
				t.Errorf("lightBeside(%s) = %q, want %q", self, got, want)
			}
		})
	}
}

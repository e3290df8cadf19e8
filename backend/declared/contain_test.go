package declared

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolveWorkspacePath(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "sub", "a.md"))
	write(filepath.Join(outside, "secret.txt"))
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	link(filepath.Join(outside, "secret.txt"), "escape.txt")
	link("../outside", "escdir")
	link("sub/a.md", "inner.md")
	link(filepath.Join(outside, "nothing-yet"), "dangling-out")
	link("loop2", "loop1")
	link("loop1", "loop2")

	tests := []struct {
		rel, clean string
		want       error // nil: resolves to real
		real       string
	}{
		{"sub/a.md", "sub/a.md", nil, filepath.Join(ws, "sub", "a.md")},
		{`sub\a.md`, "sub/a.md", nil, filepath.Join(ws, "sub", "a.md")},
		{"./sub/../sub/a.md", "sub/a.md", nil, filepath.Join(ws, "sub", "a.md")},
		{"inner.md", "inner.md", nil, filepath.Join(ws, "sub", "a.md")},
		{"../outside/secret.txt", "", ErrBadWorkspacePath, ""},
		{"sub/../../x", "", ErrBadWorkspacePath, ""},
		{filepath.Join(outside, "secret.txt"), "", ErrBadWorkspacePath, ""},
		{"C:/x.txt", "", ErrBadWorkspacePath, ""},
		{".", "", ErrBadWorkspacePath, ""},
		{"", "", ErrBadWorkspacePath, ""},
		{"a\x00b", "", ErrBadWorkspacePath, ""},
		{"escape.txt", "escape.txt", ErrOutsideWorkspace, ""},
		{"escdir/secret.txt", "escdir/secret.txt", ErrOutsideWorkspace, ""},
		{"dangling-out", "dangling-out", ErrOutsideWorkspace, ""},
		{"sub/missing.md", "sub/missing.md", ErrNotInWorkspace, ""},
	}
	for _, tc := range tests {
		clean, real, err := ResolveWorkspacePath(ws, tc.rel)
		if tc.want == nil {
			if err != nil || clean != tc.clean || real != tc.real {
				t.Errorf("%q: %q, %q, %v; want %q, %q", tc.rel, clean, real, err, tc.clean, tc.real)
			}
			continue
		}
		if !errors.Is(err, tc.want) || real != "" || clean != tc.clean {
			t.Errorf("%q: %q, %q, %v; want %q and an error wrapping %v", tc.rel, clean, real, err, tc.clean, tc.want)
		}
	}
	// Where a path leads, relative to the workspace: a link is judged by its target.
	for rel, want := range map[string]string{"inner.md": "sub/a.md", "sub/./a.md": "sub/a.md", "sub": "sub"} {
		if _, _, target, err := ResolveWorkspaceTarget(ws, rel); err != nil || target != want {
			t.Errorf("target of %q = %q, %v; want %q", rel, target, err, want)
		}
	}
	if _, _, target, err := ResolveWorkspaceTarget(ws, "escape.txt"); !errors.Is(err, ErrOutsideWorkspace) || target != "" {
		t.Errorf("target of a link leading outside = %q, %v", target, err)
	}
	if _, _, err := ResolveWorkspacePath(ws, "loop1"); err == nil || errors.Is(err, ErrNotInWorkspace) {
		t.Errorf("a link loop: %v, want the loop reported", err)
	}

	// A workspace reached through a link is resolved first.
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(ws, alias); err != nil {
		t.Fatal(err)
	}
	if _, real, err := ResolveWorkspacePath(alias, "sub/a.md"); err != nil || real != filepath.Join(ws, "sub", "a.md") {
		t.Errorf("through an aliased workspace: %q, %v", real, err)
	}
	root, err := RealWorkspace(alias)
	if err != nil || root != ws || !WithinWorkspace(root, filepath.Join(ws, "sub")) || WithinWorkspace(root, outside) {
		t.Errorf("RealWorkspace(alias) = %q, %v; want %q and containment to hold", root, err, ws)
	}
}

package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/sources"
)

// TestOpenSourceFile: a citation of a workspace file opens that file with the system's
// application (after the same checks as a declared file: inside the workspace, not a
// hidden file, a document type); a path the conversation does not cite, an upload (shown
// in the panel instead), a link leaving the workspace and a missing file are refused and
// nothing is launched.
func TestOpenSourceFile(t *testing.T) {
	f := newDeclaredFixture(t)
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(f.ws, "notes.md"), []byte("# Notes\n\nline 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, filepath.Join(f.ws, "escape.md")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []sources.Source{
		{Kind: sources.KindFile, Location: "notes.md", Line: 3, Title: "notes.md"},
		{Kind: sources.KindFile, Location: "@uploads/notes.md", Line: 3, Title: "notes.md"},
		{Kind: sources.KindFile, Location: "escape.md", Title: "escape.md"},
		{Kind: sources.KindFile, Location: "gone.md", Title: "gone.md"},
	} {
		if _, err := f.core.Store().AddSource(ctx, f.conv, s); err != nil {
			t.Fatal(err)
		}
	}
	var launched []string
	files := sourceFiles{core: f.core, launch: func(_ context.Context, p string, reveal bool) error {
		if reveal {
			p = "reveal " + p
		}
		launched = append(launched, p)
		return nil
	}}
	if err := files.open(f.conv, "notes.md"); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(f.ws, "notes.md"); len(launched) != 1 || launched[0] != want {
		t.Fatalf("launched %q, want %q", launched, want)
	}
	launched = nil
	for _, tc := range []struct {
		path string
		want error
		says string
	}{
		{"reports/lineage.html", ErrDeclaredNotFound, "cites no file"}, // in the workspace, but not cited
		{"../secret.txt", ErrDeclaredNotFound, "cites no file"},
		{"@uploads/notes.md", ErrNotAFile, "uploaded file"},
		{"escape.md", ErrFileUnavailable, "leads outside the workspace"},
		{"gone.md", ErrFileUnavailable, "gone.md"},
	} {
		err := files.open(f.conv, tc.path)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("open(%q) = %v, want %v saying %q", tc.path, err, tc.want, tc.says)
		}
	}
	if len(launched) != 0 {
		t.Errorf("launched %q for refused paths", launched)
	}
	if code := ToAppError(files.open(f.conv, "nope.md")).Code; code != CodeNotFound {
		t.Errorf("an uncited path's code = %s, want not_found", code)
	}
}

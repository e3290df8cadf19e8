package main

import (
	"bytes"
	"io/fs"
	"os"
	"testing"
)

// TestEmbeddedAssetsMatchDist: the binary's frontend (frontend/distgz, read through gzfs)
// holds every file of the built frontend/dist with the same bytes, so a build that skipped
// frontend/scripts/gzip-dist.mjs (vite build run alone) fails here instead of shipping a
// stale or empty UI. Skipped before the frontend is built.
func TestEmbeddedAssetsMatchDist(t *testing.T) {
	dist := os.DirFS("frontend/dist")
	if _, err := fs.Stat(dist, "index.html"); err != nil {
		t.Skip("frontend/dist is not built (make frontend)")
	}
	n := 0
	err := fs.WalkDir(dist, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == ".gitkeep" {
			return err
		}
		want, err := fs.ReadFile(dist, name)
		if err != nil {
			return err
		}
		got, err := fs.ReadFile(assets, name)
		if err != nil {
			t.Errorf("%s: not embedded (%v): run npm run build in frontend, then go build", name, err)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the embedded copy (%d bytes) differs from frontend/dist's (%d): run npm run build in frontend", name, len(got), len(want))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no file compared")
	}
}

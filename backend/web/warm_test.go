package web

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestWarmPDFReader: warming the PDF reader on a fresh install (an empty cache folder)
// leaves PDFium's compiled module in the cache folder the next PDF's reader loads it from,
// and a warm-up whose context is already cancelled stops without reading.
func TestWarmPDFReader(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir()) // os.UserCacheDir elsewhere than Linux
	dir := pdfCacheDir()
	if dir == "" || !isUnder(dir, cache) {
		t.Fatalf("pdfCacheDir() = %q, want a folder under %s", dir, cache)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WarmPDFReader(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled warm-up: err = %v, want context.Canceled", err)
	}
	if n := countFiles(t, dir); n != 0 {
		t.Fatalf("a cancelled warm-up left %d files in %s", n, dir)
	}
	if err := WarmPDFReader(context.Background()); err != nil {
		t.Fatalf("WarmPDFReader: %v", err)
	}
	if n := countFiles(t, dir); n == 0 {
		t.Fatalf("no compiled module in %s after the warm-up", dir)
	}
}

func isUnder(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

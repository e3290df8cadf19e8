package pdfwasm

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goPdfiumDir is where the go-pdfium version go.mod requires lives in the module cache.
func goPdfiumDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/klippa-app/go-pdfium").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/klippa-app/go-pdfium: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestModuleMatchesGoPdfium: the embedded module is byte for byte go-pdfium's (its Go glue
// calls the module's exports by name and signature, so a stale copy breaks every PDF).
func TestModuleMatchesGoPdfium(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(goPdfiumDir(t), "internal", "pdfium_wasm", "pdfium.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Module()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the embedded module (%d bytes) differs from go-pdfium's (%d bytes): run go generate in backend/pdfwasm", len(got), len(want))
	}
}

func TestGunzipRefusesCorrupt(t *testing.T) {
	var good bytes.Buffer
	zw := gzip.NewWriter(&good)
	_, _ = zw.Write(bytes.Repeat([]byte("wasm"), 1000))
	_ = zw.Close()
	flipped := bytes.Clone(good.Bytes())
	flipped[len(flipped)-6] ^= 0xff // the CRC
	tests := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"not gzip", []byte("\x00asm\x01\x00\x00\x00")},
		{"truncated", good.Bytes()[:good.Len()/2]},
		{"bad checksum", flipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := gunzip(tt.in); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("gunzip: err %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestBinaryDropsGoPdfiumCopy links the command-line binary and checks that go-pdfium's
// uncompressed module is not in it (backend/web must call webassembly.InitWithWASM with
// Module, never webassembly.Init, which references that copy).
func TestBinaryDropsGoPdfiumCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("links the whole binary")
	}
	root := filepath.Join("..", "..")
	bin := filepath.Join(t.TempDir(), "artifactflow")
	build := exec.Command("go", "build", "-tags", "nowindow,sqlite_fts5", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "pdfium_wasm") {
			t.Fatalf("go-pdfium's own module is linked: %s", strings.TrimSpace(l))
		}
	}
}

// Command gen writes pdfium.wasm.gz, the PDFium module package pdfwasm embeds, from the
// go-pdfium version go.mod requires (its internal/pdfium_wasm/pdfium.wasm in the module
// cache), gzip-compressed at the best level.
//
// Run from backend/pdfwasm: go generate.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/klippa-app/go-pdfium").Output()
	if err != nil {
		return fmt.Errorf("locate go-pdfium (go mod download first?): %w", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "internal", "pdfium_wasm", "pdfium.wasm")
	wasm, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(wasm); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile("pdfium.wasm.gz", gz.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("pdfium.wasm.gz: %d bytes from %d (%s)\n", gz.Len(), len(wasm), src)
	return nil
}

// Package pdfwasm holds go-pdfium's PDFium WebAssembly module gzip-compressed (2.6 MB in the
// binary instead of 5.8 MB). Callers pass Module() to webassembly.InitWithWASM, which, unlike
// webassembly.Init, does not reference go-pdfium's own uncompressed copy, so the linker drops
// it. internal/gen writes pdfium.wasm.gz from the go-pdfium version in go.mod;
// TestModuleMatchesGoPdfium fails when the two differ (run go generate after an upgrade).
package pdfwasm

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the module
	"encoding/binary"
	"errors"
	"fmt"
)

//go:generate go run ./internal/gen

//go:embed pdfium.wasm.gz
var moduleGz []byte

// ErrCorrupt reports an embedded module that does not decompress: a broken build.
var ErrCorrupt = errors.New("pdfwasm: the embedded PDFium module is corrupt")

// Module returns the PDFium WebAssembly module, decompressed into a new slice (5.8 MB, in
// about 20 ms) that the caller owns: nothing stays in memory once the PDF reader is done.
// The error wraps ErrCorrupt.
func Module() ([]byte, error) {
	return gunzip(moduleGz)
}

func gunzip(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	var size int // gzip's trailer has the size mod 2^32: allocate once when it is plausible
	if n := len(gz); n >= 4 {
		size = int(binary.LittleEndian.Uint32(gz[n-4:]))
	}
	if size > 64<<20 {
		size = 0
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(zr); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return buf.Bytes(), nil
}

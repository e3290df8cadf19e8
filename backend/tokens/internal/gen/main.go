// Command gen writes the BPE tables that package tokens embeds (bpe_*.bin.gz) from
// tiktoken-go-loader's copies of OpenAI's files: for each rank from 0 in order, the token's
// length as a uvarint then its bytes, gzip-compressed at the best level. It fails when a
// file's ranks are not exactly 0..n-1, which that format cannot hold.
//
// Run from backend/tokens: go generate (see bpe.go).
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

func main() {
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		if err := write(name); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}

func write(name string) error {
	src, err := assets.Assets.ReadFile(name + ".tiktoken")
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	var tokens [][]byte
	for i, line := range strings.Split(strings.TrimRight(string(src), "\n"), "\n") {
		b64, rank, ok := strings.Cut(line, " ")
		if !ok {
			return fmt.Errorf("%s line %d: no rank", name, i+1)
		}
		tok, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", name, i+1, err)
		}
		if r, err := strconv.Atoi(rank); err != nil || r != len(tokens) {
			return fmt.Errorf("%s line %d: rank %q, want %d (ranks must run 0..n-1)", name, i+1, rank, len(tokens))
		}
		tokens = append(tokens, tok)
	}
	var raw []byte
	for _, t := range tokens {
		raw = binary.AppendUvarint(raw, uint64(len(t)))
		raw = append(raw, t...)
	}
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(raw); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	dst := "bpe_" + name + ".bin.gz"
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	fmt.Printf("%s: %d tokens, %d bytes raw, %d gzip\n", dst, len(tokens), len(raw), out.Len())
	return nil
}

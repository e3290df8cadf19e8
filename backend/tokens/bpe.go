package tokens

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the BPE tables
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	tiktoken "github.com/pkoukk/tiktoken-go"
)

// The two BPE tables the counters use, compressed (1.5 MB instead of the 7 MB of
// tiktoken-go-loader's four base64 files, p50k and r50k being for models nobody chats with):
// for ranks 0..n-1, each token's length as a uvarint then its bytes, gzip-compressed.
// internal/gen writes them from tiktoken-go-loader's copies; TestBPEMatchesLoader checks
// they hold the same ranks.
//
//go:generate go run ./internal/gen
var (
	//go:embed bpe_cl100k_base.bin.gz
	cl100kGz []byte
	//go:embed bpe_o200k_base.bin.gz
	o200kGz []byte
)

// errBadTable reports an embedded table that does not decode: a broken build.
var errBadTable = errors.New("embedded BPE table is corrupt")

// The special tokens and split patterns of tiktoken's encodings, as tiktoken-go v0.1.8
// defines them (encoding.go); TestCountsMatchLibrary compares the counts with the library's.
const (
	endOfText   = "<|endoftext|>"
	fimPrefix   = "<|fim_prefix|>"
	fimMiddle   = "<|fim_middle|>"
	fimSuffix   = "<|fim_suffix|>"
	endOfPrompt = "<|endofprompt|>"

	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

var o200kPattern = strings.Join([]string{
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`\p{N}{1,3}`,
	` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
	`\s*[\r\n]+`,
	`\s+(?!\S)`,
	`\s+`,
}, "|")

// ranks decodes a table from bpe_*.bin.gz into tiktoken's mergeable ranks (token bytes to
// rank). The keys share one string, so the map costs one allocation for all token bytes.
func ranks(gz []byte) (map[string]int, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadTable, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadTable, err)
	}
	s := string(raw)
	m := make(map[string]int, len(s)/7)
	for i := 0; i < len(s); {
		n, k := binary.Uvarint(raw[i:])
		if k <= 0 || uint64(len(s)-i-k) < n {
			return nil, fmt.Errorf("%w: token %d at byte %d", errBadTable, len(m), i)
		}
		i += k
		m[s[i:i+int(n)]] = len(m)
		i += int(n)
	}
	return m, nil
}

// newEncoding builds the tiktoken encoding name ("cl100k_base" or "o200k_base") from the
// embedded tables, as tiktoken.GetEncoding would with tiktoken-go-loader's offline loader.
func newEncoding(name string) (*tiktoken.Tiktoken, error) {
	var (
		gz      []byte
		pattern string
		special map[string]int
	)
	switch name {
	case "cl100k_base":
		gz, pattern = cl100kGz, cl100kPattern
		special = map[string]int{endOfText: 100257, fimPrefix: 100258, fimMiddle: 100259, fimSuffix: 100260, endOfPrompt: 100276}
	case "o200k_base":
		gz, pattern = o200kGz, o200kPattern
		special = map[string]int{endOfText: 199999, endOfPrompt: 200018}
	default:
		return nil, fmt.Errorf("unknown encoding %q", name)
	}
	r, err := ranks(gz)
	if err != nil {
		return nil, err
	}
	bpe, err := tiktoken.NewCoreBPE(r, special, pattern)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", name, err)
	}
	set := make(map[string]any, len(special))
	for k := range special {
		set[k] = true
	}
	enc := &tiktoken.Encoding{Name: name, PatStr: pattern, MergeableRanks: r, SpecialTokens: special}
	return tiktoken.NewTiktoken(bpe, enc, set), nil
}

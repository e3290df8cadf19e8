package tokens

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the BPE tables
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dlclark/regexp2"
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

// The split patterns of tiktoken's encodings, as tiktoken-go v0.1.8 defines them
// (encoding.go); TestCountsMatchLibrary compares the tokens with the library's.
const (
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

// encoder is tiktoken's ordinary encoding (no special tokens) of one BPE table, as
// pkoukk/tiktoken-go v0.1.8 does it (CoreBPE.encodeOrdinaryNative and bytePairMerge, MIT):
// the split pattern cuts the text into pieces (matched on runes, so invalid UTF-8 is read
// as U+FFFD as there), a piece in the table is one token, any other is merged pair by pair
// in rank order. Unlike tiktoken-go's CoreBPE it keeps only the ranks (o200k: 8.6 MB of
// heap instead of 22.5 MB with the decoder and the sorted token list, and built in a fifth
// of the time). Safe for concurrent use.
type encoder struct {
	ranks map[string]int
	split *regexp2.Regexp
}

// newEncoding builds the encoding name ("cl100k_base" or "o200k_base") from the embedded
// tables. Errors: an unknown name, or errBadTable.
func newEncoding(name string) (*encoder, error) {
	var (
		gz      []byte
		pattern string
	)
	switch name {
	case "cl100k_base":
		gz, pattern = cl100kGz, cl100kPattern
	case "o200k_base":
		gz, pattern = o200kGz, o200kPattern
	default:
		return nil, fmt.Errorf("unknown encoding %q", name)
	}
	r, err := ranks(gz)
	if err != nil {
		return nil, err
	}
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("compile the split pattern of %s: %w", name, err)
	}
	return &encoder{ranks: r, split: re}, nil
}

// EncodeOrdinary returns the tokens of text, special-token text included as ordinary text.
func (e *encoder) EncodeOrdinary(text string) []int {
	out := []int{}
	runes := []rune(text)
	m, _ := e.split.FindRunesMatch(runes)
	for m != nil {
		piece := string(runes[m.Index : m.Index+m.Length])
		if tok, ok := e.ranks[piece]; ok {
			out = append(out, tok)
		} else {
			out = e.bytePairEncode(out, []byte(piece))
		}
		m, _ = e.split.FindNextMatch(m)
	}
	return out
}

// bytePairEncode appends the tokens of piece, merged pair by pair from the lowest rank.
// Its cost is quadratic in the piece's length (each merge rescans the parts), as
// tiktoken's: callers pass segments of at most maxRun bytes (segment.go), which bounds it
// on hostile runs such as a megabyte of '='.
func (e *encoder) bytePairEncode(out []int, piece []byte) []int {
	if len(piece) == 1 {
		return append(out, e.ranks[string(piece)])
	}
	parts := make([][2]int, len(piece)+1) // start offset, rank of the pair starting there
	for i := range parts {
		parts[i] = [2]int{i, math.MaxInt}
	}
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := e.ranks[string(piece[parts[i][0]:parts[i+skip+2][0]])]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i][1] = rank(i, 0)
	}
	for len(parts) > 1 {
		minRank, i := math.MaxInt, -1
		for j := 0; j < len(parts)-1; j++ {
			if parts[j][1] < minRank {
				minRank, i = parts[j][1], j
			}
		}
		if i < 0 {
			break
		}
		parts[i][1] = rank(i, 1)
		if i > 0 {
			parts[i-1][1] = rank(i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	for i := 0; i < len(parts)-1; i++ {
		out = append(out, e.ranks[string(piece[parts[i][0]:parts[i+1][0]])])
	}
	return out
}

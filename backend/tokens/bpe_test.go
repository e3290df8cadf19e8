package tokens

import (
	"bytes"
	"compress/gzip"
	"errors"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

var tables = []struct {
	name  string
	gz    []byte
	model string // a model counted with this encoding
}{
	{"cl100k_base", cl100kGz, "deepseek-chat"},
	{"o200k_base", o200kGz, "gpt-4o"},
}

// TestBPEMatchesLoader: the embedded tables hold exactly tiktoken-go-loader's ranks.
func TestBPEMatchesLoader(t *testing.T) {
	for _, tt := range tables {
		t.Run(tt.name, func(t *testing.T) {
			want, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(tt.name + ".tiktoken")
			if err != nil {
				t.Fatal(err)
			}
			got, err := ranks(tt.gz)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d ranks, the loader has %d", len(got), len(want))
			}
			if !maps.Equal(got, want) {
				for k, v := range want {
					if got[k] != v {
						t.Fatalf("token %q: rank %d, the loader has %d", k, got[k], v)
					}
				}
			}
		})
	}
}

// librarySamples cover scripts, code, numbers, whitespace and contractions: what the split
// patterns treat differently.
var librarySamples = []string{
	"Hello world! It's a test, isn't it? We'll see; they'd've known.",
	"The quick brown fox jumps over the lazy dog 1234567890 times.\n\n\tIndented line   with   spaces  ",
	"月球距离地球约三十八万公里。研究表明，潮汐锁定使月球总是以同一面朝向地球。",
	"東京は日本の首都です。カタカナとひらがなを混ぜた文章。",
	"한국어 문장도 토큰으로 나뉩니다.",
	"Привет, мир! Это проверка токенизатора.",
	"مرحبا بالعالم، هذا اختبار.",
	"नमस्ते दुनिया, यह एक परीक्षण है।",
	"Emoji 👩‍👩‍👧‍👦🚀✨ and symbols ©®™ — “quotes” «guillemets»",
	"func main() {\n\tfmt.Println(\"hi\")\n\treturn x<<2 | y&0xFF\n}\n",
	`{"name":"web_search","arguments":{"query":"GDP 2025","limit":10},"ok":true}`,
	"CamelCaseIdentifiers and snake_case_names and SHOUTING_CONSTANTS/paths/to/file.go\r\n",
	"<|endoftext|> is ordinary text here, as are <|fim_prefix|> and <|endofprompt|>",
	strings.Repeat("mixed 混合 テキスト ", 40),
	"invalid UTF-8 \xff\xfe\xc3 and a cut rune \xe6\x9c",
	strings.Repeat("a", 300) + strings.Repeat("ab", 150) + " Pneumonoultramicroscopicsilicovolcanoconiosis",
	"x",
	"   \n\n\n   \t\t  \r\n",
	"12345678901234567890 3.14159 -42 1e10 0xDEADBEEF",
}

// randomSamples are deterministic random texts over an alphabet of scripts, digits,
// punctuation, whitespace and stray bytes: pieces the table lacks, so merges are exercised.
func randomSamples(n int) []string {
	alphabet := []string{"a", "e", "Z", "q", "th", "ing", " ", "  ", "\n", "\t", "7", "42", ".", ",", "'s", "'LL",
		"月", "球", "の", "カ", "한", "я", "Ж", "ع", "न", "👍", "\u0301", "\xff", "{", "}", "\"", "/", "_", "-", "<|"}
	r := rand.New(rand.NewPCG(11, 26))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + r.IntN(120) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		out[i] = b.String()
	}
	return out
}

// TestCountsMatchLibrary: the encodings built from the embedded tables give the same tokens
// as tiktoken-go's own GetEncoding with tiktoken-go-loader, and the counters the same counts.
func TestCountsMatchLibrary(t *testing.T) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) // the package no longer uses it
	for _, tt := range tables {
		t.Run(tt.name, func(t *testing.T) {
			lib, err := tiktoken.GetEncoding(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := newEncoding(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewCounter(tt.model)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range append(librarySamples, randomSamples(300)...) {
				want := lib.EncodeOrdinary(s)
				if got := ours.EncodeOrdinary(s); !slices.Equal(got, want) {
					t.Errorf("EncodeOrdinary(%.30q) = %v, the library gives %v", s, got, want)
				}
				if got := c.Text(s); got != len(want) {
					t.Errorf("Text(%.30q) = %d, the library counts %d", s, got, len(want))
				}
			}
		})
	}
}

// TestEncoderHeap: an o200k encoder keeps its ranks and pattern only, not tiktoken-go's
// decoder and sorted token list (22.5 MB with CoreBPE; 8.6 MB measured here).
func TestEncoderHeap(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	e, err := newEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	held := heap() - before
	runtime.KeepAlive(e)
	t.Logf("o200k encoder: %.1f MB of heap", float64(held)/1e6)
	if held > 14e6 {
		t.Fatalf("the o200k encoder holds %.1f MB of heap, want under 14 MB", float64(held)/1e6)
	}
}

func TestRanksRefusesBrokenTable(t *testing.T) {
	gz := func(raw []byte) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		return b.Bytes()
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"not gzip", []byte("plain text")},
		{"truncated gzip", cl100kGz[:len(cl100kGz)/2]},
		{"length past the end", gz([]byte{5, 'a', 'b'})},
		{"bad uvarint", gz([]byte{0x80})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ranks(tt.in); !errors.Is(err, errBadTable) {
				t.Fatalf("ranks: err %v, want errBadTable", err)
			}
		})
	}
	if _, err := newEncoding("p50k_base"); err == nil {
		t.Fatal("p50k_base is not embedded: want an error")
	}
}

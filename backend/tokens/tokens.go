// Package tokens counts the tokens of a model request offline: tiktoken's cl100k and
// o200k BPE tables are compiled into the binary, compressed, and decoded on the first
// counter for a model that needs them, then encoded as pkoukk/tiktoken-go does (see
// bpe.go), and every count is corrected by the prompt tokens the endpoint reports,
// because DeepSeek, Qwen or a local model tokenize differently from OpenAI.
package tokens

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"

	"artifactflow/backend/llm"
)

// perMessage is the framing cost of one chat message (role and separators), in tokens, as
// OpenAI documents it for its chat models.
const perMessage = 4

var (
	seed      = maphash.MakeSeed()
	encMu     sync.Mutex
	encodings = map[string]*encoder{}
)

// encodingFor returns the tiktoken encoding name for a model: o200k_base for OpenAI's
// gpt-4o, gpt-4.1, gpt-5 and o-series models, cl100k_base for everything else.
func encodingFor(model string) string {
	m := strings.ToLower(model)
	for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4", "chatgpt-4o"} {
		if strings.HasPrefix(m, p) {
			return "o200k_base"
		}
	}
	return "cl100k_base"
}

func encoding(name string) (*encoder, error) {
	encMu.Lock()
	defer encMu.Unlock()
	if e, ok := encodings[name]; ok {
		return e, nil
	}
	e, err := newEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("tokens: load %s: %w", name, err)
	}
	encodings[name] = e
	return e, nil
}

// Counter estimates the prompt tokens of requests to one model. It is safe for concurrent
// use. The zero value is not usable; call NewCounter.
type Counter struct {
	enc *encoder

	mu    sync.Mutex
	ratio float64        // reported / counted, smoothed; 1 until the endpoint reports usage
	memo  map[uint64]int // counts of long texts by hash: history is recounted every round
}

// memoMin is the length from which Text remembers counts; memoMax bounds the memo.
const (
	memoMin = 256
	memoMax = 8192
)

// NewCounter returns a counter for model. Errors: the embedded BPE table failed to load
// (a broken build).
func NewCounter(model string) (*Counter, error) {
	enc, err := encoding(encodingFor(model))
	if err != nil {
		return nil, err
	}
	return &Counter{enc: enc, ratio: 1, memo: map[uint64]int{}}, nil
}

// Text returns the number of tokens of s, uncorrected. It is TextContext without a way to
// stop: counting takes 0.1 to 0.7 s per MB of any text on a 2-core machine.
func (c *Counter) Text(s string) int {
	n, _ := c.TextContext(context.Background(), s)
	return n
}

// TextContext returns the number of tokens of s, uncorrected: exact for prose, code and
// JSON, and within 2 tokens per 256 bytes for stretches of 256 bytes with no word boundary
// (see segments). It checks ctx every 16 KB or so (10 ms of work at most); once ctx is
// done it returns 0 and an error wrapping ctx.Err().
func (c *Counter) TextContext(ctx context.Context, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	if len(s) < memoMin {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("tokens: count stopped: %w", err)
		}
		return len(c.enc.EncodeOrdinary(s)), nil // shorter than maxRun: one segment
	}
	h := maphash.String(seed, s)
	c.mu.Lock()
	n, ok := c.memo[h]
	c.mu.Unlock()
	if ok {
		return n, nil
	}
	var err error
	segments(s, maxSegment, maxRun, func(seg string) bool {
		if err = ctx.Err(); err != nil {
			return false
		}
		n += len(c.enc.EncodeOrdinary(seg))
		return true
	})
	if err != nil {
		return 0, fmt.Errorf("tokens: count of %d bytes stopped: %w", len(s), err)
	}
	c.mu.Lock()
	if len(c.memo) >= memoMax {
		clear(c.memo)
	}
	c.memo[h] = n
	c.mu.Unlock()
	return n, nil
}

// ImageTokens is what one image of a message (llm.Message.Images) is counted as: about
// what OpenAI's vision models charge for a picture of 2048×1024 pixels in high detail (85
// + 170 per 512-pixel tile), the larger of the sizes the engine sends (at most 2048 pixels
// a side). Endpoints report the real figure, which corrects the estimate (Observe).
const ImageTokens = 1105

// Raw counts msgs plus the tool definitions' JSON (extra), uncorrected: the figure to pass
// to Observe with the usage the endpoint then reports. It is RawContext without a way to
// stop.
func (c *Counter) Raw(msgs []llm.Message, extra string) int {
	n, _ := c.RawContext(context.Background(), msgs, extra)
	return n
}

// RawContext is Raw that stops once ctx is done, returning 0 and an error wrapping
// ctx.Err().
func (c *Counter) RawContext(ctx context.Context, msgs []llm.Message, extra string) (int, error) {
	n := 3 // every reply is primed with 3 tokens
	add := func(s string) error {
		k, err := c.TextContext(ctx, s)
		n += k
		return err
	}
	if err := add(extra); err != nil {
		return 0, err
	}
	for _, m := range msgs {
		n += perMessage + len(m.Images)*ImageTokens
		if err := add(m.Content); err != nil {
			return 0, err
		}
		for _, tc := range m.ToolCalls {
			n += 3
			if err := add(tc.Name); err != nil {
				return 0, err
			}
			if err := add(tc.Arguments); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// Estimate returns Raw corrected by what the endpoint reported so far. It is
// EstimateContext without a way to stop.
func (c *Counter) Estimate(msgs []llm.Message, extra string) int {
	n, _ := c.EstimateContext(context.Background(), msgs, extra)
	return n
}

// EstimateContext returns RawContext corrected by what the endpoint reported so far, in
// tokens. Once ctx is done it returns 0 and an error wrapping ctx.Err().
func (c *Counter) EstimateContext(ctx context.Context, msgs []llm.Message, extra string) (int, error) {
	raw, err := c.RawContext(ctx, msgs, extra)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	r := c.ratio
	c.mu.Unlock()
	return int(float64(raw)*r + 0.5), nil
}

// Observe records that a request counted as raw tokens was reported by the endpoint as
// reported prompt tokens. Reports of 0 (endpoints that send no usage) are ignored; the
// correction moves halfway toward each new ratio and stays within [0.5, 3].
func (c *Counter) Observe(raw, reported int) {
	if raw <= 0 || reported <= 0 {
		return
	}
	r := float64(reported) / float64(raw)
	r = min(max(r, 0.5), 3)
	c.mu.Lock()
	c.ratio = (c.ratio + r) / 2
	c.mu.Unlock()
}

// Ratio returns the current correction factor (reported / counted).
func (c *Counter) Ratio() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ratio
}

// ContextWindow returns the prompt tokens a model accepts when the user has not set a
// window: known families by name, else 32,768, a size most local servers can be set to.
// For gpt-5 it is the input limit (272,000 of its 400,000 total, the rest reserved for
// output). Local Qwen builds (qwen3, qwen2.5 as served by Ollama or LM Studio) get their
// native 32,768; DashScope's qwen-plus and qwen-turbo 131,072. Users of Ollama should
// raise num_ctx or set the window in Settings.
func ContextWindow(model string) int {
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "gpt-5"):
		return 272_000
	case strings.HasPrefix(m, "gpt-4.1"):
		return 1_047_576
	case strings.HasPrefix(m, "gpt-4o"), strings.HasPrefix(m, "o1"), strings.HasPrefix(m, "o3"), strings.HasPrefix(m, "o4"),
		strings.HasPrefix(m, "gpt-4-turbo"):
		return 128_000
	case strings.Contains(m, "deepseek"):
		return 128_000
	case strings.HasPrefix(m, "qwen-plus"), strings.HasPrefix(m, "qwen-turbo"):
		return 131_072
	}
	return 32_768
}

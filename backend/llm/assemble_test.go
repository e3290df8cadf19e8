package llm

import (
	"bufio"
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"
)

// TestThinkSplitter feeds each input cut into chunks of every size from 1 byte to the
// whole text, so every way a tag can be split across chunks is covered.
func TestThinkSplitter(t *testing.T) {
	tests := []struct {
		name, in                 string
		wantReasoning, wantReply string
	}{
		{"think block then answer", "<think>\nweigh options\n</think>\n\nThe answer.", "weigh options\n", "The answer."},
		{"leading whitespace before the tag", " \n<think>r</think>a", "r", "a"},
		{"partial close tag inside reasoning", "<think>a </thi b</think>c", "a </thi b", "c"},
		{"close tag text after the block stays content", "<think>r</think>x </think> y", "r", "x </think> y"},
		{"empty block", "<think>\n\n</think>\n\nHi", "", "Hi"},
		{"unclosed block is all reasoning", "<think>cut off by length", "cut off by length", ""},
		{"no tag", "Plain answer.", "", "Plain answer."},
		{"tag later is content", "Use <think>x</think> tags", "", "Use <think>x</think> tags"},
		{"similar tag is content", "<thinking>no</thinking>", "", "<thinking>no</thinking>"},
		{"only a tag prefix", "<thi", "", "<thi"},
		{"only whitespace", " \n", "", " \n"},
		{"nothing", "", "", ""},
		{"multibyte text", "<think>思考</think>答案", "思考", "答案"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for size := 1; size <= max(1, len(tt.in)); size++ {
				var s thinkSplitter
				var reasoning, reply strings.Builder
				for i := 0; i < len(tt.in); i += size {
					r, c := s.feed(tt.in[i:min(i+size, len(tt.in))])
					reasoning.WriteString(r)
					reply.WriteString(c)
				}
				r, c := s.flush()
				reasoning.WriteString(r)
				reply.WriteString(c)
				if reasoning.String() != tt.wantReasoning || reply.String() != tt.wantReply {
					t.Fatalf("chunk size %d: reasoning %q, content %q; want %q, %q",
						size, reasoning.String(), reply.String(), tt.wantReasoning, tt.wantReply)
				}
			}
		})
	}
}

// TestThinkSplitterStreams checks that reasoning is released as it arrives, not held
// until the close tag.
func TestThinkSplitterStreams(t *testing.T) {
	var s thinkSplitter
	var got []string
	for _, chunk := range []string{"<think>", "first ", "second </", "think>", "answer"} {
		r, c := s.feed(chunk)
		got = append(got, r+"|"+c)
	}
	want := []string{"|", "first |", "second |", "|", "|answer"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("per-chunk reasoning|content = %q, want %q", got, want)
	}
}

func TestAssemblerToolCalls(t *testing.T) {
	idx := func(i int) *int { return &i }
	call := func(index *int, id, name, args string) openai.ToolCall {
		return openai.ToolCall{Index: index, ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: name, Arguments: args}}
	}
	tests := []struct {
		name   string
		deltas []openai.ToolCall
		want   []ToolCall
	}{
		{
			name: "indexed deltas, interleaved and out of order",
			deltas: []openai.ToolCall{
				call(idx(1), "b", "fetch", ""), call(idx(0), "a", "search", ""),
				call(idx(1), "", "", `{"u`), call(idx(0), "", "", `{"q`),
				call(idx(0), "", "", `":1}`), call(idx(1), "", "", `":2}`),
			},
			want: []ToolCall{{ID: "a", Name: "search", Arguments: `{"q":1}`}, {ID: "b", Name: "fetch", Arguments: `{"u":2}`}},
		},
		{
			name: "no index: a new id starts a call, the rest continue the latest",
			deltas: []openai.ToolCall{
				call(nil, "a", "search", `{"q"`), call(nil, "", "", `:1}`),
				call(nil, "b", "fetch", `{}`),
			},
			want: []ToolCall{{ID: "a", Name: "search", Arguments: `{"q":1}`}, {ID: "b", Name: "fetch", Arguments: `{}`}},
		},
		{
			name: "id and name repeated on every delta are not duplicated",
			deltas: []openai.ToolCall{
				call(idx(0), "a", "search", `{"q"`), call(idx(0), "a", "search", `:1}`),
			},
			want: []ToolCall{{ID: "a", Name: "search", Arguments: `{"q":1}`}},
		},
		{
			name:   "missing ids are made up from the position",
			deltas: []openai.ToolCall{call(idx(3), "", "search", `{}`), call(idx(7), "", "fetch", `{}`)},
			want:   []ToolCall{{ID: "call_0", Name: "search", Arguments: `{}`}, {ID: "call_1", Name: "fetch", Arguments: `{}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := assembler{onDelta: func(Delta) { t.Error("tool-call deltas must not reach onDelta") }, maxSize: DefaultMaxAnswerBytes}
			for _, d := range tt.deltas {
				if err := a.add(openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{
					{Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{d}}}}}); err != nil {
					t.Fatal(err)
				}
			}
			if got := a.response("m").ToolCalls; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAssemblerIgnoresOtherChoices(t *testing.T) {
	var deltas []Delta
	a := assembler{onDelta: func(d Delta) { deltas = append(deltas, d) }, maxSize: DefaultMaxAnswerBytes}
	if err := a.add(openai.ChatCompletionStreamResponse{Model: "served-model", Choices: []openai.ChatCompletionStreamChoice{
		{Index: 0, Delta: openai.ChatCompletionStreamChoiceDelta{Content: "mine", ReasoningContent: "why"}},
		{Index: 1, Delta: openai.ChatCompletionStreamChoiceDelta{Content: "other"}, FinishReason: "stop"},
	}}); err != nil {
		t.Fatal(err)
	}
	got := a.response("requested-model")
	want := Response{Content: "mine", Reasoning: "why", ReasoningContent: "why", Model: "served-model"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if wantDeltas := []Delta{{Reasoning: "why"}, {Content: "mine"}}; !reflect.DeepEqual(deltas, wantDeltas) {
		t.Errorf("deltas %+v, want %+v", deltas, wantDeltas)
	}
}

// TestDoneTap reads bodies one byte at a time through bufio, as go-openai does (bufio
// over the body), and checks the [DONE] verdict at the end.
func TestDoneTap(t *testing.T) {
	chunk := `data: {"id":"x","choices":[{"index":0,"delta":{"content":"[DONE]"}}]}` + "\n\n"
	tests := []struct {
		name, body string
		want       bool
	}{
		{"done", chunk + "data: [DONE]\n\n", true},
		{"done without space or blank line", chunk + "data:[DONE]", true},
		{"done with CRLF", chunk + "data: [DONE]\r\n\r\n", true},
		{"body ends after a chunk", chunk, false},
		{"[DONE] inside content does not count", chunk + chunk, false},
		{"empty body", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tap := &doneTap{ReadCloser: io.NopCloser(iotest.OneByteReader(strings.NewReader(tt.body)))}
			if _, err := io.Copy(io.Discard, bufio.NewReaderSize(tap, 16)); err != nil {
				t.Fatal(err)
			}
			if got := tap.done(); got != tt.want {
				t.Errorf("done() = %v, want %v (tail %q)", got, tt.want, tap.tail)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	c := &Client{retryDelay: 20 * time.Second}
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, c.backoff(n))
	}
	want := []time.Duration{20 * time.Second, 40 * time.Second, 80 * time.Second, 80 * time.Second, 80 * time.Second}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("backoff = %v, want %v", got, want)
	}
}

func TestSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep on a cancelled ctx = %v", err)
	}
	if err := sleep(context.Background(), time.Nanosecond); err != nil {
		t.Errorf("short sleep = %v", err)
	}
}

func TestClean(t *testing.T) {
	c := &Client{apiKey: "sk-key"}
	long := "a" + strings.Repeat("é", maxMessageLen) // byte maxMessageLen is inside a rune
	tests := []struct {
		name, in, want string
	}{
		{"key redacted", "bad key sk-key here", "bad key [REDACTED] here"},
		{"one line", "a\n  b\r\n\tc  ", "a b c"},
		{"truncated on a rune boundary", long, long[:maxMessageLen-1] + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.clean(tt.in)
			if got != tt.want || !utf8.ValidString(got) {
				t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

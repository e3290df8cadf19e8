package llm

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
)

// assembler builds the Response of one streamed try from its chunks and forwards text
// deltas to onDelta as they arrive. It refuses to hold more than maxSize bytes of text.
type assembler struct {
	onDelta   func(Delta)
	maxSize   int64 // the most bytes of content, reasoning and tool-call text
	size      int64 // bytes of content, reasoning and tool-call text received so far
	delivered bool  // onDelta has been given text
	think     thinkSplitter
	content   strings.Builder
	reasoning strings.Builder
	rcontent  strings.Builder // the reasoning sent as reasoning_content
	calls     []*callParts
	last      *callParts // the call the latest tool-call delta went to
	usage     events.Usage
	finish    string
	model     string
	chunks    int // chunks received
	choices   int // choices in them, of any index
}

// callParts accumulates one tool call's deltas.
type callParts struct {
	index    int
	id, name string
	args     strings.Builder
}

// add takes one chunk: text of choice 0 (the only one requested), its tool-call deltas and
// finish_reason, and the chunk's model and usage when present. A chunk that would take the
// answer's text (content, reasoning, tool-call ids, names and arguments) past maxSize
// bytes is refused whole with a *tooLargeError; one that takes the answer past
// maxToolCalls calls ends it with one too (the try is then abandoned). Reasoning is read
// from reasoning_content only; addChunk also takes the other fields servers use.
func (a *assembler) add(chunk openai.ChatCompletionStreamResponse) error {
	return a.addChunk(streamChunk{ChatCompletionStreamResponse: chunk})
}

// addChunk is add for a chunk decoded by decodeChunk, whose choice 0 may carry its
// reasoning in another field than reasoning_content (see reasoningOf).
func (a *assembler) addChunk(c streamChunk) error {
	chunk := c.ChatCompletionStreamResponse
	if err := a.admit(c); err != nil {
		return err
	}
	a.chunks++
	a.choices += len(chunk.Choices)
	if chunk.Model != "" {
		a.model = chunk.Model
	}
	if u := chunk.Usage; u != nil {
		a.usage = events.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue
		}
		reasoning, content := a.think.feed(ch.Delta.Content)
		a.rcontent.WriteString(ch.Delta.ReasoningContent)
		a.emit(c.reasoning(ch.Delta)+reasoning, content)
		for _, tc := range ch.Delta.ToolCalls {
			a.addToolCall(tc)
			if len(a.calls) > maxToolCalls {
				return &tooLargeError{msg: fmt.Sprintf("the answer has more than %d tool calls", maxToolCalls)}
			}
		}
		if ch.FinishReason != "" && ch.FinishReason != openai.FinishReasonNull {
			a.finish = string(ch.FinishReason)
		}
	}
	return nil
}

// admit counts the text of chunk's choice 0 into size, refusing it past maxSize.
func (a *assembler) admit(c streamChunk) error {
	n := a.size
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		n += int64(len(ch.Delta.Content) + len(c.reasoning(ch.Delta)))
		for _, tc := range ch.Delta.ToolCalls {
			n += int64(len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments))
		}
	}
	if n > a.maxSize {
		return &tooLargeError{msg: fmt.Sprintf("the answer's content, reasoning and tool calls exceed %s (MaxAnswerBytes)", byteSize(a.maxSize))}
	}
	a.size = n
	return nil
}

// empty reports whether the stream so far produced no answer at all: no content,
// reasoning or tool call, and no finish_reason.
func (a *assembler) empty() bool {
	return a.size == 0 && len(a.calls) == 0 && a.finish == ""
}

// emit records and forwards reasoning, then content, each as its own Delta.
func (a *assembler) emit(reasoning, content string) {
	if reasoning != "" {
		a.reasoning.WriteString(reasoning)
		a.onDelta(Delta{Reasoning: reasoning})
		a.delivered = true
	}
	if content != "" {
		a.content.WriteString(content)
		a.onDelta(Delta{Content: content})
		a.delivered = true
	}
}

// addToolCall merges one tool-call delta into the call with its index: id and name are
// taken from the first delta that has them, argument fragments are appended. A delta
// without an index (some local servers) starts a new call when it carries a new id and
// otherwise continues the latest call.
func (a *assembler) addToolCall(tc openai.ToolCall) {
	var idx int
	switch {
	case tc.Index != nil:
		idx = *tc.Index
	case a.last != nil && (tc.ID == "" || tc.ID == a.last.id):
		idx = a.last.index
	default:
		for _, p := range a.calls {
			idx = max(idx, p.index+1)
		}
	}
	p := a.call(idx)
	if p.id == "" {
		p.id = tc.ID
	}
	if p.name == "" {
		p.name = tc.Function.Name
	}
	p.args.WriteString(tc.Function.Arguments)
	a.last = p
}

// call returns the parts of the call with index idx, adding it when new.
func (a *assembler) call(idx int) *callParts {
	for _, p := range a.calls {
		if p.index == idx {
			return p
		}
	}
	p := &callParts{index: idx}
	a.calls = append(a.calls, p)
	return p
}

// response flushes text held back by the think splitter and returns the assembled
// Response; tool calls are ordered by index, and a call the server sent without an id
// gets "call_<position>". reqModel stands in when no chunk named the model.
func (a *assembler) response(reqModel string) Response {
	a.emit(a.think.flush())
	var calls []ToolCall
	if len(a.calls) > 0 {
		slices.SortFunc(a.calls, func(x, y *callParts) int { return cmp.Compare(x.index, y.index) })
		calls = make([]ToolCall, len(a.calls))
		for i, p := range a.calls {
			calls[i] = ToolCall{ID: p.id, Name: p.name, Arguments: p.args.String()}
			if calls[i].ID == "" {
				calls[i].ID = "call_" + strconv.Itoa(i)
			}
		}
	}
	model := a.model
	if model == "" {
		model = reqModel
	}
	return Response{
		Content:          a.content.String(),
		Reasoning:        a.reasoning.String(),
		ReasoningContent: a.rcontent.String(),
		ToolCalls:        calls,
		Usage:            a.usage,
		FinishReason:     a.finish,
		Model:            model,
	}
}

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
	spaces     = " \t\r\n"
)

// thinkSplitter moves a <think>...</think> block at the start of streamed content (after
// optional whitespace) into reasoning, as Ollama and vLLM serve Qwen3 and DeepSeek-R1
// distills. Tags may be split across chunks: text that may still be part of a tag is held
// back until the next chunk decides it. Whitespace right after either tag is dropped; a
// <think> anywhere else is ordinary content.
type thinkSplitter struct {
	state int    // thinkUndecided, thinkInside or thinkOutside
	held  string // text not yet released: a possible tag or tag prefix
	trim  bool   // drop leading whitespace of the next text (just after a tag)
}

const (
	thinkUndecided = iota // no non-space content seen yet
	thinkInside           // inside the leading think block
	thinkOutside          // past it, or content did not start with one
)

// feed takes the next content delta and returns what is now known to be reasoning and
// content.
func (s *thinkSplitter) feed(text string) (reasoning, content string) {
	if s.state == thinkOutside {
		if s.trim {
			text = strings.TrimLeft(text, spaces)
			s.trim = text == ""
		}
		return "", text
	}
	s.held += text
	if s.state == thinkUndecided {
		rest := strings.TrimLeft(s.held, spaces)
		switch {
		case strings.HasPrefix(rest, thinkOpen):
			s.state, s.held, s.trim = thinkInside, rest[len(thinkOpen):], true
		case strings.HasPrefix(thinkOpen, rest):
			return "", "" // only whitespace and a possible "<think" so far
		default:
			s.state = thinkOutside
			content, s.held = s.held, ""
			return "", content
		}
	}
	if s.trim {
		s.held = strings.TrimLeft(s.held, spaces)
		s.trim = s.held == ""
	}
	if i := strings.Index(s.held, thinkClose); i >= 0 {
		reasoning = s.held[:i]
		content = strings.TrimLeft(s.held[i+len(thinkClose):], spaces)
		s.state, s.held, s.trim = thinkOutside, "", content == ""
		return reasoning, content
	}
	keep := partialSuffix(s.held, thinkClose)
	reasoning, s.held = s.held[:len(s.held)-keep], s.held[len(s.held)-keep:]
	return reasoning, ""
}

// flush returns the text still held at the end of the stream: undecided text is content,
// text inside an unclosed think block is reasoning.
func (s *thinkSplitter) flush() (reasoning, content string) {
	held := s.held
	s.held = ""
	if s.state == thinkInside {
		return held, ""
	}
	return "", held
}

// partialSuffix is the length of the longest proper prefix of tag that s ends with.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}

// tapTail is how many of the last bytes of a body doneTap keeps: enough for
// "[DONE]" and the blank lines after it.
const tapTail = 32

// doneTap wraps a streamed response body and remembers its last bytes, so that after
// go-openai reports io.EOF we can tell "data: [DONE]" (a complete stream) from a body that
// just ended.
type doneTap struct {
	io.ReadCloser
	tail []byte
}

func (t *doneTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.tail = append(t.tail, p[max(0, n-tapTail):n]...)
	if extra := len(t.tail) - tapTail; extra > 0 {
		copy(t.tail, t.tail[extra:])
		t.tail = t.tail[:tapTail]
	}
	return n, err
}

// done reports whether the last event read was "data: [DONE]": go-openai returns io.EOF
// as soon as it has read that line, so nothing has been read after it.
func (t *doneTap) done() bool {
	return bytes.HasSuffix(bytes.TrimRight(t.tail, spaces), []byte("[DONE]"))
}

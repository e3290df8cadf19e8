// Package llmtest is an in-process OpenAI-compatible chat completions server for tests.
//
// It serves POST /v1/chat/completions and GET /v1/models (see Server.SetModels). It
// speaks the real streaming wire format: `data: {json}\n\n` server-sent events carrying
// chat.completion.chunk objects, then `data: [DONE]\n\n`. Each reply is scripted by the
// test (content, reasoning_content, tool calls, HTTP errors, broken streams, delays), every
// request is recorded, and the server is closed when the test ends:
//
//	srv := llmtest.NewServer(t, llmtest.Script(
//		llmtest.Reply{Status: 503},
//		llmtest.Reply{Content: "Hello"},
//	))
//	client, _ := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m"})
package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
)

// DefaultChunkSize is the chunk size used when Reply.ChunkSize is 0: small, so that every
// text is split across several chunks.
const DefaultChunkSize = 7

// DefaultFloodLimit is the Reply.FloodLimit used when it is 0: 64 MiB.
const DefaultFloodLimit = 64 << 20

// HangPoint is where a reply goes silent (Reply.Hang).
type HangPoint int

const (
	// NoHang: the reply is sent in full.
	NoHang HangPoint = iota
	// HangBeforeHeaders sends nothing at all, not even the status line.
	HangBeforeHeaders
	// HangAfterHeaders sends and flushes the status and headers, then nothing.
	HangAfterHeaders
	// HangMidStream sends the first two chunks (the role chunk and the first text chunk),
	// then nothing.
	HangMidStream
)

// FloodKind is what an endless reply repeats (Reply.Flood). Every kind is valid wire
// format piece by piece; only its length is abusive.
type FloodKind int

const (
	// NoFlood: the reply is the scripted one.
	NoFlood FloodKind = iota
	// FloodContent repeats chunks of delta.content.
	FloodContent
	// FloodReasoning repeats chunks of delta.reasoning_content.
	FloodReasoning
	// FloodToolArguments sends one tool call's header, then argument fragments forever.
	FloodToolArguments
	// FloodToolCalls starts a new tool call (next index, new id) in every chunk.
	FloodToolCalls
	// FloodEmptyChunks repeats chunks with no choices: nothing to assemble, no end.
	FloodEmptyChunks
	// FloodComments repeats SSE comment lines (": keep-alive"), with a chunk without
	// choices after every 100 of them (go-openai gives up after 300 in a row).
	FloodComments
	// FloodLine sends one data: line whose content string never ends.
	FloodLine
	// FloodErrorBody answers with an error status (Reply.Status, or 500) and an endless
	// JSON error body.
	FloodErrorBody
)

// EndReason is how the server's response to one call ended.
type EndReason string

// End reasons reported by Server.WaitEnd.
const (
	EndComplete     EndReason = "complete"      // the whole reply was sent ([DONE], or an error body)
	EndClientGone   EndReason = "client gone"   // the client closed the connection first
	EndServerClosed EndReason = "server closed" // Server.Close ended the reply
	EndBroken       EndReason = "broken"        // BreakAfter hung up on purpose
	EndFloodLimit   EndReason = "flood limit"   // a Flood reached its FloodLimit and was ended properly
)

// End is how one response ended and how many body bytes it wrote.
type End struct {
	Reason  EndReason
	Written int64
}

// ToolCall is one native tool call the server streams: Arguments is sent verbatim (it need
// not be valid JSON), split into fragments of at most Reply.ChunkSize bytes.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is token usage as sent in the final usage chunk; it is events.Usage, so tests can
// compare it with llm.Response.Usage directly.
type Usage = events.Usage

// Reply scripts one response of the server.
//
// A successful reply (Status 0 or 200) is streamed as numbered chunks, which is what
// BreakAfter counts: chunk 1 carries the assistant role; then come the reasoning chunks
// (delta.reasoning_content), the content chunks (delta.content), the tool-call chunks, one
// chunk with an empty delta and finish_reason, and, when the request set
// stream_options.include_usage, a usage chunk with empty choices. Then `data: [DONE]`.
type Reply struct {
	// Status is the HTTP status: 0 means 200 and a streamed answer; anything else is sent
	// with an OpenAI-style JSON error body {"error": {"message", "type", "param", "code"}}.
	Status int
	// ErrorMessage is the error body's message; empty means the status text.
	ErrorMessage string
	// Content is the answer text, streamed in delta.content.
	Content string
	// Reasoning is streamed in delta.reasoning_content, before Content.
	Reasoning string
	// ToolCalls are streamed as real tool_calls deltas after Content: the first delta of
	// call i has index i, id, type "function", function.name and empty arguments; the
	// following ones carry only index and an arguments fragment.
	ToolCalls []ToolCall
	// InterleaveToolCalls sends the argument fragments of all calls round-robin (call 0,
	// call 1, call 0, ...) instead of call after call.
	InterleaveToolCalls bool
	// FinishReason is sent on the last choice chunk; empty means "tool_calls" when
	// ToolCalls is set and "stop" otherwise.
	FinishReason string
	// ChunkSize is the number of runes per content or reasoning chunk and the most bytes
	// per tool-argument fragment (never splitting a rune); 0 means DefaultChunkSize.
	ChunkSize int
	// BreakAfter > 0 ends the response abruptly, without [DONE], after that many chunks
	// (or instead of [DONE] when there are fewer): the connection is hijacked and closed.
	BreakAfter int
	// Usage is sent in the usage chunk; nil means a fake count derived from the text
	// lengths (1 + runes/4 for the prompt messages and for the reply's text). The usage
	// chunk is sent only when the request asked for it (stream_options.include_usage).
	Usage *Usage
	// Delay is waited before each chunk, for cancellation tests. The wait ends early when
	// the request's context is done or the server is closed.
	Delay time.Duration
	// NoChoices sends no choice chunk at all: only the usage chunk (when the request asked
	// for it) and [DONE], as some servers do when generation fails silently.
	NoChoices bool
	// Hang makes the reply go silent at a point and hold the connection open until the
	// client goes away or the server is closed; see HangPoint.
	Hang HangPoint
	// Flood replaces a successful reply with an endless stream of one kind, for size-limit
	// tests; see FloodKind. Status, if set, is the status of a FloodErrorBody.
	Flood FloodKind
	// FloodLimit is the safety net of a Flood: after writing this many body bytes the
	// server ends the flood properly (a finish_reason chunk, the usage chunk and [DONE],
	// or the rest of the error body), so a client without limits ends up taking the flood
	// as an answer instead of the test hanging. 0 means DefaultFloodLimit.
	FloodLimit int64

	// unscripted marks the reply Script returns for a call beyond its script.
	unscripted bool
}

// Handler chooses the reply to a request; call counts the server's requests from 0.
// Handlers run on the server's goroutines and may be called concurrently.
type Handler func(req openai.ChatCompletionRequest, call int) Reply

// Script returns a Handler that answers call i with replies[i]. A call beyond the script
// fails the test (t.Errorf) and is answered with HTTP 500.
func Script(replies ...Reply) Handler {
	return func(_ openai.ChatCompletionRequest, call int) Reply {
		if call < len(replies) {
			return replies[call]
		}
		return Reply{
			Status:       http.StatusInternalServerError,
			ErrorMessage: fmt.Sprintf("llmtest: unscripted call %d (the script has %d replies)", call, len(replies)),
			unscripted:   true,
		}
	}
}

// LastUserContains reports whether the last user message of req contains s; use it in a
// Handler to route replies, e.g. by the sub-agent instruction.
func LastUserContains(req openai.ChatCompletionRequest, s string) bool {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == openai.ChatMessageRoleUser {
			return strings.Contains(req.Messages[i].Content, s)
		}
	}
	return false
}

// SystemContains reports whether a system message of req contains s; use it in a Handler
// to tell agents apart by their role prompt.
func SystemContains(req openai.ChatCompletionRequest, s string) bool {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleSystem && strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

// Server is an OpenAI-compatible endpoint on a loopback port serving
// POST /v1/chat/completions (streaming only). It is safe for concurrent use.
type Server struct {
	t       testing.TB
	handler Handler
	srv     *httptest.Server
	closed  chan struct{} // closed when the server shuts down; ends Delay waits
	once    sync.Once

	mu      sync.Mutex
	models  []string      // the ids GET /v1/models lists
	bodies  [][]byte      // raw request bodies, in arrival order
	ends    []*End        // per call: how its response ended, nil while it runs
	changed chan struct{} // closed and replaced whenever ends changes
}

// NewServer starts a server answering with h and closes it when the test ends (t.Cleanup).
func NewServer(t testing.TB, h Handler) *Server {
	t.Helper()
	if h == nil {
		t.Fatal("llmtest: NewServer with a nil Handler")
	}
	s := &Server{t: t, handler: h, closed: make(chan struct{}), changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "llmtest: no route for "+r.Method+" "+r.URL.Path)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// URL is the base URL clients are configured with, e.g. "http://127.0.0.1:41234/v1".
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Calls is the number of chat completion requests received so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// WaitEnd waits until the response to call (counted from 0) has ended, the request
// possibly not having arrived yet, and returns how; or returns ctx's error first.
func (s *Server) WaitEnd(ctx context.Context, call int) (End, error) {
	for {
		s.mu.Lock()
		if call < len(s.ends) && s.ends[call] != nil {
			e := *s.ends[call]
			s.mu.Unlock()
			return e, nil
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return End{}, fmt.Errorf("llmtest: waiting for the end of call %d: %w", call, ctx.Err())
		}
	}
}

// ended records how the response to call ended and wakes WaitEnd.
func (s *Server) ended(call int, e End) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ends[call] = &e
	close(s.changed)
	s.changed = make(chan struct{})
}

// Requests returns the requests received so far, in order, each decoded afresh from its
// body so callers may modify them freely.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	bodies := append([][]byte(nil), s.bodies...)
	s.mu.Unlock()
	out := make([]openai.ChatCompletionRequest, len(bodies))
	for i, b := range bodies {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			s.t.Errorf("llmtest: decoding recorded request %d: %v", i, err) // decoded fine once already
		}
	}
	return out
}

// Bodies returns the raw JSON bodies of the chat completion requests received so far,
// in order (copies), for tests of what is on the wire: a field left out, a 0 sent.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.bodies))
	for i, b := range s.bodies {
		out[i] = bytes.Clone(b)
	}
	return out
}

// SetModels sets the model ids GET /v1/models answers with, in the OpenAI format
// {"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]}, in the
// order given. Before any call the list is empty.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), ids...)
}

func (s *Server) serveModels(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	ids := append([]string(nil), s.models...)
	s.mu.Unlock()
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	data := make([]model, len(ids))
	for i, id := range ids {
		data[i] = model{ID: id, Object: "model", Created: 1700000000, OwnedBy: "llmtest"}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// Close shuts the server down now, so that later requests get "connection refused"; it
// waits for running handlers. Closing twice is harmless; the test's cleanup calls it too.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closed) })
	s.srv.Close()
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	if _, err := body.ReadFrom(r.Body); err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: reading request body: "+err.Error())
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body.Bytes(), &req); err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: request is not a chat completion request: "+err.Error())
		return
	}
	s.mu.Lock()
	call := len(s.bodies)
	s.bodies = append(s.bodies, body.Bytes())
	s.ends = append(s.ends, nil)
	s.mu.Unlock()

	cw := &countingWriter{ResponseWriter: w}
	reason := EndComplete
	defer func() { s.ended(call, End{Reason: reason, Written: cw.n}) }()

	reply := s.handler(req, call)
	if reply.unscripted {
		s.t.Errorf("%s", reply.ErrorMessage)
	}
	if reply.Hang == HangBeforeHeaders {
		reason = s.hold(r)
		return
	}
	if reply.Flood == FloodErrorBody {
		reason = s.floodErrorBody(cw, r, reply)
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		msg := reply.ErrorMessage
		if msg == "" {
			msg = http.StatusText(reply.Status)
		}
		writeError(cw, reply.Status, msg)
		return
	}
	if !req.Stream {
		writeError(cw, http.StatusBadRequest, "llmtest: only stream=true requests are supported")
		return
	}
	if reply.Flood != NoFlood {
		reason = s.flood(cw, r, req, call, reply)
		return
	}
	reason = s.stream(cw, r, req, call, reply)
}

// countingWriter counts the body bytes written through it; Unwrap lets
// http.ResponseController reach the connection for Flush and Hijack.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// flush sends what is buffered; it reports false when the client is gone.
func flush(w http.ResponseWriter) bool {
	return http.NewResponseController(w).Flush() == nil
}

// hold keeps the response open and silent until the client goes away or the server is
// closed, and says which.
func (s *Server) hold(r *http.Request) EndReason {
	select {
	case <-r.Context().Done():
		return EndClientGone
	case <-s.closed:
		return EndServerClosed
	}
}

// writeError sends an OpenAI-style error body with the given status.
func writeError(w http.ResponseWriter, status int, msg string) {
	typ := "invalid_request_error"
	if status >= 500 {
		typ = "server_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
	})
}

// Wire types of a chat.completion.chunk, kept apart from go-openai's so that null and
// empty fields look exactly like OpenAI's (finish_reason null, arguments "").
type (
	wireChunk struct {
		ID      string          `json:"id"`
		Object  string          `json:"object"`
		Created int64           `json:"created"`
		Model   string          `json:"model"`
		Choices []wireChoice    `json:"choices"`
		Usage   json.RawMessage `json:"usage,omitempty"`
	}
	wireChoice struct {
		Index        int       `json:"index"`
		Delta        wireDelta `json:"delta"`
		Logprobs     *struct{} `json:"logprobs"`
		FinishReason *string   `json:"finish_reason"`
	}
	wireDelta struct {
		Role             string         `json:"role,omitempty"`
		Content          *string        `json:"content,omitempty"`
		ReasoningContent *string        `json:"reasoning_content,omitempty"`
		ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	}
	wireToolCall struct {
		Index    int          `json:"index"`
		ID       string       `json:"id,omitempty"`
		Type     string       `json:"type,omitempty"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
)

// stream writes reply as server-sent events, honouring ChunkSize, BreakAfter, Delay,
// NoChoices and Hang, and returns how the response ended.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req openai.ChatCompletionRequest, call int, reply Reply) EndReason {
	size := reply.ChunkSize
	if size <= 0 {
		size = DefaultChunkSize
	}
	includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	base := baseChunk(req, call)
	var deltas []wireDelta
	deltas = append(deltas, wireDelta{Role: openai.ChatMessageRoleAssistant, Content: new(string)})
	for _, piece := range splitRunes(reply.Reasoning, size) {
		deltas = append(deltas, wireDelta{ReasoningContent: &piece})
	}
	for _, piece := range splitRunes(reply.Content, size) {
		deltas = append(deltas, wireDelta{Content: &piece})
	}
	deltas = append(deltas, toolCallDeltas(reply.ToolCalls, size, reply.InterleaveToolCalls)...)

	finish := reply.FinishReason
	if finish == "" {
		finish = string(openai.FinishReasonStop)
		if len(reply.ToolCalls) > 0 {
			finish = string(openai.FinishReasonToolCalls)
		}
	}
	chunks := make([]wireChunk, 0, len(deltas)+2)
	if !reply.NoChoices {
		for _, d := range deltas {
			c := base
			c.Choices = []wireChoice{{Delta: d}}
			chunks = append(chunks, c)
		}
		chunks = append(chunks, finishChunk(base, finish))
	}
	if includeUsage {
		usage := reply.Usage
		if usage == nil {
			usage = fakeUsage(req, reply)
		}
		chunks = append(chunks, usageChunk(base, usage))
	}

	writeStreamHeaders(w)
	if reply.Hang == HangAfterHeaders {
		flush(w)
		return s.hold(r)
	}
	for i, c := range chunks {
		if reply.Hang == HangMidStream && i == 2 {
			return s.hold(r)
		}
		if end := s.wait(r, reply.Delay); end != "" {
			return end
		}
		if _, err := w.Write(sse(c)); err != nil {
			return EndClientGone
		}
		if !flush(w) {
			return EndClientGone
		}
		if reply.BreakAfter > 0 && i+1 == reply.BreakAfter {
			s.hangUp(w)
			return EndBroken
		}
	}
	if reply.BreakAfter > 0 {
		s.hangUp(w)
		return EndBroken
	}
	if end := s.wait(r, reply.Delay); end != "" {
		return end
	}
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err != nil {
		return EndClientGone
	}
	return EndComplete
}

// baseChunk is the chunk every event of call's reply starts from.
func baseChunk(req openai.ChatCompletionRequest, call int) wireChunk {
	base := wireChunk{
		ID:      fmt.Sprintf("chatcmpl-llmtest-%d", call),
		Object:  "chat.completion.chunk",
		Created: time.Now().Unix(),
		Model:   req.Model,
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		base.Usage = json.RawMessage("null") // as OpenAI: usage is null on every chunk but the last
	}
	return base
}

// finishChunk is the chunk with an empty delta and finish_reason.
func finishChunk(base wireChunk, finish string) wireChunk {
	base.Choices = []wireChoice{{FinishReason: &finish}}
	return base
}

// usageChunk is the last chunk: empty choices and the usage.
func usageChunk(base wireChunk, usage *Usage) wireChunk {
	base.Choices = []wireChoice{}
	base.Usage, _ = json.Marshal(usage) // a struct of ints always marshals
	return base
}

// sse renders c as one server-sent event.
func sse(c wireChunk) []byte {
	data, err := json.Marshal(c)
	if err != nil {
		panic("llmtest: encoding a chunk: " + err.Error()) // plain structs of strings and ints
	}
	return fmt.Appendf(nil, "data: %s\n\n", data)
}

// writeStreamHeaders sends the status and headers of a successful streamed reply.
func writeStreamHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// floodBatch is about how many bytes a flood writes between flushes.
const floodBatch = 32 << 10

// flood writes an endless stream of reply.Flood's kind until the client goes away, the
// server is closed or FloodLimit bytes are written; at the limit it ends the stream
// properly (see Reply.FloodLimit).
func (s *Server) flood(w *countingWriter, r *http.Request, req openai.ChatCompletionRequest, call int, reply Reply) EndReason {
	limit := reply.FloodLimit
	if limit <= 0 {
		limit = DefaultFloodLimit
	}
	base := baseChunk(req, call)
	choice := func(d wireDelta) []byte {
		c := base
		c.Choices = []wireChoice{{Delta: d}}
		return sse(c)
	}
	empty := base
	empty.Choices = []wireChoice{}
	text := strings.Repeat("x", 64)
	var head, tail []byte
	var piece func(i int) []byte
	switch reply.Flood {
	case FloodContent:
		p := choice(wireDelta{Content: &text})
		piece = func(int) []byte { return p }
	case FloodReasoning:
		p := choice(wireDelta{ReasoningContent: &text})
		piece = func(int) []byte { return p }
	case FloodToolArguments:
		head = choice(wireDelta{ToolCalls: []wireToolCall{{Index: 0, ID: "call_flood", Type: string(openai.ToolTypeFunction),
			Function: wireFunction{Name: "web_search"}}}})
		p := choice(wireDelta{ToolCalls: []wireToolCall{{Index: 0, Function: wireFunction{Arguments: text}}}})
		piece = func(int) []byte { return p }
	case FloodToolCalls:
		piece = func(i int) []byte {
			return choice(wireDelta{ToolCalls: []wireToolCall{{Index: i, ID: fmt.Sprintf("call_%d", i),
				Type: string(openai.ToolTypeFunction), Function: wireFunction{Name: "web_search"}}}})
		}
	case FloodEmptyChunks:
		p := sse(empty)
		piece = func(int) []byte { return p }
	case FloodComments:
		p := append([]byte(strings.Repeat(": keep-alive\n", 100)+"\n"), sse(empty)...)
		piece = func(int) []byte { return p }
	case FloodLine:
		model, _ := json.Marshal(base.Model) // a string always marshals
		head = fmt.Appendf(nil, `data: {"id":%q,"object":%q,"created":%d,"model":%s,"choices":[{"index":0,"delta":{"content":"`,
			base.ID, base.Object, base.Created, model)
		tail = []byte("\"},\"finish_reason\":null}]}\n\n")
		p := []byte(strings.Repeat("x", floodBatch))
		piece = func(int) []byte { return p }
	default:
		s.t.Errorf("llmtest: unknown Flood %d", reply.Flood)
		return EndComplete
	}

	writeStreamHeaders(w)
	end := s.pour(w, r, head, piece, limit)
	if end != EndFloodLimit {
		return end
	}
	var rest []byte
	rest = append(rest, tail...)
	rest = append(rest, sse(finishChunk(base, string(openai.FinishReasonStop)))...)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		rest = append(rest, sse(usageChunk(base, &Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}))...)
	}
	rest = append(rest, "data: [DONE]\n\n"...)
	if _, err := w.Write(rest); err != nil {
		return EndClientGone
	}
	return EndFloodLimit
}

// floodErrorBody answers with an error status and an endless JSON error body.
func (s *Server) floodErrorBody(w *countingWriter, r *http.Request, reply Reply) EndReason {
	limit := reply.FloodLimit
	if limit <= 0 {
		limit = DefaultFloodLimit
	}
	status := reply.Status
	if status == 0 || status == http.StatusOK {
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	p := []byte(strings.Repeat("x", floodBatch))
	end := s.pour(w, r, []byte(`{"error":{"message":"`), func(int) []byte { return p }, limit)
	if end != EndFloodLimit {
		return end
	}
	if _, err := fmt.Fprint(w, `","type":"server_error","param":null,"code":null}}`); err != nil {
		return EndClientGone
	}
	return EndFloodLimit
}

// pour writes head, then piece(0), piece(1), ... in batches of about floodBatch bytes,
// until limit bytes are written (EndFloodLimit), the client goes away or the server is
// closed.
func (s *Server) pour(w *countingWriter, r *http.Request, head []byte, piece func(i int) []byte, limit int64) EndReason {
	batch := append([]byte(nil), head...)
	for i := 0; ; {
		for len(batch) < floodBatch {
			batch = append(batch, piece(i)...)
			i++
		}
		select {
		case <-r.Context().Done():
			return EndClientGone
		case <-s.closed:
			return EndServerClosed
		default:
		}
		if _, err := w.Write(batch); err != nil || !flush(w) {
			return EndClientGone
		}
		if w.n >= limit {
			return EndFloodLimit
		}
		batch = batch[:0]
	}
}

// wait sleeps d; it returns "" when the time is up, or how the response ended when the
// request or the server ended first.
func (s *Server) wait(r *http.Request, d time.Duration) EndReason {
	if d <= 0 {
		if r.Context().Err() != nil {
			return EndClientGone
		}
		return ""
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return ""
	case <-r.Context().Done():
		return EndClientGone
	case <-s.closed:
		return EndServerClosed
	}
}

// hangUp closes the connection under an unfinished response, so the client sees the
// body end without the terminating chunk (a broken stream).
func (s *Server) hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		s.t.Errorf("llmtest: hijacking to break the stream: %v", err)
		return
	}
	_ = conn.Close()
}

// toolCallDeltas renders calls as tool_calls deltas: per call a header delta (id, type,
// name, empty arguments) and then argument fragments of size bytes, call after call or
// round-robin when interleave is set.
func toolCallDeltas(calls []ToolCall, size int, interleave bool) []wireDelta {
	frags := make([][]string, len(calls))
	for i, c := range calls {
		frags[i] = splitBytes(c.Arguments, size)
	}
	header := func(i int) wireDelta {
		c := calls[i]
		return wireDelta{ToolCalls: []wireToolCall{{Index: i, ID: c.ID, Type: string(openai.ToolTypeFunction),
			Function: wireFunction{Name: c.Name}}}}
	}
	frag := func(i int, s string) wireDelta {
		return wireDelta{ToolCalls: []wireToolCall{{Index: i, Function: wireFunction{Arguments: s}}}}
	}
	var out []wireDelta
	if !interleave {
		for i := range calls {
			out = append(out, header(i))
			for _, f := range frags[i] {
				out = append(out, frag(i, f))
			}
		}
		return out
	}
	for i := range calls {
		out = append(out, header(i))
	}
	for j := 0; ; j++ {
		sent := false
		for i := range calls {
			if j < len(frags[i]) {
				out = append(out, frag(i, frags[i][j]))
				sent = true
			}
		}
		if !sent {
			return out
		}
	}
}

// splitRunes cuts s into pieces of at most n runes.
func splitRunes(s string, n int) []string {
	var out []string
	for s != "" {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// splitBytes cuts s into pieces of at most n bytes, never inside a UTF-8 sequence (a
// piece holds at least one rune), since a JSON string cannot carry half a rune.
func splitBytes(s string, n int) []string {
	var out []string
	for s != "" {
		i := min(n, len(s))
		for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
			i--
		}
		if i == 0 {
			_, i = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// fakeUsage counts 1 + runes/4 tokens for the request's messages and for the reply text.
func fakeUsage(req openai.ChatCompletionRequest, reply Reply) *Usage {
	prompt := 0
	for _, m := range req.Messages {
		prompt += utf8.RuneCountInString(m.Content)
	}
	completion := utf8.RuneCountInString(reply.Content) + utf8.RuneCountInString(reply.Reasoning)
	for _, c := range reply.ToolCalls {
		completion += utf8.RuneCountInString(c.Arguments)
	}
	u := Usage{PromptTokens: 1 + prompt/4, CompletionTokens: 1 + completion/4}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return &u
}

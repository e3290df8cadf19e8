package llm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// Limits on the wire, derived from Config.MaxAnswerBytes (see bodyGuard).
const (
	// wireFactor: the whole body of one answer may be at most wireFactor × MaxAnswerBytes.
	// OpenAI-style framing costs about 200 bytes per chunk of a few characters, so this
	// stops only streams far beyond any model's output length.
	wireFactor = 64
	// lineFactor and lineSlack: one line may be at most lineFactor × MaxAnswerBytes +
	// lineSlack bytes, enough for the whole answer in one chunk with every byte
	// JSON-escaped as \u00XX.
	lineFactor = 6
	lineSlack  = 64 << 10
	// maxErrorBody is how much of an HTTP error body is read; the rest is dropped (errors
	// quote at most maxMessageLen bytes of it).
	maxErrorBody = 64 << 10
)

// maxToolCalls is the most tool calls one answer may hold.
const maxToolCalls = 256

// stallError is the cause a try's context is cancelled with when the watchdog fires;
// idle is set when the answer had started (IdleTimeout), not when the wait for headers or
// the first byte ran out (FirstByteTimeout).
type stallError struct {
	msg  string
	idle bool
}

func (e *stallError) Error() string { return e.msg }

// tooLargeError is what ends a try whose answer or stream went over a size limit.
type tooLargeError struct{ msg string }

func (e *tooLargeError) Error() string { return e.msg }

// Phases of a try, for the watchdog's message.
const (
	phaseHeaders   int32 = iota // request sent, no response headers yet
	phaseFirstByte              // headers read, no body byte yet
	phaseStreaming              // at least one body byte read
)

// watchdog cancels a try's context when the endpoint stays silent too long: no response
// headers and no first body byte within firstByte of sending the request, or a body Read
// that waits longer than idle once bytes have flowed. Only time spent waiting on the
// endpoint counts: the timer runs while the request waits for headers and while a body
// Read is blocked, never while the caller processes a chunk. Cancelling the request's
// context is what unblocks a Read stuck on a silent connection: net/http closes it.
//
// The timer's function only calls cancel; stop, deferred by the try that started the
// watchdog, ends it.
type watchdog struct {
	cancel    context.CancelCauseFunc
	firstByte time.Duration
	idle      time.Duration
	deadline  time.Time // start + firstByte: the limit for headers and the first byte
	phase     atomic.Int32
	timer     *time.Timer
}

// startWatchdog arms the header wait of a try that is about to send its request.
func startWatchdog(cancel context.CancelCauseFunc, firstByte, idle time.Duration) *watchdog {
	w := &watchdog{cancel: cancel, firstByte: firstByte, idle: idle, deadline: time.Now().Add(firstByte)}
	w.timer = time.AfterFunc(firstByte, w.fire)
	return w
}

// fire cancels the try with a message naming the wait that ran out.
func (w *watchdog) fire() {
	var msg string
	phase := w.phase.Load()
	switch phase {
	case phaseHeaders:
		msg = fmt.Sprintf("no response headers within %s of sending the request (FirstByteTimeout)", w.firstByte)
	case phaseFirstByte:
		msg = fmt.Sprintf("no data within %s of sending the request (FirstByteTimeout)", w.firstByte)
	default:
		msg = fmt.Sprintf("no data for %s (IdleTimeout)", w.idle)
	}
	w.cancel(&stallError{msg: msg, idle: phase == phaseStreaming})
}

// gotHeaders stops the header wait; the body's Reads arm the timer from now on.
func (w *watchdog) gotHeaders() {
	w.timer.Stop()
	w.phase.Store(phaseFirstByte)
}

// read calls r.Read(p) with the timer armed: until the first byte, up to the first-byte
// deadline; after it, for idle.
func (w *watchdog) read(r io.Reader, p []byte) (int, error) {
	wait := w.idle
	if w.phase.Load() == phaseFirstByte {
		wait = time.Until(w.deadline)
	}
	if wait <= 0 {
		w.fire()
	} else {
		w.timer.Reset(wait)
	}
	n, err := r.Read(p)
	w.timer.Stop()
	if n > 0 {
		w.phase.Store(phaseStreaming)
	}
	return n, err
}

// stop ends the watchdog; a fire already under way only cancels a finished try.
func (w *watchdog) stop() { w.timer.Stop() }

// watchedBody is a response body whose Reads are bounded by the watchdog.
type watchedBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) { return b.w.read(b.ReadCloser, p) }

// errorBody reads at most maxErrorBody bytes of an HTTP error body and then reports its
// end, so a server cannot grow go-openai's io.ReadAll without bound.
type errorBody struct {
	io.ReadCloser
	left int64
}

func (b *errorBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// Kinds of line, decided by its first non-space bytes as go-openai does.
const (
	lineUndecided = iota
	lineData      // "data:" line: a chunk, [DONE] or an error event
	lineOther     // comment, "event:" or "id:" line, or junk: go-openai keeps these in memory
)

// bodyGuard bounds what a streamed body can make the client hold, since go-openai keeps
// a whole line in memory until its newline and every non-data line (comments, event
// names) of the stream in an error buffer it never empties. Past a limit, Read returns
// a *tooLargeError, from then on. Limits, for MaxAnswerBytes m: the whole body 64·m bytes
// (this also ends a stream of empty chunks that never finishes), one line 6·m + 64 KiB,
// all non-data lines together m.
type bodyGuard struct {
	io.ReadCloser
	maxTotal, maxLine, maxOther int64
	total, line, other          int64
	kind                        int
	prefix                      []byte // first non-space bytes of an undecided line
	err                         error
	sawData                     bool   // a "data:" line has begun
	sawComment                  bool   // an SSE comment (": keep-alive") or event:/id:/retry: line has begun
	head                        []byte // the body's first headLen bytes, for notStreamFailure
}

// headLen is how much of a body's start bodyGuard keeps to quote in ErrNotStream.
const headLen = 200

// notStream reports whether the body so far has bytes but neither a "data:" line nor
// another line only an event stream has (a comment such as ": keep-alive", as servers send
// while a model loads, or an "event:", "id:" or "retry:" field): it is not a server-sent
// event stream.
func (g *bodyGuard) notStream() bool { return g.total > 0 && !g.sawData && !g.sawComment }

func newBodyGuard(rc io.ReadCloser, maxAnswer int64) *bodyGuard {
	return &bodyGuard{ReadCloser: rc, maxTotal: wireFactor * maxAnswer,
		maxLine: lineFactor*maxAnswer + lineSlack, maxOther: maxAnswer, prefix: make([]byte, 0, 6)}
}

func (g *bodyGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.ReadCloser.Read(p)
	if lerr := g.account(p[:n]); lerr != nil {
		g.err = lerr
		return 0, lerr
	}
	return n, err
}

// tooLarge returns the error that ended the body over a limit, or nil.
func (g *bodyGuard) tooLarge() error { return g.err }

// account adds b to the counts and returns a *tooLargeError when a limit is passed.
func (g *bodyGuard) account(b []byte) error {
	g.total += int64(len(b))
	if n := headLen - len(g.head); n > 0 {
		g.head = append(g.head, b[:min(n, len(b))]...)
	}
	if g.total > g.maxTotal {
		return &tooLargeError{msg: fmt.Sprintf("the stream went past %s without finishing (64 × MaxAnswerBytes)", byteSize(g.maxTotal))}
	}
	for len(b) > 0 {
		seg, rest, newline := b, []byte(nil), false
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			seg, rest, newline = b[:i], b[i+1:], true
		}
		if err := g.addToLine(seg); err != nil {
			return err
		}
		if newline {
			g.line, g.kind, g.prefix = 0, lineUndecided, g.prefix[:0]
		}
		b = rest
	}
	return nil
}

// addToLine adds seg, a piece of the current line without its newline.
func (g *bodyGuard) addToLine(seg []byte) error {
	g.line += int64(len(seg))
	if g.line > g.maxLine {
		return &tooLargeError{msg: fmt.Sprintf("a line of the stream is longer than %s (6 × MaxAnswerBytes + 64 KiB)", byteSize(g.maxLine))}
	}
	switch g.kind {
	case lineOther:
		g.other += int64(len(seg))
	case lineUndecided:
		for _, c := range seg {
			if len(g.prefix) == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
				continue
			}
			g.prefix = append(g.prefix, c)
			if string(g.prefix) == "data:" {
				g.kind, g.sawData = lineData, true
				break
			}
			field, partial := sseField(g.prefix)
			if partial {
				continue
			}
			g.kind = lineOther
			// A comment (": keep-alive") or another SSE field ("event:", "id:", "retry:")
			// shows an event stream as well as data does.
			g.sawComment = g.sawComment || field || c == ':' && len(g.prefix) == 1
			g.other += g.line // the whole line so far, this piece included
			break
		}
	}
	if g.other > g.maxOther {
		return &tooLargeError{msg: fmt.Sprintf("the stream holds over %s of lines that are not data (comments, event names; MaxAnswerBytes)", byteSize(g.maxOther))}
	}
	return nil
}

// sseFields are the line starts of a server-sent event stream other than a comment.
var sseFields = [...]string{"data:", "event:", "id:", "retry:"}

// sseField reports whether prefix, the first bytes of a line, is a whole SSE field name
// other than "data:" with its colon (field), or could still become one ("data:" included)
// with more bytes (partial).
func sseField(prefix []byte) (field, partial bool) {
	for _, f := range sseFields {
		switch {
		case len(prefix) < len(f) && string(prefix) == f[:len(prefix)]:
			partial = true
		case f != "data:" && string(prefix) == f:
			field = true
		}
	}
	return field && !partial, partial
}

// byteSize formats n bytes for messages: "4 MiB", "64 KiB" or "1500 bytes".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

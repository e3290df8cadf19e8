package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// eventFilter reads a streamed answer's server-sent events for go-openai, which reads
// only "data:" lines and cannot read an error that a server sends inside the stream: it
// joins an "event: error" line and the error's data into text it cannot decode, and takes
// an OpenRouter chunk with an "error" member for an ordinary chunk. The filter passes
// data lines on and keeps other lines (comments, event names, ids, blank lines) away from
// go-openai, and it ends the body, keeping the error in streamErr, at the first error the
// stream carries:
//   - the data of an event named "error" (Groq);
//   - a data line whose JSON object has an "error" member (OpenRouter, also in a chunk
//     with choices; many servers send {"error": {...}}), or is itself an error object
//     ("object": "error", as vLLM sends);
//   - a body without any data line that is a JSON error object: an error answered with a
//     2xx status.
//
// The body guard under it bounds the length of a line, so the filter holds at most one.
type eventFilter struct {
	r         io.Reader
	rbuf      []byte // what each Read of r reads into (32 KiB, allocated once)
	buf       []byte // read from r, not yet split into lines
	out       []byte // lines passed on; out[off:] is not yet read
	off       int
	event     string // the current event's name ("" until an "event:" line)
	sawData   bool   // a data line has been read
	junk      []byte // lines that are no SSE field, before the first data line (at most maxErrorBody bytes)
	err       error  // what Read returns once out is empty
	streamErr *streamError
}

// streamError is an error a server sent inside a 2xx answer, as read by eventFilter.
type streamError struct {
	message string // the server's message, as it sent it
	code    int    // the error's code when it is a number (OpenRouter, vLLM), else 0
	codeStr string // the error's code when it is a word (Groq "tool_use_failed"), else ""
	typ     string // the error's type ("invalid_request_error"), if any
	body    bool   // the whole body was the error (no data line), not an event in a stream
}

func newEventFilter(r io.Reader) *eventFilter { return &eventFilter{r: r} }

func (f *eventFilter) Read(p []byte) (int, error) {
	for f.off == len(f.out) {
		if f.err != nil {
			return 0, f.err
		}
		f.out, f.off = f.out[:0], 0 // reuse the array
		f.fill()
	}
	n := copy(p, f.out[f.off:])
	f.off += n
	return n, nil
}

// fill reads once from r and processes the complete lines read; at the end of r it
// processes the last, unterminated line and decides whether the body was an error.
func (f *eventFilter) fill() {
	if f.rbuf == nil {
		f.rbuf = make([]byte, 32<<10)
	}
	n, err := f.r.Read(f.rbuf)
	f.buf = append(f.buf, f.rbuf[:n]...)
	start := 0
	for f.streamErr == nil {
		i := bytes.IndexByte(f.buf[start:], '\n')
		if i < 0 {
			break
		}
		f.line(f.buf[start : start+i])
		start += i + 1
	}
	f.buf = append(f.buf[:0], f.buf[start:]...) // keep the unfinished line at the start
	switch {
	case f.streamErr != nil:
		f.err = io.EOF
	case err != nil:
		if errors.Is(err, io.EOF) {
			if len(f.buf) > 0 {
				f.line(f.buf)
				f.buf = nil
			}
			if !f.sawData && f.streamErr == nil {
				if se := parseErrorJSON(bytes.TrimSpace(f.junk)); se != nil {
					se.body = true
					f.streamErr = se
				}
			}
		}
		f.err = err
	}
}

// line handles one line of the stream, without its newline.
func (f *eventFilter) line(l []byte) {
	l = bytes.TrimRight(l, "\r")
	t := bytes.TrimLeft(l, " \t")
	switch {
	case len(t) == 0:
		f.event = "" // a blank line ends the event
	case bytes.HasPrefix(t, []byte("data:")):
		f.sawData = true
		payload := bytes.TrimSpace(t[len("data:"):])
		if f.event == "error" {
			se := parseErrorJSON(payload)
			if se == nil {
				se = &streamError{message: string(payload)}
			}
			f.streamErr = se
			return
		}
		if len(payload) > 0 && payload[0] == '{' && bytes.Contains(payload, []byte(`"error"`)) {
			if se := parseErrorJSON(payload); se != nil {
				f.streamErr = se
				return
			}
		}
		f.out = append(f.out, t...)
		f.out = append(f.out, '\n')
	case bytes.HasPrefix(t, []byte("event:")):
		f.event = string(bytes.TrimSpace(t[len("event:"):]))
	case t[0] == ':' || bytes.HasPrefix(t, []byte("id:")) || bytes.HasPrefix(t, []byte("retry:")):
		// a comment (": OPENROUTER PROCESSING") or a field go-openai has no use for
	default:
		if !f.sawData && len(f.junk) < maxErrorBody {
			f.junk = append(f.junk, l[:min(len(l), maxErrorBody-len(f.junk))]...)
			f.junk = append(f.junk, '\n')
		}
	}
}

// parseErrorJSON reads an error object: {"error": {"message", "code", "type"}} or
// {"error": "text"}, or one with "object": "error" and the fields at the top. It returns
// nil when b is no such object (a chunk whose "error" is null included).
func parseErrorJSON(b []byte) *streamError {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var top struct {
		Error   json.RawMessage `json:"error"`
		Object  string          `json:"object"`
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(b, &top) != nil {
		return nil
	}
	if e := bytes.TrimSpace(top.Error); len(e) > 0 && !bytes.Equal(e, []byte("null")) {
		var text string
		if json.Unmarshal(e, &text) == nil {
			return &streamError{message: text}
		}
		var obj struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
			Type    string          `json:"type"`
		}
		if json.Unmarshal(e, &obj) != nil {
			return &streamError{message: string(e)}
		}
		se := &streamError{message: obj.Message, typ: obj.Type}
		se.setCode(obj.Code)
		if se.message == "" {
			se.message = string(e)
		}
		return se
	}
	if top.Object == "error" {
		se := &streamError{message: top.Message, typ: top.Type}
		se.setCode(top.Code)
		return se
	}
	return nil
}

// setCode reads an error's code: a number, a string of digits, or a word.
func (e *streamError) setCode(raw json.RawMessage) {
	var n int
	if json.Unmarshal(raw, &n) == nil {
		e.code = n
		return
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(s); err == nil {
			e.code = n
		} else {
			e.codeStr = s
		}
	}
}

// kind is the sentinel for an error a server sent inside its answer. Errors the request
// itself caused are not retried (ErrRejected): a code from 400 to 499 other than 408 and
// 429, a type or code saying the request was invalid, or a message about validation
// (Groq: "Tool call validation failed"). Everything else (a 429 or 5xx code, an error
// without code or type) is transient (ErrUnavailable), as an overloaded or disconnected
// upstream is.
func (e *streamError) kind() error {
	switch {
	case e.code == http.StatusRequestTimeout || e.code == http.StatusTooManyRequests || e.code >= 500:
		return ErrUnavailable
	case e.code >= 400:
		return ErrRejected
	}
	low := strings.ToLower(e.typ + " " + e.codeStr + " " + e.message)
	for _, w := range []string{"invalid_request", "tool_use_failed", "validation", "context_length_exceeded", "bad_request", "badrequest"} {
		if strings.Contains(low, w) {
			return ErrRejected
		}
	}
	return ErrUnavailable
}

// httpCode is the error's code when it is an HTTP status (400–599), else 0.
func (e *streamError) httpCode() int {
	if e.code >= 400 && e.code < 600 {
		return e.code
	}
	return 0
}

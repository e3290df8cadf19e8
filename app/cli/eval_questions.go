package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads the question set of `artifactflow eval` (one JSON object per line).

// errBadQuestions is wrapped by every error of a question file's content; the message
// names the line.
var errBadQuestions = errors.New("bad question file")

// evalQuestion is one line of a question file (eval/README.md):
// {"id": "...", "question": "...", "reference": "...", "tags": [...]}. ID and Question
// are required; Reference (what --judge grades against) and Tags are optional.
type evalQuestion struct {
	ID        string   `json:"id"`
	Question  string   `json:"question"`
	Reference string   `json:"reference,omitempty"`
	Tags      []string `json:"tags,omitempty"`
}

// readQuestions parses a JSONL question set: one JSON object per line, blank lines
// ignored, a UTF-8 byte-order mark at the start allowed. Errors wrap errBadQuestions and
// name the line (from 1): a line that is not one JSON object of the known fields, an
// empty id or question, an id with control characters or used before, a line over
// maxEvalLine bytes, invalid UTF-8, or a file with no question at all. Read errors of r
// are returned wrapped.
func readQuestions(r io.Reader) ([]evalQuestion, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEvalLine)
	var qs []evalQuestion
	seen := map[string]int{}
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: line %d: %s", errBadQuestions, n, fmt.Sprintf(format, args...))
		}
		if !utf8.Valid(line) {
			return nil, bad("not valid UTF-8")
		}
		var q evalQuestion
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, bad("want one JSON object {\"id\", \"question\", \"reference\"?, \"tags\"?}: %v", err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, bad("more than one JSON value on the line")
		}
		q.ID = strings.TrimSpace(q.ID)
		q.Question = strings.TrimSpace(q.Question)
		q.Reference = strings.TrimSpace(q.Reference)
		switch {
		case q.ID == "":
			return nil, bad("\"id\" is missing or empty")
		case strings.ContainsFunc(q.ID, unicode.IsControl):
			return nil, bad("\"id\" %q has control characters", q.ID)
		case q.Question == "":
			return nil, bad("question %q: \"question\" is missing or empty", q.ID)
		}
		if first, dup := seen[q.ID]; dup {
			return nil, bad("id %q is already used on line %d", q.ID, first)
		}
		seen[q.ID] = n
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: line %d: longer than %d bytes", errBadQuestions, n+1, maxEvalLine)
		}
		return nil, fmt.Errorf("read questions: %w", err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%w: no questions (one JSON object per line)", errBadQuestions)
	}
	return qs, nil
}

// readQuestionFile reads and parses the question file at path (readQuestions).
func readQuestionFile(path string) ([]evalQuestion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qs, err := readQuestions(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, nil
}

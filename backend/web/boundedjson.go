package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Bounds on what a search answer may make this process build, whatever the answer's size
// (it is read through an 8 MiB cap, and a hostile or broken server can fill all of it).
const (
	// maxDecodedResults is how many elements of a provider's result array are decoded
	// (4 × MaxSearchCount): the rest are not looked at. Results without a usable URL or
	// repeating one are dropped after decoding, hence the room above MaxSearchCount. An
	// answer of eight million bytes of "{}," would otherwise become millions of structs
	// (over 1 GB).
	maxDecodedResults = 4 * MaxSearchCount
	// maxQuotedBody is how much of a body (bytes) is read as a provider's error envelope
	// or quoted in an error message; every envelope seen is under 1 KiB.
	maxQuotedBody = 64 << 10
	// maxRawSnippet is how much of a snippet as the provider sent it (bytes, markup
	// included) is reduced to text; the text is then cut to maxSnippetRunes runes.
	maxRawSnippet = 64 << 10
)

// resultArray is a JSON array of search results (or of a result's strings) of which only
// the first maxDecodedResults elements are decoded; the rest of the array is skipped
// without building anything. JSON null gives a nil slice; any other non-array is an error.
// json.Unmarshal checks the whole document's syntax before it calls UnmarshalJSON, so an
// answer that is broken after the kept elements is still refused.
type resultArray[T any] []T

// UnmarshalJSON decodes at most maxDecodedResults elements of the array in b, one at a time
// through a json.Decoder. Errors: b is not an array or null; an element does not decode
// into T.
func (a *resultArray[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*a = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("want a JSON array of results, got %s", jsonKind(tok))
	}
	out := make([]T, 0, min(8, maxDecodedResults))
	for len(out) < maxDecodedResults && dec.More() {
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("result %d: %w", len(out)+1, err)
		}
		out = append(out, v)
	}
	*a = out
	return nil
}

// jsonKind names the kind of JSON value a json.Decoder token starts.
func jsonKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return fmt.Sprintf("%q", rune(t))
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// utf8Prefix returns the longest prefix of s of at most n bytes that does not end inside a
// UTF-8 sequence.
func utf8Prefix[S ~string | ~[]byte](s S, n int) S {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

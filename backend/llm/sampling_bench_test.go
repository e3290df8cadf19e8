package llm

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkAddZeroFields measures writing "temperature":0 into a request body of a long
// research context (1 MiB of messages), which go-openai leaves out as empty: the cost a
// zero temperature adds to each call.
func BenchmarkAddZeroFields(b *testing.B) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 1<<20) + `"}],"stream":true}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r, _ := http.NewRequest(http.MethodPost, "http://localhost/v1/chat/completions", bytes.NewReader(body))
		if err := addZeroFields(r, []string{"temperature"}); err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			b.Fatal(err)
		}
	}
}

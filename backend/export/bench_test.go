package export

import (
	"strings"
	"testing"
)

// largeDoc is a Markdown artifact of at least 200 KB made of the
// every-element fixture repeated.
func largeDoc(b *testing.B) Doc {
	b.Helper()
	content := strings.Repeat(everyElement+"\n", 200*1024/len(everyElement)+1)
	return Doc{Title: "Large", ContentType: "markdown", Content: content, Version: 7, Exported: fixtureTime}
}

func BenchmarkHTML200KB(b *testing.B) {
	d := largeDoc(b)
	b.SetBytes(int64(len(d.Content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HTML(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDOCX200KB(b *testing.B) {
	d := largeDoc(b)
	b.SetBytes(int64(len(d.Content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DOCX(d); err != nil {
			b.Fatal(err)
		}
	}
}

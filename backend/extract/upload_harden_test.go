package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"artifactflow/backend/testdocs"
)

// deflateBomb returns a raw DEFLATE stream that inflates to n MB of the byte c, built
// without ever holding or compressing n MB: one megabyte is compressed once and ends in a
// sync flush (so it is whole, byte-aligned blocks that refer to nothing before them), the
// stream repeats it n times and closes with an empty final block. It also returns the
// CRC-32 of the inflated bytes.
func deflateBomb(t testing.TB, n int, c byte) ([]byte, uint32) {
	t.Helper()
	chunk := bytes.Repeat([]byte{c}, 1<<20)
	var seg bytes.Buffer
	fw, err := flate.NewWriter(&seg, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(chunk); err != nil {
		t.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	var end bytes.Buffer
	fw, _ = flate.NewWriter(&end, flate.BestCompression)
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var sum uint32
	for i := 0; i < n; i++ {
		out.Write(seg.Bytes())
		sum = crc32.Update(sum, crc32.IEEETable, chunk)
	}
	out.Write(end.Bytes())
	return out.Bytes(), sum
}

// bombDOCX returns a small ZIP (about 1 KB per inflated MB) whose word/document.xml
// inflates to mb megabytes of spaces. Its headers state that size, or with lie 1,000 bytes.
func bombDOCX(t testing.TB, mb int, lie bool) []byte {
	t.Helper()
	raw, sum := deflateBomb(t, mb, ' ')
	size := uint64(mb) << 20
	if lie {
		size = 1000
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, CRC32: sum,
		CompressedSize64: uint64(len(raw)), UncompressedSize64: size})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// manyPartsDOCX returns a valid DOCX with n empty parts besides word/document.xml.
func manyPartsDOCX(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(documentXML(`<w:p><w:r><w:t>hi</w:t></w:r></w:p>`))); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("p/%d", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encryptedPDF returns a one-page PDF whose trailer names a standard security handler
// (RC4, revision 2) whose /U entry matches no password: PDFium asks for the password, as
// for any password-protected PDF.
func encryptedPDF() []byte {
	pdf := testdocs.BuildPDF("Secret", "classified text")
	i := bytes.LastIndex(pdf, []byte("trailer\n<< "))
	enc := "/Encrypt << /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <" + strings.Repeat("4f", 32) +
		"> /U <" + strings.Repeat("55", 32) + "> >> /ID [<" + strings.Repeat("ab", 16) + "> <" + strings.Repeat("ab", 16) + ">] "
	return append(append(append([]byte{}, pdf[:i+len("trailer\n<< ")]...), enc...), pdf[i+len("trailer\n<< "):]...)
}

// TestTextHostileUploads reads hostile uploads: a DOCX whose text part
// inflates to 1 GB (its headers saying so, or lying that it is 1,000 bytes), a DOCX of
// more parts than any real document has, a PDF header over random bytes, a truncated PDF
// and a password-protected PDF. Each is unreadable with a reason that says what is wrong
// and nothing is inflated past the caps.
func TestTextHostileUploads(t *testing.T) {
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i>>3)
	}
	tests := []struct {
		name   string
		data   []byte
		reason []string
	}{
		{"bomb.docx", bombDOCX(t, 1024, false), []string{"Word document could not be read", "1024 MB uncompressed, over the 50 MB limit"}},
		{"lying.docx", bombDOCX(t, 1024, true), []string{"Word document could not be read", "word/document.xml is damaged"}},
		{"parts.docx", manyPartsDOCX(t, MaxDOCXEntries), []string{"Word document could not be read", "10001 parts, over the limit of 10000"}},
		{"random.pdf", append([]byte("%PDF-1.7\n"), random...), []string{"broken PDF", "damaged or not a PDF"}},
		{"truncated.pdf", testdocs.BuildPDF("T", "some text")[:300], []string{"broken PDF", "damaged or not a PDF"}},
		{"encrypted.pdf", encryptedPDF(), []string{"password-protected", "remove the password"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.data) > 2<<20 {
				t.Fatalf("the test file is %d bytes; it should be small on disk", len(tc.data))
			}
			res, err := Text(context.Background(), tc.name, tc.data)
			if err != nil || res.Readable || res.ContentType != ContentTypeBinary {
				t.Fatalf("Text = %+v, %v; want unreadable", res, err)
			}
			for _, want := range tc.reason {
				if !strings.Contains(res.Reason, want) {
					t.Errorf("reason %q lacks %q", res.Reason, want)
				}
			}
		})
	}
	// A DOCX of exactly MaxDOCXEntries parts is still read.
	if res, err := Text(context.Background(), "ok.docx", manyPartsDOCX(t, MaxDOCXEntries-1)); err != nil || res.Text != "hi" {
		t.Errorf("DOCX at the part limit: %+v, %v", res, err)
	}
}

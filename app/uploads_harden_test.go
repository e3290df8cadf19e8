package app

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/testdocs"
)

// TestUploadPathsHugeFile drops a 1 GB file (sparse: it takes no disk) and /dev/zero on
// the window. The file is refused by its size with artifact.ErrTooLarge naming the limit
// in MB, having allocated under 8 MB (less than the limit); the device is refused as not a
// file instead of being read up to the limit; no conversation is made for them.
func TestUploadPathsHugeFile(t *testing.T) {
	core := newCore(t, apptest.EchoWorld(t))
	arts, convs := &ArtifactService{core}, &ConversationService{core}
	huge := filepath.Join(t.TempDir(), "huge.bin")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	limit := core.MaxUploadBytes()
	if limit != config.DefaultMaxUploadMB<<20 {
		t.Fatalf("limit = %d bytes, want the default %d MB", limit, config.DefaultMaxUploadMB)
	}

	_, err = readLimited(huge, limit)
	if !errors.Is(err, artifact.ErrTooLarge) || !strings.Contains(err.Error(), "huge.bin is 1024 MB, over the 20 MB upload limit") {
		t.Errorf("readLimited(1 GB) = %v, want artifact.ErrTooLarge naming the size and the limit", err)
	}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := arts.UploadPaths("", []string{huge})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("refusing a 1 GB file allocated %d KB", grew>>10)
	if grew > 8<<20 { // under the 20 MB limit too: the file is not read up to the limit either
		t.Errorf("refusing a 1 GB file allocated %d MB", grew>>20)
	}
	if len(res) != 1 || !strings.Contains(res[0].Error, "over the 20 MB upload limit") || res[0].ConversationID != "" {
		t.Errorf("UploadPaths(1 GB) = %+v, want one result naming the limit, no conversation", res)
	}
	// The page words it in the UI's language from the code and values.
	if want := map[string]string{"size": strconv.Itoa(1 << 30), "limit_mb": "20"}; len(res) != 1 || res[0].ErrorCode != CodeFileTooLarge || !maps.Equal(res[0].ErrorArgs, want) {
		t.Errorf("UploadPaths(1 GB) code %q args %v, want %s %v", res[0].ErrorCode, res[0].ErrorArgs, CodeFileTooLarge, want)
	}

	if runtime.GOOS == "linux" {
		_, err = readLimited("/dev/zero", limit)
		if !errors.Is(err, ErrNotRegularFile) || !strings.Contains(err.Error(), "zero is a device, not a file") {
			t.Errorf("readLimited(/dev/zero) = %v, want ErrNotRegularFile", err)
		}
		res, err := arts.UploadPaths("", []string{"/dev/zero"})
		if err != nil || len(res) != 1 || !strings.Contains(res[0].Error, "not a file") {
			t.Errorf("UploadPaths(/dev/zero) = %+v, %v", res, err)
		}
	}
	if list, err := convs.List(); err != nil || len(list) != 0 {
		t.Errorf("refused uploads left conversations: %+v, %v", list, err)
	}
}

// TestUploadHostileNamesStayInDataDir uploads, from the page and dropped on the window,
// files whose names try to leave the data directory (../, ..\, absolute Unix and Windows
// paths), hide NUL, control or bidirectional characters, or run to 300 characters.
// Titles and the conversation's title keep none of that, and walking the whole temporary
// root afterwards finds no file created or changed outside the data directory; inside it
// the originals are named by their SHA-256.
func TestUploadHostileNamesStayInDataDir(t *testing.T) {
	w := apptest.EchoWorld(t)
	core := newCore(t, w)
	arts, convs := &ArtifactService{core}, &ConversationService{core}
	root := filepath.Dir(w.DataDir)
	src := filepath.Join(root, "src") // dropped files live beside the data dir
	if err := os.Mkdir(src, 0o700); err != nil {
		t.Fatal(err)
	}
	dropped := []string{"\u202Egnp.md", "ctl\x01\x1b[2J.txt", strings.Repeat("é", 120) + ".txt", "..."}
	var paths []string
	for i, name := range dropped {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, []byte{'d', byte(i)}, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	before := snapshot(t, root)

	names := []string{"../../escape.txt", `..\..\escape2.txt`, "/etc/passwd", `C:\Windows\win.ini`,
		"nul\x00.txt", "\u202Etxt.exe", strings.Repeat("长", 296) + ".txt", "../"}
	var files []UploadFile
	for i, n := range names {
		files = append(files, UploadFile{Name: n, Data: []byte{'u', byte(i)}})
	}
	res, err := arts.Upload("", files)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(names) || res[0].ConversationID == "" {
		t.Fatalf("results = %+v", res)
	}
	conv := res[0].ConversationID
	more, err := arts.UploadPaths(conv, paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range append(res, more...) {
		if r.Error != "" || r.ArtifactID == "" {
			t.Errorf("upload %q failed: %+v", r.Name, r)
			continue
		}
		if !utf8.ValidString(r.Title) || strings.ContainsAny(r.Title, "/\\\x00\x01\x1b\u202E") || utf8.RuneCountInString(r.Title) > 200 {
			t.Errorf("upload %q got the title %q", r.Name, r.Title)
		}
	}
	detail, err := convs.Get(conv)
	if err != nil {
		t.Fatal(err)
	}
	if title := detail.Conversation.Title; title != "Files: escape.txt" {
		t.Errorf("conversation title %q, want %q", title, "Files: escape.txt")
	}

	after := snapshot(t, root)
	blobs := filepath.Join(w.DataDir, config.BlobsDir)
	for path, stamp := range after {
		if before[path] == stamp {
			continue
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasPrefix(path, w.DataDir+string(filepath.Separator)) {
			t.Errorf("written outside the data directory: %s", rel)
		}
		if filepath.Dir(path) == blobs {
			if b, err := hex.DecodeString(filepath.Base(path)); err != nil || len(b) != sha256.Size {
				t.Errorf("an original not named by its SHA-256: %s", rel)
			}
		}
	}
}

// snapshot maps each regular file under root to its size and modification time.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[path] = fmt.Sprint(info.ModTime(), info.Mode(), info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// bombDOCXFile is a DOCX of about 1 MB whose word/document.xml inflates to 1 GB of spaces
// (its headers say so): one megabyte compressed once, ending in a sync flush so it stands
// alone, repeated 1,024 times.
func bombDOCXFile(t *testing.T) []byte {
	t.Helper()
	chunk := bytes.Repeat([]byte{' '}, 1<<20)
	var seg, end bytes.Buffer
	fw, _ := flate.NewWriter(&seg, flate.BestCompression)
	if _, err := fw.Write(chunk); err != nil {
		t.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	fw, _ = flate.NewWriter(&end, flate.BestCompression)
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	raw := bytes.Repeat(seg.Bytes(), 1024)
	raw = append(raw, end.Bytes()...)
	var sum uint32
	for i := 0; i < 1024; i++ {
		sum = crc32.Update(sum, crc32.IEEETable, chunk)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, CRC32: sum,
		CompressedSize64: uint64(len(raw)), UncompressedSize64: 1 << 30})
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

// TestUploadHostileDocumentsKeepOriginal uploads a zip-bomb .docx, a malformed, a truncated
// and a password-protected PDF, and (unchanged behaviour) a PNG and an unknown binary. Each
// is stored, not lost: a binary artifact whose content and note say why its text could not
// be read, and its original bytes in blobs/ under their SHA-256.
func TestUploadHostileDocumentsKeepOriginal(t *testing.T) {
	w := apptest.EchoWorld(t)
	core := newCore(t, w)
	arts := &ArtifactService{core}
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i>>3)
	}
	pdf := testdocs.BuildPDF("Secret", "classified text")
	at := bytes.LastIndex(pdf, []byte("trailer\n<< ")) + len("trailer\n<< ")
	encrypted := append(append(append([]byte{}, pdf[:at]...), "/Encrypt << /Filter /Standard /V 1 /R 2 /P -44 /O <"+
		strings.Repeat("4f", 32)+"> /U <"+strings.Repeat("55", 32)+"> >> /ID [<"+strings.Repeat("ab", 16)+"> <"+strings.Repeat("ab", 16)+">] "...), pdf[at:]...)
	tests := []struct {
		name string
		data []byte
		why  string // in the artifact's content and the note
	}{
		{"bomb.docx", bombDOCXFile(t), "its text part is 1024 MB uncompressed, over the 50 MB limit"},
		{"random.pdf", append([]byte("%PDF-1.7\n"), random...), "broken PDF: the file is damaged or not a PDF"},
		{"truncated.pdf", pdf[:300], "broken PDF: the file is damaged or not a PDF"},
		{"encrypted.pdf", encrypted, "PDF is password-protected (encrypted): remove the password"},
		{"photo.heic", append([]byte("\x00\x00\x00\x18ftypheic"), random...), ".heic files are not supported"},
		{"blob.bin", random, ".bin files are not supported"},
	}
	var files []UploadFile
	for _, tc := range tests {
		files = append(files, UploadFile{Name: tc.name, Data: tc.data})
	}
	res, err := arts.Upload("", files)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(tests) {
		t.Fatalf("results = %+v", res)
	}
	for i, tc := range tests {
		r := res[i]
		if r.Error != "" || r.Readable || r.ContentType != "binary" || r.ArtifactID != tc.name {
			t.Errorf("%s: %+v, want a stored binary artifact", tc.name, r)
			continue
		}
		if !strings.Contains(r.Note, tc.why) || !strings.Contains(r.Note, "the original file is kept") {
			t.Errorf("%s: note %q, want %q and that the original is kept", tc.name, r.Note, tc.why)
		}
		a, err := core.db.GetArtifact(t.Context(), r.ConversationID, r.ArtifactID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(a.Content, "(binary file: "+tc.name) || !strings.Contains(a.Content, tc.why) {
			t.Errorf("%s: content %q", tc.name, a.Content)
		}
		sum := sha256.Sum256(tc.data)
		kept, err := os.ReadFile(filepath.Join(w.DataDir, config.BlobsDir, hex.EncodeToString(sum[:])))
		if err != nil || !bytes.Equal(kept, tc.data) {
			t.Errorf("%s: original in blobs/: %d bytes, %v; want the %d bytes uploaded", tc.name, len(kept), err, len(tc.data))
		}
	}
}

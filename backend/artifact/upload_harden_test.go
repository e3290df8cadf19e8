package artifact

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUploadHostileNames uploads files whose names try to climb out of the data directory,
// name absolute paths, hide NUL or bidirectional overrides, or run to 300 characters.
// Title, id and the recorded original_name keep no directory part, no NUL, control or
// format character, and are cut at rune boundaries (title 200 runes, id 64 bytes,
// original_name 255 runes); the only file written is the original, named by its SHA-256,
// inside the blobs directory.
func TestUploadHostileNames(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("长", 150) + strings.Repeat("a", 146) + ".txt" // 300 runes
	tests := []struct {
		name, title, id string
		orig            string // original_name when not the title
	}{
		{"../x", "x", "x", ""},
		{`..\x`, "x", "x_1", ""},
		{"../../../../etc/cron.d/evil", "evil", "evil", ""},
		{"/etc/passwd", "passwd", "passwd", ""},
		{`C:\x`, "x", "x_2", ""},
		{`C:\Windows\System32\drivers\etc\hosts`, "hosts", "hosts", ""},
		{`\\server\share\notes.md`, "notes.md", "notes.md", ""},
		{"nul\x00byte.txt", "nulbyte.txt", "nul_byte.txt", ""},
		{"..", "..", "upload", ""},
		{"dir/", "upload", "upload_1", ""},
		{"\u202Etxt.exe", "txt.exe", "_txt.exe", ""},
		{"a\u2067b\u200Ec\x1b[31m.md", "abc[31m.md", "a_b_c__31m.md", ""},
		{"bad\xff\xfeutf8.txt", "bad\uFFFDutf8.txt", "bad__utf8.txt", ""},
		{long, strings.Repeat("长", 150) + strings.Repeat("a", 50), strings.Repeat("长", 20) + ".txt",
			strings.Repeat("长", 150) + strings.Repeat("a", 105)},
	}
	root := t.TempDir()
	db := openStore(t)
	m := NewManager(db, "conv", "msg")
	blobs := filepath.Join(root, "data", "blobs")
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: tc.name, Data: []byte{'a', byte(i)}}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.Title != tc.title || res.ArtifactID != tc.id {
				t.Errorf("title %q, id %q; want %q, %q", res.Title, res.ArtifactID, tc.title, tc.id)
			}
			if got := UploadTitle(tc.name); got != res.Title {
				t.Errorf("UploadTitle = %q, the upload's title %q", got, res.Title)
			}
			a, err := db.GetArtifact(ctx, "conv", res.ArtifactID)
			if err != nil {
				t.Fatal(err)
			}
			var meta uploadMetadata
			if err := json.Unmarshal(a.Metadata, &meta); err != nil {
				t.Fatal(err)
			}
			for what, s := range map[string]string{"title": a.Title, "id": a.ID, "original_name": meta.OriginalName} {
				if !utf8.ValidString(s) || strings.ContainsAny(s, "/\\\x00\u202E\u2067\u200E\x1b") {
					t.Errorf("%s %q keeps a path separator, NUL, control or bidi character", what, s)
				}
			}
			wantOrig := tc.orig
			if wantOrig == "" {
				wantOrig = tc.title
			}
			if meta.OriginalName != wantOrig {
				t.Errorf("original_name %q, want %q", meta.OriginalName, wantOrig)
			}
			if len(a.ID) > maxIDBytes || utf8.RuneCountInString(a.Title) > maxTitleRunes {
				t.Errorf("id %d bytes, title %d runes", len(a.ID), utf8.RuneCountInString(a.Title))
			}
		})
	}
	// The only files written anywhere under root are the originals, in blobs/, each named
	// by the hex SHA-256 of its bytes.
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if filepath.Dir(path) != blobs {
			t.Errorf("file written outside blobs/: %s", rel)
		} else if b, err := hex.DecodeString(d.Name()); err != nil || len(b) != 32 {
			t.Errorf("blob not named by a SHA-256: %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

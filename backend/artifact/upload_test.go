package artifact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"

	"artifactflow/backend/extract"
	"artifactflow/backend/store"
)

func TestSanitizeID(t *testing.T) {
	long := strings.Repeat("a", 100) + ".pdf"
	tests := []struct{ name, want string }{
		{"report.pdf", "report.pdf"},
		{"报告 2024.pdf", "报告_2024.pdf"},
		{"my file (final) v2.docx", "my_file__final__v2.docx"},
		{"café-menu_v2.txt", "café-menu_v2.txt"},
		{"cafe\u0301.txt", "cafe_.txt"}, // a combining mark is not \w in Python either
		{"Ⅻ²½.csv", "Ⅻ²½.csv"},          // numbers of any kind are \w
		{"données/été.md", "été.md"},
		{`C:\Users\me\notes.md`, "notes.md"},
		{"../../etc/passwd", "passwd"},
		{"dir/", "upload"},
		{"📊 data.csv", "__data.csv"},
		{"👍🏽.txt", "__.txt"},
		{"a\tb\nc.txt", "a_b_c.txt"},
		{"a\xffb.txt", "a_b.txt"},
		{"", "upload"},
		{"..", "upload"},
		{"...", "upload"},
		{"README", "README"},
		{".env", ".env"},
		{".bashrc.bak", ".bashrc.bak"},
		{long, strings.Repeat("a", 60) + ".pdf"},
		{strings.Repeat("研", 30) + ".docx", strings.Repeat("研", 19) + ".docx"},
		{"a." + strings.Repeat("x", 80), "a." + strings.Repeat("x", 62)},
		{strings.Repeat("é", 40), strings.Repeat("é", 32)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SanitizeID(tc.name)
			if got != tc.want {
				t.Errorf("SanitizeID(%q) = %q, want %q", tc.name, got, tc.want)
			}
			if len(got) > 64 || !utf8.ValidString(got) || strings.ContainsAny(got, `/\ `) {
				t.Errorf("SanitizeID(%q) = %q: not a safe id", tc.name, got)
			}
		})
	}
}

func TestWithSuffix(t *testing.T) {
	max := strings.Repeat("b", 60) + ".csv"
	tests := []struct {
		id   string
		n    int
		want string
	}{
		{"data.csv", 0, "data.csv"},
		{"data.csv", 1, "data_1.csv"},
		{"data.csv", 12, "data_12.csv"},
		{"archive.tar.gz", 2, "archive.tar_2.gz"},
		{".env", 1, ".env_1"},
		{"README", 3, "README_3"},
		{max, 7, strings.Repeat("b", 58) + "_7.csv"},
		{strings.Repeat("研", 20) + ".md", 1, strings.Repeat("研", 19) + "_1.md"},
	}
	for _, tc := range tests {
		if got := withSuffix(tc.id, tc.n); got != tc.want || len(got) > 64 {
			t.Errorf("withSuffix(%q, %d) = %q, want %q", tc.id, tc.n, got, tc.want)
		}
	}
}

// uploadSetup returns a manager over a real database and a blobs directory that does
// not exist yet.
func uploadSetup(t testing.TB) (*store.DB, *Manager, string) {
	db := openStore(t)
	return db, NewManager(db, "conv", "msg"), filepath.Join(t.TempDir(), "data", "blobs")
}

func TestCreateFromUpload(t *testing.T) {
	ctx := context.Background()
	db, m, blobs := uploadSetup(t)
	csv := []byte("name,score\r\n张三,90\r\n")
	res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "data.csv", Data: csv}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := UploadResult{ArtifactID: "data.csv", Title: "data.csv", ContentType: "csv", Size: len(csv), Readable: true}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("result = %+v, want %+v", res, want)
	}

	a, err := db.GetArtifact(ctx, "conv", "data.csv")
	if err != nil {
		t.Fatal(err)
	}
	if a.Content != "name,score\n张三,90\n" || a.Source != SourceUpload || a.CurrentVersion != 1 || a.ContentType != "csv" || a.Title != "data.csv" {
		t.Errorf("stored artifact = %+v", a)
	}
	vs, err := db.ListVersions(ctx, "conv", "data.csv")
	if err != nil || len(vs) != 1 || vs[0].UpdateType != store.UpdateUpload || vs[0].Source != SourceUpload || vs[0].MessageID != "" {
		t.Errorf("versions = %+v, %v", vs, err)
	}
	sum := sha256.Sum256(csv)
	hexSum := hex.EncodeToString(sum[:])
	var meta map[string]any
	if err := json.Unmarshal(a.Metadata, &meta); err != nil {
		t.Fatalf("metadata %s: %v", a.Metadata, err)
	}
	wantMeta := map[string]any{"original_name": "data.csv", "size": float64(len(csv)), "sha256": hexSum,
		"encoding": "UTF-8", "readable": true, "blob": hexSum}
	for k, v := range wantMeta {
		if meta[k] != v {
			t.Errorf("metadata[%q] = %v, want %v", k, meta[k], v)
		}
	}
	if mt, _ := meta["mime"].(string); mt == "" {
		t.Errorf("metadata has no mime: %s", a.Metadata)
	}

	// The original is kept byte for byte, private to the user.
	blobPath := filepath.Join(blobs, hexSum)
	got, err := os.ReadFile(blobPath)
	if err != nil || !bytes.Equal(got, csv) {
		t.Fatalf("blob = %q, %v", got, err)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(blobPath); fi.Mode().Perm() != 0o600 {
			t.Errorf("blob mode = %v, want 0600", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(blobs); fi.Mode().Perm() != 0o700 {
			t.Errorf("blobs dir mode = %v, want 0700", fi.Mode().Perm())
		}
	}

	// The same bytes again, under any name, are the artifact already there: nothing new is
	// stored and the blob is not rewritten.
	past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(blobPath, past, past); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"data.csv", "copy of data.csv"} {
		res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: name, Data: csv}, 0)
		want := UploadResult{ArtifactID: "data.csv", Title: "data.csv", ContentType: "csv", Size: len(csv), Readable: true,
			Note: `already in this conversation as "data.csv"`, Existing: true,
			NoteParts: []NotePart{{Code: NoteExisting, Args: map[string]string{"id": "data.csv"}}}}
		if err != nil || !reflect.DeepEqual(res, want) {
			t.Fatalf("upload %q again = %+v, %v; want %+v", name, res, err, want)
		}
	}
	// Different bytes under a taken name get _1 then _2, each with its own blob.
	for i, wantID := range []string{"data_1.csv", "data_2.csv"} {
		res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "data.csv", Data: append(csv, byte('0'+i))}, 0)
		if err != nil || res.ArtifactID != wantID || res.Existing || !strings.Contains(res.Note, `saved as "`+wantID+`" because "data.csv" already exists`) {
			t.Fatalf("upload different bytes = %+v, %v; want id %s with a note", res, err, wantID)
		}
	}
	if fi, _ := os.Stat(blobPath); !fi.ModTime().Equal(past) {
		t.Errorf("the existing blob was rewritten (mtime %v)", fi.ModTime())
	}
	if entries, _ := os.ReadDir(blobs); len(entries) != 3 {
		t.Errorf("blobs dir holds %d entries, want 3 (one per distinct file, no temp files left)", len(entries))
	}
	if vs, err := db.ListVersions(ctx, "conv", "data.csv"); err != nil || len(vs) != 1 {
		t.Errorf("versions of data.csv after uploading it again = %+v, %v; want the one upload", vs, err)
	}

	// During a run the uploads are listed as saved, beside the agent's unsaved artifact,
	// and the inventory marks their source.
	if _, err := m.Create(ctx, "summary", "markdown", "Summary", "draft"); err != nil {
		t.Fatal(err)
	}
	items, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
		if it.Source == SourceUpload && (it.Unsaved || it.Version != 1) {
			t.Errorf("upload listed as %+v", it)
		}
	}
	if strings.Join(ids, " ") != "data.csv data_1.csv data_2.csv summary" {
		t.Errorf("listed ids = %v", ids)
	}
	if m.Dirty() != 1 {
		t.Errorf("dirty = %d, want 1 (uploads are already saved)", m.Dirty())
	}
	inv, err := m.Inventory(ctx)
	if err != nil || !strings.Contains(inv, `<artifact id="data.csv" title="data.csv" content_type="csv" version="1" source="user_upload"`) ||
		!strings.Contains(inv, `source="agent"`) {
		t.Errorf("inventory = %q, %v", inv, err)
	}
	// The agent can read and edit an upload like any artifact; a create under its id is refused.
	if _, err := m.Create(ctx, "data.csv", "", "", "x"); !errors.Is(err, ErrExists) {
		t.Errorf("create over an upload = %v, want ErrExists", err)
	}
	if s, err := m.Update(ctx, "data.csv", "90", "95"); err != nil || s.Version != 2 {
		t.Fatalf("update upload = %+v, %v", s, err)
	}
	if failed := m.Flush(ctx); failed != nil {
		t.Fatal(failed)
	}
	if a, _ := db.GetArtifact(ctx, "conv", "data.csv"); a.Content != "name,score\n张三,95\n" || string(a.Metadata) == "" {
		t.Errorf("after flush: %+v", a)
	}
	// Edited or not, it is still the upload of those bytes; another conversation stores its own.
	if res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "data.csv", Data: csv}, 0); err != nil || !res.Existing || res.ArtifactID != "data.csv" {
		t.Errorf("upload after an edit = %+v, %v; want the existing data.csv", res, err)
	}
	if err := db.CreateConversation(ctx, store.Conversation{ID: "conv2"}); err != nil {
		t.Fatal(err)
	}
	if res, err := NewManager(db, "conv2", "").CreateFromUpload(ctx, blobs, Upload{Name: "data.csv", Data: csv}, 0); err != nil || res.Existing || res.ArtifactID != "data.csv" {
		t.Errorf("upload into another conversation = %+v, %v; want a new data.csv there", res, err)
	}
}

func TestCreateFromUploadCollisions(t *testing.T) {
	ctx := context.Background()
	db, m, blobs := uploadSetup(t)
	// notes.md exists only in the run's cache; report.pdf only in the database (written
	// behind the manager's back, as a concurrent writer would: CreateArtifact reports
	// ErrDuplicate and the next suffix is tried).
	if _, err := m.Create(ctx, "notes.md", "markdown", "Notes", "agent notes"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"report.pdf", "report_1.pdf"} {
		if _, err := db.CreateArtifact(ctx, store.ArtifactWrite{SessionID: "conv", ID: id, ContentType: "markdown", Title: id,
			Version: 1, UpdateType: store.UpdateCreate}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ name, wantID string }{
		{"notes.md", "notes_1.md"},
		{"notes.md", "notes_2.md"},
		{"report.pdf", "report_2.pdf"},
		{"dir/报告 2024.md", "报告_2024.md"},
		{"报告 2024.md", "报告_2024_1.md"},
		{strings.Repeat("x", 70) + ".md", strings.Repeat("x", 61) + ".md"},
		{strings.Repeat("x", 80) + ".md", strings.Repeat("x", 59) + "_1.md"},
	}
	for i, tc := range tests {
		res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: tc.name, Data: []byte(fmt.Sprintf("# hi %d", i))}, 0)
		if err != nil || res.ArtifactID != tc.wantID {
			t.Errorf("upload %q = %+v, %v; want id %q", tc.name, res, err, tc.wantID)
		}
	}
	// The agent's unsaved notes.md is untouched and still flushes as new.
	if failed := m.Flush(ctx); failed != nil {
		t.Fatal(failed)
	}
	if a, err := db.GetArtifact(ctx, "conv", "notes.md"); err != nil || a.Content != "agent notes" || a.Source != SourceAgent {
		t.Errorf("notes.md = %+v, %v", a, err)
	}
}

func TestCreateFromUploadConcurrent(t *testing.T) {
	ctx := context.Background()
	_, m, blobs := uploadSetup(t)
	const n = 8
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "same.txt", Data: []byte(fmt.Sprintf("copy %d", i))}, 0)
			ids[i], errs[i] = res.ArtifactID, err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	sort.Strings(ids)
	want := []string{"same.txt", "same_1.txt", "same_2.txt", "same_3.txt", "same_4.txt", "same_5.txt", "same_6.txt", "same_7.txt"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("ids = %v, want %v", ids, want)
	}
}

func TestCreateFromUploadTooLarge(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		size     int
		max      int64
		wantSize string
		wantMax  string
	}{
		{"small limit", 11, 10, "11 bytes", "10 bytes"},
		{"default limit", DefaultMaxUploadBytes + 1, 0, "20 MB (20971521 bytes)", "limit is 20 MB"},
		{"negative means default", DefaultMaxUploadBytes + 512<<10, -1, "20.5 MB", "limit is 20 MB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, m, blobs := uploadSetup(t)
			_, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "big data.csv", Data: make([]byte, tc.size)}, tc.max)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			for _, s := range []string{`"big data.csv"`, tc.wantSize, tc.wantMax} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			if rows, _ := db.ListArtifacts(ctx, "conv"); len(rows) != 0 {
				t.Errorf("rows written: %+v", rows)
			}
			if _, err := os.Stat(blobs); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("blobs dir exists after a refused upload: %v", err)
			}
			if items, _ := m.List(ctx); len(items) != 0 {
				t.Errorf("listed: %+v", items)
			}
		})
	}
	// Exactly at the limit is accepted.
	_, m, blobs := uploadSetup(t)
	if _, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "edge.txt", Data: bytes.Repeat([]byte("a"), 10)}, 10); err != nil {
		t.Errorf("upload at the limit: %v", err)
	}
}

func TestCreateFromUploadUnreadableAndEmpty(t *testing.T) {
	ctx := context.Background()
	db, m, blobs := uploadSetup(t)
	heic := append([]byte("\x00\x00\x00\x18ftypheic"), make([]byte, 3<<20)...)
	res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "photo.heic", Data: heic}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Readable || res.ContentType != "binary" || res.ArtifactID != "photo.heic" || !strings.Contains(res.Note, "could not be read") {
		t.Errorf("result = %+v", res)
	}
	// The note by parts, for a UI that words it in its own language.
	wantParts := []NotePart{{Code: NoteUnreadable, Args: map[string]string{"reason": ".heic files are not supported",
		"reason_code": extract.ReasonUnsupportedType, "ext": ".heic"}}}
	if !reflect.DeepEqual(res.NoteParts, wantParts) {
		t.Errorf("note parts = %+v, want %+v", res.NoteParts, wantParts)
	}
	a, err := db.GetArtifact(ctx, "conv", "photo.heic")
	if err != nil {
		t.Fatal(err)
	}
	if a.Content != "(binary file: photo.heic, 3 MB; its text could not be read: .heic files are not supported)" {
		t.Errorf("content = %q", a.Content)
	}
	var meta struct {
		Readable bool   `json:"readable"`
		MIME     string `json:"mime"`
		Encoding string `json:"encoding"`
		Size     int    `json:"size"`
	}
	if err := json.Unmarshal(a.Metadata, &meta); err != nil || meta.Readable || meta.MIME == "" || meta.Encoding != "" || meta.Size != len(heic) {
		t.Errorf("metadata = %s (%v)", a.Metadata, err)
	}
	sum := sha256.Sum256(heic)
	if got, err := os.ReadFile(filepath.Join(blobs, hex.EncodeToString(sum[:]))); err != nil || !bytes.Equal(got, heic) {
		t.Errorf("blob of the binary file: %d bytes, %v", len(got), err)
	}

	res, err = m.CreateFromUpload(ctx, blobs, Upload{Name: "empty.txt"}, 0)
	if err != nil || !res.Readable || res.Size != 0 || res.ContentType != "text" || res.Note != "" {
		t.Fatalf("empty upload = %+v, %v", res, err)
	}
	const legacyText = "研究报告：人工智能在医疗领域的应用。"
	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(legacyText))
	if err != nil {
		t.Fatal(err)
	}
	res, err = m.CreateFromUpload(ctx, blobs, Upload{Name: "legacy.txt", Data: gbk}, 0)
	if err != nil || res.Note != "text decoded from GB18030" ||
		!reflect.DeepEqual(res.NoteParts, []NotePart{{Code: NoteDecoded, Args: map[string]string{"encoding": "GB18030"}}}) {
		t.Fatalf("GBK upload = %+v, %v", res, err)
	}
	items, err := m.List(ctx)
	if err != nil || len(items) != 3 || items[0].ID != "photo.heic" || items[0].ContentType != "binary" ||
		items[1].ID != "empty.txt" || items[1].Content != "" || items[2].Content != legacyText {
		t.Errorf("list = %+v, %v", items, err)
	}
}

func TestCreateFromUploadErrors(t *testing.T) {
	ctx := context.Background()
	db, _, blobs := uploadSetup(t)
	noSession := NewManager(db, "no-such-conversation", "msg")
	_, err := noSession.CreateFromUpload(ctx, blobs, Upload{Name: "a.txt", Data: []byte("a")}, 0)
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `"a.txt"`) {
		t.Errorf("unknown session: err = %v, want store.ErrNotFound naming the file", err)
	}
	if items, _ := noSession.List(ctx); len(items) != 0 {
		t.Errorf("a failed upload is listed: %+v", items)
	}
	if left, _ := os.ReadDir(blobs); len(left) != 0 {
		t.Errorf("a failed upload left its original behind: %v", left)
	}

	m := NewManager(db, "conv", "msg")
	if _, err := m.CreateFromUpload(ctx, "", Upload{Name: "a.txt", Data: []byte("a")}, 0); err == nil {
		t.Error("empty blobs dir accepted")
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateFromUpload(ctx, notDir, Upload{Name: "a.txt", Data: []byte("a")}, 0); err == nil || !strings.Contains(err.Error(), "save the original") {
		t.Errorf("blobs dir is a file: err = %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.CreateFromUpload(cancelled, blobs, Upload{Name: "a.txt", Data: []byte("a")}, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
	if rows, _ := db.ListArtifacts(ctx, "conv"); len(rows) != 0 {
		t.Errorf("failed uploads wrote rows: %+v", rows)
	}
}

// TestFailedUploadKeepsSharedBlob checks that a failed upload removes only the blob it
// wrote: an original that a stored artifact already refers to stays.
func TestFailedUploadKeepsSharedBlob(t *testing.T) {
	ctx := context.Background()
	db, m, blobs := uploadSetup(t)
	if _, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "a.txt", Data: []byte("shared bytes")}, 0); err != nil {
		t.Fatal(err)
	}
	noSession := NewManager(db, "no-such-conversation", "msg")
	if _, err := noSession.CreateFromUpload(ctx, blobs, Upload{Name: "b.txt", Data: []byte("shared bytes")}, 0); err == nil {
		t.Fatal("upload into a missing conversation succeeded")
	}
	if left, _ := os.ReadDir(blobs); len(left) != 1 {
		t.Errorf("blobs = %v, want the first upload's original", left)
	}
}

// TestUploadNameControls checks that bidirectional overrides, isolates, zero-width and
// control characters are taken out of an upload's title and recorded name, so "gnp.md"
// behind a right-to-left override is shown as "gnp.md", not "dm.png".
func TestUploadNameControls(t *testing.T) {
	ctx := context.Background()
	db, m, blobs := uploadSetup(t)
	tests := []struct{ name, want string }{
		{"\u202Egnp.md", "gnp.md"},
		{"report\u2066\u2069\u200B\u200F.txt", "report.txt"},
		{"tab\tbell\a\u0085.csv", "tabbell.csv"},
		{"\u202E", "upload"},
	}
	for i, tc := range tests {
		r, err := m.CreateFromUpload(ctx, blobs, Upload{Name: tc.name, Data: []byte{byte('a' + i)}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		a, err := db.GetArtifact(ctx, "conv", r.ArtifactID)
		if err != nil {
			t.Fatal(err)
		}
		var meta uploadMetadata
		if err := json.Unmarshal([]byte(a.Metadata), &meta); err != nil {
			t.Fatal(err)
		}
		if r.Title != tc.want || a.Title != tc.want || strings.ContainsAny(meta.OriginalName, "\u202E\u2066\u200B\t\a") {
			t.Errorf("%q: title %q, stored %q, original_name %q; want %q", tc.name, r.Title, a.Title, meta.OriginalName, tc.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KB", 1536: "1.5 KB", 1258291: "1.2 MB", 20 << 20: "20 MB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkCreateFromUpload5MBCSV uploads a 5 MB UTF-8 CSV: hashing, text extraction,
// the blob (written once, then found) and the database row.
func BenchmarkCreateFromUpload5MBCSV(b *testing.B) {
	var csv bytes.Buffer
	csv.WriteString("id,name,city,score\r\n")
	for i := 0; csv.Len() < 5<<20; i++ {
		fmt.Fprintf(&csv, "%d,用户%d,Zürich,%d.%d\r\n", i, i, i%100, i%10)
	}
	data := csv.Bytes()
	ctx := context.Background()
	_, m, blobs := uploadSetup(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.CreateFromUpload(ctx, blobs, Upload{Name: fmt.Sprintf("data%d.csv", i), Data: data}, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// checkLocker is a sync.Locker that runs onLock and onUnlock while it is taken.
type checkLocker struct {
	mu               sync.Mutex
	onLock, onUnlock func()
	locks            int
}

func (l *checkLocker) Lock() {
	l.mu.Lock()
	l.locks++
	l.onLock()
}

func (l *checkLocker) Unlock() {
	l.onUnlock()
	l.mu.Unlock()
}

// TestUploadBlobLock checks the window SetBlobLock covers: taken after the text is read
// (no original written yet) and released once the artifact is stored, or, for a failed
// upload, once its original is removed again.
func TestUploadBlobLock(t *testing.T) {
	ctx := context.Background()
	db, m, blobs := uploadSetup(t)
	data := []byte("# Notes\n\nlocked section\n")
	sum := sha256.Sum256(data)
	blobPath := filepath.Join(blobs, hex.EncodeToString(sum[:]))
	l := &checkLocker{
		onLock: func() {
			if _, err := os.Stat(blobPath); err == nil {
				t.Error("the original was written before the blob lock was taken")
			}
		},
		onUnlock: func() {
			if _, err := db.GetArtifact(ctx, "conv", "notes.md"); err != nil {
				t.Errorf("the blob lock was released before the artifact was stored: %v", err)
			}
		},
	}
	m.SetBlobLock(l)
	if _, err := m.CreateFromUpload(ctx, blobs, Upload{Name: "notes.md", Data: data}, 0); err != nil {
		t.Fatal(err)
	}
	if l.locks != 1 {
		t.Errorf("blob lock taken %d times, want 1", l.locks)
	}

	failing := NewManager(db, "no-such-conversation", "msg")
	other := []byte("other bytes")
	sum = sha256.Sum256(other)
	otherPath := filepath.Join(blobs, hex.EncodeToString(sum[:]))
	l2 := &checkLocker{onLock: func() {}, onUnlock: func() {
		if _, err := os.Stat(otherPath); err == nil {
			t.Error("the blob lock was released before the failed upload's original was removed")
		}
	}}
	failing.SetBlobLock(l2)
	if _, err := failing.CreateFromUpload(ctx, blobs, Upload{Name: "o.txt", Data: other}, 0); err == nil {
		t.Fatal("upload into a missing conversation succeeded")
	}
	if l2.locks != 1 {
		t.Errorf("blob lock taken %d times on a failed upload, want 1", l2.locks)
	}
}

// A picture uploaded becomes an image artifact (not "text could not be read"): its bytes
// decide its media type and size, the original is kept; a file named as a picture whose
// bytes are something else is refused and nothing is stored.
func TestCreateFromUploadImages(t *testing.T) {
	ctx := context.Background()
	db, m, blobs := uploadSetup(t)
	pic := image.NewRGBA(image.Rect(0, 0, 40, 30))
	var pngData, jpegData bytes.Buffer
	if err := png.Encode(&pngData, pic); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpegData, pic, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, wantMIME, wantContent string
		data                        []byte
	}{
		{"chart.png", "image/png", "(image: chart.png, PNG, 40×30 pixels, %s; the original file is kept)", pngData.Bytes()},
		{"photo.PNG", "image/jpeg", "(image: photo.PNG, JPEG, 40×30 pixels, %s; the original file is kept)", jpegData.Bytes()},
	} {
		res, err := m.CreateFromUpload(ctx, blobs, Upload{Name: tc.name, Data: tc.data}, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.ContentType != ContentTypeImage || !res.Readable || res.Note != "" || res.ArtifactID != tc.name {
			t.Errorf("%s: result %+v", tc.name, res)
		}
		a, err := db.GetArtifact(ctx, "conv", res.ArtifactID)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(tc.wantContent, formatSize(int64(len(tc.data)))); a.Content != want || a.ContentType != ContentTypeImage {
			t.Errorf("%s: content %q (%s), want %q", tc.name, a.Content, a.ContentType, want)
		}
		var meta uploadMetadata
		if err := json.Unmarshal(a.Metadata, &meta); err != nil || meta.MIME != tc.wantMIME || meta.Width != 40 || meta.Height != 30 || !meta.Readable {
			t.Errorf("%s: metadata %s (%v)", tc.name, a.Metadata, err)
		}
		if kept, err := os.ReadFile(filepath.Join(blobs, meta.Blob)); err != nil || !bytes.Equal(kept, tc.data) {
			t.Errorf("%s: original %d bytes, %v", tc.name, len(kept), err)
		}
	}
	for _, name := range []string{"notes.png", "fake.jpg", "page.webp", "x.gif"} {
		_, err := m.CreateFromUpload(ctx, blobs, Upload{Name: name, Data: []byte("<html>not a picture</html>")}, 0)
		if !errors.Is(err, ErrNotImage) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want ErrNotImage naming the file", name, err)
		}
	}
	items, err := m.List(ctx)
	if err != nil || len(items) != 2 {
		t.Errorf("list = %+v, %v; want the two pictures only", items, err)
	}
	if entries, _ := os.ReadDir(blobs); len(entries) != 2 {
		t.Errorf("blobs/ holds %d files, want the two originals", len(entries))
	}
}

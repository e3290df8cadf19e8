package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
)

type fakeDialogs struct{ path string }

func (d fakeDialogs) SaveFile(_, _ string) (string, error) { return d.path, nil }

// TestUploadAndExport covers what the window does with files: uploads with colliding
// names, an upload over the configured limit refused alone, a folder and a missing path
// refused with a clear message, and export in every format with and without a save dialog.
func TestUploadAndExport(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	svc := &ArtifactService{core}
	settings := &SettingsService{core}
	if v, err := settings.Get(); err != nil || v.MaxUploadMB != 20 {
		t.Fatalf("default upload limit = %d MB, %v; want 20", v.MaxUploadMB, err)
	}
	if _, err := settings.Save(SettingsInput{Model: "m", MaxUploadMB: 1}); err != nil {
		t.Fatal(err)
	}

	res, err := svc.Upload("", []UploadFile{
		{Name: "notes.md", Data: []byte("# Notes\n\nalpha")},
		{Name: "notes.md", Data: []byte("# Notes again")},
		{Name: "big.txt", Data: bytes.Repeat([]byte("x"), 1<<20+1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].ArtifactID != "notes.md" || res[1].ArtifactID != "notes_1.md" || res[0].Error != "" {
		t.Fatalf("uploads = %+v", res)
	}
	if res[2].ArtifactID != "" || !strings.Contains(res[2].Error, "upload limit") {
		t.Fatalf("over-limit upload = %+v, want a size error", res[2])
	}
	conv := res[0].ConversationID
	if conv == "" || res[1].ConversationID != conv || res[2].ConversationID != conv {
		t.Fatalf("uploads went to different conversations: %+v", res)
	}
	list, err := svc.List(conv)
	if err != nil || len(list) != 2 || list[0].Source != "user_upload" {
		t.Fatalf("artifacts after upload = %+v, %v", list, err)
	}

	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(big, bytes.Repeat([]byte("a,b\n"), 300_000), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(small, []byte("city,km\nParis,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = svc.UploadPaths(conv, []string{big, dir, filepath.Join(dir, "gone.txt"), small})
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]string{}
	for _, r := range res {
		errs[r.Name] = r.Error
	}
	for name, want := range map[string]string{"big.csv": "upload limit", filepath.Base(dir): "folder", "gone.txt": "gone.txt", "data.csv": ""} {
		got, ok := errs[name]
		if !ok || (want == "" && got != "") || (want != "" && !strings.Contains(got, want)) {
			t.Errorf("UploadPaths %s: error %q, want %q (results %+v)", name, got, want, res)
		}
	}

	for _, format := range []string{FormatMarkdown, FormatHTML, FormatDOCX} {
		out, err := svc.Export(conv, "notes.md", 0, format)
		if err != nil || len(out.Data) == 0 || out.Filename == "" {
			t.Fatalf("export %s = %+v, %v", format, out, err)
		}
	}
	if _, err := svc.Export(conv, "notes.md", 0, "pdf"); err == nil {
		t.Fatal("export to an unknown format must fail")
	}
	target := filepath.Join(dir, "out.html")
	core.SetDialogs(fakeDialogs{target})
	out, err := svc.Export(conv, "notes.md", 1, FormatHTML)
	if err != nil || out.SavedPath != target || len(out.Data) != 0 {
		t.Fatalf("export with dialog = %+v, %v", out, err)
	}
	if b, err := os.ReadFile(target); err != nil || !bytes.Contains(b, []byte("alpha")) {
		t.Fatalf("exported file: %v, %q", err, b)
	}
	core.SetDialogs(fakeDialogs{""})
	if out, err := svc.Export(conv, "notes.md", 1, FormatHTML); err != nil || out.SavedPath != "" {
		t.Fatalf("cancelled export = %+v, %v", out, err)
	}
}

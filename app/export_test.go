package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/export"
)

// dirDialogs is a save dialog that records the folder it was opened in and saves to
// name inside it.
type dirDialogs struct {
	mu   sync.Mutex
	dirs []string
	name string
}

func (d *dirDialogs) SaveFile(dir, _ string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dirs = append(d.dirs, dir)
	return filepath.Join(dir, d.name), nil
}

// TestExportStartsInDocuments: with no research folder chosen, the export dialog opens in
// the user's Documents folder, never in the hidden default workspace folder under the data
// dir; saving there creates no workspace folder, so the panel still says no folder is
// chosen and an indexing pass finds no file for the agents to search. With a chosen
// research folder the dialog opens there; when that folder is gone, in Documents again.
// "Show in folder" (RevealExport) opens the folder of a file Export saved and refuses any
// other path.
func TestExportStartsInDocuments(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	docs := filepath.Join(home, "Documents")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	svc := &ArtifactService{core}
	res, err := svc.Upload("", []UploadFile{{Name: "notes.md", Data: []byte("# Notes\n\nalpha")}})
	if err != nil || res[0].Error != "" {
		t.Fatalf("upload = %+v, %v", res, err)
	}
	conv := res[0].ConversationID
	ctx := context.Background()
	ws, err := core.Workspace(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}

	d := &dirDialogs{name: "notes.html"}
	core.SetDialogs(d)
	out, err := svc.Export(conv, "notes.md", 0, FormatHTML)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.dirs) != 1 || d.dirs[0] != docs {
		t.Fatalf("dialog opened in %q, want Documents %q (the workspace folder is %q)", d.dirs, docs, ws)
	}
	if want := filepath.Join(docs, "notes.html"); out.SavedPath != want {
		t.Fatalf("saved to %q, want %q", out.SavedPath, want)
	}
	if _, err := os.Stat(ws); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("export created the default workspace folder %s (stat: %v)", ws, err)
	}
	<-core.files.Start(conv, true) // the pass a run or the panel would start
	st, err := core.workspaceStatus(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	if st.Chosen || st.Exists || st.Files != st.Uploads {
		t.Fatalf("after an export the panel shows chosen=%v exists=%v files=%d (uploads %d); want no folder and only the upload indexed",
			st.Chosen, st.Exists, st.Files, st.Uploads)
	}

	// Show in folder: the exported file's folder, nothing else.
	var opened []string
	launch := func(_ context.Context, p string, reveal bool) error {
		if !reveal {
			t.Errorf("Show in folder opened %s instead of revealing it", p)
		}
		opened = append(opened, p)
		return nil
	}
	if err := core.revealExport(out.SavedPath, launch); err != nil || len(opened) != 1 || opened[0] != out.SavedPath {
		t.Fatalf("reveal export: revealed %q, %v; want [%s]", opened, err, out.SavedPath)
	}
	other := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := core.revealExport(other, launch); !errors.Is(err, ErrNotExported) || len(opened) != 1 {
		t.Fatalf("reveal of a file not exported: %v (opened %q), want ErrNotExported and nothing opened", err, opened)
	}
	if err := os.Remove(out.SavedPath); err != nil {
		t.Fatal(err)
	}
	if err := core.revealExport(out.SavedPath, launch); !errors.Is(err, ErrFileUnavailable) {
		t.Fatalf("reveal of a deleted export: %v, want ErrFileUnavailable", err)
	}

	// A chosen research folder.
	chosen := filepath.Join(t.TempDir(), "research")
	if err := os.MkdirAll(chosen, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := core.setWorkspace(ctx, conv, chosen); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Export(conv, "notes.md", 0, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if got := d.dirs[len(d.dirs)-1]; got != chosen {
		t.Fatalf("dialog opened in %q, want the chosen folder %q", got, chosen)
	}

	// The chosen folder is gone (a file is in its place): Documents, nothing created.
	if err := os.RemoveAll(chosen); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chosen, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Export(conv, "notes.md", 0, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if got := d.dirs[len(d.dirs)-1]; got != docs {
		t.Fatalf("dialog opened in %q, want Documents %q", got, docs)
	}
}

// TestDocumentsDir: the xdg-user-dirs entry wins (a localized name), then ~/Documents,
// then the home folder.
func TestDocumentsDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	cfg := filepath.Join(home, "cfg")
	t.Setenv("XDG_CONFIG_HOME", cfg)
	if got := documentsDir(); got != home {
		t.Errorf("no Documents folder: %q, want home %q", got, home)
	}
	en := filepath.Join(home, "Documents")
	if err := os.MkdirAll(en, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := documentsDir(); got != en {
		t.Errorf("~/Documents: %q, want %q", got, en)
	}
	zh := filepath.Join(home, "文档")
	if err := os.MkdirAll(zh, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "user-dirs.dirs"),
		[]byte("# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/桌面\"\nXDG_DOCUMENTS_DIR=\"$HOME/文档\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := documentsDir(); got != zh {
		t.Errorf("user-dirs.dirs: %q, want %q", got, zh)
	}
}

// TestExportWithDiagrams: the HTML export of an artifact holds the Mermaid diagram the page
// drew for its ```mermaid block (cleaned: the script the caller slipped in is gone), while
// Export, and the Markdown export with diagrams, keep the block's source; sending more
// diagrams than one export draws is an invalid request.
func TestExportWithDiagrams(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	svc := &ArtifactService{core}
	src := "graph TD\n  A[Start] --> B[End]"
	content := "# Flow\n\n```mermaid\n" + src + "\n```\n"
	res, err := svc.Upload("", []UploadFile{{Name: "flow.md", Data: []byte(content)}})
	if err != nil || res[0].Error != "" {
		t.Fatalf("upload = %+v, %v", res, err)
	}
	conv := res[0].ConversationID
	svg := `<svg id="mermaid-1" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><script>alert(1)</script>` +
		`<g class="node"><rect width="80" height="40"></rect><text><tspan>Start</tspan></text></g></svg>`
	diagrams := map[string]string{src + "\n": svg}

	out, err := svc.ExportWithDiagrams(conv, "flow.md", 0, FormatHTML, diagrams)
	if err != nil {
		t.Fatal(err)
	}
	page := string(out.Data)
	if out.MIME != "text/html" || !strings.Contains(page, `<figure class="diagram"><svg id="diagram1-mermaid-1"`) ||
		!strings.Contains(page, "<tspan>Start</tspan>") || strings.Contains(page, "alert(1)") || strings.Contains(page, "language-mermaid") {
		t.Fatalf("html export with a diagram:\n%s", page)
	}

	plain, err := svc.Export(conv, "flow.md", 0, FormatHTML)
	if err != nil {
		t.Fatal(err)
	}
	if p := string(plain.Data); strings.Contains(p, "<figure") || !strings.Contains(p, `<code class="language-mermaid">graph TD`) {
		t.Fatalf("Export without diagrams should keep the source:\n%s", p)
	}
	md, err := svc.ExportWithDiagrams(conv, "flow.md", 0, FormatMarkdown, diagrams)
	if err != nil || string(md.Data) != content {
		t.Fatalf("markdown export with diagrams = %q, %v; want the content as stored", md.Data, err)
	}

	tooMany := map[string]string{}
	for i := range export.MaxDiagrams + 1 {
		tooMany[fmt.Sprint("graph LR\n  A", i)] = svg
	}
	if _, err := svc.ExportWithDiagrams(conv, "flow.md", 0, FormatHTML, tooMany); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("%d diagrams: %v, want ErrInvalidRequest", len(tooMany), err)
	}
}

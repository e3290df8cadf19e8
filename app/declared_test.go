package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// eventLog records the artifact_changed events the Core sends to its sinks.
type eventLog struct {
	mu  sync.Mutex
	evs []events.Event
}

func watchArtifactEvents(t *testing.T, core *Core) *eventLog {
	l := &eventLog{}
	t.Cleanup(core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.ArtifactChanged {
			l.mu.Lock()
			l.evs = append(l.evs, ev)
			l.mu.Unlock()
		}
	})))
	return l
}

// changes returns the data of the recorded events of conversationID, oldest first, with
// their message ids.
func (l *eventLog) changes(t *testing.T, conversationID string) ([]events.DataArtifactChanged, []string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []events.DataArtifactChanged
	var msgs []string
	for _, ev := range l.evs {
		if ev.ConversationID != conversationID {
			continue
		}
		var d events.DataArtifactChanged
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatalf("artifact_changed data %s: %v", ev.Data, err)
		}
		out = append(out, d)
		msgs = append(msgs, ev.MessageID)
	}
	return out, msgs
}

func blobOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestDeleteArtifact: the user deletes a document with its versions and drafts, and
// uploads whose originals leave blobs/ once nothing holds them; the window hears
// artifact_changed "removed" with reason "explicit".
func TestDeleteArtifact(t *testing.T) {
	core := newCore(t, apptest.EchoWorld(t))
	ctx := context.Background()
	log := watchArtifactEvents(t, core)
	svc := &ArtifactService{core}
	db := core.Store()
	blobs := filepath.Join(core.DataDir(), config.BlobsDir)

	notes, shared := []byte("# Notes\n\nOnly here.\n"), []byte("a,b\n1,2\n")
	ups, err := svc.Upload("", []UploadFile{{Name: "notes.md", Data: notes}, {Name: "data.csv", Data: shared}})
	if err != nil || len(ups) != 2 || ups[0].Error != "" || ups[1].Error != "" {
		t.Fatalf("upload = %+v, %v", ups, err)
	}
	conv := ups[0].ConversationID
	other, err := svc.Upload("", []UploadFile{{Name: "copy.csv", Data: shared}})
	if err != nil || other[0].Error != "" {
		t.Fatalf("upload into another conversation = %+v, %v", other, err)
	}

	// A document with two versions and a draft an interrupted run left of it.
	if _, err := db.CreateArtifact(ctx, store.ArtifactWrite{SessionID: conv, ID: "report", ContentType: "markdown", Title: "Report",
		Content: "v1", Version: 1, UpdateType: store.UpdateCreate}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateArtifactContent(ctx, store.ArtifactWrite{SessionID: conv, ID: "report", Content: "v2", Version: 2,
		UpdateType: store.UpdateRewrite, ExpectedLockVersion: 1}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(ctx, store.Message{ID: "m-old", ConversationID: conv, Content: "q", Status: "interrupted"}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveDrafts(ctx, store.Draft{ConversationID: conv, ArtifactID: "report", MessageID: "m-old", ContentType: "markdown",
		Title: "Report", Content: "v3 unsaved", Version: 3, BaseVersion: 2, UpdateType: store.UpdateRewrite}); err != nil {
		t.Fatal(err)
	}
	if ds, _ := db.RecoverableDrafts(ctx, conv); len(ds) != 1 {
		t.Fatalf("drafts before = %+v", ds)
	}

	if err := svc.DeleteArtifact(conv, "report"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetArtifact(ctx, conv, "report"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("report still stored: %v", err)
	}
	if _, err := db.ListVersions(ctx, conv, "report"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("versions of report: %v, want none", err)
	}
	if ds, _ := db.RecoverableDrafts(ctx, conv); len(ds) != 0 {
		t.Errorf("drafts after = %+v, want none", ds)
	}
	list, err := svc.List(conv)
	if err != nil || len(list) != 2 {
		t.Errorf("List after deleting report = %+v, %v", list, err)
	}
	got, msgs := log.changes(t, conv)
	if len(got) != 1 || got[0].Action != "removed" || got[0].Reason != "explicit" || got[0].ArtifactID != "report" ||
		got[0].Artifact.ID != "report" || got[0].Artifact.Content != "v2" || got[0].Declared != nil || msgs[0] != "" {
		t.Fatalf("events = %+v (messages %q), want one removed/explicit for report", got, msgs)
	}

	// An upload only this conversation holds: its original goes.
	if err := svc.DeleteArtifact(conv, "notes.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(blobs, blobOf(notes))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the original of notes.md is still in blobs/: %v", err)
	}
	// One another conversation holds the same bytes of: kept until that one goes too.
	if err := svc.DeleteArtifact(conv, "data.csv"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(blobs, blobOf(shared))); err != nil {
		t.Errorf("a blob another conversation uses was removed: %v", err)
	}
	if err := svc.DeleteArtifact(other[0].ConversationID, "copy.csv"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(blobs, blobOf(shared))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unused original of copy.csv is still in blobs/: %v", err)
	}
	if got, _ := log.changes(t, conv); len(got) != 3 || got[1].ArtifactID != "notes.md" || got[2].ArtifactID != "data.csv" {
		t.Errorf("events = %+v", got)
	}

	if err := svc.DeleteArtifact(conv, "report"); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("deleting it again = %v, want artifact.ErrNotFound", err)
	}
	if err := svc.DeleteArtifact("no-such-conversation", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting in an unknown conversation = %v, want store.ErrNotFound", err)
	}
}

// TestUploadSameFileTwice: the same bytes uploaded into the same conversation again are
// the artifact already there, with a note; a different file with the same name gets _1.
func TestUploadSameFileTwice(t *testing.T) {
	core := newCore(t, apptest.EchoWorld(t))
	svc := &ArtifactService{core}
	data := []byte("# Field notes\n")
	first, err := svc.Upload("", []UploadFile{{Name: "field.md", Data: data}})
	if err != nil || first[0].Error != "" || first[0].ArtifactID != "field.md" {
		t.Fatalf("first upload = %+v, %v", first, err)
	}
	conv := first[0].ConversationID
	again, err := svc.Upload(conv, []UploadFile{{Name: "field.md", Data: data}})
	if err != nil || len(again) != 1 || again[0].Error != "" || again[0].ArtifactID != "field.md" ||
		again[0].Note != `already in this conversation as "field.md"` || again[0].ConversationID != conv {
		t.Fatalf("same file again = %+v, %v", again, err)
	}
	other, err := svc.Upload(conv, []UploadFile{{Name: "field.md", Data: []byte("# Other notes\n")}})
	if err != nil || other[0].ArtifactID != "field_1.md" || !strings.Contains(other[0].Note, `saved as "field_1.md"`) {
		t.Fatalf("different file, same name = %+v, %v", other, err)
	}
	list, err := svc.List(conv)
	if err != nil || len(list) != 2 {
		t.Fatalf("artifacts = %+v, %v; want field.md and field_1.md", list, err)
	}
	if vs, _ := svc.Versions(conv, "field.md"); len(vs) != 1 {
		t.Errorf("versions of field.md = %+v, want the one upload", vs)
	}
}

// declaredFixture is a conversation with a workspace folder, a file outside it, and a
// declared artifact service.
type declaredFixture struct {
	core    *Core
	conv    string
	ws      string
	outside string
}

func newDeclaredFixture(t *testing.T) declaredFixture {
	t.Helper()
	core := newCore(t, apptest.EchoWorld(t))
	ctx := context.Background()
	f := declaredFixture{core: core, conv: "c-links"}
	if err := core.Store().CreateConversation(ctx, store.Conversation{ID: f.conv, Title: "Links"}); err != nil {
		t.Fatal(err)
	}
	ws, err := core.Workspace(ctx, f.conv)
	if err != nil {
		t.Fatal(err)
	}
	f.ws = ws
	f.outside = filepath.Join(t.TempDir(), "secret.txt")
	for p, content := range map[string]string{filepath.Join(ws, "reports", "lineage.html"): "<h1>Lineage</h1>",
		filepath.Join(ws, "reports", "later.html"): "<h1>Later</h1>", f.outside: "secret"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// add registers inputs through the declared service and returns their ids in order.
func (f declaredFixture) add(t *testing.T, ins ...declared.Input) []string {
	t.Helper()
	chs, err := f.core.Declared().Upsert(context.Background(), f.conv, ins, true)
	if err != nil || len(chs) != len(ins) {
		t.Fatalf("Upsert = %+v, %v", chs, err)
	}
	ids := make([]string, len(chs))
	for i, ch := range chs {
		ids[i] = ch.ArtifactID
	}
	return ids
}

// TestOpenDeclared: a workspace file opens with the system's application only after the
// declared service checked it again at the moment of the click; a file swapped a moment ago
// for a symbolic link leaving the workspace, or deleted, is refused, and so is anything
// that is not a workspace file.
func TestOpenDeclared(t *testing.T) {
	f := newDeclaredFixture(t)
	ids := f.add(t,
		declared.Input{Title: "Lineage", WorkspacePath: "reports/lineage.html", Source: declared.SourceTool},
		declared.Input{Title: "Later", WorkspacePath: "reports/later.html", Source: declared.SourceHook},
		declared.Input{Title: "Dataset", URL: "https://data.example.org/set", Source: declared.SourceClient},
	)
	lineage, later, link := ids[0], ids[1], ids[2]
	var launched []string
	files := declaredFiles{core: f.core, launch: func(_ context.Context, p string, reveal bool) error {
		if reveal {
			p = "reveal " + p
		}
		launched = append(launched, p)
		return nil
	}}

	if err := files.open(f.conv, lineage, false); err != nil {
		t.Fatal(err)
	}
	if err := files.open(f.conv, lineage, true); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(f.ws, "reports", "lineage.html"), "reveal " + filepath.Join(f.ws, "reports", "lineage.html")}
	if strings.Join(launched, "|") != strings.Join(want, "|") {
		t.Fatalf("launched %q, want %q", launched, want)
	}

	// The file becomes a link out of the workspace right after it was checked as available
	// (well within declared.RefreshInterval): refused, nothing launched.
	if as, err := f.core.Declared().List(context.Background(), f.conv); err != nil || as[1].Status != declared.StatusAvailable {
		t.Fatalf("before the swap: %+v, %v", as, err)
	}
	target := filepath.Join(f.ws, "reports", "later.html")
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, target); err != nil {
		t.Fatal(err)
	}
	launched = nil
	for _, folder := range []bool{false, true} {
		err := files.open(f.conv, later, folder)
		if !errors.Is(err, ErrFileUnavailable) || !strings.Contains(err.Error(), "leaves the workspace") {
			t.Errorf("open (folder %v) of an escaping symlink = %v, want ErrFileUnavailable naming the reason", folder, err)
		}
	}
	// Deleted: refused too.
	if err := os.Remove(filepath.Join(f.ws, "reports", "lineage.html")); err != nil {
		t.Fatal(err)
	}
	if err := files.open(f.conv, lineage, false); !errors.Is(err, ErrFileUnavailable) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("open of a deleted file = %v, want ErrFileUnavailable", err)
	}
	if err := files.open(f.conv, link, false); !errors.Is(err, ErrNotAFile) {
		t.Errorf("open of a link = %v, want ErrNotAFile", err)
	}
	if err := files.open(f.conv, "nope", false); !errors.Is(err, ErrDeclaredNotFound) {
		t.Errorf("open of an unknown id = %v, want ErrDeclaredNotFound", err)
	}
	if len(launched) != 0 {
		t.Errorf("launched %q for refused artifacts", launched)
	}
	// The panel sees the status the check found.
	if as, _ := (&ArtifactService{f.core}).ListDeclared(f.conv); as[1].Status != declared.StatusMissing || as[1].MissingReason == "" {
		t.Errorf("after the swap ListDeclared shows %+v", as[1])
	}
	// A launcher failure is reported.
	failing := declaredFiles{core: f.core, launch: func(context.Context, string, bool) error { return errors.New("exit status 3") }}
	if err := os.WriteFile(filepath.Join(f.ws, "reports", "lineage.html"), []byte("back"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := failing.open(f.conv, lineage, false); !errors.Is(err, ErrOpenFailed) {
		t.Errorf("failing launcher = %v, want ErrOpenFailed", err)
	}
}

// TestOpenCommand: the opener runs without a shell, the path as one argument; Reveal gives
// the file manager the folder, or on macOS selects the file (open -R), so a folder named
// like an application bundle is never opened.
func TestOpenCommand(t *testing.T) {
	p := "/w/a b;$(rm -rf x).html"
	bundled := "/w/Evil.app/readme.txt"
	for _, c := range []struct {
		goos, path string
		reveal     bool
		want       []string
	}{
		{"linux", p, false, []string{"xdg-open", p}},
		{"freebsd", p, false, []string{"xdg-open", p}},
		{"darwin", p, false, []string{"open", p}},
		{"windows", p, false, []string{"rundll32", "url.dll,FileProtocolHandler", p}},
		{"linux", p, true, []string{"xdg-open", "/w"}},
		{"windows", p, true, []string{"rundll32", "url.dll,FileProtocolHandler", "/w"}},
		{"darwin", p, true, []string{"open", "-R", p}},
		{"darwin", bundled, true, []string{"open", "-R", bundled}},
	} {
		name, args := openCommand(c.goos, c.path, c.reveal)
		if got := append([]string{name}, args...); strings.Join(got, "\x00") != strings.Join(c.want, "\x00") {
			t.Errorf("%s %q reveal %v: %q, want %q", c.goos, c.path, c.reveal, got, c.want)
		}
	}
}

// TestDeclaredServices: the panel lists declared artifacts and removes any of them
// (ones several clients retain included) through the bound services (browser mode's side:
// app/browser TestDeclaredInBrowserMode).
func TestDeclaredServices(t *testing.T) {
	f := newDeclaredFixture(t)
	log := watchArtifactEvents(t, f.core)
	svc := &ArtifactService{f.core}

	empty, err := svc.ListDeclared(f.conv)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("ListDeclared with none = %#v, %v; want an empty list", empty, err)
	}
	ids := f.add(t,
		declared.Input{Title: "User profile resource", URL: "https://platform.example.com/resources/user-profile", Source: declared.SourceTool},
		declared.Input{Title: "Lineage", WorkspacePath: "reports/lineage.html", Source: declared.SourceClient, ClientID: "cli-1"},
	)
	list, err := svc.ListDeclared(f.conv)
	if err != nil || len(list) != 2 || list[0].ID != ids[0] || list[0].Kind != declared.KindLink || list[0].Source != declared.SourceTool ||
		list[1].WorkspacePath != "reports/lineage.html" || list[1].Status != declared.StatusAvailable || !list[1].ClientRetained {
		t.Fatalf("ListDeclared = %+v, %v", list, err)
	}

	// A second client retains it too; the user removes it at once (a client's removal
	// would only lift that client's retention); the window hears it.
	if _, err := f.core.Declared().Upsert(context.Background(), f.conv, []declared.Input{{Title: "Lineage", WorkspacePath: "reports/lineage.html",
		Source: declared.SourceClient, ClientID: "cli-2"}}, true); err != nil {
		t.Fatal(err)
	}
	if err := svc.RemoveDeclared(f.conv, ids[1]); err != nil {
		t.Fatal(err)
	}
	got, msgs := log.changes(t, f.conv)
	last := got[len(got)-1]
	if last.Action != declared.ActionRemoved || last.Reason != declared.ReasonExplicit || last.ArtifactID != ids[1] ||
		last.Declared == nil || last.Declared.ID != ids[1] || msgs[len(msgs)-1] != "" {
		t.Errorf("last event = %+v (message %q), want removed/explicit with the artifact", last, msgs[len(msgs)-1])
	}
	if err := svc.RemoveDeclared(f.conv, ids[1]); err != nil {
		t.Errorf("removing it again = %v, want nil", err)
	}
	if list, _ := svc.ListDeclared(f.conv); len(list) != 1 || list[0].ID != ids[0] {
		t.Errorf("after remove = %+v", list)
	}
	if _, err := svc.ListDeclared("no-such-conversation"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ListDeclared of an unknown conversation = %v", err)
	}
}

// TestOpensAsDocument: on every system the app opens only the document and media types
// of its allow-list, as regular files without an execute bit (outside Windows); every
// other name, however the system would read it (Windows drops trailing dots and spaces,
// and reads a colon as an alternate data stream), is only revealed in its folder.
func TestOpensAsDocument(t *testing.T) {
	systems := []string{"linux", "darwin", "windows"}
	// Types a system's shell may run, install, mount or hand to a program that runs code.
	revealed := []string{
		"console.msc", "help.chm", "tool.appref-ms", "x.settingcontent-ms", "docs.library-ms", "q.search-ms",
		"disk.iso", "disk.vhd", "app.application", "addin.xll", "explorer.scf", "driver.inf", "pkg.msix",
		"pkg.appx", "get.appinstaller", "fix.diagcab", "start.jnlp", "gui.pyw", "mod.psm1", "comp.wsc",
		"scriptlet.sct", "book.xlsm", "tool.exe.", "tool.exe ", "tool.exe::$DATA", "tool.exe. . .",
		// what the former deny-list named
		"setup.exe", "x.com", "x.bat", "x.cmd", "x.msi", "x.msp", "x.scr", "x.pif", "x.lnk", "x.url",
		"x.ps1", "x.vbs", "x.vbe", "x.js", "x.jse", "x.wsf", "x.wsh", "x.hta", "x.cpl", "x.reg", "x.jar",
		"x.sh", "x.bash", "x.zsh", "x.command", "x.app", "x.desktop", "x.AppImage", "x.run", "x.bin",
		"x.py", "x.pl", "x.rb", "x.deb", "x.rpm", "x.pkg", "x.dmg",
		// documents that may carry macros, or be read by a program as one
		"memo.docm", "deck.pptm", "book.xlsb", "tmpl.dotm", "tmpl.xltm", "memo.doc", "book.xls", "deck.ppt",
		"memo.rtf", "data.xml", "list.m3u", "media.asx", "clip.wmv",
		// double extensions, no extension, odd names
		"report.pdf.exe", "REPORT.PDF.EXE", "README", "", "report.pdf.lnk",
	}
	opened := []string{
		"report.pdf", "REPORT.PDF", "notes.txt", "notes.md", "table.csv", "table.tsv", "data.json",
		"lineage.html", "page.htm", "chart.svg", "photo.jpg", "photo.JPEG", "shot.png", "anim.gif",
		"pic.webp", "scan.tiff", "song.mp3", "voice.ogg", "take.flac", "clip.mp4", "clip.webm", "clip.mov",
		"memo.docx", "book.xlsx", "deck.pptx", "memo.odt", "sheet.ods", "talk.odp", "v1.2 results.pdf",
	}
	for _, goos := range systems {
		for _, name := range revealed {
			if opensAsDocument(goos, name, 0o644) {
				t.Errorf("%s: %q would be opened; want it only revealed", goos, name)
			}
		}
		for _, name := range opened {
			if !opensAsDocument(goos, name, 0o644) {
				t.Errorf("%s: %q is revealed; want it opened", goos, name)
			}
			// Not a regular file: a folder (a macOS bundle is one), a link, a device.
			for _, m := range []fs.FileMode{fs.ModeDir | 0o755, fs.ModeSymlink | 0o777, fs.ModeDevice | 0o644, fs.ModeNamedPipe | 0o644} {
				if opensAsDocument(goos, name, m) {
					t.Errorf("%s: %q with mode %v would be opened", goos, name, m)
				}
			}
		}
	}
	// Rules that differ by system.
	for _, c := range []struct {
		goos, name string
		mode       fs.FileMode
		want       bool
	}{
		// An execute bit makes any file a program on Linux and macOS (a .desktop entry or a
		// binary named report.pdf); Windows has no such bit.
		{"linux", "report.pdf", 0o755, false},
		{"darwin", "report.pdf", 0o744, false},
		{"linux", "notes.txt", 0o601, false},
		{"windows", "report.pdf", 0o755, true},
		// Windows drops trailing dots and spaces; elsewhere they are part of the name.
		{"windows", "report.pdf.", 0o644, true},
		{"windows", "report.pdf . ", 0o644, true},
		{"linux", "report.pdf.", 0o644, false},
		{"darwin", "report.pdf ", 0o644, false},
		// A colon is an alternate data stream on Windows (here x.exe's stream "y.pdf"); a
		// plain character of the name elsewhere.
		{"windows", "x.exe:y.pdf", 0o644, false},
		{"windows", "report.pdf::$DATA", 0o644, false},
		{"linux", "x.exe:y.pdf", 0o644, true},
		{"darwin", "meeting 10:30.txt", 0o644, true},
	} {
		if got := opensAsDocument(c.goos, c.name, c.mode); got != c.want {
			t.Errorf("%s: %q mode %v opened = %v, want %v", c.goos, c.name, c.mode, got, c.want)
		}
	}
}

// TestOpenDeclaredRevealsWhatIsNotADocument: Open on a declared workspace file that is not
// a document type the app opens (a program, a script, a shortcut, a help file, a disk image,
// a macro document, or any file with an execute bit) shows it in its folder instead and
// says why, whatever its title; Reveal in folder works for them all; documents open.
func TestOpenDeclaredRevealsWhatIsNotADocument(t *testing.T) {
	f := newDeclaredFixture(t)
	files := map[string]os.FileMode{
		"setup.exe": 0o644, "run.sh": 0o644, "tool": 0o755, "console.msc": 0o644, "help.chm": 0o644,
		"disk.iso": 0o644, "book.xlsm": 0o644, "tool.exe.": 0o644, "report.pdf": 0o755,
		"notes.txt": 0o644, "Deck.PPTX": 0o644,
	}
	var inputs []declared.Input
	var names []string
	for name, mode := range files {
		if err := os.WriteFile(filepath.Join(f.ws, "reports", name), []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(f.ws, "reports", name), mode); err != nil { // past the umask
			t.Fatal(err)
		}
		names = append(names, name)
		inputs = append(inputs, declared.Input{Title: "report.pdf", WorkspacePath: "reports/" + name, Source: declared.SourceHook})
	}
	ids := f.add(t, inputs...)
	type call struct {
		name   string
		reveal bool
	}
	var launched []call
	df := declaredFiles{core: f.core, launch: func(_ context.Context, p string, reveal bool) error {
		launched = append(launched, call{filepath.Base(p), reveal})
		return nil
	}}
	for i, name := range names {
		document := name == "notes.txt" || name == "Deck.PPTX"
		launched = nil
		err := df.open(f.conv, ids[i], false)
		if document {
			if err != nil || len(launched) != 1 || launched[0] != (call{name, false}) {
				t.Errorf("open %s: launched %+v, %v; want it opened", name, launched, err)
			}
			continue
		}
		if !errors.Is(err, ErrRevealedInstead) || !errors.Is(err, ErrNotAFile) || !strings.Contains(err.Error(), "shown in its folder instead") {
			t.Errorf("open %s: %v, want ErrRevealedInstead", name, err)
		}
		if len(launched) != 1 || launched[0] != (call{name, true}) {
			t.Errorf("open %s: launched %+v, want only a reveal", name, launched)
		}
		launched = nil
		if err := df.open(f.conv, ids[i], true); err != nil || len(launched) != 1 || launched[0] != (call{name, true}) {
			t.Errorf("reveal %s: launched %+v, %v", name, launched, err)
		}
	}
}

// TestOpenDeclaredRefusesLinksToHiddenFiles: a declared workspace file that is, or leads
// through a symbolic link to, a hidden file or folder or a dependency folder (relative to
// the workspace) is not opened, with a message saying where it leads; Reveal in folder
// still shows the folder holding the real file; a link to an ordinary file opens that file.
func TestOpenDeclaredRefusesLinksToHiddenFiles(t *testing.T) {
	f := newDeclaredFixture(t)
	for p, c := range map[string]string{".env": "AWS_SECRET=x\n", ".secrets/key.md": "key\n", ".git/config": "[core]\n",
		"node_modules/pkg/README.md": "dep\n"} {
		full := filepath.Join(f.ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"env.txt": ".env", "pub": ".secrets", "notes.md": ".env", "cfg.txt": ".git/config",
		"lib.md": "node_modules/pkg/README.md", "deps": "node_modules/pkg", "ok.html": "reports/lineage.html"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.ws, name)); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	tests := []struct {
		path, says, folder string
	}{
		{"env.txt", "env.txt is a link to .env", ""},
		{"pub/key.md", "pub/key.md is a link to .secrets/key.md", ".secrets"},
		{"notes.md", "notes.md is a link to .env", ""},
		{"cfg.txt", "cfg.txt is a link to .git/config", ".git"},
		{"lib.md", "lib.md is a link to node_modules/pkg/README.md", "node_modules/pkg"},
		{"deps/README.md", "deps/README.md is a link to node_modules/pkg/README.md", "node_modules/pkg"},
		{".env", ".env is a hidden file", ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			id := f.add(t, declared.Input{Title: "Notes", WorkspacePath: tc.path, Source: declared.SourceTool})[0]
			var launched []string
			var revealed []bool
			files := declaredFiles{core: f.core, launch: func(_ context.Context, p string, reveal bool) error {
				launched = append(launched, p)
				revealed = append(revealed, reveal)
				return nil
			}}
			err := files.open(f.conv, id, false)
			if !errors.Is(err, ErrFileUnavailable) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "Reveal in folder") {
				t.Errorf("open %s = %v; want ErrFileUnavailable saying %q", tc.path, err, tc.says)
			}
			if len(launched) != 0 {
				t.Fatalf("opened %q", launched)
			}
			if err := files.open(f.conv, id, true); err != nil {
				t.Fatalf("reveal %s: %v", tc.path, err)
			}
			// Reveal shows the real file in its folder (the file manager gets the file, to
			// select it where the system can), never opening it.
			if want := filepath.Join(f.ws, filepath.FromSlash(tc.folder)); len(launched) != 1 || filepath.Dir(launched[0]) != want || !revealed[0] {
				t.Errorf("revealed %q (reveal %v), want a file in %q revealed", launched, revealed, want)
			}
		})
	}
	id := f.add(t, declared.Input{Title: "Ok", WorkspacePath: "ok.html", Source: declared.SourceTool})[0]
	var launched []string
	files := declaredFiles{core: f.core, launch: func(_ context.Context, p string, reveal bool) error {
		if reveal {
			t.Errorf("an ordinary HTML file was revealed, not opened")
		}
		launched = append(launched, p)
		return nil
	}}
	if err := files.open(f.conv, id, false); err != nil || len(launched) != 1 || launched[0] != filepath.Join(f.ws, "reports", "lineage.html") {
		t.Errorf("open of a link to an ordinary file = %q, %v", launched, err)
	}
}

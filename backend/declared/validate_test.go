package declared

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/store"
)

func TestKindAndStorageInference(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name        string
		in          Input
		kind, store string
	}{
		{"url is a link", Input{URL: "https://a.example/x"}, KindLink, StorageExternalURL},
		{"explicit kind kept", Input{URL: "https://a.example/img", Kind: KindImage}, KindImage, StorageExternalURL},
		{".html", Input{WorkspacePath: "out/r.html"}, KindHTML, StorageWorkspace},
		{".htm upper case", Input{WorkspacePath: "R.HTM"}, KindHTML, StorageWorkspace},
		{"image", Input{WorkspacePath: "fig.png"}, KindImage, StorageWorkspace},
		{"jpeg", Input{WorkspacePath: "p.JPEG"}, KindImage, StorageWorkspace},
		{"video", Input{WorkspacePath: "clip.mp4"}, KindVideo, StorageWorkspace},
		{"audio", Input{WorkspacePath: "talk.mp3"}, KindAudio, StorageWorkspace},
		{"pdf", Input{WorkspacePath: "paper.pdf"}, KindPDF, StorageWorkspace},
		{"notebook", Input{WorkspacePath: "analysis.ipynb"}, KindNotebook, StorageWorkspace},
		{"other extension", Input{WorkspacePath: "data.csv"}, KindFile, StorageWorkspace},
		{"no extension", Input{WorkspacePath: "Makefile"}, KindFile, StorageWorkspace},
		{"managed", Input{ManagedID: "m-123"}, KindOther, StorageManaged},
		{"explicit storage", Input{ManagedID: "m-124", Storage: StorageManaged}, KindOther, StorageManaged},
		{"trusted publish", Input{URL: "https://pub.example/p", Storage: StoragePublish, ManagedID: "m-9", TrustedPublisher: true}, KindHTML, StoragePublish},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Title, in.Source = tt.name, SourceTool
			chs := h.upsert(in)
			if len(chs) != 1 || chs[0].Action != ActionCreated {
				t.Fatalf("changes = %v, want one created", actions(chs))
			}
			a := chs[0].Artifact
			if a.Kind != tt.kind || a.Storage != tt.store {
				t.Errorf("kind, storage = %s, %s; want %s, %s", a.Kind, a.Storage, tt.kind, tt.store)
			}
		})
	}
}

func TestValidationNamesTheField(t *testing.T) {
	h := newHarness(t)
	long := func(n int) string { return strings.Repeat("é", n) }
	ok := func(in Input) Input {
		if in.Title == "" {
			in.Title = "T"
		}
		if in.Source == "" {
			in.Source = SourceClient
		}
		return in
	}
	tests := []struct {
		name  string
		in    Input
		field string // "" = valid
	}{
		{"title missing", Input{Source: SourceClient, URL: "https://a.example/"}, "title"},
		{"title only spaces", Input{Title: "  \u3000 ", Source: SourceClient, URL: "https://a.example/"}, "title"},
		{"title 200 runes", ok(Input{Title: long(200), URL: "https://a.example/1"}), ""},
		{"title 200 runes after trim", ok(Input{Title: "  " + long(200) + "  ", URL: "https://a.example/2"}), ""},
		{"title 201 runes", ok(Input{Title: long(201), URL: "https://a.example/"}), "title"},
		{"title two lines", ok(Input{Title: "a\nb", URL: "https://a.example/"}), "title"},
		{"title tab", ok(Input{Title: "a\tb", URL: "https://a.example/"}), "title"},
		{"description 1000 runes", ok(Input{Description: long(1000), URL: "https://a.example/3"}), ""},
		{"description 1001 runes", ok(Input{Description: long(1001), URL: "https://a.example/"}), "description"},
		{"description line breaks and tabs", ok(Input{Description: "a\nb\r\n\tc", URL: "https://a.example/4"}), ""},
		{"source unset", Input{Title: "T", URL: "https://a.example/"}, "source"},
		{"source forged", Input{Title: "T", URL: "https://a.example/", Source: "user"}, "source"},
		{"kind unknown", ok(Input{Kind: "exe", URL: "https://a.example/"}), "kind"},
		{"storage unknown", ok(Input{Storage: "s3", URL: "https://a.example/"}), "storage"},
		{"storage published untrusted", ok(Input{Storage: StoragePublish, URL: "https://a.example/"}), "storage"},
		{"storage mismatch", ok(Input{Storage: StorageWorkspace, URL: "https://a.example/"}), "storage"},
		{"no locator", ok(Input{}), "url"},
		{"workspacePath and url", ok(Input{WorkspacePath: "a.txt", URL: "https://a.example/"}), "url"},
		{"workspacePath and managedId", ok(Input{WorkspacePath: "a.txt", ManagedID: "m"}), "managedId"},
		{"managedId and url untrusted", ok(Input{ManagedID: "m", URL: "https://a.example/"}), "url"},
		{"published without url", Input{Title: "T", Source: SourceTool, Storage: StoragePublish, ManagedID: "m", TrustedPublisher: true}, "url"},
		{"url ftp", ok(Input{URL: "ftp://a.example/x"}), "url"},
		{"url file", ok(Input{URL: "file:///etc/passwd"}), "url"},
		{"url javascript", ok(Input{URL: "javascript:alert(1)"}), "url"},
		{"url data", ok(Input{URL: "data:text/html,hi"}), "url"},
		{"url relative", ok(Input{URL: "/x/y"}), "url"},
		{"url without scheme", ok(Input{URL: "example.com/x"}), "url"},
		{"url opaque", ok(Input{URL: "http:example.com"}), "url"},
		{"url without host", ok(Input{URL: "https:///x"}), "url"},
		{"url control", ok(Input{URL: "https://a.example/\x01"}), "url"},
		{"url bidi", ok(Input{URL: "https://a.example/\u202egnp.exe"}), "url"},
		{"url bad port", ok(Input{URL: "https://a.example:99999999999/"}), "url"},
		{"url too long", ok(Input{URL: "https://a.example/" + strings.Repeat("a", maxURLBytes)}), "url"},
		{"managedId slash", ok(Input{ManagedID: "a/b"}), "managedId"},
		{"managedId backslash", ok(Input{ManagedID: `a\b`}), "managedId"},
		{"managedId dotdot", ok(Input{ManagedID: ".."}), "managedId"},
		{"managedId inner dotdot", ok(Input{ManagedID: "a..b"}), "managedId"},
		{"managedId control", ok(Input{ManagedID: "a\x00b"}), "managedId"},
		{"managedId drive", ok(Input{ManagedID: "C:evil"}), "managedId"},
		{"managedId only spaces counts as absent", ok(Input{ManagedID: "   "}), "url"},
		{"managedId fine", ok(Input{ManagedID: "pub_2026.06-x"}), ""},
		{"mimeType markup", ok(Input{URL: "https://a.example/", MimeType: "text/html<script>"}), "mimeType"},
		{"mimeType too long", ok(Input{URL: "https://a.example/", MimeType: strings.Repeat("a", 256)}), "mimeType"},
		{"metadata nested object", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"o": map[string]any{"a": 1}}}), "metadata.o"},
		{"metadata array", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"l": []any{1}}}), "metadata.l"},
		{"metadata NaN", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"n": math.NaN()}}), "metadata.n"},
		{"metadata Inf", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"n": math.Inf(-1)}}), "metadata.n"},
		{"metadata empty key", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"": 1}}), "metadata"},
		{"metadata key markup", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"<b>": 1}}), "metadata"},
		{"metadata value markup", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"k": "<img src=x>"}}), "metadata.k"},
		{"metadata value line break", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"k": "a\nb"}}), "metadata.k"},
		{"metadata over 4 KB", ok(Input{URL: "https://a.example/", Metadata: map[string]any{"k": strings.Repeat("x", 4090)}}), "metadata"},
		{"metadata exactly 4 KB", ok(Input{URL: "https://a.example/5", Metadata: map[string]any{"k": strings.Repeat("x", 4096-len(`{"k":""}`))}}), ""},
		{"metadata primitives", ok(Input{URL: "https://a.example/6", Metadata: map[string]any{"s": "x", "n": 1.5, "i": 7, "b": true, "z": nil}}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(h.changes())
			chs, err := h.svc.Upsert(h.ctx, h.conv, []Input{tt.in}, true)
			if tt.field == "" {
				if err != nil || len(chs) != 1 {
					t.Fatalf("valid input: changes %v, err %v", actions(chs), err)
				}
				return
			}
			fieldError(t, err, tt.field)
			if chs != nil {
				t.Errorf("changes = %v on a validation error", actions(chs))
			}
			if after := len(h.changes()); after != before {
				t.Errorf("a refused input logged %d changes", after-before)
			}
		})
	}
}

// TestUnsafeText: every kind of unsafe display text is refused in each display field
// (title, description, mimeType, metadata keys and values), naming the field; safe
// look-alikes pass.
func TestUnsafeText(t *testing.T) {
	unsafe := []struct{ name, text string }{
		{"tag", "<script>alert(1)</script>"},
		{"img tag", "x<img src=x onerror=alert(1)>"},
		{"end tag", "a</b>"},
		{"comment", "<!-- x -->"},
		{"processing instruction", "<?xml ?>"},
		{"entity lt script", "&lt;script&gt;alert(1)"},
		{"entity lt upper", "&LT;/title&GT;"},
		{"entity lt no semicolon", "&ltscript"},
		{"numeric entity", "&#60;b"},
		{"numeric entity padded", "&#0060; alone"},
		{"hex entity", "&#x3C;img"},
		{"hex entity upper padded", "&#X003c"},
		{"double encoded", "&amp;lt;script&amp;gt;"},
		{"javascript url", "javascript:alert(1)"},
		{"javascript mixed case", "click JaVaScRiPt:alert(1)"},
		{"javascript entity colon", "javascript&colon;alert(1)"},
		{"vbscript url", "vbscript:msgbox"},
		{"data url", "data:text/html;base64,PHNjcmlwdD4="},
		{"data url bare", "see data:,hello"},
		{"data url image", "DATA:image/svg+xml,abc"},
		{"nul", "a\x00b"},
		{"escape", "a\x1b[31mred"},
		{"delete", "a\x7fb"},
		{"c1 next line", "a\u0085b"},
		{"c1 csi", "a\u009bb"},
		{"line separator", "a\u2028b"},
		{"paragraph separator", "a\u2029b"},
		{"rtl override", "report\u202egnp.exe"},
		{"ltr embedding", "a\u202ab"},
		{"pop directional", "a\u202cb"},
		{"isolate", "a\u2066b\u2069"},
		{"first strong isolate", "a\u2068b"},
		{"lrm", "a\u200eb"},
		{"rlm", "a\u200fb"},
		{"invalid utf-8", "a\xffb"},
	}
	safe := []string{"a < b", "x<3 and 5>2", "AT&T", "&lt; 5", "5 &gt; 3", "metadata: value", "Our data: 5 rows",
		"https://example.com/x?a=1&b=2", "café 数据 📊", "Learn JavaScript", "C# & F#", "&#61;"}

	fields := []struct {
		field string
		in    func(s string) Input
	}{
		{"title", func(s string) Input { return Input{Title: s, URL: "https://a.example/", Source: SourceClient} }},
		{"description", func(s string) Input {
			return Input{Title: "T", Description: s, URL: "https://a.example/", Source: SourceClient}
		}},
		{"mimeType", func(s string) Input {
			return Input{Title: "T", MimeType: s, URL: "https://a.example/", Source: SourceClient}
		}},
		{"metadata", func(s string) Input {
			return Input{Title: "T", URL: "https://a.example/", Source: SourceClient, Metadata: map[string]any{s: "v"}}
		}},
		{"metadata.k", func(s string) Input {
			return Input{Title: "T", URL: "https://a.example/", Source: SourceClient, Metadata: map[string]any{"k": s}}
		}},
	}
	h := newHarness(t)
	for _, f := range fields {
		for _, u := range unsafe {
			t.Run(f.field+"/"+u.name, func(t *testing.T) {
				_, err := h.svc.Upsert(h.ctx, h.conv, []Input{f.in(u.text)}, true)
				fieldError(t, err, f.field)
			})
		}
		for i, s := range safe {
			t.Run(f.field+"/safe", func(t *testing.T) {
				in := f.in(s)
				in.URL = urlN(f.field, i)
				if _, err := h.svc.Upsert(h.ctx, h.conv, []Input{in}, true); err != nil {
					t.Errorf("%q refused: %v", s, err)
				}
			})
		}
	}
	// A description may hold line breaks and tabs; a javascript: URL split by them is
	// still one.
	if msg := checkText("line 1\n\tline 2", true); msg != "" {
		t.Errorf("description with breaks refused: %s", msg)
	}
	if msg := checkText("java\n\tscript:alert(1)", true); msg == "" {
		t.Error("javascript: split by a line break and a tab accepted")
	}
	if msg := checkText("java&#x09;script:alert(1)", true); msg == "" {
		t.Error("javascript: split by an encoded tab accepted")
	}
}

func TestURLNormalizationAndIdentity(t *testing.T) {
	h := newHarness(t)
	first := linkIn("https://user:secret@EXAMPLE.com:443/Path/Doc?q=1#section", "First")
	chs := h.upsert(first)
	if len(chs) != 1 || chs[0].Action != ActionCreated {
		t.Fatalf("changes = %v", actions(chs))
	}
	a := chs[0].Artifact
	if a.URL != "https://example.com/Path/Doc?q=1#section" {
		t.Errorf("url = %q: userinfo stripped, host lower-cased, default port dropped, fragment kept", a.URL)
	}
	if want := artifactID(h.conv, "url:https://example.com/Path/Doc?q=1"); a.ID != want || len(a.ID) != 12 {
		t.Errorf("id = %q, want %q (12 hex digits of the identity hash)", a.ID, want)
	}
	same := []string{
		"https://example.com/Path/Doc?q=1",
		"HTTPS://Example.COM/Path/Doc?q=1",
		"https://example.com:443/Path/Doc?q=1",
		"https://other:pw@example.com/Path/Doc?q=1",
		"https://example.com/Path/Doc?q=1#other-fragment",
		"  https://example.com/Path/Doc?q=1  ",
	}
	for _, u := range same {
		if chs := h.upsert(linkIn(u, "Again")); len(chs) != 0 {
			t.Errorf("%s: changes %v, want none (same artifact, nothing new)", u, actions(chs))
		}
	}
	different := []string{
		"https://example.com/path/doc?q=1", // path case kept
		"http://example.com/Path/Doc?q=1",  // another scheme
		"https://example.com:8443/Path/Doc?q=1",
		"https://example.com/Path/Doc?q=2",
	}
	for _, u := range different {
		if chs := h.upsert(linkIn(u, "Other")); len(chs) != 1 || chs[0].Action != ActionCreated {
			t.Errorf("%s: changes %v, want a new artifact", u, actions(chs))
		}
	}
	// http's default port, and an empty path as "/".
	c1 := h.upsert(linkIn("http://Host.example:80", "Root"))
	if len(c1) != 1 || c1[0].Artifact.URL != "http://host.example" {
		t.Fatalf("http default port: %v", actions(c1))
	}
	if chs := h.upsert(linkIn("http://host.example/", "Root again")); len(chs) != 0 {
		t.Errorf("empty path and / made two artifacts: %v", actions(chs))
	}
	if n := len(h.list()); n != 1+len(different)+1 {
		t.Errorf("%d artifacts, want %d", n, 1+len(different)+1)
	}
}

func TestWorkspacePathContainment(t *testing.T) {
	h := newHarness(t)
	secret := h.outside("secret.txt", "top secret")
	h.write("inside/real.txt", "hello")
	h.write("docs/a.txt", "12345")
	h.link(secret, "escape-abs")                                            // existing file outside, absolute target
	h.link("../../outside/secret.txt", "escape-rel")                        // existing file outside, relative target
	h.link(secret+".gone", "dangling-out")                                  // dangling, pointing outside
	h.link("../../outside/not-yet/", "dangling-dir-out")                    // dangling directory outside
	h.link(h.dir+"/outside", "dirlink-out")                                 // a directory outside
	h.link("inside/real.txt", "ok-link")                                    // inside, relative
	h.link(h.ws+"/inside/real.txt", "ok-link-abs")                          // inside, absolute
	h.link("inside/not-yet.txt", "dangling-in")                             // dangling, inside
	h.link("ok-link", "chain-in")                                           // chain staying inside
	h.link("escape-abs", "chain-out")                                       // chain leaving
	h.link("inside/../../../outside/secret.txt", "dotdot-out")              // .. through a real dir
	h.link("dir-loop-b", "dir-loop-a")                                      // a loop
	h.link("dir-loop-a", "dir-loop-b")                                      //
	h.link("later/../../../outside/secret.txt", "sneaky")                   // leaves once "later" exists
	h.link("..", "up")                                                      // the workspace's parent
	h.link(".", "self")                                                     // the workspace itself
	h.link(h.ws+"/docs", "docs-link")                                       // a directory inside
	h.link("../"+filepath.Base(h.ws)+"/inside/real.txt", "out-and-back-in") // leaves lexically, lands inside

	tests := []struct {
		path, want, status string // want "" = refused
		size               int64
	}{
		{"../x", "", "", 0},
		{"a/../../x", "", "", 0},
		{"..", "", "", 0},
		{"/etc/passwd", "", "", 0},
		{secret, "", "", 0},
		{`..\x`, "", "", 0},
		{`a\..\..\x`, "", "", 0},
		{`C:\Windows\win.ini`, "", "", 0},
		{"C:/x", "", "", 0},
		{`\\server\share\x`, "", "", 0},
		{".", "", "", 0},
		{"./", "", "", 0},
		{"escape-abs", "", "", 0},
		{"escape-rel", "", "", 0},
		{"dangling-out", "", "", 0},
		{"dangling-dir-out/new.txt", "", "", 0},
		{"dirlink-out/secret.txt", "", "", 0},
		{"dirlink-out/none.txt", "", "", 0},
		{"chain-out", "", "", 0},
		{"dotdot-out", "", "", 0},
		{"up/outside/secret.txt", "", "", 0},
		{"sneaky", "", "", 0},
		{"..notes.md", "..notes.md", StatusMissing, 0},
		{"...", "...", StatusMissing, 0},
		{"a/..b/c.txt", "a/..b/c.txt", StatusMissing, 0},
		{"./inside/real.txt", "inside/real.txt", StatusAvailable, 5},
		{`inside\real.txt`, "inside/real.txt", StatusAvailable, 5},
		{"a/../inside//real.txt", "inside/real.txt", StatusAvailable, 5},
		{"Inside/Real.txt", "Inside/Real.txt", StatusMissing, 0}, // case kept
		{"not/yet/there.html", "not/yet/there.html", StatusMissing, 0},
		{"ok-link", "ok-link", StatusAvailable, 5},
		{"ok-link-abs", "ok-link-abs", StatusAvailable, 5},
		{"chain-in", "chain-in", StatusAvailable, 5},
		{"dangling-in", "dangling-in", StatusMissing, 0},
		{"self/docs/a.txt", "self/docs/a.txt", StatusAvailable, 5},
		{"docs-link/a.txt", "docs-link/a.txt", StatusAvailable, 5},
		{"out-and-back-in", "out-and-back-in", StatusAvailable, 5},
		{"dir-loop-a", "dir-loop-a", StatusMissing, 0}, // cannot be checked: never available
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			chs, err := h.svc.Upsert(h.ctx, h.conv, []Input{wsIn(tt.path, "T")}, true)
			if tt.want == "" {
				fieldError(t, err, "workspacePath")
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			var a Artifact
			if len(chs) == 1 {
				a = *chs[0].Artifact
			} else if got, ok := byID(h.list(), artifactID(h.conv, "workspace:"+tt.want)); ok {
				a = got // registered by an earlier row under the same normalized path
			} else {
				t.Fatalf("changes %v and not listed", actions(chs))
			}
			if a.WorkspacePath != tt.want || a.Status != tt.status {
				t.Errorf("workspacePath, status = %q, %s; want %q, %s", a.WorkspacePath, a.Status, tt.want, tt.status)
			}
			if tt.status == StatusAvailable && (a.SizeBytes == nil || *a.SizeBytes != tt.size) {
				t.Errorf("sizeBytes = %v, want %d", a.SizeBytes, tt.size)
			}
			if tt.status == StatusMissing && (a.SizeBytes != nil || a.MissingReason == "") {
				t.Errorf("missing with size %v, reason %q", a.SizeBytes, a.MissingReason)
			}
			if strings.Contains(a.MissingReason, h.dir) {
				t.Errorf("missing reason exposes a host path: %q", a.MissingReason)
			}
		})
	}
}

func TestNonStrictKeepsValidInputs(t *testing.T) {
	h := newHarness(t)
	batch := []Input{
		linkIn("https://a.example/1", "ok 1"),
		linkIn("javascript:alert(1)", "bad url"),
		{Title: "<b>x</b>", URL: "https://a.example/2", Source: SourceHook},
		linkIn("https://a.example/3", "ok 2"),
		{Title: "forged", URL: "https://a.example/4", Source: SourceHook, Storage: StoragePublish},
	}
	_, err := h.svc.Upsert(h.ctx, h.conv, batch, true)
	fe := fieldError(t, err, "url")
	if fe.Index != 1 {
		t.Errorf("strict: first error at index %d, want 1", fe.Index)
	}
	if n := len(h.list()); n != 0 {
		t.Fatalf("strict failure wrote %d artifacts", n)
	}
	chs, err := h.svc.Upsert(h.ctx, h.conv, batch, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(chs) != 2 || chs[0].Artifact.Title != "ok 1" || chs[1].Artifact.Title != "ok 2" {
		t.Errorf("non-strict: changes %v, want the two valid inputs", actions(chs))
	}
}

func TestUnknownConversation(t *testing.T) {
	h := newHarness(t)
	if _, err := h.svc.Upsert(h.ctx, "nope", []Input{linkIn("https://a.example/", "x")}, true); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Upsert: %v, want store.ErrNotFound", err)
	}
	if _, err := h.svc.Upsert(h.ctx, "nope", []Input{wsIn("a.txt", "x")}, true); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Upsert of a workspace path: %v, want store.ErrNotFound", err)
	}
	if _, err := h.svc.Upsert(h.ctx, "nope", nil, true); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Upsert of nothing: %v, want store.ErrNotFound", err)
	}
	if _, err := h.svc.List(h.ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("List: %v, want store.ErrNotFound", err)
	}
	if _, err := h.svc.Remove(h.ctx, "nope", "abc", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Remove: %v, want store.ErrNotFound", err)
	}
	if _, err := h.svc.ChangesSince(h.ctx, "nope", 0, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ChangesSince: %v, want store.ErrNotFound", err)
	}
}

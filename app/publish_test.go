package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// TestPublish: an HTML artifact is written as one self-contained page into the
// conversation's workspace (no script, nothing fetched on open, a remote image left as a
// link) and declared as a published artifact that opens with a click; publishing again
// while a user's file, and a symbolic link, take the name gets a numbered name, never
// overwriting them; a page that is not HTML is refused.
func TestPublish(t *testing.T) {
	f := newDeclaredFixture(t)
	ctx := context.Background()
	svc := &ArtifactService{f.core}
	page := `<!doctype html><html><head><title>Lineage map</title><link rel="stylesheet" href="https://cdn.example.com/x.css">
<script>alert(1)</script><style>h1{color:#333}</style></head><body onload="steal()"><h1>Lineage</h1>
<img src="https://img.example.com/chart.png" alt="The chart"><img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">
<a href="javascript:alert(2)">x</a></body></html>`
	for _, a := range []store.ArtifactWrite{
		{SessionID: f.conv, ID: "map", ContentType: "text/html", Title: "Lineage map", Content: page, Version: 1, UpdateType: store.UpdateCreate},
		{SessionID: f.conv, ID: "notes", ContentType: "markdown", Title: "Notes", Content: "# Notes", Version: 1, UpdateType: store.UpdateCreate},
	} {
		if _, err := f.core.Store().CreateArtifact(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	// A user's own file and a symbolic link (to a file outside) already hold the names.
	mine := filepath.Join(f.ws, "Lineage_map.html")
	if err := os.WriteFile(mine, []byte("the user's own page"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, filepath.Join(f.ws, "Lineage_map (2).html")); err != nil {
		t.Fatal(err)
	}

	res, err := svc.Publish(f.conv, "map")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(f.ws, "Lineage_map (3).html"); res.Path != want {
		t.Fatalf("published to %s, want %s", res.Path, want)
	}
	if b, _ := os.ReadFile(mine); string(b) != "the user's own page" {
		t.Errorf("the user's file was changed: %q", b)
	}
	if b, _ := os.ReadFile(f.outside); string(b) != "secret" {
		t.Errorf("the file behind the symbolic link was changed: %q", b)
	}
	b, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, want := range []string{`http-equiv="Content-Security-Policy"`, "default-src &#39;none&#39;", "<style>h1{color:#333}</style>",
		`<a href="https://img.example.com/chart.png" rel="noopener noreferrer">The chart</a>`, `src="data:image/png;base64,iVBORw0KGgo="`, "<h1>Lineage</h1>",
		"form-action &#39;none&#39;"} { // opened outside the app: no form may send anywhere
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %s:\n%s", want, out)
		}
	}
	for _, not := range []string{"<script", "alert(1)", "cdn.example.com", "onload", "javascript:", `<img src="https://`} {
		if strings.Contains(out, not) {
			t.Errorf("the page still holds %s:\n%s", not, out)
		}
	}
	a := res.Artifact
	if a.ID == "" || a.Storage != declared.StoragePublish || a.Kind != declared.KindHTML || a.Title != "Lineage map" ||
		!strings.HasPrefix(a.URL, "file://") || !strings.HasSuffix(a.URL, "Lineage_map%20%283%29.html") {
		t.Fatalf("declared = %+v", a)
	}
	list, _ := svc.ListDeclared(f.conv)
	if len(list) != 1 || list[0].ID != a.ID {
		t.Fatalf("Links & files = %+v", list)
	}
	var launched []string
	files := declaredFiles{core: f.core, launch: func(_ context.Context, p string, _ bool) error {
		launched = append(launched, p)
		return nil
	}}
	if err := files.open(f.conv, a.ID, false); err != nil || len(launched) != 1 || launched[0] != res.Path {
		t.Fatalf("open of the published page = %v, launched %q", err, launched)
	}

	again, err := svc.Publish(f.conv, "map")
	if err != nil || again.Path != filepath.Join(f.ws, "Lineage_map (4).html") {
		t.Fatalf("publishing again = %+v, %v", again, err)
	}
	if _, err := svc.Publish(f.conv, "notes"); !errors.Is(err, ErrNotHTML) || ToAppError(err).Code != CodeInvalidRequest {
		t.Errorf("publishing markdown = %v, want ErrNotHTML", err)
	}
	if _, err := svc.Publish(f.conv, "nope"); ToAppError(err).Code != CodeNotFound {
		t.Errorf("publishing an unknown artifact = %v", err)
	}
}

// TestPublishedPathStaysInWorkspace: a published artifact whose file: URL names a file
// outside the workspace (a hand-edited database, say) is refused, nothing launched.
func TestPublishedPathStaysInWorkspace(t *testing.T) {
	ws := t.TempDir()
	for _, u := range []string{"file://" + filepath.ToSlash(filepath.Join(ws, "..", "x.html")), "file:///etc/passwd", "file://host/share/x.html"} {
		if rel, err := publishedPath(ws, u); !errors.Is(err, ErrFileUnavailable) {
			t.Errorf("publishedPath(%s) = %q, %v; want ErrFileUnavailable", u, rel, err)
		}
	}
	if rel, err := publishedPath(ws, "file://"+filepath.ToSlash(filepath.Join(ws, "a b.html"))); err != nil || rel != "a b.html" {
		t.Errorf("a page inside = %q, %v", rel, err)
	}
}

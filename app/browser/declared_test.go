package browser

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// TestDeclaredInBrowserMode: the panel lists and removes declared artifacts through
// browser mode's API as through the window's bound services, and browser mode never opens
// files or folders, whatever the artifact.
func TestDeclaredInBrowserMode(t *testing.T) {
	core, srv, hs := newBrowserServer(t, apptest.EchoWorld(t), "")
	ctx := context.Background()
	const conv = "c-links"
	if err := core.Store().CreateConversation(ctx, store.Conversation{ID: conv, Title: "Links"}); err != nil {
		t.Fatal(err)
	}
	chs, err := core.Declared().Upsert(ctx, conv, []declared.Input{
		{Title: "User profile resource", URL: "https://platform.example.com/resources/user-profile", Source: declared.SourceTool},
		{Title: "Lineage", WorkspacePath: "reports/lineage.html", Source: declared.SourceClient, ClientID: "cli-1"},
	}, true)
	if err != nil || len(chs) != 2 {
		t.Fatalf("Upsert = %+v, %v", chs, err)
	}
	code, body := apptest.Post(t, hs.URL+"/api/bind/ArtifactService/ListDeclared", srv.Token(), `["`+conv+`"]`)
	if code != http.StatusOK || !strings.Contains(body, `"url":"https://platform.example.com/resources/user-profile"`) ||
		!strings.Contains(body, `"workspacePath":"reports/lineage.html"`) {
		t.Fatalf("browser mode ListDeclared -> %d %s", code, body)
	}
	// Browser mode never opens files or folders, whatever the artifact.
	for _, m := range []string{"OpenDeclared", "RevealDeclared"} {
		code, body := apptest.Post(t, hs.URL+"/api/bind/ArtifactService/"+m, srv.Token(), `["`+conv+`","`+chs[1].ArtifactID+`"]`)
		if code != http.StatusForbidden || !strings.Contains(body, "desktop_only") {
			t.Errorf("browser mode %s -> %d %s, want 403 desktop_only", m, code, body)
		}
	}
	// The user removes a client-retained artifact, then the other one.
	for _, ch := range chs {
		if code, body := apptest.Post(t, hs.URL+"/api/bind/ArtifactService/RemoveDeclared", srv.Token(), `["`+conv+`","`+ch.ArtifactID+`"]`); code != http.StatusOK {
			t.Errorf("browser mode RemoveDeclared -> %d %s", code, body)
		}
	}
	if list, err := core.Declared().List(ctx, conv); err != nil || len(list) != 0 {
		t.Errorf("after remove in browser mode = %+v, %v", list, err)
	}
}

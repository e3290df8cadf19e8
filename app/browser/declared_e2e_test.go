package browser

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// TestBrowserE2EDeclared runs the real frontend in headless Chromium against browser mode
// (frontend/e2e/declared.mjs): a conversation seeded with a document, a declared link, a
// link titled with Markdown and a declared workspace file that does not exist shows them in
// the panel's Links & files; clicking the link goes through BrowserOpenURL to a new tab;
// a workspace file is refused with a clear message; a link and the document are removed
// after confirmation; and a script that finds the local API through api.json POSTs a link
// that appears in the open panel live, then DELETEs it. Needs AF_E2E=1 and a built
// frontend, like TestBrowserE2E.
func TestBrowserE2EDeclared(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	core, srv, hs := newBrowserServer(t, apptest.EchoWorld(t), dist)
	const (
		title     = "Data platform lineage"
		linkURL   = "https://platform.example.invalid/resources/user-profile"
		linkTitle = "User profile resource"
		markup    = "**Quarterly** _report_ [profile](https://platform.example.invalid/x) `code` 1 < 2 & 3 > 2"
		missing   = "reports/lineage.html"
		docTitle  = "Lineage notes"
	)
	conv := seedDeclaredConversation(t, core, title, docTitle, []declared.Input{
		{Title: linkTitle, URL: linkURL, Source: declared.SourceTool, Description: "Where the profile table lives"},
		{Title: "Lineage report", WorkspacePath: missing, Source: declared.SourceHook, HookName: "lineage"},
		// HTML tags are refused by the declared service (titles are plain text); Markdown and
		// bare "<" ">" "&" are valid titles and must show as typed.
		{Title: markup, URL: "https://platform.example.invalid/other", Source: declared.SourceClient, ClientID: "e2e"},
	})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	api, err := core.StartLocalAPI(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer core.StopLocalAPI(api)
	if err := runScript(t, 3*time.Minute, "declared.mjs", hs.URL+"/?token="+srv.Token(), nil,
		"AF_CONV_TITLE="+title, "AF_LINK_URL="+linkURL, "AF_LINK_TITLE="+linkTitle,
		"AF_MISSING_PATH="+missing, "AF_MARKUP_TITLE="+markup, "AF_DOC_TITLE="+docTitle,
		"AF_API_JSON="+filepath.Join(core.DataDir(), "api.json"), "AF_CONV_ID="+conv); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	if _, err := core.Store().GetArtifact(context.Background(), conv, "lineage_notes"); err == nil {
		t.Error("the document deleted in the page is still stored")
	}
}

// seedDeclaredConversation creates a conversation titled title with a document
// (lineage_notes, titled docTitle, two versions) and the declared artifacts ins, and
// returns its id.
func seedDeclaredConversation(t *testing.T, core *app.Core, title, docTitle string, ins []declared.Input) string {
	t.Helper()
	ctx := context.Background()
	conv := "c-declared-e2e"
	db := core.Store()
	if err := db.CreateConversation(ctx, store.Conversation{ID: conv, Title: title}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateArtifact(ctx, store.ArtifactWrite{SessionID: conv, ID: "lineage_notes", ContentType: "markdown",
		Title: docTitle, Content: "# Lineage notes\n\nThe profile table feeds the scoring job.\n", Version: 1, UpdateType: store.UpdateCreate}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateArtifact(ctx, store.ArtifactWrite{SessionID: conv, ID: "summary", ContentType: "markdown",
		Title: "Summary", Content: "# Summary\n", Version: 1, UpdateType: store.UpdateCreate}); err != nil {
		t.Fatal(err)
	}
	if _, err := core.Declared().Upsert(ctx, conv, ins, true); err != nil {
		t.Fatal(err)
	}
	return conv
}

package browser

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/store"
)

// TestWorkspaceInBrowserMode: browser mode refuses ChooseWorkspace (desktop only) and
// serves the status; index_progress reaches the page's event stream.
func TestWorkspaceInBrowserMode(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core, srv, hs := newBrowserServer(t, w, "")
	ctx := context.Background()
	if err := core.Store().CreateConversation(ctx, store.Conversation{ID: "c1", Title: "t"}); err != nil {
		t.Fatal(err)
	}
	code, body := apptest.Post(t, hs.URL+"/api/bind/ConversationService/ChooseWorkspace", srv.Token(), `["c1"]`)
	if code != http.StatusForbidden || !strings.Contains(body, `"code":"desktop_only"`) {
		t.Fatalf("ChooseWorkspace in browser mode -> %d %s", code, body)
	}
	code, body = apptest.Post(t, hs.URL+"/api/bind/ConversationService/WorkspaceStatus", srv.Token(), `["c1"]`)
	if code != http.StatusOK || !strings.Contains(body, `"can_choose":false`) || !strings.Contains(body, `"files":0`) {
		t.Fatalf("WorkspaceStatus in browser mode -> %d %s", code, body)
	}
}

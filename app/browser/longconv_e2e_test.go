package browser

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/bench/fixture"
)

// TestBrowserE2ELongConversation runs frontend/e2e/long-conversation.mjs in headless
// Chromium against browser mode on bench/fixture's 10,000-event conversation (issue 11,
// item 2): it opens at its newest exchange; scrolled up, older pages load until the list is
// virtualized (only a few exchanges in the page) and go on loading; "Jump to latest" brings
// the newest back; Ctrl+F finds a question that was not rendered and scrolls to it, and the
// list is windowed again after Esc. Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2ELongConversation(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	w := apptest.NewWorld(t, "native", nil)
	if err := fixture.WriteDir(context.Background(), w.DataDir, fixture.TenThousandExchanges, fixture.Research); err != nil {
		t.Fatal(err)
	}
	_, srv, hs := newBrowserServer(t, w, dist)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e/long-conversation.mjs", hs.URL+"/?token="+srv.Token())
	cmd.Dir = "../../frontend"
	cmd.Env = append(os.Environ(), "AF_TITLE="+fixture.Title, "AF_EXCHANGES="+strconv.Itoa(fixture.TenThousandExchanges))
	out, err := cmd.CombinedOutput()
	t.Logf("long-conversation.mjs output:\n%s", out)
	if err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
}

package browser

import (
	"context"
	"strconv"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/bench/fixture"
)

// TestBrowserE2ELongConversation runs frontend/e2e/long-conversation.mjs in headless
// Chromium against browser mode on bench/fixture's 10,000-event conversations: it opens at
// its newest exchange; scrolled up, older pages load until the list is virtualized (only a
// few exchanges in the page) and go on loading; "Jump to latest" brings the newest back;
// Ctrl+F finds a question that was not rendered and scrolls to it, and the list is windowed
// again after Esc. On a shorter conversation of short exchanges (100, virtualized on open)
// a question asked while scrolled up is scrolled to and its answer (the scripted research)
// leaves the view at the end. Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2ELongConversation(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	tests := []struct {
		name      string
		shape     fixture.Shape
		exchanges int
		question  string
	}{
		{"research, 10,000 events", fixture.Research, fixture.TenThousandExchanges, ""},
		{"short exchanges, asked while scrolled up", fixture.Chat, 100, apptest.Question},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := apptest.NewWorld(t, "native", nil)
			if err := fixture.WriteDir(context.Background(), w.DataDir, tt.exchanges, tt.shape); err != nil {
				t.Fatal(err)
			}
			_, srv, hs := newBrowserServer(t, w, dist)
			if err := runScript(t, 4*time.Minute, "long-conversation.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_TITLE="+fixture.Title, "AF_EXCHANGES="+strconv.Itoa(tt.exchanges), "AF_QUESTION="+tt.question); err != nil {
				t.Fatalf("browser end-to-end failed: %v", err)
			}
		})
	}
}

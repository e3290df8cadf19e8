package browser

import (
	"context"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
)

// TestBrowserE2EFeedback runs the real frontend in headless Chromium against browser mode
// (frontend/e2e/feedback.mjs): the answer of a research run is rated with the keyboard
// (thumbs up) with a note saved by Enter, and both are still shown after the page reloads;
// Escape leaves the note as it was. Then, in Go: the store holds that rating and note as
// the run's feedback. Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2EFeedback(t *testing.T) {
	const note = "Clear, and the distance is right"
	dist := apptest.E2EFrontend(t)
	core, srv, hs := newBrowserServer(t, apptest.NewWorld(t, "native", nil), dist)
	conv := seedResearch(t, core)

	if err := runScript(t, 3*time.Minute, "feedback.mjs", hs.URL+"/?token="+srv.Token(), nil,
		"AF_ANSWER="+apptest.FinalReply, "AF_NOTE="+note); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	fb, err := core.Store().ConversationFeedback(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	if len(fb) != 1 {
		t.Fatalf("feedback stored = %+v, want one rated run", fb)
	}
	for _, f := range fb {
		if f.Rating != "up" || f.Note != note {
			t.Errorf("stored feedback = %+v, want up with %q", f, note)
		}
	}
}

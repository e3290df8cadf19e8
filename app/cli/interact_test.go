package cli

import (
	"context"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestAskConfirmTools: in a terminal run nobody can click, so a tool set to confirm is
// denied with a message unless --approve-tools is given.
func TestAskConfirmTools(t *testing.T) {
	for _, approve := range []bool{false, true} {
		w := apptest.NewWorld(t, "native", nil)
		if err := config.Save(w.DataDir, config.Settings{ToolPermissions: map[string]string{"web_fetch": "confirm"}}); err != nil {
			t.Fatal(err)
		}
		extra := []string{"--allow-private-network"}
		if approve {
			extra = append(extra, "--approve-tools")
		}
		code, _, stderr := ask(context.Background(), w, append(extra, apptest.Question)...)
		if code != ExitOK {
			t.Fatalf("approve=%v: exit %d: %s", approve, code, stderr)
		}
		denied := strings.Contains(stderr, "web_fetch is set to confirm; denied")
		if denied == approve || (w.PageHits.Load() > 0) != approve {
			t.Fatalf("approve=%v: denied message %v, page fetched %d times; stderr %s", approve, denied, w.PageHits.Load(), stderr)
		}
	}
}

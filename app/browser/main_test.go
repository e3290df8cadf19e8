package browser

import (
	"os"
	"testing"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
)

// TestMain points every search provider but SearXNG (whose URL each test sets) at a
// local stand-in before any test runs, so that no test searches the real web.
func TestMain(m *testing.M) {
	os.Exit(apptest.RunWithSearchStandIn(m, app.SetSearchEndpoints))
}

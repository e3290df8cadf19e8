package browser

import (
	"os"
	"testing"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
)

// TestMain points every search provider but SearXNG (whose URL each test sets) at a
// local stand-in before any test runs, so that no test searches the real web, and makes
// "Find local servers" look for none, so that no test probes this computer's real ports.
func TestMain(m *testing.M) {
	app.SetLocalServerCandidates(nil)
	os.Exit(apptest.RunWithSearchStandIn(m, app.SetSearchEndpoints))
}

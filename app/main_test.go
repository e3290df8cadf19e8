package app

import (
	"context"
	"os"
	"testing"

	"artifactflow/app/internal/apptest"
)

// TestMain points every search provider but SearXNG (whose URL each test sets) at a
// local stand-in before any test runs: since DuckDuckGo became the default, a run without
// a SearXNG URL would otherwise search the real web.
//
// It also makes FindLocalServers look for no server, so that no test probes the real
// ports of this computer; a test that needs servers sets its stand-ins.
func TestMain(m *testing.M) {
	localServers = nil
	os.Exit(apptest.RunWithSearchStandIn(m, func(endpoints map[string]string) { searchEndpoints = endpoints }))
}

// newCore opens a Core on w's data directory with w's model and SearXNG, closed when t
// ends.
func newCore(t *testing.T, w *apptest.World) *Core {
	t.Helper()
	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	return core
}

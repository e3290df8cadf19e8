package cli

import (
	"bytes"
	"context"
	"os"
	"testing"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
)

// TestMain points every search provider but SearXNG (whose URL each test sets) at a
// local stand-in before any test runs, so that no test searches the real web.
//
// "Find local servers" looks for none, so that no test probes this computer's real ports.
func TestMain(m *testing.M) {
	app.SetLocalServerCandidates(nil)
	os.Exit(apptest.RunWithSearchStandIn(m, app.SetSearchEndpoints))
}

// ask runs `artifactflow ask` in-process against w and returns its exit code, stdout and
// stderr.
func ask(ctx context.Context, w *apptest.World, extra ...string) (int, string, string) {
	var out, errb bytes.Buffer
	args := append([]string{"ask"}, w.Args(extra...)...)
	code := Main(ctx, Env{Args: args, Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// newTestCore opens a Core on w's data directory with w's model and SearXNG, closed when t
// ends.
func newTestCore(t *testing.T, w *apptest.World) *app.Core {
	t.Helper()
	core, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir, Overrides: w.Overrides()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	return core
}

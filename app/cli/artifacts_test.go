package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/app/localapi"
)

// runCLI runs `artifactflow args...` in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut syncBuffer
	code := Main(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errOut})
	return code, out.String(), errOut.String()
}

// cliList returns the artifacts `artifacts list --json` prints.
func cliList(t *testing.T, dataDir, conv string) localapi.ArtifactsEnvelope {
	t.Helper()
	code, out, errOut := runCLI(t, "artifacts", "list", "--json", "--conversation", conv, "--data-dir", dataDir)
	var env localapi.ArtifactsEnvelope
	if code != ExitOK || json.Unmarshal([]byte(out), &env) != nil || env.V != 1 || env.SessionID != conv || env.Artifacts == nil {
		t.Fatalf("list --json: %d %q %q", code, out, errOut)
	}
	return env
}

// TestArtifactsCLI runs add, list and rm against the database (no app) and against a
// running serve (through api.json; its event stream proves the API carried them): the
// same commands, the same results, validation errors naming the field with exit 1.
func TestArtifactsCLI(t *testing.T) {
	for _, mode := range []string{"database", "api"} {
		t.Run(mode, func(t *testing.T) {
			dataDir := t.TempDir()
			const conv = "conv-cli"
			newConversation(t, dataDir, conv)
			var stream *eventStream
			if mode == "api" {
				srv := startServe(t, dataDir)
				stream = openEvents(t, srv.disc, conv)
			} else if _, err := os.Stat(filepath.Join(dataDir, localapi.DiscoveryFile)); err == nil {
				t.Fatal("api.json without an app")
			}
			dd := []string{"--data-dir", dataDir, "--conversation", conv}

			code, out, errOut := runCLI(t, append([]string{"artifacts", "add", "--title", "Open data portal", "--url", "https://data.example.org/",
				"--description", "where the tables come from", "--metadata", "rows=1200", "--metadata", "public=true", "--metadata", "code=007",
				"--client-id", "alice"}, dd...)...)
			if code != ExitOK || !strings.HasPrefix(out, "created ") || !strings.Contains(out, "Open data portal") {
				t.Fatalf("add: %d %q %q", code, out, errOut)
			}
			id := strings.Fields(out)[1]
			if stream != nil {
				if ev := stream.next(t); ev.Data.Change.Action != "created" || ev.Data.Change.ArtifactID != id {
					t.Fatalf("the API did not publish the add: %+v", ev)
				}
			}
			code, out, errOut = runCLI(t, append([]string{"artifacts", "add", "--title", "Report", "--workspace-path", "out/report.pdf", "--json"}, dd...)...)
			var added localapi.MutationResult
			if code != ExitOK || json.Unmarshal([]byte(out), &added) != nil || len(added.Changes) != 1 || added.Changes[0].Artifact.Kind != "pdf" {
				t.Fatalf("add --json: %d %q %q", code, out, errOut)
			}
			if stream != nil {
				stream.next(t)
			}

			env := cliList(t, dataDir, conv)
			if len(env.Artifacts) != 2 || env.Artifacts[0].ID != id {
				t.Fatalf("list: %+v", env)
			}
			a := env.Artifacts[0]
			if a.Source != "client" || !a.ClientRetained || a.Metadata["rows"] != 1200.0 || a.Metadata["public"] != true || a.Metadata["code"] != "007" {
				t.Fatalf("artifact %+v", a)
			}
			code, out, _ = runCLI(t, append([]string{"artifacts", "list"}, dd...)...)
			if code != ExitOK || !strings.Contains(out, "ID") || !strings.Contains(out, id) || !strings.Contains(out, "out/report.pdf") || !strings.Contains(out, "https://data.example.org/") {
				t.Fatalf("list table: %d %q", code, out)
			}

			// Validation failures name the field and exit 1.
			for _, tc := range []struct {
				args  []string
				field string
			}{
				{[]string{"--title", "x", "--url", "javascript:alert(1)"}, "url"},
				{[]string{"--title", "x", "--workspace-path", "../../etc/passwd"}, "workspacePath"},
				{[]string{"--title", "<img src=x onerror=alert(1)>", "--url", "https://a.example/"}, "title"},
				{[]string{"--title", "x", "--url", "https://a.example/", "--kind", "weird"}, "kind"},
			} {
				code, out, errOut := runCLI(t, append(append([]string{"artifacts", "add"}, tc.args...), dd...)...)
				if code != ExitError || out != "" || !strings.Contains(errOut, "invalid "+tc.field+":") {
					t.Errorf("add %v: %d %q %q, want exit 1 naming %s", tc.args, code, out, errOut, tc.field)
				}
			}
			code, _, errOut = runCLI(t, "artifacts", "list", "--data-dir", dataDir, "--conversation", "no-such")
			if code != ExitError || !strings.Contains(errOut, `no conversation "no-such"`) {
				t.Fatalf("unknown conversation: %d %q", code, errOut)
			}

			// The retaining-client rule: only alice removes what alice retains.
			code, _, errOut = runCLI(t, append([]string{"artifacts", "rm", id}, dd...)...)
			if code != ExitError || !strings.Contains(errOut, "another client retains") {
				t.Fatalf("rm as anonymous: %d %q", code, errOut)
			}
			// bob registering the same URL and removing it only lifts bob's retention.
			code, out, errOut = runCLI(t, append([]string{"artifacts", "add", "--title", "Bob's", "--url", "https://data.example.org/", "--client-id", "bob"}, dd...)...)
			if code != ExitOK {
				t.Fatalf("add as bob: %d %q %q", code, out, errOut)
			}
			if stream != nil {
				if ev := stream.next(t); ev.Data.Change.ArtifactID != id || ev.Data.Change.Action != "updated" {
					t.Fatalf("bob's add: %+v", ev)
				}
			}
			code, out, errOut = runCLI(t, append([]string{"artifacts", "rm", id, "--client-id", "bob", "--json"}, dd...)...)
			var rel localapi.MutationResult
			if code != ExitOK || json.Unmarshal([]byte(out), &rel) != nil || !rel.Released || len(rel.Changes) != 0 {
				t.Fatalf("rm as bob --json: %d %q %q; want released, no change", code, out, errOut)
			}
			if env := cliList(t, dataDir, conv); len(env.Artifacts) != 2 || env.Artifacts[0].ID != id || env.Artifacts[0].Title != "Open data portal" {
				t.Fatalf("after bob's rm: %+v", env)
			}
			code, out, errOut = runCLI(t, append([]string{"artifacts", "rm", id, "--client-id", "bob"}, dd...)...)
			if code != ExitError || !strings.Contains(errOut, "another client retains") {
				t.Fatalf("rm as bob again: %d %q %q", code, out, errOut)
			}
			code, out, errOut = runCLI(t, append([]string{"artifacts", "rm", id, "--client-id", "alice"}, dd...)...)
			if code != ExitOK || !strings.HasPrefix(out, "removed "+id) || !strings.Contains(out, "(explicit)") {
				t.Fatalf("rm: %d %q %q", code, out, errOut)
			}
			if stream != nil {
				if ev := stream.next(t); ev.Data.Change.Action != "removed" || ev.Data.Change.Reason != "explicit" {
					t.Fatalf("the API did not publish the removal: %+v", ev)
				}
			}
			code, out, _ = runCLI(t, append(append([]string{"artifacts", "rm", "--client-id", "alice"}, dd...), "--", id)...)
			if code != ExitOK || !strings.Contains(out, "nothing removed") {
				t.Fatalf("rm again: %d %q", code, out)
			}
			if env := cliList(t, dataDir, conv); len(env.Artifacts) != 1 {
				t.Fatalf("after rm: %+v", env)
			}
		})
	}
}

// TestArtifactsCLIStaleDiscovery: an api.json left by an ended process is ignored and
// the command works on the database.
func TestArtifactsCLIStaleDiscovery(t *testing.T) {
	dataDir := t.TempDir()
	const conv = "conv-stale"
	newConversation(t, dataDir, conv)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true`:", err)
	}
	stale, _ := json.Marshal(localapi.Discovery{URL: "http://127.0.0.1:1", Token: "old", PID: cmd.Process.Pid})
	if err := os.WriteFile(filepath.Join(dataDir, localapi.DiscoveryFile), stale, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "artifacts", "add", "--data-dir", dataDir, "--conversation", conv, "--title", "T", "--managed-id", "m-1")
	if code != ExitOK || !strings.HasPrefix(out, "created ") {
		t.Fatalf("add with a stale api.json: %d %q %q", code, out, errOut)
	}
	if env := cliList(t, dataDir, conv); len(env.Artifacts) != 1 || env.Artifacts[0].ManagedID != "m-1" {
		t.Fatalf("list: %+v", env)
	}
}

// TestArtifactsCLIBusyApp: api.json names a live process whose API answers but not as
// expected (here 503): the command fails and writes nothing to the database, whose
// changes the running app's window and event streams would never see.
func TestArtifactsCLIBusyApp(t *testing.T) {
	dataDir := t.TempDir()
	const conv = "conv-busy"
	newConversation(t, dataDir, conv)
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	d, _ := json.Marshal(localapi.Discovery{URL: busy.URL, Token: "t", PID: os.Getpid()})
	if err := os.WriteFile(filepath.Join(dataDir, localapi.DiscoveryFile), d, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "artifacts", "add", "--data-dir", dataDir, "--conversation", conv, "--title", "T", "--managed-id", "m-1")
	if code != ExitError || !strings.Contains(errOut, "did not answer") {
		t.Fatalf("add while the app does not answer: %d %q %q", code, out, errOut)
	}
	if err := os.Remove(filepath.Join(dataDir, localapi.DiscoveryFile)); err != nil {
		t.Fatal(err)
	}
	if env := cliList(t, dataDir, conv); len(env.Artifacts) != 0 {
		t.Fatalf("the database was written behind the app's back: %+v", env)
	}
}

// TestArtifactsCLIUsage: bad usage exits 2 with a message and touches nothing.
func TestArtifactsCLIUsage(t *testing.T) {
	dataDir := t.TempDir()
	newConversation(t, dataDir, "c")
	dd := []string{"--data-dir", dataDir}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"artifacts"}, "missing subcommand"},
		{"flag first", []string{"artifacts", "--conversation", "c"}, "missing subcommand"},
		{"unknown subcommand", []string{"artifacts", "edit"}, "unknown subcommand"},
		{"no conversation", []string{"artifacts", "list"}, "--conversation"},
		{"list with argument", []string{"artifacts", "list", "--conversation", "c", "x"}, "unexpected argument"},
		{"add without title", []string{"artifacts", "add", "--conversation", "c", "--url", "https://a.example/"}, "--title"},
		{"add without locator", []string{"artifacts", "add", "--conversation", "c", "--title", "T"}, "exactly one of"},
		{"add with two locators", []string{"artifacts", "add", "--conversation", "c", "--title", "T", "--url", "https://a.example/", "--managed-id", "m"}, "exactly one of"},
		{"bad metadata", []string{"artifacts", "add", "--conversation", "c", "--title", "T", "--url", "https://a.example/", "--metadata", "novalue"}, "key=value"},
		{"repeated metadata", []string{"artifacts", "add", "--conversation", "c", "--title", "T", "--url", "https://a.example/", "--metadata", "a=1", "--metadata", "a=2"}, "twice"},
		{"bad client id", []string{"artifacts", "add", "--conversation", "c", "--title", "T", "--url", "https://a.example/", "--client-id", "a b"}, "--client-id"},
		{"rm without id", []string{"artifacts", "rm", "--conversation", "c"}, "exactly one artifact id"},
		{"rm with two ids", []string{"artifacts", "rm", "--conversation", "c", "a", "b"}, "exactly one artifact id"},
		{"unknown flag", []string{"artifacts", "list", "--conversation", "c", "--title", "x"}, "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append(tc.args, dd...)...)
			if code != ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
				t.Fatalf("%v: %d %q %q, want exit 2 with %q", tc.args, code, out, errOut, tc.want)
			}
		})
	}
	if env := cliList(t, dataDir, "c"); len(env.Artifacts) != 0 {
		t.Fatalf("usage errors changed something: %+v", env)
	}
}

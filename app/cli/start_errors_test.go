package cli

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/app"
	"artifactflow/backend/config"
	"artifactflow/backend/store"
)

// TestStartWithDamagedFiles checks damaged files on the command line: `ask`, `serve` and
// the window, started on a damaged artifactflow.db or an unreadable config.json, print one
// line naming the file and the way out and exit non-zero; the window is not opened and its
// build is handed the error to show (Env.StartFailed); the file is left as it was.
func TestStartWithDamagedFiles(t *testing.T) {
	random := make([]byte, 4096)
	rand.New(rand.NewSource(7)).Read(random)
	files := []struct {
		name     string
		file     string
		content  []byte
		sentinel error
		want     []string
	}{
		{"damaged database", config.DBFile, random, store.ErrCorrupt,
			[]string{"is damaged", "move it aside and start again", "restore a backup", "it was not changed"}},
		{"config.json not JSON", config.ConfigFile, []byte("{\n  \"model\": \"m\",\n}\n"), config.ErrBadFile,
			[]string{"is not valid JSON at line 3, column 1", "fix it in a text editor", "it was not changed"}},
	}
	commands := []struct {
		name string
		args func(dir string) []string
	}{
		{"ask", func(dir string) []string { return []string{"ask", "--data-dir", dir, "what is new?"} }},
		{"serve", func(dir string) []string { return []string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0"} }},
		{"window", func(dir string) []string { return []string{"--data-dir", dir} }},
	}
	for _, f := range files {
		for _, c := range commands {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, f.file)
				if err := os.WriteFile(path, f.content, 0o600); err != nil {
					t.Fatal(err)
				}
				var out, errOut bytes.Buffer
				var shown []error
				env := Env{Args: c.args(dir), Stdout: &out, Stderr: &errOut,
					Window:      func(*app.Core) error { t.Error("the window was opened"); return nil },
					StartFailed: func(err error) { shown = append(shown, err) }}
				code := Main(context.Background(), env)
				if code != ExitError {
					t.Errorf("exit code = %d, want %d", code, ExitError)
				}
				msg := errOut.String()
				if !strings.HasPrefix(msg, "artifactflow: ") || strings.Count(msg, "\n") != 1 {
					t.Errorf("stderr = %q, want one line starting with \"artifactflow: \"", msg)
				}
				for _, want := range append(f.want, path) {
					if !strings.Contains(msg, want) {
						t.Errorf("stderr %q does not contain %q", msg, want)
					}
				}
				if out.Len() > 0 {
					t.Errorf("stdout = %q, want nothing", out.String())
				}
				switch {
				case c.name == "window" && (len(shown) != 1 || !errors.Is(shown[0], f.sentinel)):
					t.Errorf("StartFailed got %v, want one error wrapping %v", shown, f.sentinel)
				case c.name != "window" && len(shown) > 0:
					t.Errorf("StartFailed called for %s: %v", c.name, shown)
				}
				if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, f.content) {
					t.Errorf("%s changed (%v)", f.file, err)
				}
			})
		}
	}
}

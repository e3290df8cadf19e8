package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"artifactflow/backend/config"
)

// writeConfig writes config.json in dir by hand, as a user's editor would.
func writeConfig(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, config.ConfigFile), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// readConfigJSON returns config.json in dir as a generic JSON object.
func readConfigJSON(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, config.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// getView is SettingsService.Get, failing the test on an error.
func getView(t *testing.T, svc *SettingsService) SettingsView {
	t.Helper()
	v, err := svc.Get()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSavesOfTwoProcessesKeepBoth: the window and `serve` (two Cores) on one data dir,
// each with its settings dialog open on the same config.json. One saves the endpoint (key,
// base URL, model); the other, whose dialog still shows the old endpoint and which has
// read the new file since (a dialog check or a run reads the settings), saves the search
// provider and the lead's temperature. config.json then holds both saves, and what the
// user never touched (an unknown key) stays.
func TestSavesOfTwoProcessesKeepBoth(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{"base_url": "http://localhost:11434/v1", "model": "qwen3:8b", "x_kept": true}`)
	_, window := newSettingsCore(t, dir)
	serveCore, serve := newSettingsCore(t, dir)
	wv, sv := getView(t, window), getView(t, serve) // both dialogs open

	in := inputFromView(wv)
	in.Revision, in.BaseURL, in.Model, in.APIKey = wv.Revision, "https://api.deepseek.com/v1", "deepseek-chat", "sk-window"
	if _, err := window.Save(in); err != nil {
		t.Fatal(err)
	}
	_ = serveCore.Settings() // the other process reads the new file before its dialog saves

	in = inputFromView(sv)
	in.Revision = sv.Revision
	in.Search.Provider = config.ProviderWikipedia
	in.Lead.Temperature = fptr(0.3)
	saved, err := serve.Save(in)
	if err != nil {
		t.Fatal(err)
	}

	got, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.BaseURL != "https://api.deepseek.com/v1" || got.Model != "deepseek-chat" || got.APIKey != "sk-window" {
		t.Errorf("the window's save was lost: base %q, model %q, key set %v", got.BaseURL, got.Model, got.APIKey != "")
	}
	if got.Search.Provider != config.ProviderWikipedia || got.Lead.Temperature == nil || *got.Lead.Temperature != 0.3 {
		t.Errorf("serve's save was lost: provider %q, lead temperature %v", got.Search.Provider, got.Lead.Temperature)
	}
	if readConfigJSON(t, dir)["x_kept"] != true {
		t.Error("a key unknown to Settings was dropped")
	}
	if saved.BaseURL != "https://api.deepseek.com/v1" || saved.Model != "deepseek-chat" || !saved.APIKeySet {
		t.Errorf("serve's view after its save does not show the window's endpoint: %q %q key %v", saved.BaseURL, saved.Model, saved.APIKeySet)
	}
}

// TestSetLanguageKeepsAnotherProcessesSave: one process saves the key, base URL and model;
// another, which loaded config.json before, switches the UI language. config.json keeps
// the first save and gets the language; the first process's view then shows the language.
func TestSetLanguageKeepsAnotherProcessesSave(t *testing.T) {
	dir := t.TempDir()
	_, window := newSettingsCore(t, dir)
	_, serve := newSettingsCore(t, dir)
	wv := getView(t, window)
	in := inputFromView(wv)
	in.Revision, in.BaseURL, in.Model, in.APIKey = wv.Revision, "http://localhost:1234/v1", "local-model", "sk-lm"
	if _, err := window.Save(in); err != nil {
		t.Fatal(err)
	}
	if _, err := serve.SetLanguage(config.LanguageChinese); err != nil {
		t.Fatal(err)
	}
	got, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Settings{BaseURL: "http://localhost:1234/v1", Model: "local-model", APIKey: "sk-lm", Language: config.LanguageChinese}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("config.json = %+v, want %+v", got, want)
	}
	if v := getView(t, window); v.Language != config.LanguageChinese || v.Model != "local-model" {
		t.Errorf("the window's view: language %q, model %q", v.Language, v.Model)
	}
}

// TestSaveDoesNotBringBackAHookRemovedByHand: a process loaded config.json with a hook;
// the user removes the hook by hand (and adds a key of their own); a Save from that
// process's dialog, opened before the edit, changes the model and nothing else: the hook
// stays removed and the user's key stays. The same holds for "always allow" and the
// language, which write config.json too.
func TestSaveDoesNotBringBackAHookRemovedByHand(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, c *Core, v SettingsView)
	}{
		{"dialog Save", func(t *testing.T, c *Core, v SettingsView) {
			in := inputFromView(v)
			in.Revision, in.Model = v.Revision, "other-model"
			if _, err := c.Services().Settings.Save(in); err != nil {
				t.Fatal(err)
			}
		}},
		{"dialog Save without a revision", func(t *testing.T, c *Core, v SettingsView) {
			in := inputFromView(v)
			in.Model = "other-model"
			if _, err := c.Services().Settings.Save(in); err != nil {
				t.Fatal(err)
			}
		}},
		{"SetLanguage", func(t *testing.T, c *Core, _ SettingsView) {
			if _, err := c.Services().Settings.SetLanguage(config.LanguageEnglish); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeConfig(t, dir, `{"model": "m", "hooks": {"Stop": [{"name": "notify", "command": ["/bin/true"]}]}}`)
			core, svc := newSettingsCore(t, dir)
			v := getView(t, svc)
			if len(core.Settings().Hooks[config.HookStop]) != 1 {
				t.Fatal("the hook did not load")
			}
			writeConfig(t, dir, `{"model": "m", "x_mine": "keep me"}`)
			tt.write(t, core, v)
			m := readConfigJSON(t, dir)
			if _, ok := m["hooks"]; ok {
				t.Errorf("the hook removed by hand is back: %v", m)
			}
			if m["x_mine"] != "keep me" {
				t.Errorf("the user's own key is gone: %v", m)
			}
			if len(core.Settings().Hooks) != 0 {
				t.Errorf("the process still runs the removed hook: %+v", core.Settings().Hooks)
			}
		})
	}
}

// TestSettingsViewShowsOutsideEdits: after config.json is edited by hand (or by another
// process) the settings view and the next run show the file's values, flags still over
// them; a hand edit that breaks the file is settings_file_invalid from Get (naming the
// file) while the last good settings stay in use, until the file is fixed.
func TestSettingsViewShowsOutsideEdits(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{"base_url": "http://localhost:11434/v1", "model": "first"}`)
	t.Setenv("OPENAI_API_KEY", "")
	core, err := NewCore(context.Background(), Options{DataDir: dir, Overrides: config.Settings{BaseURL: "http://flag.example/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	svc := core.Services().Settings
	before := getView(t, svc)
	if before.Model != "first" {
		t.Fatalf("model %q, want first", before.Model)
	}

	writeConfig(t, dir, `{"base_url": "http://localhost:11434/v1", "model": "second-model", "max_upload_mb": 64}`)
	v := getView(t, svc)
	if v.Model != "second-model" || v.MaxUploadMB != 64 || v.BaseURL != "http://flag.example/v1" || v.SetBy["base_url"] != "--base-url" {
		t.Fatalf("view after the edit: model %q, upload %d, base %q (set by %q); want second-model, 64, the flag's",
			v.Model, v.MaxUploadMB, v.BaseURL, v.SetBy["base_url"])
	}
	if v.Revision == before.Revision {
		t.Error("the view of the edited file has the old revision")
	}
	if d, err := core.deps(); err != nil || d.ModelName != "second-model" {
		t.Fatalf("next run's model = %q (%v), want second-model", d.ModelName, err)
	}

	writeConfig(t, dir, `{"model": "third",}`)
	_, err = svc.Get()
	if !errors.Is(err, config.ErrBadFile) || ErrorCode(err) != CodeSettingsFileInvalid || !strings.Contains(err.Error(), filepath.Join(dir, config.ConfigFile)) {
		t.Fatalf("Get of a broken file = %v (code %q), want settings_file_invalid naming it", err, ErrorCode(err))
	}
	if m := core.Settings().Model; m != "second-model" {
		t.Errorf("while the file is broken the model in use is %q, want the last good second-model", m)
	}
	writeConfig(t, dir, `{"model": "third"}`)
	if v := getView(t, svc); v.Model != "third" {
		t.Errorf("after the fix the view shows %q, want third", v.Model)
	}
}

// BenchmarkSettingsRead measures Core.Settings, which every run, upload and dialog call
// makes: "unchanged" is one stat of config.json (its stamp settled), "changed" a read and
// decode of a file another process has just written.
func BenchmarkSettingsRead(b *testing.B) {
	dir := b.TempDir()
	content := `{"base_url": "http://localhost:11434/v1", "model": "qwen3:8b", "search": {"provider": "brave", "keys": {"brave": "k"}},
  "hooks": {"Stop": [{"name": "notify", "command": ["/bin/true"]}]}, "tool_permissions": {"web_fetch": "confirm"}}`
	path := filepath.Join(dir, config.ConfigFile)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		b.Fatal(err)
	}
	core, err := NewCore(context.Background(), Options{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = core.Close(context.Background()) })
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			_ = core.Settings()
		}
	})
	b.Run("changed", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			at := old.Add(time.Duration(i+1) * time.Millisecond) // a new version each time
			if err := os.Chtimes(path, at, at); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			_ = core.Settings()
		}
	})
}

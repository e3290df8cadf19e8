package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// handEdited is a config.json as a user may leave it: keys in their own order, keys this
// version does not know (top level and inside a known object), a & in a URL, hooks.
const handEdited = `{
  "model": "qwen3:8b",
  "x_team_note": {"owner": "ops", "since": 2024},
  "base_url": "http://localhost:11434/v1?a=1&b=2",
  "api_key": "sk-old",
  "search": {"provider": "brave", "keys": {"brave": "bk"}, "x_quota": 1000},
  "models": {"qwen3:8b": {"context_window": 40960}},
  "hooks": {"Stop": [{"name": "notify", "command": ["/opt/notify"]}]},
  "max_answer_mb": 8
}
`

// topKeys returns the keys of the JSON object b in their order.
func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	v, err := parseJSONTree(b)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*jsonObject).keys
}

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return m
}

// TestUpdateWritesOnlyWhatChanged: Update writes the fields its change altered over the
// file as it is, and nothing else: keys this version does not know stay (at the top and
// inside known objects), keys keep their order (new ones after them), untouched values
// keep their text, a cleared field's key goes, one map entry changes without the others,
// and the file stays 0600.
func TestUpdateWritesOnlyWhatChanged(t *testing.T) {
	tests := []struct {
		name   string
		change func(s Settings) Settings
		edit   func(m map[string]any) // what the change must do to the file's JSON
	}{
		{"one field", func(s Settings) Settings { s.Model = "llama3"; return s },
			func(m map[string]any) { m["model"] = "llama3" }},
		{"clear the key", func(s Settings) Settings { s.APIKey = ""; return s },
			func(m map[string]any) { delete(m, "api_key") }},
		{"one search key", func(s Settings) Settings { s.Search = s.Search.WithKey("tavily", "tk"); return s },
			func(m map[string]any) { m["search"].(map[string]any)["keys"].(map[string]any)["tavily"] = "tk" }},
		{"another model's context", func(s Settings) Settings {
			return s.WithModelContext("llama3", ModelContext{ContextWindow: 8192})
		}, func(m map[string]any) {
			m["models"].(map[string]any)["llama3"] = map[string]any{"context_window": float64(8192)}
		}},
		{"a new field", func(s Settings) Settings { s.Language = LanguageChinese; return s },
			func(m map[string]any) { m["language"] = LanguageChinese }},
		{"nothing", func(s Settings) Settings { return s }, func(map[string]any) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ConfigFile)
			if err := os.WriteFile(path, []byte(handEdited), 0o644); err != nil {
				t.Fatal(err)
			}
			saved, stamp, err := Update(dir, func(s Settings) (Settings, error) { return tt.change(s), nil })
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := decodeMap(t, []byte(handEdited))
			tt.edit(want)
			if got := decodeMap(t, b); !reflect.DeepEqual(got, want) {
				t.Errorf("config.json =\n%s\nwant the hand-edited file with only %s changed", b, tt.name)
			}
			before, after := topKeys(t, []byte(handEdited)), topKeys(t, b)
			kept := make([]string, 0, len(before))
			for _, k := range before {
				if _, ok := want[k]; ok {
					kept = append(kept, k)
				}
			}
			if len(after) < len(kept) || !reflect.DeepEqual(after[:len(kept)], kept) {
				t.Errorf("key order %v, want %v first", after, kept)
			}
			if !strings.Contains(string(b), "a=1&b=2") {
				t.Errorf("the URL's & was escaped:\n%s", b)
			}
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("mode = %v (%v), want 0600", st.Mode().Perm(), err)
			}
			loaded, now, err := LoadStamped(dir)
			if err != nil || !reflect.DeepEqual(loaded, saved) {
				t.Errorf("Load after Update = %+v, %v; Update returned %+v", loaded, err, saved)
			}
			if !now.Same(stamp) {
				t.Error("the stamp Update returned is not the file's")
			}
		})
	}
}

// TestUpdatePersistsOldContextMigration: a file written before per-model context settings
// has its Settings-wide window moved into the model's entry on disk by the first Update,
// so the old value does not start to apply to every other model.
func TestUpdatePersistsOldContextMigration(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"model":"m","context_window":32768,"x":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Update(dir, func(s Settings) (Settings, error) { s.Language = LanguageEnglish; return s, nil }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	got := decodeMap(t, b)
	want := map[string]any{"model": "m", "x": float64(1), "language": "en",
		"models": map[string]any{"m": map[string]any{"context_window": float64(32768)}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("config.json = %s, want %v", b, want)
	}
}

// TestUpdatesFromManyWritersAllLand: writers that each change their own entry at the same
// time (goroutines here; each Update opens the lock file itself, as another process
// would) all find their change in the file: each reads the file only once the one before
// has written it.
func TestUpdatesFromManyWritersAllLand(t *testing.T) {
	dir := t.TempDir()
	if err := Save(dir, Settings{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				tool := fmt.Sprintf("tool_%d_%d", w, i)
				_, _, err := Update(dir, func(s Settings) (Settings, error) {
					perms := maps.Clone(s.ToolPermissions)
					if perms == nil {
						perms = map[string]string{}
					}
					perms[tool] = "confirm"
					s.ToolPermissions = perms
					time.Sleep(100 * time.Microsecond) // widen the read-to-write window an unlocked writer would lose in
					return s, nil
				})
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ToolPermissions) != writers*each || s.Model != "m" {
		t.Fatalf("%d of %d changes landed (model %q)", len(s.ToolPermissions), writers*each, s.Model)
	}
}

// TestUpdateRefusesBadFilesAndSettings: Update writes nothing over a file Load refuses, nor
// settings Validate refuses, and passes on its change's error.
func TestUpdateRefusesBadFilesAndSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ConfigFile)
	if err := os.WriteFile(path, []byte(`{"model": "m"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Update(dir, func(s Settings) (Settings, error) { s.ToolCallMode = "smoke"; return s, nil }); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid change: %v, want ErrInvalid", err)
	}
	boom := errors.New("boom")
	if _, _, err := Update(dir, func(Settings) (Settings, error) { return Settings{}, boom }); !errors.Is(err, boom) {
		t.Errorf("failing change: %v, want its error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"model": "m"}` {
		t.Errorf("config.json changed: %s", b)
	}
	if err := os.WriteFile(path, []byte(`{"model": }`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Update(dir, func(s Settings) (Settings, error) { return s, nil }); !errors.Is(err, ErrBadFile) {
		t.Errorf("over a broken file: %v, want ErrBadFile", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"model": }` {
		t.Errorf("broken config.json changed: %s", b)
	}
}

// TestStampTellsVersions: a Stamp is the same until the file changes, by a save or by hand.
func TestStampTellsVersions(t *testing.T) {
	dir := t.TempDir()
	none, err := Stamp(dir)
	if err != nil || !none.Same(FileStamp{}) {
		t.Fatalf("missing file: %v, %v", none, err)
	}
	_, saved, err := Update(dir, func(s Settings) (Settings, error) { s.Model = "a"; return s, nil })
	if err != nil {
		t.Fatal(err)
	}
	if now, err := Stamp(dir); err != nil || !now.Same(saved) || now.Same(none) {
		t.Fatalf("after Update: same as saved %v, same as none %v (%v)", now.Same(saved), now.Same(none), err)
	}
	path := filepath.Join(dir, ConfigFile)
	if err := os.WriteFile(path, []byte(`{"model":"b"}`+"\n\n"), 0o600); err != nil { // in place, as some editors do
		t.Fatal(err)
	}
	if now, _ := Stamp(dir); now.Same(saved) {
		t.Fatal("a hand edit kept the stamp")
	}
	// A stamp taken right after the file changed is not settled: an edit of the same size
	// within the clock's resolution could keep it. One taken well after it is.
	if saved.Settled() {
		t.Error("the stamp of a version just written is settled")
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if now, _ := Stamp(dir); !now.Settled() || !(FileStamp{}).Settled() {
		t.Errorf("a minute-old file's stamp settled %v, no file's %v; want both", now.Settled(), (FileStamp{}).Settled())
	}
}

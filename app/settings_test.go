package app

import (
	"context"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/tokens"
)

// TestContextSettingsPerModel: the window and compaction threshold saved in the settings
// dialog belong to the model chosen there (a threshold per model). Switching to another
// model shows and uses that model's values; switching back restores the first model's;
// the run's engine gets the chosen model's values; config.json keeps them all.
func TestContextSettingsPerModel(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	// No --model flag: the model chosen in the dialog is the one in use.
	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: config.Settings{BaseURL: w.Model.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	svc := &SettingsService{core}

	steps := []struct {
		name          string
		save          SettingsInput
		wantWindow    int // as set; 0 = by model name
		wantEffective int
		wantPercent   int
	}{
		{"qwen with its own window", SettingsInput{Model: "qwen3:8b", ContextWindow: 40_960, CompactAtPercent: 70}, 40_960, 40_960, 70},
		{"gpt-4o left to defaults", SettingsInput{Model: "gpt-4o"}, 0, tokens.ContextWindow("gpt-4o"), config.DefaultCompactAtPercent},
		// As the dialog does when the model name is typed back: it sends the values
		// ModelContext shows for that model, which must be the ones saved for it.
		{"back to qwen, sending what the dialog was shown for it", SettingsInput{Model: "qwen3:8b"}, 40_960, 40_960, 70},
		{"gpt-4o gets its own threshold", SettingsInput{Model: "gpt-4o", CompactAtPercent: 90}, 0, tokens.ContextWindow("gpt-4o"), 90},
	}
	for _, st := range steps {
		if strings.HasPrefix(st.name, "back to") {
			shown, err := svc.ModelContext(" " + st.save.Model + " ")
			if err != nil {
				t.Fatal(err)
			}
			st.save.ContextWindow, st.save.CompactAtPercent = shown.ContextWindow, shown.CompactAtPercent
		}
		v, err := svc.Save(st.save)
		if err != nil {
			t.Fatalf("%s: Save: %v", st.name, err)
		}
		if v.ContextWindow != st.wantWindow || v.EffectiveContextWindow != st.wantEffective || v.CompactAtPercent != st.wantPercent {
			t.Fatalf("%s: view = window %d (effective %d), %d%%; want %d (%d), %d%%", st.name,
				v.ContextWindow, v.EffectiveContextWindow, v.CompactAtPercent, st.wantWindow, st.wantEffective, st.wantPercent)
		}
		d, err := core.deps()
		if err != nil {
			t.Fatalf("%s: deps: %v", st.name, err)
		}
		if d.ContextWindow != st.wantWindow || d.CompactAt != float64(st.wantPercent)/100 {
			t.Fatalf("%s: engine gets window %d at %.2f; want %d at %.2f", st.name, d.ContextWindow, d.CompactAt, st.wantWindow, float64(st.wantPercent)/100)
		}
	}

	// The dialog asks for another model's values while the user types its name.
	other, _ := svc.ModelContext("qwen3:8b")
	if other.ContextWindow != 40_960 || other.CompactAtPercent != 70 {
		t.Fatalf("ModelContext(qwen3:8b) = %+v after gpt-4o was saved", other)
	}
	unknown, _ := svc.ModelContext("llama3.1:8b")
	if unknown.ContextWindow != 0 || unknown.EffectiveContextWindow != tokens.ContextWindow("llama3.1:8b") || unknown.CompactAtPercent != config.DefaultCompactAtPercent {
		t.Fatalf("ModelContext(unknown) = %+v", unknown)
	}

	stored, err := config.Load(core.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if w, p := stored.ContextFor("qwen3:8b"); w != 40_960 || p != 70 {
		t.Fatalf("config.json: qwen3:8b = %d, %d%%", w, p)
	}
	if w, p := stored.ContextFor("gpt-4o"); w != 0 || p != 90 {
		t.Fatalf("config.json: gpt-4o = %d, %d%%", w, p)
	}
	// With no model chosen, the values become the default of every model without its own.
	if _, err := svc.Save(SettingsInput{ContextWindow: 50_000, CompactAtPercent: 75}); err != nil {
		t.Fatal(err)
	}
	if v, _ := svc.ModelContext("llama3.1:8b"); v.ContextWindow != 50_000 || v.CompactAtPercent != 75 {
		t.Fatalf("a model without its own context after a save with no model = %+v, want 50000 at 75%%", v)
	}
	if v, _ := svc.ModelContext("qwen3:8b"); v.ContextWindow != 40_960 || v.CompactAtPercent != 70 {
		t.Fatalf("qwen3:8b lost its own context: %+v", v)
	}
}

// TestAPIKeyPrecedence: --api-key over OPENAI_API_KEY over the key stored in config.json.
func TestAPIKeyPrecedence(t *testing.T) {
	tests := []struct {
		name, stored, env, flag, want string
	}{
		{"stored only", "sk-stored", "", "", "sk-stored"},
		{"environment over stored", "sk-stored", "sk-env", "", "sk-env"},
		{"flag over environment", "sk-stored", "sk-env", "sk-flag", "sk-flag"},
		{"environment alone", "", "sk-env", "", "sk-env"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := config.Save(dir, config.Settings{APIKey: tc.stored}); err != nil {
				t.Fatal(err)
			}
			t.Setenv("OPENAI_API_KEY", tc.env)
			core, err := NewCore(context.Background(), Options{DataDir: dir, Overrides: config.Settings{APIKey: tc.flag}})
			if err != nil {
				t.Fatal(err)
			}
			defer core.Close(context.Background())
			if got := core.Settings().APIKey; got != tc.want {
				t.Fatalf("API key = %q, want %q", got, tc.want)
			}
		})
	}
}

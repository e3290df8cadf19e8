package app

import (
	"context"
	"errors"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestSetLanguage: the language chosen in Settings is stored in config.json without
// touching the other settings, shown by Get, kept by a later Save of the dialog, handed
// to the engine for the agents' prompts, and an unknown value is invalid_settings naming
// the language field.
func TestSetLanguage(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: config.Settings{BaseURL: w.Model.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	svc := &SettingsService{core}
	if _, err := svc.Save(SettingsInput{Model: "qwen3:8b", MaxUploadMB: 7}); err != nil {
		t.Fatal(err)
	}
	v, err := svc.SetLanguage("zh-CN")
	if err != nil || v.Language != "zh-CN" || v.Model != "qwen3:8b" || v.MaxUploadMB != 7 {
		t.Fatalf("SetLanguage = %+v, %v; want zh-CN with the model and upload limit kept", v, err)
	}
	stored, err := config.Load(w.DataDir)
	if err != nil || stored.Language != "zh-CN" || stored.Model != "qwen3:8b" {
		t.Fatalf("config.json = %+v, %v", stored, err)
	}
	d, err := core.deps()
	if err != nil || d.Language != "zh-CN" {
		t.Fatalf("deps().Language = %q, %v; want zh-CN", d.Language, err)
	}
	if v, err = svc.Save(SettingsInput{Model: "qwen3:8b", MaxUploadMB: 8}); err != nil || v.Language != "zh-CN" {
		t.Fatalf("Save after SetLanguage = language %q, %v; want zh-CN kept", v.Language, err)
	}
	if got, _ := svc.Get(); got.Language != "zh-CN" {
		t.Fatalf("Get().Language = %q", got.Language)
	}

	_, err = svc.SetLanguage("fr")
	if ae := ToAppError(err); !errors.Is(err, config.ErrInvalid) || ae.Code != CodeInvalidSettings || ae.Fields["language"] == "" {
		t.Fatalf("SetLanguage(fr) = %v; want invalid_settings with the language field", err)
	}
	if got, _ := svc.Get(); got.Language != "zh-CN" {
		t.Fatalf("after a refused value, Get().Language = %q; want zh-CN kept", got.Language)
	}
	if v, err := svc.SetLanguage(""); err != nil || v.Language != "" {
		t.Fatalf("SetLanguage(\"\") = %q, %v; want the system's", v.Language, err)
	}
}

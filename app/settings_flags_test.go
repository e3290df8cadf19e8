package app

import (
	"context"
	"maps"
	"testing"

	"artifactflow/backend/config"
	"artifactflow/backend/toolcall"
)

// TestSettingsFlagsAreNotSaved covers issue 10, item 6: with flags and OPENAI_API_KEY over
// a config.json, the settings view names the flag (or variable) of each field it sets;
// saving what the dialog shows writes the user's own changes to config.json but never a
// flag's value; the next run uses the newly saved values wherever no flag overrides them,
// and a process started without the flags uses the stored ones.
func TestSettingsFlagsAreNotSaved(t *testing.T) {
	dir := t.TempDir()
	stored := config.Settings{BaseURL: "http://saved.example/v1", APIKey: "sk-stored", Model: "saved-model",
		ToolCallMode: "xml", SubAgents: config.AgentModel{Model: "saved-sub"},
		Search: config.SearchSettings{Provider: "brave", Keys: map[string]string{"brave": "brave-stored"}}}
	if err := config.Save(dir, stored); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-env")
	flags := config.Settings{Model: "flag-model", BaseURL: "http://flag.example/v1", Lead: config.AgentModel{Model: "flag-lead"},
		Search: config.SearchSettings{Provider: "tavily", Keys: map[string]string{"tavily": "tavily-flag"}}}
	core, err := NewCore(context.Background(), Options{DataDir: dir, Overrides: flags})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	svc := &SettingsService{core}

	v, err := svc.Get()
	if err != nil {
		t.Fatal(err)
	}
	wantSetBy := map[string]string{"model": "--model", "base_url": "--base-url", "api_key": SourceEnvAPIKey,
		"lead.model": "--lead-model", "search.provider": "--search-provider", "search.keys.tavily": "--search-key"}
	if !maps.Equal(v.SetBy, wantSetBy) {
		t.Fatalf("SetBy = %v, want %v", v.SetBy, wantSetBy)
	}
	if v.Model != "flag-model" || v.BaseURL != "http://flag.example/v1" || v.Lead.Model != "flag-lead" || v.Search.Provider != "tavily" {
		t.Fatalf("view does not show the values in effect: model %q, base %q, lead %q, provider %q", v.Model, v.BaseURL, v.Lead.Model, v.Search.Provider)
	}

	// The dialog sends back everything it shows, flag values included, with the user's
	// own changes: the tool-call mode, the sub-agents' model and a key typed for tavily.
	lead, sub := v.Lead, v.SubAgents
	sub.Model = "new-sub"
	in := SettingsInput{BaseURL: v.BaseURL, Model: v.Model, ToolCallMode: "native", APIKey: "sk-typed",
		SearxngURL: v.SearxngURL, MaxUploadMB: v.MaxUploadMB, PermissionTimeoutSeconds: v.PermissionTimeoutSeconds,
		Lead: &lead, SubAgents: &sub, LoadRemoteImages: config.LoadImagesAlways,
		Search: &SearchInput{Provider: v.Search.Provider, Keys: map[string]string{"tavily": "tavily-typed"}}}
	saved, err := svc.Save(in)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(saved.SetBy, wantSetBy) || saved.Model != "flag-model" || saved.LoadRemoteImages != config.LoadImagesAlways {
		t.Fatalf("view after Save: SetBy %v, model %q, images %q", saved.SetBy, saved.Model, saved.LoadRemoteImages)
	}
	got, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ field, got, want string }{
		{"model", got.Model, "saved-model"},
		{"base_url", got.BaseURL, "http://saved.example/v1"},
		{"api_key", got.APIKey, "sk-stored"},
		{"lead.model", got.Lead.Model, ""},
		{"search.provider", got.Search.Provider, "brave"},
		{"search.keys.tavily", got.Search.Key("tavily"), ""},
		{"search.keys.brave", got.Search.Key("brave"), "brave-stored"},
		{"tool_call_mode (no flag)", got.ToolCallMode, "native"},
		{"sub_agents.model (no flag)", got.SubAgents.Model, "new-sub"},
		{"load_remote_images", got.LoadRemoteImages, config.LoadImagesAlways},
	} {
		if c.got != c.want {
			t.Errorf("config.json %s = %q, want %q", c.field, c.got, c.want)
		}
	}

	// The next run: flags still win where set, the new saved values apply elsewhere.
	d, err := core.deps()
	if err != nil {
		t.Fatal(err)
	}
	if d.ModelName != "flag-lead" || d.SubAgents.Name != "new-sub" || d.Mode != toolcall.ModeNative || d.SubAgents.Mode != toolcall.ModeNative {
		t.Fatalf("next run: lead %q (%v), sub-agents %q (%v); want flag-lead, new-sub, both native", d.ModelName, d.Mode, d.SubAgents.Name, d.SubAgents.Mode)
	}

	// Without the flags, the stored values are the ones in use, and a saved model applies
	// to the next run at once.
	t.Setenv("OPENAI_API_KEY", "")
	plain, err := NewCore(context.Background(), Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plain.Close(context.Background()) })
	if err := config.Save(plain.dataDir, got); err != nil {
		t.Fatal(err)
	}
	ps := &SettingsService{plain}
	pv, _ := ps.Get()
	if len(pv.SetBy) != 0 || pv.Model != "saved-model" {
		t.Fatalf("no flags: SetBy %v, model %q", pv.SetBy, pv.Model)
	}
	if _, err := ps.Save(SettingsInput{BaseURL: pv.BaseURL, Model: "next-model", ToolCallMode: pv.ToolCallMode}); err != nil {
		t.Fatal(err)
	}
	if d, err := plain.deps(); err != nil || d.ModelName != "next-model" {
		t.Fatalf("next run after saving next-model: %q, %v", d.ModelName, err)
	}
}

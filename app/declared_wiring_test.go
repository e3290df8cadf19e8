package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// TestSettingsSaveKeepsHooks checks that saving the settings dialog, which has no hooks
// field, keeps the hooks the user wrote in config.json.
func TestSettingsSaveKeepsHooks(t *testing.T) {
	dir := t.TempDir()
	hooks := `{"model":"m","hooks":{"PostToolUse":[{"name":"links","matcher":"web_fetch","command":["/bin/true"]}]}}`
	if err := os.WriteFile(filepath.Join(dir, config.ConfigFile), []byte(hooks), 0o600); err != nil {
		t.Fatal(err)
	}
	core, err := NewCore(context.Background(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { core.Close(context.Background()) })
	if _, err := (&SettingsService{core}).Save(SettingsInput{Model: "other"}); err != nil {
		t.Fatal(err)
	}
	saved, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Hooks["PostToolUse"]) != 1 || saved.Hooks["PostToolUse"][0].Name != "links" {
		t.Errorf("hooks after Save = %+v", saved.Hooks)
	}
}

// TestDeclaredChangesReachSubscribersAndSinks checks the Core's wiring of the declared
// store: a change made through Core.Declared reaches SubscribeDeclared with its log seq
// and the event sinks as an artifact_changed event carrying the artifact.
func TestDeclaredChangesReachSubscribersAndSinks(t *testing.T) {
	core := newCore(t, apptest.EchoWorld(t))
	ctx := context.Background()
	conv := struct{ ID string }{"links"}
	if err := core.Store().CreateConversation(ctx, store.Conversation{ID: conv.ID, Title: "Links"}); err != nil {
		t.Fatal(err)
	}
	var got []declared.LoggedChange
	remove := core.SubscribeDeclared(func(id string, ch declared.LoggedChange) {
		if id == conv.ID {
			got = append(got, ch)
		}
	})
	defer remove()
	var sunk int
	defer core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.ArtifactChanged && ev.ConversationID == conv.ID {
			sunk++
		}
	}))()
	if _, err := core.Declared().Upsert(ctx, conv.ID, []declared.Input{{Title: "Dataset", URL: "https://data.example.org/x", Source: declared.SourceClient}}, true); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Seq <= 0 || got[0].Action != declared.ActionCreated || got[0].Artifact.URL != "https://data.example.org/x" {
		t.Fatalf("subscriber got %+v", got)
	}
	if sunk != 1 {
		t.Errorf("sinks got %d artifact_changed events, want 1", sunk)
	}
	ws, err := core.Workspace(ctx, conv.ID)
	if err != nil || ws != filepath.Join(core.DataDir(), "workspaces", conv.ID) {
		t.Errorf("Workspace = %q, %v", ws, err)
	}
}

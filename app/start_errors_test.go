package app

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// TestNewCoreRefusesDamagedFiles checks damaged files at the service layer: a damaged
// artifactflow.db or an unreadable config.json stops NewCore with the sentinel, a stable
// code and a message naming the file; neither file is changed and no database is created
// beside a broken config.
func TestNewCoreRefusesDamagedFiles(t *testing.T) {
	random := make([]byte, 4096)
	rand.New(rand.NewSource(4)).Read(random)
	tests := []struct {
		name     string
		file     string
		content  []byte
		sentinel error
		code     string
		wantText []string
	}{
		{"damaged database", config.DBFile, random, store.ErrCorrupt, CodeDatabaseCorrupt,
			[]string{"is damaged", "move it aside", "restore a backup", "it was not changed"}},
		{"config.json not JSON", config.ConfigFile, []byte("{\n  \"model\": \"m\"\n  \"base_url\": \"x\"\n}\n"), config.ErrBadFile, CodeSettingsFileInvalid,
			[]string{"is not valid JSON at line 3, column 3", "fix it in a text editor", "move it aside", "it was not changed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			core, err := NewCore(context.Background(), Options{DataDir: dir})
			if err == nil {
				_ = core.Close(context.Background())
				t.Fatal("NewCore succeeded, want an error")
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("NewCore error = %v, want %v", err, tt.sentinel)
			}
			if got := ErrorCode(err); got != tt.code {
				t.Errorf("ErrorCode = %q, want %q", got, tt.code)
			}
			for _, want := range append(tt.wantText, path) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not contain %q", err, want)
				}
			}
			if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, tt.content) {
				t.Errorf("%s changed (%v)", tt.file, err)
			}
			if tt.file == config.ConfigFile {
				if _, err := os.Stat(filepath.Join(dir, config.DBFile)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a database was created beside the broken config.json (stat: %v)", err)
				}
			}
		})
	}
}

// TestSettingsSaveKeepsHandBrokenConfig: config.json broken by hand while the app runs is
// not replaced when the user then changes a setting; the call fails with
// settings_file_invalid naming the file.
func TestSettingsSaveKeepsHandBrokenConfig(t *testing.T) {
	dir := t.TempDir()
	core, err := NewCore(context.Background(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close(context.Background())
	svc := core.Services().Settings
	if _, err := svc.SetLanguage(config.LanguageEnglish); err != nil {
		t.Fatalf("SetLanguage on a good file: %v", err)
	}
	path := filepath.Join(dir, config.ConfigFile)
	broken := []byte("{\"language\": \"en\", \"model\": }")
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = svc.SetLanguage(config.LanguageChinese)
	if ae := ToAppError(err); ae == nil || ae.Code != CodeSettingsFileInvalid || !strings.Contains(ae.Message, path) {
		t.Fatalf("SetLanguage over a broken file = %v, want %s naming %s", err, CodeSettingsFileInvalid, path)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, broken) {
		t.Errorf("config.json was replaced: %q (%v)", b, err)
	}
}

// TestDamageFoundAfterOpenIsDatabaseCorrupt: damage the header check at start cannot see
// (pages in the middle of the file overwritten) is found when a query reaches it; the
// call's error is database_corrupt with the way out, SQLite's text in Detail.
func TestDamageFoundAfterOpenIsDatabaseCorrupt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), config.DBFile)
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	evs := make([]events.Event, 400)
	for i := range evs {
		evs[i] = events.Event{Type: events.LLMComplete, ConversationID: "c", MessageID: "m", Seq: int64(i + 1),
			Data: events.MustData(events.DataLLMComplete{Content: strings.Repeat("words ", 60)})}
	}
	if err := db.AppendEvents(ctx, evs...); err != nil {
		t.Fatal(err)
	}
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	for off := len(b) / 2 / page * page; off+page <= len(b)-page; off += page {
		copy(b[off:off+page], bytes.Repeat([]byte{0xA5}, page)) // the events' pages, not the header
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err = store.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open = %v; the damage was meant to be past the header check", err)
	}
	defer db.Close()
	_, err = db.ListEvents(ctx, store.EventQuery{ConversationID: "c"})
	if err == nil {
		t.Fatal("ListEvents over damaged pages succeeded")
	}
	ae := ToAppError(err)
	if ae.Code != CodeDatabaseCorrupt || !strings.Contains(ae.Message, "move the file aside or restore a backup") || ae.Detail == "" {
		t.Errorf("ToAppError(%v) = %+v, want database_corrupt with the way out and the detail", err, ae)
	}
}

package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestPinArchiveSurviveReopen pins and archives conversations, reopens the database and
// finds both marks, with updated_at (the list's order) unchanged; unpinning and restoring
// clear them, and unknown ids are ErrNotFound.
func TestPinArchiveSurviveReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "af.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		createConv(t, db, id)
	}
	before, err := db.GetConversation(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetPinned(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	if err := db.SetArchived(ctx, "b", true); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPinned(ctx, "b", true); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := db.ListConversations(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Conversation{}
	for _, c := range list {
		got[c.ID] = c
	}
	if got["a"].PinnedAt.IsZero() || !got["a"].ArchivedAt.IsZero() {
		t.Errorf("a after reopen: pinned %v archived %v, want pinned only", got["a"].PinnedAt, got["a"].ArchivedAt)
	}
	if got["b"].PinnedAt.IsZero() || got["b"].ArchivedAt.IsZero() {
		t.Errorf("b after reopen: pinned %v archived %v, want both", got["b"].PinnedAt, got["b"].ArchivedAt)
	}
	if !got["c"].PinnedAt.IsZero() || !got["c"].ArchivedAt.IsZero() {
		t.Errorf("c: pinned %v archived %v, want neither", got["c"].PinnedAt, got["c"].ArchivedAt)
	}
	if !got["a"].UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("pinning changed updated_at: %v, was %v", got["a"].UpdatedAt, before.UpdatedAt)
	}

	if err := db.SetPinned(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	if err := db.SetArchived(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	a, _ := db.GetConversation(ctx, "a")
	b, _ := db.GetConversation(ctx, "b")
	if !a.PinnedAt.IsZero() || !b.ArchivedAt.IsZero() || b.PinnedAt.IsZero() {
		t.Errorf("after unpin a / unarchive b: a pinned %v, b archived %v pinned %v; want b still pinned only", a.PinnedAt, b.ArchivedAt, b.PinnedAt)
	}

	for name, f := range map[string]func() error{
		"pin":     func() error { return db.SetPinned(ctx, "nope", true) },
		"archive": func() error { return db.SetArchived(ctx, "nope", true) },
		"title": func() error {
			_, err := db.SetModelTitle(ctx, "nope", "x")
			return err
		},
	} {
		if err := f(); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s of an unknown conversation: %v, want ErrNotFound", name, err)
		}
	}
}

// TestModelTitleNeverReplacesUserTitle: the model's title replaces only a title made from
// the question, once; a rename before it lands (the race of a slow title call) wins, and so
// do titles from before the column existed.
func TestModelTitleNeverReplacesUserTitle(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	tests := []struct {
		name      string
		source    string
		rename    bool
		wantSet   bool
		wantTitle string
	}{
		{"made from the question", TitleFromQuestion, false, true, "Model title"},
		{"renamed by the user first", TitleFromQuestion, true, false, "User title"},
		{"already the model's", TitleFromModel, false, false, "Question title"},
		{"from before title sources", "", false, false, "Question title"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := string(rune('a' + i))
			if err := db.CreateConversation(ctx, Conversation{ID: id, Title: "Question title", TitleSource: tt.source}); err != nil {
				t.Fatal(err)
			}
			if tt.rename {
				if err := db.RenameConversation(ctx, id, "User title"); err != nil {
					t.Fatal(err)
				}
			}
			set, err := db.SetModelTitle(ctx, id, "Model title")
			if err != nil || set != tt.wantSet {
				t.Fatalf("SetModelTitle = %v, %v; want %v", set, err, tt.wantSet)
			}
			c, err := db.GetConversation(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if c.Title != tt.wantTitle {
				t.Errorf("title = %q, want %q", c.Title, tt.wantTitle)
			}
			// A rename after the model's title is the user's, and stays.
			if err := db.RenameConversation(ctx, id, "Later"); err != nil {
				t.Fatal(err)
			}
			if set, _ := db.SetModelTitle(ctx, id, "Model again"); set {
				t.Error("a model title replaced a rename")
			}
			if c, _ := db.GetConversation(ctx, id); c.Title != "Later" || c.TitleSource != TitleFromUser {
				t.Errorf("after rename: %q (%q), want Later (user)", c.Title, c.TitleSource)
			}
		})
	}
	if err := db.CreateConversation(ctx, Conversation{ID: "bad", TitleSource: "robot"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown title source: %v, want ErrInvalid", err)
	}
}

// TestOrganiseMigrationKeepsOldRows undoes the migration that adds pinned_at, archived_at
// and title_source, writes a conversation as a build without them did, and reopens: the
// columns are there, the old conversation is neither pinned nor archived, and its title
// (which may be a rename the old build did not record) is never replaced by a model's.
func TestOrganiseMigrationKeepsOldRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "af.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`ALTER TABLE conversations DROP COLUMN pinned_at`, `ALTER TABLE conversations DROP COLUMN archived_at`,
		`ALTER TABLE conversations DROP COLUMN title_source`, `DELETE FROM schema_migrations WHERE version = 9`,
		`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('old', 'Renamed long ago', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
	} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.GetConversation(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if !c.PinnedAt.IsZero() || !c.ArchivedAt.IsZero() || c.TitleSource != "" {
		t.Errorf("old conversation after the migration: %+v", c)
	}
	if set, err := db.SetModelTitle(ctx, "old", "Model"); set || err != nil {
		t.Errorf("SetModelTitle on an old conversation = %v, %v; want false, nil", set, err)
	}
	if err := db.SetPinned(ctx, "old", true); err != nil {
		t.Errorf("pin after the migration: %v", err)
	}
}

// TestOrganiseTravelsWithExportAndBackup: a pinned, archived conversation with the model's
// title keeps all three through a conversation file (ExportConversation →
// ImportConversation into another database) and through a backup of the database.
func TestOrganiseTravelsWithExportAndBackup(t *testing.T) {
	ctx := context.Background()
	src := openTestDB(t)
	if err := src.CreateConversation(ctx, Conversation{ID: "c1", Title: "Question", TitleSource: TitleFromQuestion}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.SetModelTitle(ctx, "c1", "Model title"); err != nil {
		t.Fatal(err)
	}
	if err := src.SetPinned(ctx, "c1", true); err != nil {
		t.Fatal(err)
	}
	if err := src.SetArchived(ctx, "c1", true); err != nil {
		t.Fatal(err)
	}
	check := func(where string, c Conversation) {
		t.Helper()
		if c.PinnedAt.IsZero() || c.ArchivedAt.IsZero() || c.Title != "Model title" || c.TitleSource != TitleFromModel {
			t.Errorf("%s: pinned %v archived %v title %q (%s); want pinned, archived, the model's title", where, c.PinnedAt, c.ArchivedAt, c.Title, c.TitleSource)
		}
	}

	rows, schema := exportRows(t, src, "c1")
	dst := openTestDB(t)
	res, err := dst.ImportConversation(ctx, "", schema, rows.replay)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dst.GetConversation(ctx, res.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	check("imported", c)

	path := filepath.Join(t.TempDir(), "copy.db")
	if err := src.BackupTo(ctx, path); err != nil {
		t.Fatal(err)
	}
	restored, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	c, err = restored.GetConversation(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	check("backup", c)
}

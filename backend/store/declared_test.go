package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// declaredRow is a valid row for conversation-independent tests.
func declaredRow(id string, created time.Time) DeclaredRow {
	return DeclaredRow{
		ID: id, IdentityKey: "c:url:https://example.com/" + id, Kind: "link", Storage: "external_url",
		Title: "Title " + id, Status: "available", Source: "tool", RetentionSource: "tool",
		URL: "https://example.com/" + id, CreatedAt: created, UpdatedAt: created,
	}
}

func TestConversationWorkspace(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c1")

	if ws, err := db.ConversationWorkspace(ctx, "c1"); err != nil || ws != "" {
		t.Fatalf("default workspace = %q, %v; want \"\" (the default folder)", ws, err)
	}
	if err := db.SetConversationWorkspace(ctx, "c1", "/home/u/research/../proj"); err != nil {
		t.Fatal(err)
	}
	if ws, err := db.ConversationWorkspace(ctx, "c1"); err != nil || ws != "/home/u/proj" {
		t.Fatalf("workspace = %q, %v; want /home/u/proj (cleaned)", ws, err)
	}
	if err := db.SetConversationWorkspace(ctx, "c1", ""); err != nil {
		t.Fatal(err)
	}
	if ws, _ := db.ConversationWorkspace(ctx, "c1"); ws != "" {
		t.Fatalf("workspace after reset = %q, want \"\"", ws)
	}
	if err := db.SetConversationWorkspace(ctx, "c1", "relative/dir"); !errors.Is(err, ErrInvalid) {
		t.Errorf("relative workspace: err = %v, want ErrInvalid", err)
	}
	if err := db.SetConversationWorkspace(ctx, "nope", "/x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown conversation: set err = %v, want ErrNotFound", err)
	}
	if _, err := db.ConversationWorkspace(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown conversation: get err = %v, want ErrNotFound", err)
	}
}

func TestDeclaredRowsRoundTrip(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	t0 := time.Date(2026, 6, 26, 10, 0, 0, 123456789, time.UTC)
	size := int64(42)

	err := db.DeclaredTx(ctx, "c", func(tx *DeclaredTx) error {
		full := DeclaredRow{
			ID: "a1", IdentityKey: "c:workspace:out/report.html", Kind: "html", Storage: "workspace",
			Title: "Report", Description: "line 1\nline 2", Status: "available", Source: "client",
			WorkspacePath: "out/report.html", MimeType: "text/html", SizeBytes: &size, ToolCallID: "call_1",
			ToolName: "record_artifact", HookName: "h", ClientID: "cli-1", ClientRetained: true,
			RetainedBy: []string{"cli-1", "cli-2"}, RetentionSource: "client", Metadata: json.RawMessage(`{"a":1}`),
			CreatedAt: t0, UpdatedAt: t0, LastStatAt: t0,
		}
		got, err := tx.Insert(full)
		if err != nil {
			return err
		}
		if got.InsertSeq != 1 {
			return fmt.Errorf("first insert seq = %d, want 1", got.InsertSeq)
		}
		// Same created_at: insert order breaks the tie; an earlier created_at sorts first.
		if r, err := tx.Insert(declaredRow("a2", t0)); err != nil || r.InsertSeq != 2 {
			return fmt.Errorf("second insert: seq %d, %v", r.InsertSeq, err)
		}
		if _, err := tx.Insert(declaredRow("a0", t0.Add(-time.Second))); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.ListDeclared(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	if want := []string{"a0", "a1", "a2"}; !slices.Equal(ids, want) {
		t.Fatalf("order = %v, want %v (created_at, then insert_seq)", ids, want)
	}
	a1 := rows[1]
	if a1.Description != "line 1\nline 2" || a1.SizeBytes == nil || *a1.SizeBytes != 42 || !a1.ClientRetained ||
		!slices.Equal(a1.RetainedBy, []string{"cli-1", "cli-2"}) || a1.ClientID != "cli-1" || a1.HookName != "h" ||
		string(a1.Metadata) != `{"a":1}` || !a1.CreatedAt.Equal(t0) || !a1.LastStatAt.Equal(t0) || a1.InsertSeq != 1 {
		t.Errorf("round trip lost data: %+v", a1)
	}
	if rows[2].SizeBytes != nil || rows[2].Metadata != nil || rows[2].RetainedBy != nil || !rows[2].LastStatAt.IsZero() {
		t.Errorf("absent values should stay absent: %+v", rows[2])
	}

	// Update, SetStat, Delete.
	err = db.DeclaredTx(ctx, "c", func(tx *DeclaredTx) error {
		r := a1
		r.Title, r.ClientRetained, r.RetainedBy, r.Metadata = "Report 2", false, nil, nil
		r.UpdatedAt = t0.Add(time.Hour)
		r.InsertSeq, r.CreatedAt = 99, t0.Add(time.Hour) // never changed by Update
		if err := tx.Update(r); err != nil {
			return err
		}
		if err := tx.SetStat("a1", "missing", "the file does not exist", nil, t0.Add(2*time.Hour)); err != nil {
			return err
		}
		if err := tx.Delete("a2"); err != nil {
			return err
		}
		if err := tx.Delete("a2"); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("second delete: %v, want ErrNotFound", err)
		}
		if err := tx.Update(declaredRow("zz", t0)); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("update of unknown row: %v, want ErrNotFound", err)
		}
		if _, err := tx.Get("a2"); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("get deleted: %v, want ErrNotFound", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.DeclaredTx(ctx, "c", func(tx *DeclaredTx) error {
		r, err := tx.Get("a1")
		if err != nil {
			return err
		}
		if r.Title != "Report 2" || r.ClientRetained || r.RetainedBy != nil || r.Metadata != nil ||
			r.Status != "missing" || r.MissingReason != "the file does not exist" || r.SizeBytes != nil ||
			r.InsertSeq != 1 || !r.CreatedAt.Equal(t0) || !r.UpdatedAt.Equal(t0.Add(time.Hour)) ||
			!r.LastStatAt.Equal(t0.Add(2*time.Hour)) {
			return fmt.Errorf("after update and stat: %+v", r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDeclaredTxErrors(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	t0 := time.Now()

	called := false
	err := db.DeclaredTx(ctx, "nope", func(*DeclaredTx) error { called = true; return nil })
	if !errors.Is(err, ErrNotFound) || called {
		t.Errorf("unknown conversation: err %v, fn called %v; want ErrNotFound without a call", err, called)
	}
	if _, err := db.ListDeclared(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ListDeclared(unknown) = %v, want ErrNotFound", err)
	}
	if _, err := db.DeclaredChangesSince(ctx, "nope", 0, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("DeclaredChangesSince(unknown) = %v, want ErrNotFound", err)
	}

	// fn's error rolls everything back and is returned unchanged.
	boom := errors.New("boom")
	err = db.DeclaredTx(ctx, "c", func(tx *DeclaredTx) error {
		if _, err := tx.Insert(declaredRow("a", t0)); err != nil {
			return err
		}
		if _, err := tx.AppendChanges(t0, json.RawMessage(`{"action":"created"}`)); err != nil {
			return err
		}
		return boom
	})
	if err != boom {
		t.Fatalf("err = %v, want boom unchanged", err)
	}
	if rows, _ := db.ListDeclared(ctx, "c"); len(rows) != 0 {
		t.Errorf("rolled back insert left %d rows", len(rows))
	}
	if chs, _ := db.DeclaredChangesSince(ctx, "c", 0, 0); len(chs) != 0 {
		t.Errorf("rolled back append left %d changes", len(chs))
	}

	tests := []struct {
		name string
		row  func(r *DeclaredRow)
		want error
	}{
		{"empty id", func(r *DeclaredRow) { r.ID = "" }, ErrInvalid},
		{"empty identity", func(r *DeclaredRow) { r.IdentityKey = "" }, ErrInvalid},
		{"empty retention source", func(r *DeclaredRow) { r.RetentionSource = "" }, ErrInvalid},
		{"zero created", func(r *DeclaredRow) { r.CreatedAt = time.Time{} }, ErrInvalid},
		{"bad metadata", func(r *DeclaredRow) { r.Metadata = json.RawMessage(`{`) }, ErrInvalid},
		{"duplicate id", func(r *DeclaredRow) { r.IdentityKey = "other" }, ErrDuplicate},
		{"duplicate identity", func(r *DeclaredRow) { r.ID = "other" }, ErrDuplicate},
	}
	if err := db.DeclaredTx(ctx, "c", func(tx *DeclaredTx) error {
		_, err := tx.Insert(declaredRow("base", t0))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := declaredRow("base", t0)
			tt.row(&r)
			err := db.DeclaredTx(ctx, "c", func(tx *DeclaredTx) error {
				_, err := tx.Insert(r)
				return err
			})
			if !errors.Is(err, tt.want) {
				t.Errorf("Insert: err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestDeclaredChangeLog(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	createConv(t, db, "other")
	t0 := time.Now()

	appendN := func(conv string, from, n int) []int64 {
		t.Helper()
		var seqs []int64
		err := db.DeclaredTx(ctx, conv, func(tx *DeclaredTx) error {
			raws := make([]json.RawMessage, n)
			for i := range raws {
				raws[i] = json.RawMessage(fmt.Sprintf(`{"n":%d}`, from+i))
			}
			var err error
			seqs, err = tx.AppendChanges(t0, raws...)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return seqs
	}
	otherSeqs := appendN("other", 0, 3)
	seqs := appendN("c", 0, 10)
	seqs = append(seqs, appendN("c", 10, DeclaredChangesKept)...) // 1,010 appended in all
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Fatalf("seqs not increasing at %d: %d then %d", i, seqs[i-1], seqs[i])
		}
	}
	all, err := db.DeclaredChangesSince(ctx, "c", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != DeclaredChangesKept {
		t.Fatalf("kept %d changes, want %d", len(all), DeclaredChangesKept)
	}
	if all[0].Seq != seqs[10] || string(all[0].Change) != `{"n":10}` || all[len(all)-1].Seq != seqs[len(seqs)-1] {
		t.Errorf("kept %d..%d (%s), want the last %d: %d..%d", all[0].Seq, all[len(all)-1].Seq, all[0].Change,
			DeclaredChangesKept, seqs[10], seqs[len(seqs)-1])
	}
	if o, _ := db.DeclaredChangesSince(ctx, "other", 0, 0); len(o) != 3 || o[0].Seq != otherSeqs[0] {
		t.Errorf("pruning c touched other's log: %d entries", len(o))
	}
	page, err := db.DeclaredChangesSince(ctx, "c", seqs[500], 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 5 || page[0].Seq != seqs[501] || page[4].Seq != seqs[505] {
		t.Errorf("page after %d = %d entries from %d, want 5 from %d", seqs[500], len(page), page[0].Seq, seqs[501])
	}
	if err := db.DeclaredTx(ctx, "c", func(tx *DeclaredTx) error {
		_, err := tx.AppendChanges(t0, json.RawMessage(`not json`))
		return err
	}); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid change JSON: %v, want ErrInvalid", err)
	}

	// Deleting the conversation deletes its artifacts and log.
	if err := db.DeclaredTx(ctx, "c", func(tx *DeclaredTx) error {
		_, err := tx.Insert(declaredRow("a", t0))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteConversation(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM declared_artifacts WHERE conversation_id = 'c')
		+ (SELECT count(*) FROM declared_changes WHERE conversation_id = 'c')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d declared rows left after deleting the conversation", n)
	}
}

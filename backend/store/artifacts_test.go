package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// newArtifact creates session "s" and artifact "doc" at version 1 with content "v1".
func newArtifact(t *testing.T, db *DB) Artifact {
	t.Helper()
	createConv(t, db, "s")
	a, err := db.CreateArtifact(context.Background(), ArtifactWrite{SessionID: "s", ID: "doc", ContentType: "markdown",
		Title: "Doc", Content: "v1", Version: 1, UpdateType: UpdateCreate, MessageID: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func versionNumbers(t *testing.T, db *DB, sessionID, id string) []int {
	t.Helper()
	vs, err := db.ListVersions(context.Background(), sessionID, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, v := range vs {
		out = append(out, v.Version)
	}
	return out
}

func TestCreateArtifact(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	a := newArtifact(t, db)
	want := Artifact{ID: "doc", SessionID: "s", ContentType: "markdown", Title: "Doc", Content: "v1",
		CurrentVersion: 1, LockVersion: 1, Source: "agent", CreatedAt: a.CreatedAt, UpdatedAt: a.CreatedAt}
	if !reflect.DeepEqual(a, want) || a.CreatedAt.IsZero() {
		t.Errorf("CreateArtifact = %+v\nwant %+v", a, want)
	}
	got, err := db.GetArtifact(ctx, "s", "doc")
	if err != nil || !reflect.DeepEqual(got, a) {
		t.Errorf("GetArtifact = %+v, %v\nwant %+v", got, err, a)
	}

	createConv(t, db, "s2")
	base := ArtifactWrite{SessionID: "s", ID: "doc", ContentType: "markdown", Title: "T", Content: "x", Version: 1, UpdateType: UpdateCreate}
	with := func(f func(w *ArtifactWrite)) ArtifactWrite { w := base; f(&w); return w }
	tests := []struct {
		name string
		w    ArtifactWrite
		want error
	}{
		{"duplicate id", base, ErrDuplicate},
		{"same id in another session is fine", with(func(w *ArtifactWrite) { w.SessionID = "s2" }), nil},
		{"missing session", with(func(w *ArtifactWrite) { w.SessionID = "nope" }), ErrNotFound},
		{"empty id", with(func(w *ArtifactWrite) { w.ID = "" }), ErrInvalid},
		{"empty content type", with(func(w *ArtifactWrite) { w.ID = "n"; w.ContentType = "" }), ErrInvalid},
		{"version zero", with(func(w *ArtifactWrite) { w.ID = "n"; w.Version = 0 }), ErrInvalid},
		{"unknown update type", with(func(w *ArtifactWrite) { w.ID = "n"; w.UpdateType = "patch" }), ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := db.CreateArtifact(ctx, tt.w); !errors.Is(err, tt.want) {
				t.Errorf("CreateArtifact(%+v) = %v, want %v", tt.w, err, tt.want)
			}
		})
	}
	if got, _ := db.GetArtifact(ctx, "s", "doc"); got.Content != "v1" {
		t.Errorf("duplicate create changed the artifact: content %q", got.Content)
	}
	if _, err := db.GetArtifact(ctx, "s", "n"); !errors.Is(err, ErrNotFound) {
		t.Errorf("invalid creates left a row: err = %v", err)
	}
}

func TestUpdateArtifactContent(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	newArtifact(t, db)

	up := ArtifactWrite{SessionID: "s", ID: "doc", Content: "v3 content", Version: 3, UpdateType: UpdateUpdate,
		Changes: []Change{{Old: "v1", New: "v3 content"}}, MessageID: "m2", ExpectedLockVersion: 1}
	a, err := db.UpdateArtifactContent(ctx, up)
	if err != nil {
		t.Fatal(err)
	}
	if a.Content != "v3 content" || a.Title != "Doc" || a.CurrentVersion != 3 || a.LockVersion != 2 || a.ContentType != "markdown" {
		t.Errorf("after update: %+v; want content updated, title kept, version 3, lock 2", a)
	}
	if got, _ := db.GetArtifact(ctx, "s", "doc"); !reflect.DeepEqual(got, a) {
		t.Errorf("GetArtifact = %+v, want returned %+v", got, a)
	}
	if got := versionNumbers(t, db, "s", "doc"); !reflect.DeepEqual(got, []int{1, 3}) {
		t.Errorf("versions = %v, want sparse [1 3]", got)
	}

	// Each case starts from the state above (version 3, lock 2) and must leave it unchanged.
	good := ArtifactWrite{SessionID: "s", ID: "doc", Title: "New title", Content: "v5", Version: 5, UpdateType: UpdateRewrite, ExpectedLockVersion: 2}
	with := func(f func(w *ArtifactWrite)) ArtifactWrite { w := good; f(&w); return w }
	tests := []struct {
		name  string
		w     ArtifactWrite
		setup string // raw SQL run first
		want  error
	}{
		{"stale lock", with(func(w *ArtifactWrite) { w.ExpectedLockVersion = 1 }), "", ErrVersionConflict},
		{"version not above current", with(func(w *ArtifactWrite) { w.Version = 3 }), "", ErrVersionConflict},
		{"missing artifact", with(func(w *ArtifactWrite) { w.ID = "ghost" }), "", ErrNotFound},
		{"missing session", with(func(w *ArtifactWrite) { w.SessionID = "ghost" }), "", ErrNotFound},
		{"version row already exists", good,
			`INSERT INTO artifact_versions (artifact_id, session_id, version, content, update_type) VALUES ('doc', 's', 5, 'stray', 'update')`,
			ErrDuplicate},
		{"unknown update type", with(func(w *ArtifactWrite) { w.UpdateType = "" }), "", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != "" {
				if _, err := db.SQL().Exec(tt.setup); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.UpdateArtifactContent(ctx, tt.w); !errors.Is(err, tt.want) {
				t.Fatalf("UpdateArtifactContent = %v, want %v", err, tt.want)
			}
			got, err := db.GetArtifact(ctx, "s", "doc")
			if err != nil || !reflect.DeepEqual(got, a) {
				t.Errorf("artifact changed by a failed update: %+v, %v\nwant %+v", got, err, a)
			}
		})
	}

	// Title given → replaced; the stray version 5 blocks 5 but not 6.
	up6 := with(func(w *ArtifactWrite) { w.Version = 6 })
	a6, err := db.UpdateArtifactContent(ctx, up6)
	if err != nil {
		t.Fatal(err)
	}
	if a6.Title != "New title" || a6.LockVersion != 3 || a6.CurrentVersion != 6 {
		t.Errorf("after second update: %+v", a6)
	}
	if got := versionNumbers(t, db, "s", "doc"); !reflect.DeepEqual(got, []int{1, 3, 5, 6}) {
		t.Errorf("versions = %v, want [1 3 5 6]", got)
	}
}

func TestConcurrentUpdatesOneWins(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "s")
	const rounds = 10
	for r := 0; r < rounds; r++ {
		id := fmt.Sprintf("doc%d", r)
		if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: "s", ID: id, ContentType: "markdown", Title: "T",
			Content: "v1", Version: 1, UpdateType: UpdateCreate}); err != nil {
			t.Fatal(err)
		}
		// Both writers read lock_version 1; they record different versions (2 and 3) so only
		// the lock, not the version check, can stop the second one.
		start := make(chan struct{})
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[g] = db.UpdateArtifactContent(ctx, ArtifactWrite{SessionID: "s", ID: id, Content: fmt.Sprintf("writer %d", g),
					Version: 2 + g, UpdateType: UpdateRewrite, ExpectedLockVersion: 1})
			}()
		}
		close(start)
		wg.Wait()

		winner := -1
		for g, err := range errs {
			switch {
			case err == nil && winner == -1:
				winner = g
			case err == nil:
				t.Fatalf("round %d: both writers succeeded", r)
			case !errors.Is(err, ErrVersionConflict):
				t.Fatalf("round %d: writer %d: %v, want nil or ErrVersionConflict", r, g, err)
			}
		}
		if winner == -1 {
			t.Fatalf("round %d: no writer succeeded: %v", r, errs)
		}
		a, err := db.GetArtifact(ctx, "s", id)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("writer %d", winner); a.Content != want || a.LockVersion != 2 {
			t.Errorf("round %d: artifact content %q lock %d, want %q lock 2", r, a.Content, a.LockVersion, want)
		}
		if got, want := versionNumbers(t, db, "s", id), []int{1, 2 + winner}; !reflect.DeepEqual(got, want) {
			t.Errorf("round %d: versions %v, want %v", r, got, want)
		}
	}
}

func TestVersionsAndList(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	newArtifact(t, db)
	if _, err := db.UpdateArtifactContent(ctx, ArtifactWrite{SessionID: "s", ID: "doc", Content: "第二版", Version: 2,
		UpdateType: UpdateFuzzy, Changes: []Change{{Old: "v1", New: "第二版"}, {Old: "", New: "x"}}, Source: "user_upload",
		ExpectedLockVersion: 1}); err != nil {
		t.Fatal(err)
	}
	vs, err := db.ListVersions(ctx, "s", "doc")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 {
		t.Fatalf("ListVersions = %+v, want 2 versions", vs)
	}
	wantInfo := []VersionInfo{
		{Version: 1, UpdateType: UpdateCreate, Source: "agent", MessageID: "m1", Size: 2, CreatedAt: vs[0].CreatedAt},
		{Version: 2, UpdateType: UpdateFuzzy, Source: "user_upload", MessageID: "", Size: len("第二版"), CreatedAt: vs[1].CreatedAt},
	}
	if !reflect.DeepEqual(vs, wantInfo) || vs[0].CreatedAt.IsZero() {
		t.Errorf("ListVersions = %+v\nwant %+v", vs, wantInfo)
	}

	v2, err := db.GetVersion(ctx, "s", "doc", 2)
	if err != nil {
		t.Fatal(err)
	}
	want2 := ArtifactVersion{VersionInfo: wantInfo[1], ArtifactID: "doc", SessionID: "s", Content: "第二版",
		Changes: []Change{{Old: "v1", New: "第二版"}, {Old: "", New: "x"}}}
	if !reflect.DeepEqual(v2, want2) {
		t.Errorf("GetVersion(2) = %+v\nwant %+v", v2, want2)
	}
	v1, err := db.GetVersion(ctx, "s", "doc", 1)
	if err != nil || v1.Content != "v1" || v1.Changes != nil {
		t.Errorf("GetVersion(1) = %+v, %v; want content v1, nil changes", v1, err)
	}
	var raw string
	if err := db.SQL().QueryRow(`SELECT changes FROM artifact_versions WHERE version = 2`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if want := `[{"old":"v1","new":"第二版"},{"old":"","new":"x"}]`; raw != want {
		t.Errorf("stored changes = %s, want %s", raw, want)
	}

	notFound := []struct {
		name string
		fn   func() error
	}{
		{"GetVersion missing version", func() error { _, err := db.GetVersion(ctx, "s", "doc", 7); return err }},
		{"GetVersion missing artifact", func() error { _, err := db.GetVersion(ctx, "s", "ghost", 1); return err }},
		{"ListVersions missing artifact", func() error { _, err := db.ListVersions(ctx, "s", "ghost"); return err }},
		{"GetArtifact missing", func() error { _, err := db.GetArtifact(ctx, "s", "ghost"); return err }},
	}
	for _, tt := range notFound {
		if err := tt.fn(); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", tt.name, err)
		}
	}

	// ListArtifacts: creation order, only the session's own.
	createConv(t, db, "other")
	for _, w := range []ArtifactWrite{
		{SessionID: "s", ID: "b_second", ContentType: "python", Title: "B", Version: 1, UpdateType: UpdateCreate},
		{SessionID: "other", ID: "not_mine", ContentType: "markdown", Title: "X", Version: 1, UpdateType: UpdateCreate},
		{SessionID: "s", ID: "a_third", ContentType: "markdown", Title: "A", Version: 4, UpdateType: UpdateUpload, Source: "user_upload"},
	} {
		if _, err := db.CreateArtifact(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.ListArtifacts(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range list {
		ids = append(ids, a.ID)
	}
	if want := []string{"doc", "b_second", "a_third"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ListArtifacts = %v, want %v", ids, want)
	}
	if last := list[2]; last.CurrentVersion != 4 || last.Source != "user_upload" || last.Content != "" {
		t.Errorf("upload artifact = %+v", last)
	}
	if list, err := db.ListArtifacts(ctx, "ghost"); err != nil || len(list) != 0 {
		t.Errorf("ListArtifacts(unknown) = %v, %v; want empty", list, err)
	}
}

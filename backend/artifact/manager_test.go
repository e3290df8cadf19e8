package artifact

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"artifactflow/backend/store"
)

func openStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateConversation(context.Background(), store.Conversation{ID: "conv"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(context.Background(), store.Message{ID: "msg", ConversationID: "conv", Content: "q", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestOperations(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	m := NewManager(db, "conv", "msg")
	if _, err := m.Create(ctx, "task_plan", "markdown", "Plan", "- [ ] a\n- [ ] b\n- [ ] a"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		op      func() error
		wantErr error
		msg     string
	}{
		{"duplicate in cache", func() error { _, err := m.Create(ctx, "task_plan", "", "", "x"); return err }, ErrExists, "update_artifact"},
		{"bad id", func() error { _, err := m.Create(ctx, "bad id/..", "", "", "x"); return err }, ErrInvalidID, "letters"},
		{"not found", func() error { _, err := m.Update(ctx, "nope", "a", "b"); return err }, ErrNotFound, `"nope"; the existing artifacts are "task_plan"`},
		{"no match", func() error {
			_, err := m.Update(ctx, "task_plan", "quantum chromodynamics lecture notes", "x")
			return err
		}, ErrNoMatch, "read_artifact"},
		{"ambiguous names lines", func() error { _, err := m.Update(ctx, "task_plan", "- [ ] a", "x"); return err }, ErrAmbiguous, "lines 1, 3"},
		{"empty old_str", func() error { _, err := m.Update(ctx, "task_plan", "", "x"); return err }, ErrNoMatch, "empty"},
		{"read missing version", func() error { _, err := m.Read(ctx, "task_plan", 7); return err }, ErrNotFound, "version 7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op()
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.wantErr, tc.msg)
			}
		})
	}
	s, err := m.Update(ctx, "task_plan", "- [ ] b", "- [x] b")
	if err != nil || s.Version != 2 || s.Content != "- [ ] a\n- [x] b\n- [ ] a" {
		t.Fatalf("update = %+v, %v", s, err)
	}
	// Layer 2: a one-character typo still finds its place, recorded as update_fuzzy.
	if s, err = m.Update(ctx, "task_plan", "- [x] c", "- [x] b!"); err != nil || s.Content != "- [ ] a\n- [x] b!\n- [ ] a" {
		t.Fatalf("fuzzy update = %+v, %v", s, err)
	}
	if s.Version != 3 {
		t.Fatalf("version after fuzzy update = %d", s.Version)
	}
	if s, err = m.Rewrite(ctx, "task_plan", "- [x] all"); err != nil || s.Version != 4 {
		t.Fatalf("rewrite = %+v, %v", s, err)
	}
	if got, _ := m.Read(ctx, "task_plan", 0); got.Content != "- [x] all" {
		t.Fatalf("read sees %q, want the unflushed content", got.Content)
	}
	if failed := m.Flush(ctx); failed != nil {
		t.Fatal(failed)
	}
	// Create and three edits in one run leave one stored version, numbered 4 (the
	// in-memory number; versions are sparse). TestOneVersionPerRun covers the
	// case of exactly three operations.
	vs, err := db.ListVersions(ctx, "conv", "task_plan")
	if err != nil || len(vs) != 1 || vs[0].Version != 4 || vs[0].UpdateType != UpdateCreate || vs[0].MessageID != "msg" {
		t.Fatalf("versions = %+v, %v", vs, err)
	}
	// A new run sees the stored artifact: create is refused (checked against the DB) and an
	// update continues the numbering.
	m2 := NewManager(db, "conv", "msg")
	if _, err := m2.Create(ctx, "task_plan", "", "", "x"); !errors.Is(err, ErrExists) {
		t.Fatalf("create over stored artifact = %v", err)
	}
	if s, err := m2.Update(ctx, "task_plan", "all", "everything"); err != nil || s.Version != 5 {
		t.Fatalf("update in next run = %+v, %v", s, err)
	}
	if failed := m2.Flush(ctx); failed != nil {
		t.Fatal(failed)
	}
	v4, err := m2.Read(ctx, "task_plan", 4)
	if err != nil || v4.Content != "- [x] all" {
		t.Fatalf("read v4 = %+v, %v", v4, err)
	}
	vs, _ = db.ListVersions(ctx, "conv", "task_plan")
	if len(vs) != 2 || vs[1].Version != 5 || vs[1].UpdateType != UpdateUpdate {
		t.Fatalf("versions after second run = %+v", vs)
	}
}

func TestInventory(t *testing.T) {
	ctx := context.Background()
	m := NewManager(openStore(t), "conv", "msg")
	if inv, _ := m.Inventory(ctx); inv != "(no artifacts yet)" {
		t.Fatalf("empty inventory = %q", inv)
	}
	long := strings.Repeat("研", 250)
	_, _ = m.Create(ctx, "task_plan", "markdown", "Plan", "PLAN-TEXT")
	_, _ = m.Create(ctx, "research_report", "markdown", "Report", long)
	inv, err := m.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(inv, "PLAN-TEXT") {
		t.Fatal("task_plan belongs in the system prompt, not the inventory")
	}
	if !strings.Contains(inv, strings.Repeat("研", 200)+"…") || strings.Contains(inv, strings.Repeat("研", 201)) {
		t.Fatal("inventory preview must be the first 200 runes")
	}
	if !strings.Contains(inv, `id="research_report"`) || !strings.Contains(inv, `length="250"`) {
		t.Fatalf("inventory lacks id or length: %s", inv)
	}
	if plan, _ := m.TaskPlan(ctx); plan != "PLAN-TEXT" {
		t.Fatalf("TaskPlan = %q", plan)
	}
}

// TestOneVersionPerRun is the write-back rule: operations on one artifact
// during a run bump the in-memory version, and the flush at the end stores a single
// version carrying the last number; the numbers in between never exist.
func TestOneVersionPerRun(t *testing.T) {
	ctx := context.Background()
	create := func(m *Manager) error {
		_, err := m.Create(ctx, "task_plan", "markdown", "Plan", "- [✗] a\n- [✗] b")
		return err
	}
	tick := func(item string) func(m *Manager) error {
		return func(m *Manager) error { _, err := m.Update(ctx, "task_plan", "[✗] "+item, "[✓] "+item); return err }
	}
	rewrite := func(m *Manager) error { _, err := m.Rewrite(ctx, "task_plan", "- [✓] all"); return err }
	tests := []struct {
		name         string
		earlierRun   []func(*Manager) error // flushed before the run under test
		run          []func(*Manager) error
		wantVersions []int
		wantContent  string
		wantType     string
	}{
		{"create and two updates: one version, numbered 3", nil, []func(*Manager) error{create, tick("a"), tick("b")},
			[]int{3}, "- [✓] a\n- [✓] b", UpdateCreate},
		{"create, update and rewrite", nil, []func(*Manager) error{create, tick("a"), rewrite},
			[]int{3}, "- [✓] all", UpdateCreate},
		{"three updates of a stored artifact: versions 1 and 4", []func(*Manager) error{create},
			[]func(*Manager) error{tick("a"), tick("b"), func(m *Manager) error {
				_, err := m.Update(ctx, "task_plan", "[✓] b", "[✓] b (done)")
				return err
			}},
			[]int{1, 4}, "- [✓] a\n- [✓] b (done)", UpdateUpdate},
		{"a fuzzy update is not hidden by a later exact one", []func(*Manager) error{create},
			[]func(*Manager) error{func(m *Manager) error {
				_, err := m.Update(ctx, "task_plan", "- [✗] a\n- [✗] c", "- [✓] a\n- [✗] b") // one character off: Layer 2
				return err
			}, tick("b")},
			[]int{1, 3}, "- [✓] a\n- [✓] b", UpdateFuzzy},
		{"a rewrite outweighs updates", []func(*Manager) error{create},
			[]func(*Manager) error{tick("a"), rewrite, func(m *Manager) error {
				_, err := m.Update(ctx, "task_plan", "all", "all done")
				return err
			}},
			[]int{1, 4}, "- [✓] all done", UpdateRewrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openStore(t)
			if tt.earlierRun != nil {
				early := NewManager(db, "conv", "msg")
				for _, op := range tt.earlierRun {
					if err := op(early); err != nil {
						t.Fatal(err)
					}
				}
				if failed := early.Flush(ctx); failed != nil {
					t.Fatal(failed)
				}
			}
			m := NewManager(db, "conv", "msg")
			for i, op := range tt.run {
				if err := op(m); err != nil {
					t.Fatalf("operation %d: %v", i+1, err)
				}
			}
			if failed := m.Flush(ctx); failed != nil {
				t.Fatal(failed)
			}
			vs, err := db.ListVersions(ctx, "conv", "task_plan")
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, v := range vs {
				got = append(got, v.Version)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.wantVersions) {
				t.Fatalf("stored versions %v, want %v", got, tt.wantVersions)
			}
			last, err := db.GetVersion(ctx, "conv", "task_plan", vs[len(vs)-1].Version)
			if err != nil {
				t.Fatal(err)
			}
			if last.Content != tt.wantContent || last.UpdateType != tt.wantType || len(last.Changes) != len(tt.run)-btoi(tt.earlierRun == nil) {
				t.Fatalf("last version = %+v; want content %q, type %q and one change per edit", last, tt.wantContent, tt.wantType)
			}
			a, err := db.GetArtifact(ctx, "conv", "task_plan")
			if err != nil || a.CurrentVersion != tt.wantVersions[len(tt.wantVersions)-1] || a.Content != tt.wantContent {
				t.Fatalf("artifact = %+v, %v", a, err)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNotFoundTellsWhatToDo: the error the artifact tools get for an unknown id names the
// ids that exist (stored and created in this run) or says there are none, and says how
// to create it.
func TestNotFoundTellsWhatToDo(t *testing.T) {
	ctx := context.Background()
	many := func(m *Manager) {
		for i := range 25 {
			if _, err := m.Create(ctx, fmt.Sprintf("n%02d", i), "", "", "x"); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name    string
		stored  []string // flushed by an earlier run
		cached  []string // created in this run, not flushed
		fill    func(*Manager)
		op      func(*Manager) error
		want    string
		wantNot string
	}{
		{"update, no artifacts", nil, nil, nil,
			func(m *Manager) error { _, err := m.Update(ctx, "report", "a", "b"); return err },
			`artifact not found: "report"; this conversation has no artifacts yet: use create_artifact to create it`, ""},
		{"rewrite, stored and new ones listed in order", []string{"task_plan", "notes"}, []string{"draft"}, nil,
			func(m *Manager) error { _, err := m.Rewrite(ctx, "report", "x"); return err },
			`artifact not found: "report"; the existing artifacts are "draft", "notes", "task_plan": ` +
				`use one of these ids, or create_artifact to create "report"`, ""},
		{"read", []string{"research_report"}, nil, nil,
			func(m *Manager) error { _, err := m.Read(ctx, "report", 0); return err },
			`the existing artifacts are "research_report"`, ""},
		{"many ids are cut", nil, nil, many,
			func(m *Manager) error { _, err := m.Read(ctx, "report", 0); return err },
			`"n19" and 5 more: use one of these ids`, `"n20"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openStore(t)
			if len(tt.stored) > 0 {
				early := NewManager(db, "conv", "msg")
				for _, id := range tt.stored {
					if _, err := early.Create(ctx, id, "", "", "x"); err != nil {
						t.Fatal(err)
					}
				}
				if failed := early.Flush(ctx); failed != nil {
					t.Fatal(failed)
				}
			}
			m := NewManager(db, "conv", "msg")
			for _, id := range tt.cached {
				if _, err := m.Create(ctx, id, "", "", "x"); err != nil {
					t.Fatal(err)
				}
			}
			if tt.fill != nil {
				tt.fill(m)
			}
			err := tt.op(m)
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrNotFound containing %q", err, tt.want)
			}
			if tt.wantNot != "" && strings.Contains(err.Error(), tt.wantNot) {
				t.Fatalf("err = %v, should not contain %q", err, tt.wantNot)
			}
		})
	}
}

// flaky wraps the real store and makes writes fail on demand.
type flaky struct {
	*store.DB
	failCreate int          // fail this many CreateArtifact calls before the commit
	failErr    error        // the error those calls return; "database is locked" when nil
	onFail     func()       // called when a CreateArtifact call fails on purpose
	lieCreate  bool         // commit the first CreateArtifact but report an error
	lieUpdate  bool         // commit the first UpdateArtifactContent but report an error
	updates    atomic.Int32 // UpdateArtifactContent calls
}

func (f *flaky) UpdateArtifactContent(ctx context.Context, w store.ArtifactWrite) (store.Artifact, error) {
	f.updates.Add(1)
	a, err := f.DB.UpdateArtifactContent(ctx, w)
	if f.lieUpdate && err == nil {
		f.lieUpdate = false
		return store.Artifact{}, errors.New("disk I/O error after commit")
	}
	return a, err
}

func (f *flaky) CreateArtifact(ctx context.Context, w store.ArtifactWrite) (store.Artifact, error) {
	if f.failCreate > 0 {
		f.failCreate--
		if f.onFail != nil {
			f.onFail()
		}
		if f.failErr != nil {
			return store.Artifact{}, f.failErr
		}
		return store.Artifact{}, errors.New("database is locked")
	}
	a, err := f.DB.CreateArtifact(ctx, w)
	if f.lieCreate && err == nil {
		f.lieCreate = false
		return store.Artifact{}, errors.New("disk I/O error after commit")
	}
	return a, err
}

func TestFlushResilience(t *testing.T) {
	ctx := context.Background()
	t.Run("failed flush stays dirty and succeeds on retry", func(t *testing.T) {
		db := openStore(t)
		f := &flaky{DB: db, failCreate: FlushAttempts}
		m := NewManager(f, "conv", "msg")
		_, _ = m.Create(ctx, "report", "markdown", "R", "v1")
		_, _ = m.Create(ctx, "notes", "markdown", "N", "n1")
		failed := m.Flush(ctx)
		// "notes" sorts first and takes all three failures; "report" is written.
		if len(failed) != 1 || failed["notes"] == nil {
			t.Fatalf("failed = %v, want only notes", failed)
		}
		if _, err := db.GetArtifact(ctx, "conv", "report"); err != nil {
			t.Fatalf("report must be written despite the other failure: %v", err)
		}
		if m.Dirty() != 1 {
			t.Fatalf("dirty = %d, want 1", m.Dirty())
		}
		if failed := m.Flush(ctx); failed != nil {
			t.Fatalf("retry flush: %v", failed)
		}
		if a, err := db.GetArtifact(ctx, "conv", "notes"); err != nil || a.Content != "n1" {
			t.Fatalf("notes after retry = %+v, %v", a, err)
		}
	})
	t.Run("a commit that landed but reported an error is not duplicated", func(t *testing.T) {
		db := openStore(t)
		m := NewManager(&flaky{DB: db, lieCreate: true}, "conv", "msg")
		_, _ = m.Create(ctx, "report", "markdown", "R", "body")
		if failed := m.Flush(ctx); failed != nil {
			t.Fatalf("flush = %v, want success", failed)
		}
		vs, _ := db.ListVersions(ctx, "conv", "report")
		if len(vs) != 1 || m.Dirty() != 0 {
			t.Fatalf("versions = %+v dirty %d, want exactly one version and nothing dirty", vs, m.Dirty())
		}
	})
	t.Run("an update that landed but reported an error is not duplicated", func(t *testing.T) {
		db := seededReport(t, "draft one")
		f := &flaky{DB: db, lieUpdate: true}
		m := NewManager(f, "conv", "msg2")
		if _, err := m.Update(ctx, "report", "one", "two"); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Update(ctx, "report", "two", "three"); err != nil {
			t.Fatal(err)
		}
		if failed := m.Flush(ctx); failed != nil {
			t.Fatalf("flush = %v, want success", failed)
		}
		vs, _ := db.ListVersions(ctx, "conv", "report")
		v3, _ := db.GetVersion(ctx, "conv", "report", 3)
		if len(vs) != 2 || vs[1].Version != 3 || v3.Content != "draft three" || m.Dirty() != 0 || f.updates.Load() != 1 {
			t.Fatalf("versions = %+v, dirty %d, %d update calls; want versions 1 and 3, nothing dirty, no second write",
				vs, m.Dirty(), f.updates.Load())
		}
		// The lock version was refreshed from the store: the next edit flushes cleanly.
		if _, err := m.Update(ctx, "report", "three", "four"); err != nil {
			t.Fatal(err)
		}
		if failed := m.Flush(ctx); failed != nil {
			t.Fatalf("flush after the landed one = %v", failed)
		}
		if a, _ := db.GetArtifact(ctx, "conv", "report"); a.Content != "draft four" || a.CurrentVersion != 4 {
			t.Fatalf("artifact = %+v, want version 4 \"draft four\"", a)
		}
	})
	t.Run("a flush cut short by the context keeps the store error", func(t *testing.T) {
		db := openStore(t)
		errLocked := errors.New("database is locked")
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		m := NewManager(&flaky{DB: db, failCreate: 1, failErr: errLocked, onFail: cancel}, "conv", "msg")
		_, _ = m.Create(ctx, "report", "markdown", "R", "body")
		failed := m.Flush(cctx)
		err := failed["report"]
		if !errors.Is(err, context.Canceled) || !errors.Is(err, errLocked) {
			t.Fatalf("flush error = %v; want it to match both context.Canceled and the store error", err)
		}
		if m.Dirty() != 1 {
			t.Fatalf("dirty = %d, want the artifact kept for a later flush", m.Dirty())
		}
	})
	t.Run("an edit outside the run is a conflict, never overwritten", func(t *testing.T) {
		db := seededReport(t, "original")
		run := NewManager(db, "conv", "msg")
		if _, err := run.Update(ctx, "report", "original", "agent text"); err != nil {
			t.Fatal(err)
		}
		// The user saves an edit while the run holds its change in memory.
		a, _ := db.GetArtifact(ctx, "conv", "report")
		if _, err := db.UpdateArtifactContent(ctx, store.ArtifactWrite{SessionID: "conv", ID: "report", Content: "user text",
			Version: 2, UpdateType: store.UpdateUserEdit, Source: "user", ExpectedLockVersion: a.LockVersion}); err != nil {
			t.Fatal(err)
		}
		failed := run.Flush(ctx)
		if !errors.Is(failed["report"], store.ErrVersionConflict) {
			t.Fatalf("flush = %v, want a version conflict", failed)
		}
		if a, _ := db.GetArtifact(ctx, "conv", "report"); a.Content != "user text" {
			t.Fatalf("content = %q: the user's edit was overwritten", a.Content)
		}
	})
}

// BenchmarkFlush50 flushes 50 dirty artifacts (one transaction each) to a real SQLite file.
func BenchmarkFlush50(b *testing.B) {
	ctx := context.Background()
	db := openStore(b)
	body := strings.Repeat("Some research text with a [link](https://example.org). ", 40)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m := NewManager(db, "conv", "msg")
		for j := 0; j < 50; j++ {
			if _, err := m.Create(ctx, fmt.Sprintf("a%d_%d", i, j), "markdown", "T", body); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if failed := m.Flush(ctx); failed != nil {
			b.Fatal(failed)
		}
	}
}

func TestFuzzyUpdateRecorded(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	m := NewManager(db, "conv", "msg")
	_, _ = m.Create(ctx, "report", "markdown", "R", "人工智能的发展历程非常复杂。")
	// One wrong character (复杂 → 负杂): Layer 2 replaces it.
	s, err := m.Update(ctx, "report", "发展历程非常负杂", "发展历程非常曲折")
	if err != nil || s.Content != "人工智能的发展历程非常曲折。" {
		t.Fatalf("fuzzy update = %+v, %v", s, err)
	}
	m.Flush(ctx)
	m2 := NewManager(db, "conv", "msg2")
	if _, err := m2.Update(ctx, "report", "非常曲折", "非常曲析"); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Update(ctx, "report", "非常曲析", "非常曲折"); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Update(ctx, "report", "人工智能的发展历程非常曲折 。", "人工智能的历史。"); err != nil {
		t.Fatal(err)
	}
	m2.Flush(ctx)
	v, err := db.GetVersion(ctx, "conv", "report", 5)
	if err != nil || v.UpdateType != UpdateFuzzy || len(v.Changes) != 3 || v.Content != "人工智能的历史。" {
		t.Fatalf("version 5 = %+v, %v", v, err)
	}
}

func TestUserEdits(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	seed := NewManager(db, "conv", "msg")
	_, _ = seed.Create(ctx, "report", "markdown", "R", "v1 text")
	seed.Flush(ctx)
	ui := NewManager(db, "conv", "")
	s, err := ui.Edit(ctx, "report", 1, "user text", store.UpdateUserEdit)
	if err != nil || s.Version != 2 || s.Content != "user text" {
		t.Fatalf("edit = %+v, %v", s, err)
	}
	if _, err := ui.Edit(ctx, "report", 1, "stale edit", store.UpdateUserEdit); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("stale edit = %v, want ErrConflict naming the current version", err)
	}
	s, err = ui.Restore(ctx, "report", 1, 2)
	if err != nil || s.Version != 3 || s.Content != "v1 text" {
		t.Fatalf("restore = %+v, %v", s, err)
	}
	vs, _ := db.ListVersions(ctx, "conv", "report")
	if len(vs) != 3 || vs[1].UpdateType != store.UpdateUserEdit || vs[1].Source != SourceUser || vs[2].UpdateType != store.UpdateRestore {
		t.Fatalf("versions = %+v", vs)
	}
	// A run with unsaved changes to the artifact refuses the user's edit instead of
	// letting one side overwrite the other.
	run := NewManager(db, "conv", "msg2")
	if _, err := run.Update(ctx, "report", "v1 text", "agent text"); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Edit(ctx, "report", 3, "user again", store.UpdateUserEdit); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "research run") {
		t.Fatalf("edit during run = %v", err)
	}
	if f := run.Flush(ctx); f != nil {
		t.Fatal(f)
	}
	// After the flush the run's cache is clean: the user's edit goes through and the run
	// sees it.
	if _, err := run.Edit(ctx, "report", 4, "user again", store.UpdateUserEdit); err != nil {
		t.Fatal(err)
	}
	if got, _ := run.Read(ctx, "report", 0); got.Content != "user again" || got.Version != 5 {
		t.Fatalf("run reads %+v after the user's edit", got)
	}
}

// seededReport opens a store holding artifact "report" of conversation "conv" at version 1
// with content, as an earlier run left it.
func seededReport(t *testing.T, content string) *store.DB {
	t.Helper()
	db := openStore(t)
	seed := NewManager(db, "conv", "msg")
	if _, err := seed.Create(context.Background(), "report", "markdown", "R", content); err != nil {
		t.Fatal(err)
	}
	if f := seed.Flush(context.Background()); f != nil {
		t.Fatal(f)
	}
	return db
}

package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// pathView renders a conversation's active path as "content <i/n>" per message, where
// i/n is the branch navigator's position (1-based).
func pathView(d ConversationDetail) string {
	var parts []string
	for _, m := range d.Messages {
		if m.SiblingIDs[m.SiblingIndex] != m.ID {
			return fmt.Sprintf("bad sibling index for %s: %+v", m.ID, m)
		}
		parts = append(parts, fmt.Sprintf("%s <%d/%d>", m.Content, m.SiblingIndex+1, len(m.SiblingIDs)))
	}
	return strings.Join(parts, " | ")
}

// TestBranchesEditRegenerateSwitch drives the message tree through the bound services:
// send, edit an earlier question and the first one, regenerate, send after an explicit
// parent, switch branches; after each step the active path with its navigator positions,
// and the context each run saw (only its own path).
func TestBranchesEditRegenerateSwitch(t *testing.T) {
	w := apptest.EchoWorld(t)
	core := newCore(t, w)
	chat, convs := &ChatService{core}, &ConversationService{core}
	ids := map[string]string{} // step name → message id
	var conv string
	send := func(req SendRequest) func() (SendResult, error) {
		return func() (SendResult, error) {
			if req.ConversationID == "" && req.EditOf == "" && req.ParentID == "" && conv != "" {
				req.ConversationID = conv
			}
			return chat.Send(req)
		}
	}
	ref := func(name string) string { return ids[name] }
	steps := []struct {
		name     string
		do       func() (SendResult, error)
		wantPath string
		wantSaw  string // the new message's answer: the user messages its run's context held
	}{
		{"q1", send(SendRequest{Content: "Q1"}), "Q1 <1/1>", "saw Q1"},
		{"q2", send(SendRequest{Content: "Q2"}), "Q1 <1/1> | Q2 <1/1>", "saw Q1 / Q2"},
		{"q3", send(SendRequest{Content: "Q3"}), "Q1 <1/1> | Q2 <1/1> | Q3 <1/1>", "saw Q1 / Q2 / Q3"},
		{"edit q2", func() (SendResult, error) {
			return chat.Send(SendRequest{ConversationID: conv, Content: "Q2 edited", EditOf: ref("q2")})
		},
			"Q1 <1/1> | Q2 edited <2/2>", "saw Q1 / Q2 edited"},
		{"regenerate q2 edited", func() (SendResult, error) { return chat.Regenerate(conv, ref("edit q2")) },
			"Q1 <1/1> | Q2 edited <3/3>", "saw Q1 / Q2 edited"},
		{"switch to q2", func() (SendResult, error) { _, err := convs.SwitchBranch(conv, ref("q2")); return SendResult{}, err },
			"Q1 <1/1> | Q2 <1/3> | Q3 <1/1>", ""},
		{"send continues the switched branch", send(SendRequest{Content: "Q4"}),
			"Q1 <1/1> | Q2 <1/3> | Q3 <1/1> | Q4 <1/1>", "saw Q1 / Q2 / Q3 / Q4"},
		{"send after an explicit parent", func() (SendResult, error) { return chat.Send(SendRequest{Content: "Q5", ParentID: ref("edit q2")}) },
			"Q1 <1/1> | Q2 edited <2/3> | Q5 <1/1>", "saw Q1 / Q2 edited / Q5"},
		{"edit the first question", func() (SendResult, error) { return chat.Send(SendRequest{Content: "Q1 edited", EditOf: ref("q1")}) },
			"Q1 edited <2/2>", "saw Q1 edited"},
		{"regenerate the first question", func() (SendResult, error) { return chat.Regenerate("", ref("q1")) },
			"Q1 <3/3>", "saw Q1"},
		{"switch to the old root follows the newest children", func() (SendResult, error) { _, err := convs.SwitchBranch(conv, ref("q1")); return SendResult{}, err },
			"Q1 <1/3> | Q2 edited <3/3>", ""},
		{"switch to a sibling down to its leaf", func() (SendResult, error) {
			_, err := convs.SwitchBranch(conv, ref("edit q2"))
			return SendResult{}, err
		},
			"Q1 <1/3> | Q2 edited <2/3> | Q5 <1/1>", ""},
	}
	for _, s := range steps {
		res, err := s.do()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if conv == "" {
			conv = res.ConversationID
		}
		if res.MessageID != "" {
			if res.ConversationID != conv {
				t.Fatalf("%s: ran in conversation %s, want %s", s.name, res.ConversationID, conv)
			}
			ids[s.name] = res.MessageID
			waitIdle(core, conv)
		}
		d, err := convs.Get(conv)
		if err != nil {
			t.Fatal(err)
		}
		if got := pathView(d); got != s.wantPath {
			t.Errorf("%s: path = %q, want %q", s.name, got, s.wantPath)
		}
		if s.wantSaw != "" {
			last := d.Messages[len(d.Messages)-1]
			if last.ID != res.MessageID || last.Response != s.wantSaw || last.Status != "complete" {
				t.Errorf("%s: new message %+v, want it last on the path with response %q", s.name, last, s.wantSaw)
			}
		}
	}
	// The siblings of the first question are the three roots, oldest first.
	d, _ := convs.Get(conv)
	if want := []string{ids["q1"], ids["edit the first question"], ids["regenerate the first question"]}; !reflect.DeepEqual(d.Messages[0].SiblingIDs, want) {
		t.Errorf("root siblings = %v, want %v", d.Messages[0].SiblingIDs, want)
	}

	other, err := chat.Send(SendRequest{Content: "Other conversation"})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(core, other.ConversationID)
	errs := []struct {
		name string
		do   func() error
		want error
	}{
		{"parent_id and edit_of", func() error {
			_, err := chat.Send(SendRequest{ConversationID: conv, Content: "x", ParentID: ids["q1"], EditOf: ids["q2"]})
			return err
		}, ErrInvalidRequest},
		{"edit_of unknown", func() error {
			_, err := chat.Send(SendRequest{ConversationID: conv, Content: "x", EditOf: "nope"})
			return err
		}, ErrMessageNotFound},
		{"parent_id of another conversation", func() error {
			_, err := chat.Send(SendRequest{ConversationID: other.ConversationID, Content: "x", ParentID: ids["q1"]})
			return err
		}, ErrMessageNotFound},
		{"regenerate unknown", func() error { _, err := chat.Regenerate(conv, "nope"); return err }, ErrMessageNotFound},
		{"regenerate in the wrong conversation", func() error { _, err := chat.Regenerate(other.ConversationID, ids["q1"]); return err }, ErrMessageNotFound},
		{"switch to unknown message", func() error { _, err := convs.SwitchBranch(conv, "nope"); return err }, ErrMessageNotFound},
		{"switch to a message of another conversation", func() error { _, err := convs.SwitchBranch(other.ConversationID, ids["q1"]); return err }, ErrMessageNotFound},
		{"switch in unknown conversation", func() error { _, err := convs.SwitchBranch("nope", ids["q1"]); return err }, store.ErrNotFound},
	}
	for _, e := range errs {
		if err := e.do(); !errors.Is(err, e.want) {
			t.Errorf("%s: err = %v, want %v", e.name, err, e.want)
		}
	}
	if d2, _ := convs.Get(conv); pathView(d2) != "Q1 <1/3> | Q2 edited <2/3> | Q5 <1/1>" {
		t.Errorf("failed calls changed the active path: %q", pathView(d2))
	}
}

// TestTitleAndRename covers the automatic title from the first question (its first
// sentence without Markdown, at most 60 characters: engine.QuestionTitle) and Rename.
func TestTitleAndRename(t *testing.T) {
	w := apptest.EchoWorld(t)
	core := newCore(t, w)
	chat, convs := &ChatService{core}, &ConversationService{core}
	long := strings.Repeat("月", 70)
	titles := []struct {
		question, want string
	}{
		{"How far is the Moon?\nAnswer in km, with sources.", "How far is the Moon?"},
		{"  月球离地球有多远？  ", "月球离地球有多远？"},
		{long, strings.Repeat("月", 59) + "…"},
	}
	for _, tt := range titles {
		res, err := chat.Send(SendRequest{Content: tt.question})
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(core, res.ConversationID)
		d, err := convs.Get(res.ConversationID)
		if err != nil || d.Conversation.Title != tt.want {
			t.Errorf("title of %q = %q, %v; want %q", tt.question, d.Conversation.Title, err, tt.want)
		}
		// A second question does not change the title.
		if _, err := chat.Send(SendRequest{ConversationID: res.ConversationID, Content: "Another question"}); err != nil {
			t.Fatal(err)
		}
		waitIdle(core, res.ConversationID)
		if d, _ := convs.Get(res.ConversationID); d.Conversation.Title != tt.want {
			t.Errorf("title after a second question = %q, want %q", d.Conversation.Title, tt.want)
		}
	}

	list, err := convs.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("List = %v, %v", list, err)
	}
	id := list[0].ID
	renames := []struct {
		name, id, title, want string
		wantErr               bool
	}{
		{"trimmed", id, "  Lunar distance  ", "Lunar distance", false},
		{"Chinese", id, "月球距离", "月球距离", false},
		{"200 characters", id, strings.Repeat("é", 200), strings.Repeat("é", 200), false},
		{"empty", id, "   ", strings.Repeat("é", 200), true},
		{"too long", id, strings.Repeat("x", 201), strings.Repeat("é", 200), true},
		{"unknown conversation", "nope", "x", strings.Repeat("é", 200), true},
	}
	for _, tt := range renames {
		err := convs.Rename(tt.id, tt.title)
		if (err != nil) != tt.wantErr {
			t.Errorf("Rename %s: err = %v, want error %v", tt.name, err, tt.wantErr)
		}
		if d, _ := convs.Get(id); d.Conversation.Title != tt.want {
			t.Errorf("Rename %s: title = %q, want %q", tt.name, d.Conversation.Title, tt.want)
		}
	}
	if err := convs.Rename("nope", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Rename of unknown conversation = %v, want store.ErrNotFound", err)
	}
	// The renamed title is what search finds.
	if hits, err := convs.Search("éééé"); err != nil || len(hits) != 1 || hits[0].ID != id {
		t.Errorf("search for the new title = %+v, %v", hits, err)
	}
}

// TestSearchService searches through the bound service: Chinese and English questions and
// answers, snippets, injection-safe input.
func TestSearchService(t *testing.T) {
	w := apptest.EchoWorld(t)
	core := newCore(t, w)
	chat, convs := &ChatService{core}, &ConversationService{core}
	made := map[string]string{}
	for _, q := range []string{"月球离地球有多远？", "What is the boiling point of water?", "東京の人口は？"} {
		res, err := chat.Send(SendRequest{Content: q})
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(core, res.ConversationID)
		made[q] = res.ConversationID
	}
	tests := []struct {
		query, want, snippet string
	}{
		{"地球有多远", made["月球离地球有多远？"], "月球离地球有多远"},
		{"月球", made["月球离地球有多远？"], "月球"},
		{"BOILING point", made["What is the boiling point of water?"], "boiling point"},
		{"saw 東京", made["東京の人口は？"], "saw 東京の人口は"}, // "saw" is in the answer, 東京 in the question
		{`") OR 1=1 --`, "", ""},
		{`NEAR("a" "b")`, "", ""},
	}
	for _, tt := range tests {
		hits, err := convs.Search(tt.query)
		if err != nil {
			t.Fatalf("Search(%q): %v", tt.query, err)
		}
		if tt.want == "" {
			if len(hits) != 0 {
				t.Errorf("Search(%q) = %+v, want nothing", tt.query, hits)
			}
			continue
		}
		if len(hits) != 1 || hits[0].ID != tt.want || !strings.Contains(hits[0].Snippet, tt.snippet) || hits[0].Title == "" {
			t.Errorf("Search(%q) = %+v, want %s with a snippet containing %q", tt.query, hits, tt.want, tt.snippet)
		}
	}
	all, err := convs.Search(" ?! ")
	if err != nil || len(all) != 3 {
		t.Errorf("punctuation-only search = %d conversations, %v; want all 3", len(all), err)
	}
}

// TestDeleteCascadesWithBlobs deletes a conversation with messages, events, artifacts,
// versions, a draft, search rows and two uploads, one of whose originals another
// conversation shares: every row of the deleted conversation goes, the other
// conversation is untouched, and only the unshared original is removed from blobs/.
func TestDeleteCascadesWithBlobs(t *testing.T) {
	w := apptest.EchoWorld(t)
	core := newCore(t, w)
	chat, convs, arts := &ChatService{core}, &ConversationService{core}, &ArtifactService{core}
	ctx := context.Background()
	db := core.Store()

	conv := func(q string) string {
		res, err := chat.Send(SendRequest{Content: q})
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(core, res.ConversationID)
		return res.ConversationID
	}
	gone, kept := conv("Delete me: 删除测试"), conv("Keep me")
	shared, own := []byte("shared original bytes"), []byte("only in the deleted conversation")
	for _, up := range []struct {
		conv string
		file UploadFile
	}{{gone, UploadFile{Name: "shared.txt", Data: shared}}, {gone, UploadFile{Name: "own.txt", Data: own}}, {kept, UploadFile{Name: "shared.txt", Data: shared}}} {
		res, err := arts.Upload(up.conv, []UploadFile{up.file})
		if err != nil || res[0].Error != "" {
			t.Fatalf("upload %s: %+v, %v", up.file.Name, res, err)
		}
	}
	if err := db.SaveDrafts(ctx, store.Draft{ConversationID: gone, ArtifactID: "report", MessageID: "m-draft", ContentType: "markdown",
		Title: "Report", Content: "draft", Version: 1, UpdateType: store.UpdateCreate}); err != nil {
		t.Fatal(err)
	}
	blobPath := func(data []byte) string {
		sum := sha256.Sum256(data)
		return filepath.Join(core.DataDir(), config.BlobsDir, hex.EncodeToString(sum[:]))
	}
	for _, b := range [][]byte{shared, own} {
		if _, err := os.Stat(blobPath(b)); err != nil {
			t.Fatalf("blob missing before delete: %v", err)
		}
	}
	counts := func(id string) map[string]int {
		out := map[string]int{}
		for table, q := range map[string]string{
			"conversations":     `SELECT count(*) FROM conversations WHERE id = ?`,
			"messages":          `SELECT count(*) FROM messages WHERE conversation_id = ?`,
			"message_events":    `SELECT count(*) FROM message_events WHERE conversation_id = ?`,
			"artifact_sessions": `SELECT count(*) FROM artifact_sessions WHERE id = ?`,
			"artifacts":         `SELECT count(*) FROM artifacts WHERE session_id = ?`,
			"artifact_versions": `SELECT count(*) FROM artifact_versions WHERE session_id = ?`,
			"artifact_drafts":   `SELECT count(*) FROM artifact_drafts WHERE conversation_id = ?`,
			"search_docs":       `SELECT count(*) FROM search_docs WHERE conversation_id = ?`,
			"search_fts":        `SELECT count(*) FROM search_fts WHERE rowid IN (SELECT docid FROM search_docs WHERE conversation_id = ?)`,
		} {
			var n int
			if err := db.SQL().QueryRow(q, id).Scan(&n); err != nil {
				t.Fatalf("count %s: %v", table, err)
			}
			out[table] = n
		}
		return out
	}
	before := counts(gone)
	for table, n := range before {
		if n == 0 {
			t.Fatalf("fixture has no %s rows for the conversation to delete: %v", table, before)
		}
	}
	keptBefore := counts(kept)
	var ftsBefore int
	_ = db.SQL().QueryRow(`SELECT count(*) FROM search_fts`).Scan(&ftsBefore)

	if err := convs.Delete(gone); err != nil {
		t.Fatal(err)
	}
	for table, n := range counts(gone) {
		if n != 0 {
			t.Errorf("after delete: %d %s rows left", n, table)
		}
	}
	var ftsAfter int
	_ = db.SQL().QueryRow(`SELECT count(*) FROM search_fts`).Scan(&ftsAfter)
	if ftsAfter != ftsBefore-before["search_docs"] {
		t.Errorf("search_fts rows %d → %d, want %d removed", ftsBefore, ftsAfter, before["search_docs"])
	}
	if got := counts(kept); !reflect.DeepEqual(got, keptBefore) {
		t.Errorf("other conversation changed: %v, was %v", got, keptBefore)
	}
	if _, err := os.Stat(blobPath(own)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unshared blob after delete: %v, want it removed", err)
	}
	if _, err := os.Stat(blobPath(shared)); err != nil {
		t.Errorf("shared blob after delete: %v, want it kept", err)
	}
	if hits, _ := convs.Search("删除测试"); len(hits) != 0 {
		t.Errorf("deleted conversation still found: %+v", hits)
	}
	if err := convs.Delete(gone); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete = %v, want store.ErrNotFound", err)
	}
	if err := db.IntegrityCheck(ctx); err != nil {
		t.Error(err)
	}
}

// historyFixture fills conversation "long" directly in the store: messages m1 → m2 → m3 on
// the active branch and an abandoned sibling x of m2, with events whose seq ranges are
// m1 1-3000, x 3001-4000, m2 4001-7000, m3 7001-11000: 10,000 events on the active path,
// compaction markers among them. It returns the path's seqs.
func historyFixture(t *testing.T, db *store.DB) []int64 {
	t.Helper()
	ctx := context.Background()
	if err := db.CreateConversation(ctx, store.Conversation{ID: "long", Title: "Long research"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range [][2]string{{"m1", ""}, {"m2", "m1"}, {"x", "m1"}, {"m3", "m2"}} {
		if err := db.AddMessage(ctx, store.Message{ID: m[0], ConversationID: "long", ParentID: m[1], Content: m[0]}); err != nil {
			t.Fatal(err)
		}
	}
	owner := func(seq int64) string {
		switch {
		case seq <= 3000:
			return "m1"
		case seq <= 4000:
			return "x"
		case seq <= 7000:
			return "m2"
		}
		return "m3"
	}
	var path []int64
	batch := make([]events.Event, 0, 1000)
	for seq := int64(1); seq <= 11000; seq++ {
		typ := events.ToolComplete
		if seq%1000 == 500 {
			typ = events.CompactionSummary
		}
		batch = append(batch, events.Event{Type: typ, ConversationID: "long", MessageID: owner(seq), Seq: seq, Data: []byte(`{}`)})
		if owner(seq) != "x" {
			path = append(path, seq)
		}
		if len(batch) == cap(batch) {
			if err := db.AppendEvents(ctx, batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return path
}

// TestHistoryService pages the 10,000-event history of a conversation's active branch
// through ConversationService.History, forward from the start and backward from the end,
// with no loss and no duplicate, and checks the JSON shape the page receives.
func TestHistoryService(t *testing.T) {
	core, err := NewCore(context.Background(), Options{DataDir: filepath.Join(t.TempDir(), "data")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	want := historyFixture(t, core.Store())
	if len(want) != 10000 {
		t.Fatalf("fixture path has %d events", len(want))
	}
	convs := &ConversationService{core}

	for _, dir := range []struct {
		name  string
		first HistoryRequest
		next  func(p HistoryPage) (HistoryRequest, bool)
	}{
		{"forward", HistoryRequest{}, func(p HistoryPage) (HistoryRequest, bool) { return HistoryRequest{AfterSeq: p.LastSeq}, p.HasAfter }},
		{"backward", HistoryRequest{Latest: true}, func(p HistoryPage) (HistoryRequest, bool) { return HistoryRequest{BeforeSeq: p.FirstSeq}, p.HasBefore }},
	} {
		t.Run(dir.name, func(t *testing.T) {
			seen := map[int64]bool{}
			var got []int64
			req, pages := dir.first, 0
			for more := true; more; pages++ {
				p, err := convs.History("long", req)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Events) > 200 {
					t.Fatalf("page of %d events, want at most the default 200", len(p.Events))
				}
				for _, ev := range p.Events {
					if seen[ev.Seq] || ev.MessageID == "x" {
						t.Fatalf("seq %d (message %s) duplicated or off the active branch", ev.Seq, ev.MessageID)
					}
					seen[ev.Seq] = true
				}
				if dir.name == "forward" {
					got = append(got, seqsOf(p.Events)...)
				} else {
					got = append(seqsOf(p.Events), got...)
				}
				req, more = dir.next(p)
			}
			if !reflect.DeepEqual(got, want) || pages != 50 {
				t.Fatalf("%d events in %d pages, want the 10,000 path events in order in 50 pages", len(got), pages)
			}
		})
	}

	p, err := convs.History("long", HistoryRequest{AfterSeq: 400, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	if p.Events[99].Type != events.CompactionSummary || p.FirstSeq != 401 || p.LastSeq != 600 || !p.HasBefore || !p.HasAfter {
		t.Errorf("page after 400: first %d last %d before %v after %v, seq 500 type %s", p.FirstSeq, p.LastSeq, p.HasBefore, p.HasAfter, p.Events[99].Type)
	}
	if p, err := convs.History("long", HistoryRequest{Limit: 5000}); err != nil || len(p.Events) != 1000 {
		t.Errorf("limit 5000 gave %d events, %v; want the maximum 1000", len(p.Events), err)
	}
	b, _ := json.Marshal(HistoryPage{Events: []events.Event{}})
	if string(b) != `{"events":[],"has_before":false,"has_after":false,"first_seq":0,"last_seq":0}` {
		t.Errorf("JSON shape = %s", b)
	}
	if err := core.Store().CreateConversation(context.Background(), store.Conversation{ID: "empty"}); err != nil {
		t.Fatal(err)
	}
	if p, err := convs.History("empty", HistoryRequest{Latest: true}); err != nil || p.Events == nil || len(p.Events) != 0 {
		t.Errorf("empty conversation: %+v, %v; want an empty, non-null page", p, err)
	}
	for _, bad := range []struct {
		conv string
		req  HistoryRequest
		want error
	}{
		{"nope", HistoryRequest{}, store.ErrNotFound},
		{"long", HistoryRequest{AfterSeq: -1}, store.ErrInvalid},
		{"long", HistoryRequest{AfterSeq: 10, BeforeSeq: 10}, store.ErrInvalid},
	} {
		if _, err := convs.History(bad.conv, bad.req); !errors.Is(err, bad.want) {
			t.Errorf("History(%q, %+v) = %v, want %v", bad.conv, bad.req, err, bad.want)
		}
	}
}

// seqsOf returns the seq of each event.
func seqsOf(evs []events.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

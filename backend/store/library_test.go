package store

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// docKey is a hit as "conversation/kind/message-or-artifact", for comparing result lists.
func docKey(h DocumentHit) string {
	return h.ConversationID + "/" + h.Kind + "/" + h.MessageID + h.ArtifactID
}

// TestSearchDocuments: each matching title, question, answer and artifact is a hit of
// its own, with its kind, the message or artifact it comes from and a snippet from the
// text that matched, in Chinese, Japanese and English alike.
func TestSearchDocuments(t *testing.T) {
	db := openTestDB(t)
	searchFixture(t, db)
	ctx := context.Background()
	if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: "moon", ID: "research_report", ContentType: "text/markdown",
		Title: "月球报告", Content: "# 距离\n\n近地点约363,300公里，远地点约405,500公里。", Version: 1, UpdateType: UpdateCreate}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		query    string
		want     []string // docKey of each hit, in any order
		snippets []string // a substring of each hit's snippet
	}{
		{"Chinese phrase in an answer", "平均距离", []string{"moon/answer/moon-q"}, []string{"平均距离约为384,400公里"}},
		{"Chinese question", "地球有", []string{"moon/question/moon-q"}, []string{"月球离地球有多远"}},
		{"Chinese artifact content", "远地点", []string{"moon/artifact/research_report"}, []string{"远地点约405,500公里"}},
		{"title, question and artifact of one conversation", "月球",
			[]string{"moon/title/", "moon/question/moon-q", "moon/artifact/research_report"}, []string{"月球距离", "月球离地球", "月球报告"}},
		{"English answer", "variadic templates", []string{"cpp/answer/cpp-q"}, []string{"variadic templates"}},
		{"English, diacritics ignored", "cafe de flore", []string{"cafe/answer/cafe-q"}, []string{"Café de Flore"}},
		{"Japanese", "人口はどの", []string{"tokyo/question/tokyo-q"}, []string{"人口はどのくらい"}},
		{"terms in different documents match none", "radius paris", nil, nil},
		{"no searchable term", " ，。 ", nil, nil},
		{"FTS syntax is literal", "NEAR(x)", []string{"cpp/question/cpp-q"}, []string{"NEAR(x)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := db.SearchDocuments(ctx, tc.query, 0)
			if err != nil {
				t.Fatal(err)
			}
			if hits == nil {
				t.Fatal("hits is nil, want an empty slice")
			}
			var got []string
			for _, h := range hits {
				got = append(got, docKey(h))
			}
			// Ranking is SearchConversations' (tested there); here, which documents.
			if len(got) != len(tc.want) || !sameSet(got, tc.want) {
				t.Fatalf("SearchDocuments(%q) = %v, want %v", tc.query, got, tc.want)
			}
			for _, sub := range tc.snippets {
				found := false
				for _, h := range hits {
					found = found || strings.Contains(h.Snippet, sub)
				}
				if !found {
					t.Errorf("no snippet holds %q: %+v", sub, hits)
				}
			}
			for _, h := range hits {
				if h.ConversationTitle == "" || h.UpdatedAt.IsZero() {
					t.Errorf("hit %s lacks its conversation's title or update time: %+v", docKey(h), h)
				}
				if h.Kind == DocArtifact && h.ArtifactTitle != "月球报告" {
					t.Errorf("artifact hit title = %q, want 月球报告", h.ArtifactTitle)
				}
			}
		})
	}
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestSearchDocumentsLimit: limit caps the hits.
func TestSearchDocumentsLimit(t *testing.T) {
	db := openTestDB(t)
	searchFixture(t, db)
	hits, err := db.SearchDocuments(context.Background(), "月球", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("hits = %d, want 2 (the limit)", len(hits))
	}
}

// TestMessageCounts counts every message of each conversation asked for, on every branch.
func TestMessageCounts(t *testing.T) {
	db := openTestDB(t)
	searchFixture(t, db)
	ctx := context.Background()
	if err := db.AddMessage(ctx, Message{ID: "moon-q2", ConversationID: "moon", ParentID: "moon-q", Content: "再问"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(ctx, Message{ID: "moon-q3", ConversationID: "moon", ParentID: "moon-q", Content: "另一个分支"}); err != nil {
		t.Fatal(err)
	}
	got, err := db.MessageCounts(ctx, []string{"moon", "cafe", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"moon": 3, "cafe": 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("MessageCounts = %v, want %v", got, want)
	}
	if got, err := db.MessageCounts(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("MessageCounts(nil) = %v, %v, want empty", got, err)
	}
}

// TestArtifactSummaries lists the artifacts of the conversations asked for, in the order
// asked, with sizes in bytes and without content.
func TestArtifactSummaries(t *testing.T) {
	db := openTestDB(t)
	searchFixture(t, db)
	ctx := context.Background()
	for _, w := range []ArtifactWrite{
		{SessionID: "moon", ID: "task_plan", ContentType: "markdown", Title: "Plan", Content: "- [ ] 查", Version: 1, UpdateType: UpdateCreate},
		{SessionID: "moon", ID: "report", ContentType: "markdown", Title: "报告", Content: "月球", Version: 1, UpdateType: UpdateCreate},
		{SessionID: "cafe", ID: "notes", ContentType: "text", Title: "Notes", Content: "abc", Version: 1, UpdateType: UpdateCreate},
	} {
		if _, err := db.CreateArtifact(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.ArtifactSummaries(ctx, []string{"cafe", "missing", "moon"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, a := range got {
		keys = append(keys, a.SessionID+"/"+a.ID+"/"+a.Title+"/"+a.ContentType+"/"+strconv.Itoa(a.Size)+"/v"+strconv.Itoa(a.CurrentVersion))
		if a.UpdatedAt.IsZero() {
			t.Errorf("%s/%s has no update time", a.SessionID, a.ID)
		}
	}
	want := []string{"cafe/notes/Notes/text/3/v1", "moon/task_plan/Plan/markdown/9/v1", "moon/report/报告/markdown/6/v1"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("ArtifactSummaries = %v, want %v", keys, want)
	}
}

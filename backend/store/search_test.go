package store

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// hitIDs returns the conversation id of each hit.
func hitIDs(hs []SearchHit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

// searchFixture creates conversations with titles, questions and answers in English,
// Chinese and Japanese. Updated times increase in the order listed (moon is the newest).
func searchFixture(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	convs := []struct {
		id, title, question, answer string
	}{
		{"tokyo", "東京の人口", "東京の人口はどのくらいですか", "東京都の人口は約1400万人です。"},
		{"cafe", "Coffee notes", "Where is the best café in Paris?", "Try the Café de Flore; it opened in 1887."},
		{"cpp", "C++ templates", `How do I write "AND" OR NEAR(x) in C++ with 50% less code?`, "Use variadic templates: template<typename... T>."},
		{"earth", "Planets", "How big is the Earth?", "The Earth's radius is 6,371 km; the moon is smaller."},
		{"moon", "月球距离", "月球离地球有多远？请用中文回答", "月球与地球的平均距离约为384,400公里。"},
	}
	for i, c := range convs {
		at := base.Add(time.Duration(i) * time.Hour)
		if err := db.CreateConversation(ctx, Conversation{ID: c.id, Title: c.title, CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if err := db.AddMessage(ctx, Message{ID: c.id + "-q", ConversationID: c.id, Content: c.question, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishMessage(ctx, c.id+"-q", c.answer, StatusComplete, ""); err != nil {
			t.Fatal(err)
		}
		// AddMessage touched updated_at; put it back so the order is the listed one.
		if _, err := db.SQL().Exec(`UPDATE conversations SET updated_at = ? WHERE id = ?`, formatTime(at), c.id); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSearchConversations(t *testing.T) {
	db := openTestDB(t)
	searchFixture(t, db)
	ctx := context.Background()
	recent := []string{"moon", "earth", "cpp", "cafe", "tokyo"}
	tests := []struct {
		name    string
		query   string
		want    []string
		snippet string // a substring of the first hit's snippet
	}{
		{"Chinese, three characters", "地球有", []string{"moon"}, "月球离地球有多远"},
		{"Chinese phrase in the answer", "平均距离", []string{"moon"}, "平均距离约为384,400公里"},
		{"Chinese, two characters (LIKE)", "月球", []string{"moon"}, "月球"},
		{"Chinese terms split at CJK punctuation", "月球，公里", []string{"moon"}, "月球"},
		{"Japanese without spaces", "人口はどの", []string{"tokyo"}, "人口はどのくらい"},
		{"Japanese, two characters", "東京", []string{"tokyo"}, "東京"},
		{"English, case-insensitive", "EARTH", []string{"earth"}, "Earth"},
		{"all terms in one message", "earth radius", []string{"earth"}, "radius"},
		{"terms in different conversations match none", "earth café", nil, ""},
		{"diacritics ignored", "cafe", []string{"cafe"}, "café"},
		{"title ranks first", "templates", []string{"cpp"}, "C++ templates"},
		{"number", "1887", []string{"cafe"}, "1887"},
		{"quoted phrase", `"best café"`, []string{"cafe"}, "best café"},
		{"FTS syntax is literal: AND", "AND", []string{"cpp"}, `"AND"`},
		{"FTS syntax is literal: NEAR(", "NEAR(x)", []string{"cpp"}, "NEAR(x)"},
		{"FTS syntax is literal: column filter", "title:moon", nil, ""},
		{"FTS syntax is literal: star and caret", "^tem*", nil, ""},
		{"lone double quote", `"`, recent, ""},
		{"unbalanced quote", `"C++ temp`, []string{"cpp"}, "C++ templates"},
		{"single quote", "Earth's", []string{"earth"}, "Earth's"},
		{"LIKE wildcards are literal", "50%", []string{"cpp"}, "50%"},
		{"underscore is literal", "a_b", nil, ""},
		{"symbol term", "C++", []string{"cpp"}, "C++"},
		{"empty query: recent conversations", "", recent, ""},
		{"white space only", " \t\n　", recent, ""},
		{"punctuation only", "?!…，。", recent, ""},
		{"no match", "jupiter", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := db.SearchConversations(ctx, tt.query, 0)
			if err != nil {
				t.Fatalf("SearchConversations(%q): %v", tt.query, err)
			}
			if !reflect.DeepEqual(hitIDs(hits), tt.want) {
				t.Errorf("SearchConversations(%q) = %v, want %v", tt.query, hitIDs(hits), tt.want)
			}
			if len(hits) > 0 && !strings.Contains(hits[0].Snippet, tt.snippet) {
				t.Errorf("SearchConversations(%q) snippet = %q, want it to contain %q", tt.query, hits[0].Snippet, tt.snippet)
			}
			if len(hits) > 0 && hits[0].Title == "" {
				t.Errorf("hit without its conversation: %+v", hits[0])
			}
		})
	}

	if hits, err := db.SearchConversations(ctx, "", 2); err != nil || !reflect.DeepEqual(hitIDs(hits), recent[:2]) {
		t.Errorf("limit 2 = %v, %v", hitIDs(hits), err)
	}
}

// TestSearchFollowsChanges checks that the triggers keep the index in sync: new messages,
// answers saved at the end of a run, renames and deletes.
func TestSearchFollowsChanges(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	search := func(q string) []string {
		t.Helper()
		hits, err := db.SearchConversations(ctx, q, 0)
		if err != nil {
			t.Fatal(err)
		}
		return hitIDs(hits)
	}
	steps := []struct {
		name  string
		do    func() error
		query string
		want  []string
	}{
		{"new conversation title", func() error { return db.CreateConversation(ctx, Conversation{ID: "c", Title: "量子计算入门"}) },
			"量子计算", []string{"c"}},
		{"new message", func() error {
			return db.AddMessage(ctx, Message{ID: "m", ConversationID: "c", Content: "什么是量子纠缠"})
		},
			"量子纠缠", []string{"c"}},
		{"answer saved", func() error {
			return db.FinishMessage(ctx, "m", "量子纠缠是一种关联现象", StatusComplete, "")
		},
			"关联现象", []string{"c"}},
		{"answer replaced", func() error { return db.FinishMessage(ctx, "m", "superposition", StatusComplete, "") },
			"关联现象", nil},
		{"renamed: old title gone", func() error { return db.RenameConversation(ctx, "c", "Quantum basics") },
			"量子计算", nil},
		{"renamed: new title found", func() error { return nil }, "quantum", []string{"c"}},
		{"deleted", func() error { return db.DeleteConversation(ctx, "c") }, "quantum", nil},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := search(s.query); !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s: search %q = %v, want %v", s.name, s.query, got, s.want)
		}
	}
	var docs, fts int
	if err := db.SQL().QueryRow(`SELECT (SELECT count(*) FROM search_docs), (SELECT count(*) FROM search_fts)`).Scan(&docs, &fts); err != nil {
		t.Fatal(err)
	}
	if docs != 0 || fts != 0 {
		t.Errorf("after delete: %d search_docs and %d search_fts rows left, want none", docs, fts)
	}
}

// TestSearchMigrationBackfills reopens a database whose rows predate migration 0002 and
// checks that the migration indexes them.
func TestSearchMigrationBackfills(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "artifactflow.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// Undo 0002, then write rows the way a build without it did.
	for _, q := range []string{
		`DROP TRIGGER search_conversations_ai`, `DROP TRIGGER search_conversations_au`, `DROP TRIGGER search_conversations_ad`,
		`DROP TRIGGER search_messages_ai`, `DROP TRIGGER search_messages_au`, `DROP TRIGGER search_messages_ad`,
		`DROP TABLE search_fts`, `DROP TABLE search_docs`, `DELETE FROM schema_migrations WHERE version = 2`,
	} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.CreateConversation(ctx, Conversation{ID: "old", Title: "旧的对话"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(ctx, Message{ID: "old-m", ConversationID: "old", Content: "question", GraphResponse: "黑洞的形成过程"}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"旧的对话", "黑洞的形成", "question"} {
		hits, err := db.SearchConversations(ctx, q, 0)
		if err != nil || !reflect.DeepEqual(hitIDs(hits), []string{"old"}) {
			t.Errorf("after backfill, search %q = %v, %v; want [old]", q, hitIDs(hits), err)
		}
	}
}

func TestSearchTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"moon distance", []string{"moon", "distance"}},
		{"  moon\tMoon  MOON ", []string{"moon"}},
		{"月球，距离。地球", []string{"月球", "距离", "地球"}},
		{`"moon distance" km`, []string{"moon distance", "km"}},
		{`“月球 距离”`, []string{"月球 距离"}},
		{`C++ 384,400 e-mail`, []string{"C++", "384,400", "e-mail"}},
		{`... ?! -- ""`, nil},
		{"", nil},
		{strings.Repeat("w ", 40) + strings.Repeat("x", 3), []string{"w", "xxx"}},
		// Control characters separate terms (a space inside quotes) and never reach FTS5.
		{"moon\x00distance", []string{"moon", "distance"}},
		{"\x00\x01moon\x1f\x7f\u0085", []string{"moon"}},
		{"\"moon\x00distance\"", []string{"moon distance"}},
		{"\x00 \x1b", nil},
		// The Katakana middle dot separates words; CJK symbols stay in a term like ASCII ones.
		{"ジョン・スミス", []string{"ジョン", "スミス"}},
		{"ｼﾞｮﾝ･ｽﾐｽ", []string{"ｼﾞｮﾝ", "ｽﾐｽ"}},
		{"￥100 ＋税 〒100", []string{"￥100", "＋税", "〒100"}},
		{"「東京」（とうきょう）〜大阪", []string{"東京", "とうきょう", "大阪"}},
		// FTS5 syntax stays text; the caller quotes it.
		{`NEAR(a title:b ^c d* (e`, []string{"NEAR(a", "title:b", "^c", "d*", "(e"}},
	}
	for _, tt := range tests {
		if got := QueryTerms(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	many := QueryTerms(strings.Repeat("a b c d e f g h i j k l m n o p q r s t ", 2))
	if len(many) != MaxQueryTerms {
		t.Errorf("%d terms kept, want %d", len(many), MaxQueryTerms)
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("前文。", 40) + "关键的发现在这里" + strings.Repeat("后文。", 40)
	tests := []struct {
		name           string
		terms          []string
		texts          []string
		contains       string
		prefix, suffix bool
		maxRunes       int
	}{
		{"short text whole", []string{"moon"}, []string{"", "The Moon"}, "The Moon", false, false, 10},
		{"cut around the match", []string{"关键"}, []string{long}, "关键的发现在这里", true, true, snippetRunes + 2},
		{"white space collapsed", []string{"b"}, []string{"a\n\n  b"}, "a b", false, false, 10},
		{"no literal match: start of text", []string{"cafe"}, []string{"", "Café de Flore"}, "Café de Flore", false, false, 20},
		{"near the end shows more before", []string{"后文"}, []string{strings.Repeat("x", 200) + "后文"}, "后文", true, false, snippetRunes + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := snippet(tt.terms, tt.texts...)
			if !strings.Contains(s, tt.contains) || strings.HasPrefix(s, "…") != tt.prefix || strings.HasSuffix(s, "…") != tt.suffix ||
				len([]rune(s)) > tt.maxRunes {
				t.Errorf("snippet = %q", s)
			}
		})
	}
}

// TestSearchRanking checks that a title match outranks a match deep in an answer, even of a
// newer conversation, and that LIKE-only queries rank by recency.
func TestSearchRanking(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := db.CreateConversation(ctx, Conversation{ID: "titled", Title: "Solar eclipse guide", CreatedAt: old, UpdatedAt: old}); err != nil {
		t.Fatal(err)
	}
	createConv(t, db, "body")
	answer := strings.Repeat("Observers travelled far to see the sky darken at noon. ", 20) + "It was an eclipse."
	if err := db.AddMessage(ctx, Message{ID: "b1", ConversationID: "body", Content: "What happened in 1999?", GraphResponse: answer}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"eclipse", []string{"titled", "body"}},
		{"ec", []string{"body", "titled"}}, // LIKE only: most recently updated first
	} {
		hits, err := db.SearchConversations(ctx, tt.query, 0)
		if err != nil || !reflect.DeepEqual(hitIDs(hits), tt.want) {
			t.Errorf("SearchConversations(%q) = %v, %v; want %v", tt.query, hitIDs(hits), err, tt.want)
		}
	}
}

// TestSearchConversationsNeverFailsOnControlCharacters searches with control characters
// (a NUL made FTS5 report an unterminated string) and FTS5 syntax: never an error.
func TestSearchConversationsNeverFailsOnControlCharacters(t *testing.T) {
	db := openTestDB(t)
	searchFixture(t, db)
	ctx := context.Background()
	for _, q := range []string{"Earth\x00radius", "\x00Earth", "Earth\x00", "radius\x01\x1f\x7f", "\"\x00Earth radius\"", "\x00",
		"月球\x00距离", `NEAR(Earth`, `title:Earth`, `^Earth`, `(Earth`, `Earth)`, `Earth*`, `"Earth`} {
		if _, err := db.SearchConversations(ctx, q, 0); err != nil {
			t.Errorf("search %q: %v", q, err)
		}
	}
	hits, err := db.SearchConversations(ctx, "Earth\x00radius", 0)
	if err != nil || !reflect.DeepEqual(hitIDs(hits), []string{"earth"}) {
		t.Errorf("search %q = %v, %v; want [earth]", "Earth\x00radius", hitIDs(hits), err)
	}
}

// TestSearchFindsArtifactText checks that the search covers artifact text: a word only a
// report holds finds its conversation, with a plain-text snippet from the report;
// updating, deleting the artifact and deleting the conversation keep the index in step.
func TestSearchFindsArtifactText(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	search := func(q string) []SearchHit {
		t.Helper()
		hits, err := db.SearchConversations(ctx, q, 0)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	if err := db.CreateConversation(ctx, Conversation{ID: "c", Title: "Battery research"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(ctx, Message{ID: "m", ConversationID: "c", Content: "Compare battery chemistries"}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateConversation(ctx, Conversation{ID: "other", Title: "Unrelated"}); err != nil {
		t.Fatal(err)
	}
	w := ArtifactWrite{SessionID: "c", ID: "report", ContentType: "text/markdown", Title: "Battery report",
		Content: "# Findings\n\nSodium-ion <b>cells</b> cost less than lithium iron phosphate.", Version: 1, UpdateType: "create"}
	if _, err := db.CreateArtifact(ctx, w); err != nil {
		t.Fatal(err)
	}
	hits := search("sodium-ion")
	if got := hitIDs(hits); !reflect.DeepEqual(got, []string{"c"}) {
		t.Fatalf("search sodium-ion = %v, want [c]", got)
	}
	if s := hits[0].Snippet; !strings.Contains(s, "Sodium-ion <b>cells</b> cost less") {
		t.Errorf("snippet = %q, want the report's text as written (plain text, markup not interpreted)", s)
	}
	if got := hitIDs(search("钠离子")); got != nil {
		t.Errorf("search 钠离子 before the update = %v, want none", got)
	}

	w.Content, w.Version, w.ExpectedLockVersion, w.UpdateType = "钠离子电池更便宜", 2, 1, "rewrite"
	if _, err := db.UpdateArtifactContent(ctx, w); err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(search("钠离子")); !reflect.DeepEqual(got, []string{"c"}) {
		t.Errorf("after update, search 钠离子 = %v, want [c]", got)
	}
	if got := hitIDs(search("sodium-ion")); got != nil {
		t.Errorf("after update, search sodium-ion (old content only) = %v, want none", got)
	}
	if got := hitIDs(search("battery report")); !reflect.DeepEqual(got, []string{"c"}) {
		t.Errorf("search by artifact title = %v, want [c]", got)
	}

	if _, err := db.DeleteArtifact(ctx, "c", "report"); err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(search("钠离子")); got != nil {
		t.Errorf("after artifact delete, search = %v, want none", got)
	}

	if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: "c", ID: "notes", ContentType: "text/markdown",
		Title: "Notes", Content: "solid-state electrolytes", Version: 1, UpdateType: "create"}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteConversation(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(search("electrolytes")); got != nil {
		t.Errorf("after conversation delete, search = %v, want none", got)
	}
	var docs int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM search_docs WHERE conversation_id = 'c'`).Scan(&docs); err != nil {
		t.Fatal(err)
	}
	if docs != 0 {
		t.Errorf("after conversation delete: %d search_docs rows of c left, want none", docs)
	}
}

// TestSearchArtifactMigrationBackfills reopens a database whose artifacts predate
// migration 0007 and checks that the migration indexes them.
func TestSearchArtifactMigrationBackfills(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "artifactflow.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TRIGGER search_artifacts_ai`, `DROP TRIGGER search_artifacts_au`,
		`DROP TRIGGER search_artifacts_ad`, `DELETE FROM schema_migrations WHERE version = 7`} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.CreateConversation(ctx, Conversation{ID: "old", Title: "Old"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: "old", ID: "r", ContentType: "text/markdown",
		Title: "Report", Content: "perovskite tandem cells", Version: 1, UpdateType: "create"}); err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(mustSearch(t, db, "perovskite")); got != nil {
		t.Fatalf("before the migration, search = %v, want none (the test setup is wrong)", got)
	}
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := hitIDs(mustSearch(t, db, "perovskite")); !reflect.DeepEqual(got, []string{"old"}) {
		t.Errorf("after backfill, search = %v, want [old]", got)
	}
}

// mustSearch runs SearchConversations with the default limit, failing the test on error.
func mustSearch(t *testing.T, db *DB, q string) []SearchHit {
	t.Helper()
	hits, err := db.SearchConversations(context.Background(), q, 0)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

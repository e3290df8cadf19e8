package localfiles

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain English text", "plain English text"},
		{"数据库", " 数据 据库 库 "},
		{"数", " 数 "},
		{"SQLite数据库系统", "SQLite 数据 据库 库系 系统 统 "},
		{"東京都の天気", " 東京 京都 都の の天 天気 気 "},
		{"数据。检索", " 数据 据 。 检索 索 "},
		{"カタカナ・ひらがな", " カタ タカ カナ ナ ・ ひら らが がな な "},
		{"한국어 text", " 한국 국어 어  text"},
		{"café", "café"},
	}
	for _, tc := range tests {
		if got := Terms(tc.in); got != tc.want {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMatchExprs(t *testing.T) {
	tests := []struct{ query, all, any string }{
		{"alpha", `("alpha")`, ""},
		{"alpha beta", `("alpha") AND ("beta")`, `("alpha") OR ("beta")`},
		{`"exact phrase" x`, `("exact phrase") AND ("x")`, `("exact phrase") OR ("x")`},
		{"数据", `("数据")`, ""},
		{"数据库", `("数据 据库")`, ""},
		{"库", `("库"*)`, ""},
		{"SQLite数据库", `("SQLite" AND "数据 据库")`, ""},
		{"予報、明日", `("予報") AND ("明日")`, `("予報") OR ("明日")`},
		{`NEAR(a b) OR c*`, `("NEAR(a") AND ("b)") AND ("OR") AND ("c*")`, `("NEAR(a") OR ("b)") OR ("OR") OR ("c*")`},
		{`say "hi`, `("say") AND ("hi")`, `("say") OR ("hi")`},
		{`a"b`, `("a") AND ("b")`, `("a") OR ("b")`},
		{"  ，。 --- ", "", ""},
		{"", "", ""},
	}
	for _, tc := range tests {
		all, anyOf := matchExprs(tc.query)
		if all != tc.all || anyOf != tc.any {
			t.Errorf("matchExprs(%q) = %q, %q; want %q, %q", tc.query, all, anyOf, tc.all, tc.any)
		}
	}
}

func TestChunkText(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		b.WriteString(strings.Repeat("word ", i%40))
		b.WriteString("\n")
		if i%100 == 99 {
			b.WriteString("[Page " + string(rune('1'+i/100)) + "]\n")
		}
	}
	b.WriteString(strings.Repeat("x", 3*maxChunk)) // a long last line without a line end
	text := b.String()
	for _, paged := range []bool{false, true} {
		chunks, lines := chunkText(text, paged)
		if want := strings.Count(text, "\n") + 1; lines != want {
			t.Fatalf("paged %v: %d lines, want %d", paged, lines, want)
		}
		var joined strings.Builder
		line := 1
		for i, c := range chunks {
			if c.Line != line {
				t.Fatalf("paged %v: chunk %d starts on line %d, want %d", paged, i, c.Line, line)
			}
			if len(c.Text) > 2*maxChunk {
				t.Fatalf("chunk %d has %d bytes", i, len(c.Text))
			}
			if c.Terms != Terms(c.Text) {
				t.Fatalf("chunk %d terms differ from Terms(text)", i)
			}
			if n, ok := pageMarker(strings.SplitN(c.Text, "\n", 2)[0]); paged && ok && c.Page != n {
				t.Fatalf("chunk %d starts with page %d's marker but has page %d", i, n, c.Page)
			}
			if !paged && c.Page != 0 {
				t.Fatalf("unpaged chunk %d has page %d", i, c.Page)
			}
			joined.WriteString(c.Text)
			line += strings.Count(c.Text, "\n")
		}
		if joined.String() != text {
			t.Fatalf("paged %v: the chunks do not add up to the text", paged)
		}
		if paged && chunks[len(chunks)-1].Page != 5 {
			t.Fatalf("last chunk on page %d, want 5", chunks[len(chunks)-1].Page)
		}
	}
	if chunks, lines := chunkText("", true); len(chunks) != 0 || lines != 0 {
		t.Fatalf("empty text: %v, %d", chunks, lines)
	}
}

func TestPageMarker(t *testing.T) {
	for in, want := range map[string]int{"[Page 1]": 1, "[Page 12]\n": 12, "  [Page 3]  ": 3, "[Page 0]": 0, "[Page x]": 0, "[Page 1] text": 0, "Page 1": 0} {
		n, ok := pageMarker(in)
		if n != want || ok != (want > 0) {
			t.Errorf("pageMarker(%q) = %d, %v; want %d", in, n, ok, want)
		}
	}
}

// TestSearchNeverFailsOnQuerySyntax searches a real index with queries holding control
// characters and FTS5 syntax: each either searches (no error) or, when nothing is left to
// search for, gives ErrEmptyQuery.
func TestSearchNeverFailsOnQuerySyntax(t *testing.T) {
	f := newFixture(t, Options{})
	f.write("notes.md", []byte("the database index holds 数据库 text\n"))
	f.pass(PassOptions{})
	searches := []string{
		"data\x00base", "\x00database", "database\x00", "index\x01\x02\x1f holds", "\x1b[31mdatabase", "data\x7fbase",
		`"database`, `database"`, `"data"base"`, `NEAR(database`, `NEAR(database index)`, `database*`, `text:database`,
		`^database`, `(database`, `database)`, `((database index)`, `database AND`, `OR index`, `-database`, `数据\x00库`,
		"\"\x00database\"", "\u0085database",
	}
	for _, q := range searches {
		if _, err := f.ix.Search(context.Background(), f.conv, q, 0); err != nil {
			t.Errorf("search %q: %v", q, err)
		}
	}
	if hits, err := f.ix.Search(context.Background(), f.conv, "database\x00index", 0); err != nil || len(hits) != 1 {
		t.Errorf(`search "database\x00index" = %v, %v; want the file (a control character separates words)`, hits, err)
	}
	for _, q := range []string{"\x00", "\x00\x01\x1f\x7f", `"`, `""`, "\"\x00\"", "*", "^", "(", ")", "()", ":", "  \x00 ，。 "} {
		if _, err := f.ix.Search(context.Background(), f.conv, q, 0); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("search %q: %v, want ErrEmptyQuery", q, err)
		}
	}
}

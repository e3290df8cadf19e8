package engine

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmfake"
)

// TestQuestionTitle: a conversation's first title is the question's first sentence as a
// reader sees it, with no Markdown, trimmed and at most 60 runes.
func TestQuestionTitle(t *testing.T) {
	for _, tc := range []struct{ name, question, want string }{
		{"a plain question", "How far away is the Moon?", "How far away is the Moon?"},
		{"the first sentence", "How far away is the Moon? I need the mean distance and how it was measured.", "How far away is the Moon?"},
		{"a full stop dropped", "Compare SQLite and DuckDB for analytics. Use benchmarks from 2024.", "Compare SQLite and DuckDB for analytics"},
		{"a short first sentence takes the next", "Hi. Which heat pumps does Germany subsidize? Give amounts.", "Hi. Which heat pumps does Germany subsidize?"},
		{"a heading and emphasis", "## **Solid-state** batteries: who *leads*?\n\nList the companies.", "Solid-state batteries: who leads?"},
		{"a list and a quote", "> Summarize this:\n- `tokio` vs `async-std`", "Summarize this: tokio vs async-std"},
		{"a link reads as its text", "What does [the EU AI Act](https://eur-lex.europa.eu/x) require of providers?", "What does the EU AI Act require of providers?"},
		{"an image reads as its alt text", "![chart of sales](data:image/png;base64,AAAA) explain this trend", "chart of sales explain this trend"},
		{"HTML is dropped", "Why is <b>this</b> bold?", "Why is this bold?"},
		{"lines joined", "Compare\nPostgreSQL\nand MySQL", "Compare PostgreSQL and MySQL"},
		{"code alone counts", "```python\nprint(sum(range(10)))\n```", "print(sum(range(10)))"},
		{"code after prose does not", "Why does this fail\n```go\nfunc main() { panic(1) }\n```", "Why does this fail"},
		{"Chinese, first sentence", "钠离子电池和锂离子电池哪个更便宜？请给出2024年的数据。", "钠离子电池和锂离子电池哪个更便宜？"},
		{"a decimal is not a sentence end", "Is 3.5 GHz fast enough for video editing in 2024?", "Is 3.5 GHz fast enough for video editing in 2024?"},
		{"cut at a word", "What are the main approaches to solid-state batteries and which companies lead each of them today", "What are the main approaches to solid-state batteries and…"},
		{"Chinese cut", strings.Repeat("数据", 40), strings.Repeat("数据", 29) + "数…"},
		{"nothing but space", " \n\t ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := QuestionTitle(tc.question)
			if got != tc.want {
				t.Errorf("QuestionTitle(%q) = %q, want %q", tc.question, got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > titleMax {
				t.Errorf("%q is %d runes, over %d", got, n, titleMax)
			}
		})
	}
}

// TestNewConversationTitle: a question that starts a conversation names it with its clean
// title (QuestionTitle), not the Markdown the user typed.
func TestNewConversationTitle(t *testing.T) {
	e, db, _, _ := newFakeEngine(t, func(llm.Request, int) llmfake.Reply { return llmfake.Reply{Content: "An answer."} })
	ctx := context.Background()
	r, err := e.Start(ctx, Request{Content: "## Which **solid-state** battery makers lead? List [their plants](https://x.example/p) too.\n\n```\nnotes\n```"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := db.GetConversation(ctx, r.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Which solid-state battery makers lead?"; c.Title != want {
		t.Fatalf("conversation title %q, want %q", c.Title, want)
	}
}

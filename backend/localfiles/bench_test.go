package localfiles

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/store"
	"artifactflow/backend/testdocs"
)

// benchFolder writes the acceptance folder into dir: 2,000 files of about 200 MB,
// mostly text (Markdown, text, CSV, JSON, Go, HTML) in 20 folders, some PDF and DOCX,
// about a tenth of the text files partly Chinese. Words come from a fixed vocabulary with
// a skewed frequency, so some are common and some rare; "zyzzyva" is in 5 files only, 数据
// in every Chinese one, 数据库系统 in fewer places. It returns the total size in bytes.
func benchFolder(tb testing.TB, dir string) int64 {
	tb.Helper()
	r := rand.New(rand.NewSource(9))
	vocab := make([]string, 30000)
	for i := range vocab {
		n := 3 + r.Intn(8)
		w := make([]byte, n)
		for j := range w {
			w[j] = byte('a' + r.Intn(26))
		}
		vocab[i] = string(w)
	}
	han := []rune("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内")
	word := func() string { return vocab[int(float64(len(vocab))*r.Float64()*r.Float64()*r.Float64())] }
	para := func(words int, zh bool) string {
		var b strings.Builder
		for i := 0; i < words; i++ {
			if zh && i%12 == 0 {
				for k := 0; k < 16; k++ {
					b.WriteRune(han[int(float64(len(han))*r.Float64()*r.Float64())])
				}
				if i%120 == 0 {
					b.WriteString("分布式数据库系统。")
				} else {
					b.WriteString("数据。")
				}
				continue
			}
			b.WriteString(word())
			if i%14 == 13 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	var total int64
	for i := range 2000 {
		sub := filepath.Join(dir, fmt.Sprintf("folder%02d", i%20))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			tb.Fatal(err)
		}
		zh := i%10 == 3
		var name string
		var data []byte
		switch {
		case i%40 == 7: // 50 PDFs of 8 pages
			pages := make([]string, 8)
			for p := range pages {
				pages[p] = para(300, false)
			}
			name, data = fmt.Sprintf("paper%04d.pdf", i), testdocs.BuildPDF("Paper", pages...)
		case i%40 == 17: // 50 Word documents
			var body strings.Builder
			for range 40 {
				body.WriteString("<w:p><w:r><w:t>" + para(150, false) + "</w:t></w:r></w:p>")
			}
			name, data = fmt.Sprintf("report%04d.docx", i), testdocs.DOCX(body.String())
		case i%50 == 29: // 40 HTML pages
			name, data = fmt.Sprintf("page%04d.html", i), []byte("<html><body><article><h1>Title</h1><p>"+para(8000, zh)+"</p></article></body></html>")
		default:
			ext := []string{"md", "txt", "csv", "json", "go"}[i%5]
			text := para(16000, zh)
			switch ext {
			case "csv":
				text = strings.ReplaceAll(text, " ", ",")
			case "json":
				text = `{"text": "` + strings.ReplaceAll(text, "\n", `\n`) + `"}`
			case "go":
				text = "package p\n\n// " + strings.ReplaceAll(text, "\n", "\n// ") + "\n"
			}
			name, data = fmt.Sprintf("note%04d.%s", i, ext), []byte(text)
		}
		if i%400 == 11 {
			data = append(data, []byte("\nthe rare zyzzyva appears here\n")...)
		}
		if err := os.WriteFile(filepath.Join(sub, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
		total += int64(len(data))
	}
	return total
}

// benchIndex opens a fresh database under dir with conversation "c" whose workspace is ws.
func benchIndex(tb testing.TB, dir, ws string) (*Index, *store.DB) {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(dir, "af.db"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.CreateConversation(context.Background(), store.Conversation{ID: "c", Title: "bench"}); err != nil {
		tb.Fatal(err)
	}
	ix, err := New(Options{DB: db, Workspace: func(context.Context, string) (string, error) { return ws, nil }})
	if err != nil {
		tb.Fatal(err)
	}
	return ix, db
}

// BenchmarkLocalFiles measures the acceptance figures on a folder of 2,000 mixed
// files (~200 MB): a first indexing pass, a pass when nothing changed, and search_files
// queries on the resulting index. Run with
//
//	go test -tags sqlite_fts5 -run '^$' -bench LocalFiles -benchtime 1x -timeout 30m ./backend/localfiles/
//
// (or -benchtime 20x for steadier search figures; the index pass runs once per iteration).
func BenchmarkLocalFiles(b *testing.B) {
	root := b.TempDir()
	ws := filepath.Join(root, "ws")
	size := benchFolder(b, ws)
	b.Logf("folder: 2000 files, %.0f MB", float64(size)/(1<<20))
	ctx := context.Background()

	b.Run("index", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			ix, db := benchIndex(b, filepath.Join(root, fmt.Sprintf("db-index-%d", i)), ws)
			b.StartTimer()
			p, err := ix.Pass(ctx, "c", PassOptions{})
			b.StopTimer()
			if err != nil || p.Total != 2000 || p.Failed+p.Skipped != 0 {
				b.Fatalf("pass: %+v, %v", p, err)
			}
			db.Close()
			b.StartTimer()
		}
	})

	ix, db := benchIndex(b, filepath.Join(root, "db"), ws)
	defer db.Close()
	if p, err := ix.Pass(ctx, "c", PassOptions{}); err != nil || p.Total != 2000 {
		b.Fatalf("pass: %+v, %v", p, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "db", "af.db")); err == nil {
		b.Logf("database after indexing: %.0f MB", float64(fi.Size())/(1<<20))
	}

	b.Run("reindex-unchanged", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p, err := ix.Pass(ctx, "c", PassOptions{})
			if err != nil || p.Changed != 0 || p.Done != 2000 {
				b.Fatalf("pass: %+v, %v", p, err)
			}
		}
	})

	for _, q := range []struct{ name, query string }{
		{"rare-word", "zyzzyva"},
		{"common-word", vocabCommon(ix)},
		{"two-words", "zyzzyva appears"},
		{"chinese-2", "数据"},
		{"chinese-5", "数据库系统"},
		{"no-match", "qqqqqqqq"},
	} {
		b.Run("search-"+q.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				hits, err := ix.Search(ctx, "c", q.query, DefaultSearchLimit)
				if err != nil || (q.name != "no-match" && len(hits) == 0) {
					b.Fatalf("search %q: %d hits, %v", q.query, len(hits), err)
				}
			}
		})
	}
}

// vocabCommon returns a word found in many chunks of the bench index (the most common
// word of the first chunk of folder00/note0000.md).
func vocabCommon(ix *Index) string {
	ex, err := ix.Read(context.Background(), "c", "folder00/note0000.md", 1, 1)
	if err != nil {
		return "the"
	}
	return strings.Fields(ex.Text)[0]
}

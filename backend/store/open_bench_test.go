package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/events"
)

// realisticDB builds, closes and returns the path of a database shaped like a few weeks of
// use: 50 conversations of 200 events each (10,000 events of a few hundred bytes) and one
// 20 KB artifact with 5 versions per conversation.
func realisticDB(b *testing.B) string {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "artifactflow.db")
	db, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("A paragraph of the report, with a citation [1]. ", 400)
	for c := 0; c < 50; c++ {
		id := fmt.Sprintf("conv-%02d", c)
		if err := db.CreateConversation(ctx, Conversation{ID: id, Title: "research " + id}); err != nil {
			b.Fatal(err)
		}
		evs := make([]events.Event, 200)
		for i := range evs {
			evs[i] = benchEvent(int64(i + 1))
			evs[i].ConversationID = id
		}
		if err := db.AppendEvents(ctx, evs...); err != nil {
			b.Fatal(err)
		}
		if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: id, ID: "report", ContentType: "text/markdown",
			Title: "Report", Content: body, Version: 1, UpdateType: "create"}); err != nil {
			b.Fatal(err)
		}
		for v := 2; v <= 5; v++ {
			if _, err := db.UpdateArtifactContent(ctx, ArtifactWrite{SessionID: id, ID: "report", Content: body + fmt.Sprint(v),
				Version: v, ExpectedLockVersion: v - 1, UpdateType: "update"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if st, err := os.Stat(path); err == nil {
		b.Logf("%s: %.1f MB", filepath.Base(path), float64(st.Size())/1e6)
	}
	return path
}

// BenchmarkOpen measures Open (with its start-up checks) and Close of an existing database
// of 10,000 events; "quick_check" adds PRAGMA quick_check, the full structural scan Open
// does not run, to show what it would cost; "header_check" is checkFile alone, the part of
// Open that refuses a damaged file.
func BenchmarkOpen(b *testing.B) {
	path := realisticDB(b)
	ctx := context.Background()
	// "new" is the first start after install: Open creates the file and applies every
	// migration (what the window's first launch waits for before it opens).
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			db, err := Open(ctx, filepath.Join(b.TempDir(), "artifactflow.db"))
			if err != nil {
				b.Fatal(err)
			}
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("header_check", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := checkFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tc := range []struct {
		name       string
		quickCheck bool
	}{{"open", false}, {"open+quick_check", true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				db, err := Open(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				if tc.quickCheck {
					var res string
					if err := db.SQL().QueryRowContext(ctx, "PRAGMA quick_check").Scan(&res); err != nil || res != "ok" {
						b.Fatalf("quick_check = %q, %v", res, err)
					}
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

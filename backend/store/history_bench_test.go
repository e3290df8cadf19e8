package store

import (
	"context"
	"testing"
)

// BenchmarkHistory measures pages of the 10,000-event active path of an 11,500-event
// conversation: the newest page of 200 (what opening a conversation loads), the page of 200
// just before the last one (scrolling up), the first page of 200, and the whole history in
// pages of 1,000.
func BenchmarkHistory(b *testing.B) {
	db := openTestDB(b)
	path := historyConv(b, db, tenThousand)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		q    HistoryQuery
		want int
	}{
		{"last200", HistoryQuery{ConversationID: "h", Limit: 200, Latest: true}, 200},
		{"before_last200", HistoryQuery{ConversationID: "h", Limit: 200, BeforeSeq: path[len(path)-200]}, 200},
		{"first200", HistoryQuery{ConversationID: "h", Limit: 200}, 200},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := db.History(ctx, tc.q)
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Events) != tc.want {
					b.Fatalf("got %d events, want %d", len(p.Events), tc.want)
				}
			}
		})
	}
	b.Run("all10000_by1000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			q := HistoryQuery{ConversationID: "h", Limit: 1000}
			for {
				p, err := db.History(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				n += len(p.Events)
				if !p.HasAfter {
					break
				}
				q.AfterSeq = p.LastSeq
			}
			if n != len(path) {
				b.Fatalf("got %d events, want %d", n, len(path))
			}
		}
	})
}

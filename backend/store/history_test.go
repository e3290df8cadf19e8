package store

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"artifactflow/backend/events"
)

// historyConv fills conversation "h" with the message tree
//
//	m1 ── a1            (a1: an abandoned answer, off the active path)
//	  └── m2 ── a2      (a2: off the path)
//	        └── m3      (active branch)
//
// and events whose seq ranges are given per message, in that order, in batches of 500. It
// returns the seqs of the events on the path root → m3, ascending.
func historyConv(t testing.TB, db *DB, ranges map[string][2]int64) []int64 {
	t.Helper()
	ctx := context.Background()
	createConv(t, db, "h")
	for _, n := range [][2]string{{"m1", ""}, {"a1", "m1"}, {"m2", "m1"}, {"a2", "m2"}, {"m3", "m2"}} {
		if err := db.AddMessage(ctx, Message{ID: n[0], ConversationID: "h", ParentID: n[1], Content: n[0]}); err != nil {
			t.Fatal(err)
		}
	}
	type span struct {
		msg    string
		lo, hi int64
	}
	var spans []span
	for msg, r := range ranges {
		spans = append(spans, span{msg, r[0], r[1]})
	}
	var all []events.Event
	var path []int64
	onPath := map[string]bool{"m1": true, "m2": true, "m3": true}
	for seq := int64(1); ; seq++ {
		msg := ""
		for _, s := range spans {
			if seq >= s.lo && seq <= s.hi {
				msg = s.msg
			}
		}
		if msg == "" {
			break
		}
		typ := events.ToolComplete
		switch seq % 97 {
		case 0:
			typ = events.CompactionSummary
		case 1:
			typ = events.CompactionStart
		}
		all = append(all, events.Event{Type: typ, ConversationID: "h", MessageID: msg, Seq: seq, AgentName: "lead_agent",
			Data: []byte(`{"n":1}`)})
		if onPath[msg] {
			path = append(path, seq)
		}
	}
	for i := 0; i < len(all); i += 500 {
		if err := db.AppendEvents(ctx, all[i:min(i+500, len(all))]...); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// tenThousand is a history of 11,500 events of which the 10,000 of the active path.
var tenThousand = map[string][2]int64{"m1": {1, 3000}, "a1": {3001, 4000}, "m2": {4001, 7000}, "a2": {7001, 7500}, "m3": {7501, 11500}}

// TestHistoryPagesTenThousandEvents pages the 10,000 events of a branch forward from the
// start and backward from the end with several page sizes: every event exactly once, in
// order, none from other branches, and HasBefore/HasAfter right on every page.
func TestHistoryPagesTenThousandEvents(t *testing.T) {
	db := openTestDB(t)
	want := historyConv(t, db, tenThousand)
	if len(want) != 10000 {
		t.Fatalf("path holds %d events, want 10000", len(want))
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		limit    int
		pageSize int
	}{{"default 200", 0, 200}, {"333", 333, 333}, {"1000", 1000, 1000}, {"above max is 1000", 5000, 1000}} {
		t.Run("forward/"+tt.name, func(t *testing.T) {
			var got []int64
			q := HistoryQuery{ConversationID: "h", Limit: tt.limit}
			for pages := 0; ; pages++ {
				p, err := db.History(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Events) > tt.pageSize || (p.HasAfter && len(p.Events) != tt.pageSize) {
					t.Fatalf("page %d has %d events, want %d", pages, len(p.Events), tt.pageSize)
				}
				if p.HasBefore != (pages > 0) {
					t.Fatalf("page %d: HasBefore = %v", pages, p.HasBefore)
				}
				if len(p.Events) > 0 && (p.FirstSeq != p.Events[0].Seq || p.LastSeq != p.Events[len(p.Events)-1].Seq) {
					t.Fatalf("page %d: first/last seq %d/%d do not match its events", pages, p.FirstSeq, p.LastSeq)
				}
				got = append(got, seqs(p.Events)...)
				if !p.HasAfter {
					break
				}
				q.AfterSeq = p.LastSeq
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("forward paging returned %d events (first %v), want the %d path events once each", len(got), got[:min(5, len(got))], len(want))
			}
		})
		t.Run("backward/"+tt.name, func(t *testing.T) {
			var pages [][]int64
			q := HistoryQuery{ConversationID: "h", Limit: tt.limit, Latest: true}
			for n := 0; ; n++ {
				p, err := db.History(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if p.HasAfter != (n > 0) {
					t.Fatalf("page %d from the end: HasAfter = %v", n, p.HasAfter)
				}
				if p.HasBefore && len(p.Events) != tt.pageSize {
					t.Fatalf("page %d from the end has %d events, want %d", n, len(p.Events), tt.pageSize)
				}
				pages = append(pages, seqs(p.Events))
				if !p.HasBefore {
					break
				}
				q = HistoryQuery{ConversationID: "h", Limit: tt.limit, BeforeSeq: p.FirstSeq}
			}
			var got []int64
			for i := len(pages) - 1; i >= 0; i-- {
				got = append(got, pages[i]...)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("backward paging returned %d events, want the %d path events once each", len(got), len(want))
			}
		})
	}
}

func TestHistoryCursors(t *testing.T) {
	db := openTestDB(t)
	// m1: 1-4, a1: 5-6 (off path), m2: 7-9, a2: 10 (off path), m3: 11-13.
	historyConv(t, db, map[string][2]int64{"m1": {1, 4}, "a1": {5, 6}, "m2": {7, 9}, "a2": {10, 10}, "m3": {11, 13}})
	createConv(t, db, "empty")
	ctx := context.Background()
	tests := []struct {
		name                string
		q                   HistoryQuery
		want                []int64
		hasBefore, hasAfter bool
		wantErr             error
	}{
		{"whole active path", HistoryQuery{ConversationID: "h"}, []int64{1, 2, 3, 4, 7, 8, 9, 11, 12, 13}, false, false, nil},
		{"first page", HistoryQuery{ConversationID: "h", Limit: 3}, []int64{1, 2, 3}, false, true, nil},
		{"newest page", HistoryQuery{ConversationID: "h", Limit: 3, Latest: true}, []int64{11, 12, 13}, true, false, nil},
		{"after skips other branches", HistoryQuery{ConversationID: "h", AfterSeq: 4, Limit: 2}, []int64{7, 8}, true, true, nil},
		{"after inside an off-path run", HistoryQuery{ConversationID: "h", AfterSeq: 5, Limit: 4}, []int64{7, 8, 9, 11}, true, true, nil},
		{"before", HistoryQuery{ConversationID: "h", BeforeSeq: 11, Limit: 2}, []int64{8, 9}, true, true, nil},
		{"before beats Latest", HistoryQuery{ConversationID: "h", BeforeSeq: 3, Limit: 5, Latest: true}, []int64{1, 2}, false, true, nil},
		{"window", HistoryQuery{ConversationID: "h", AfterSeq: 2, BeforeSeq: 12, Limit: 10}, []int64{3, 4, 7, 8, 9, 11}, true, true, nil},
		{"window cut by limit", HistoryQuery{ConversationID: "h", AfterSeq: 2, BeforeSeq: 12, Limit: 2}, []int64{3, 4}, true, true, nil},
		{"window to the end", HistoryQuery{ConversationID: "h", AfterSeq: 9, BeforeSeq: 100}, []int64{11, 12, 13}, true, false, nil},
		{"after the end", HistoryQuery{ConversationID: "h", AfterSeq: 13}, nil, true, false, nil},
		{"before the start", HistoryQuery{ConversationID: "h", BeforeSeq: 1}, nil, false, true, nil},
		{"empty window between branches", HistoryQuery{ConversationID: "h", AfterSeq: 4, BeforeSeq: 7}, nil, true, true, nil},
		{"path to another branch", HistoryQuery{ConversationID: "h", ToMessageID: "a1"}, []int64{1, 2, 3, 4, 5, 6}, false, false, nil},
		{"path to an inner message", HistoryQuery{ConversationID: "h", ToMessageID: "m2", AfterSeq: 3}, []int64{4, 7, 8, 9}, true, false, nil},
		{"conversation without messages", HistoryQuery{ConversationID: "empty"}, nil, false, false, nil},
		{"unknown conversation", HistoryQuery{ConversationID: "nope"}, nil, false, false, ErrNotFound},
		{"message of no such conversation", HistoryQuery{ConversationID: "empty", ToMessageID: "m1"}, nil, false, false, ErrNotFound},
		{"no conversation id", HistoryQuery{}, nil, false, false, ErrInvalid},
		{"negative after", HistoryQuery{ConversationID: "h", AfterSeq: -1}, nil, false, false, ErrInvalid},
		{"negative limit", HistoryQuery{ConversationID: "h", Limit: -5}, nil, false, false, ErrInvalid},
		{"before not above after", HistoryQuery{ConversationID: "h", AfterSeq: 5, BeforeSeq: 5}, nil, false, false, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := db.History(ctx, tt.q)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("History(%+v) err = %v, want %v", tt.q, err, tt.wantErr)
			}
			if !reflect.DeepEqual(seqs(p.Events), tt.want) || p.HasBefore != tt.hasBefore || p.HasAfter != tt.hasAfter {
				t.Errorf("History(%+v) = %v before=%v after=%v; want %v before=%v after=%v",
					tt.q, seqs(p.Events), p.HasBefore, p.HasAfter, tt.want, tt.hasBefore, tt.hasAfter)
			}
			var first, last int64
			if len(tt.want) > 0 {
				first, last = tt.want[0], tt.want[len(tt.want)-1]
			}
			if p.FirstSeq != first || p.LastSeq != last {
				t.Errorf("first/last seq = %d/%d, want %d/%d", p.FirstSeq, p.LastSeq, first, last)
			}
		})
	}
}

// TestHistoryQueryPlan checks that a history page walks the (conversation_id, seq) index
// in seq order, with no sort over the conversation's events.
func TestHistoryQueryPlan(t *testing.T) {
	db := openTestDB(t)
	rows, err := db.SQL().Query(`EXPLAIN QUERY PLAN SELECT seq FROM message_events
		WHERE conversation_id = ?2 AND `+pathMessages+` AND seq < ?3 ORDER BY seq DESC LIMIT 201`, `["m"]`, "c", 100)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	found := false
	for _, d := range plan {
		if d == "SEARCH message_events USING INDEX sqlite_autoindex_message_events_1 (conversation_id=? AND seq<?)" {
			found = true
		}
		if d == "USE TEMP B-TREE FOR ORDER BY" {
			t.Errorf("history query sorts: plan %q", plan)
		}
	}
	if !found {
		t.Errorf("history query does not range-scan (conversation_id, seq): plan %q", plan)
	}
}

// TestPathEventsInput: no messages give no events; an empty conversation id is refused.
func TestPathEventsInput(t *testing.T) {
	db := openTestDB(t)
	if evs, err := db.PathEvents(context.Background(), "c", nil); err != nil || evs != nil {
		t.Fatalf("no messages: %v, %v", evs, err)
	}
	if _, err := db.PathEvents(context.Background(), "", []string{"m"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty conversation id: %v, want ErrInvalid", err)
	}
}

package store

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"artifactflow/backend/events"
)

// seqs returns the seq of each event.
func seqs(evs []events.Event) []int64 {
	var out []int64
	for _, ev := range evs {
		out = append(out, ev.Seq)
	}
	return out
}

func TestAppendAndListEvents(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	createConv(t, db, "other")

	// Ten events: seq 1..5 belong to message m1, 6..10 to m2.
	created := time.Date(2025, 5, 6, 7, 8, 9, 123456789, time.UTC)
	var evs []events.Event
	for seq := int64(1); seq <= 10; seq++ {
		msg := "m1"
		if seq > 5 {
			msg = "m2"
		}
		evs = append(evs, events.Event{Type: events.ToolStart, ConversationID: "c", MessageID: msg, Seq: seq,
			AgentName: "lead_agent", CreatedAt: created, Data: events.MustData(events.DataToolStart{CallID: "x", Tool: "web_search", Params: json.RawMessage(`{"q":"é"}`)})})
	}
	if err := db.AppendEvents(ctx, evs[:4]...); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendEvents(ctx, evs[4:]...); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendEvents(ctx, events.Event{Type: events.Complete, ConversationID: "other", MessageID: "o1", Seq: 1}); err != nil {
		t.Fatal(err)
	}

	all, err := db.ListEvents(ctx, EventQuery{ConversationID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(all, evs) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", all[0], evs[0])
	}

	tests := []struct {
		name string
		q    EventQuery
		want []int64
	}{
		{"all", EventQuery{ConversationID: "c"}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"limit", EventQuery{ConversationID: "c", Limit: 3}, []int64{1, 2, 3}},
		{"after", EventQuery{ConversationID: "c", AfterSeq: 7}, []int64{8, 9, 10}},
		{"after with limit", EventQuery{ConversationID: "c", AfterSeq: 2, Limit: 2}, []int64{3, 4}},
		{"before", EventQuery{ConversationID: "c", BeforeSeq: 4}, []int64{1, 2, 3}},
		{"before with limit is the page just before", EventQuery{ConversationID: "c", BeforeSeq: 9, Limit: 3}, []int64{6, 7, 8}},
		{"before and after", EventQuery{ConversationID: "c", AfterSeq: 2, BeforeSeq: 9, Limit: 10}, []int64{3, 4, 5, 6, 7, 8}},
		{"message filter", EventQuery{ConversationID: "c", MessageID: "m2"}, []int64{6, 7, 8, 9, 10}},
		{"message filter with before and limit", EventQuery{ConversationID: "c", MessageID: "m1", BeforeSeq: 100, Limit: 2}, []int64{4, 5}},
		{"message filter with after", EventQuery{ConversationID: "c", MessageID: "m1", AfterSeq: 3}, []int64{4, 5}},
		{"after the end", EventQuery{ConversationID: "c", AfterSeq: 10}, nil},
		{"other conversation", EventQuery{ConversationID: "other"}, []int64{1}},
		{"unknown conversation", EventQuery{ConversationID: "nope"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.ListEvents(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(seqs(got), tt.want) {
				t.Errorf("ListEvents(%+v) seqs = %v, want %v", tt.q, seqs(got), tt.want)
			}
		})
	}
	if _, err := db.ListEvents(ctx, EventQuery{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("ListEvents without conversation: err = %v, want ErrInvalid", err)
	}

	for conv, want := range map[string]int64{"c": 10, "other": 1, "nope": 0} {
		if got, err := db.MaxSeq(ctx, conv); err != nil || got != want {
			t.Errorf("MaxSeq(%q) = %d, %v; want %d", conv, got, err, want)
		}
	}
}

func TestAppendEventsErrors(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	createConv(t, db, "c")
	ok := func(seq int64) events.Event {
		return events.Event{Type: events.AgentStart, ConversationID: "c", MessageID: "m", Seq: seq}
	}
	if err := db.AppendEvents(ctx, ok(1), ok(2)); err != nil {
		t.Fatal(err)
	}
	withType := func(ev events.Event, typ events.Type) events.Event { ev.Type = typ; return ev }
	withData := func(ev events.Event, d string) events.Event { ev.Data = json.RawMessage(d); return ev }
	withConv := func(ev events.Event, c string) events.Event { ev.ConversationID = c; return ev }
	tests := []struct {
		name string
		evs  []events.Event
		want error
	}{
		{"duplicate seq", []events.Event{ok(2)}, ErrDuplicate},
		{"duplicate seq later in a batch rolls back the batch", []events.Event{ok(3), ok(4), ok(1)}, ErrDuplicate},
		{"duplicate within the batch", []events.Event{ok(5), ok(5)}, ErrDuplicate},
		{"llm_chunk is never persisted", []events.Event{withType(ok(3), events.LLMChunk)}, ErrInvalid},
		{"empty type", []events.Event{withType(ok(3), "")}, ErrInvalid},
		{"invalid JSON data", []events.Event{withData(ok(3), `{"a":`)}, ErrInvalid},
		{"seq zero", []events.Event{ok(0)}, ErrInvalid},
		{"unknown conversation", []events.Event{withConv(ok(1), "nope")}, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.AppendEvents(ctx, tt.evs...); !errors.Is(err, tt.want) {
				t.Errorf("AppendEvents = %v, want %v", err, tt.want)
			}
			if got, _ := db.MaxSeq(ctx, "c"); got != 2 {
				t.Errorf("MaxSeq after failed append = %d, want 2 (nothing written)", got)
			}
		})
	}
	if err := db.AppendEvents(ctx); err != nil {
		t.Errorf("AppendEvents() with no events = %v, want nil", err)
	}
	got, err := db.ListEvents(ctx, EventQuery{ConversationID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if string(got[0].Data) != "{}" || got[0].CreatedAt.IsZero() {
		t.Errorf("empty data / zero time not defaulted: data %q created %v", got[0].Data, got[0].CreatedAt)
	}
}

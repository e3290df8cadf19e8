package declared

import (
	"fmt"
	"testing"

	"artifactflow/backend/store"
)

// BenchmarkUpsert200 is one batch of 200 new link artifacts (a POST of 200) into an empty
// conversation: validation, one transaction with 200 inserts and 200 log entries.
func BenchmarkUpsert200(b *testing.B) {
	h := newHarness(b)
	ins := make([]Input, 200)
	for i := range ins {
		ins[i] = Input{Title: fmt.Sprint("Resource ", i), Description: "a resource page", URL: urlN("bench", i),
			MimeType: "text/html", Source: SourceClient, ClientID: "bench", Metadata: map[string]any{"resourceType": "x", "n": i}}
	}
	b.ReportAllocs()
	for n := 0; b.Loop(); n++ {
		b.StopTimer()
		conv := fmt.Sprint("bench-", n)
		if err := h.db.CreateConversation(h.ctx, store.Conversation{ID: conv}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		chs, err := h.svc.Upsert(h.ctx, conv, ins, true)
		if err != nil || len(chs) != 200 {
			b.Fatalf("Upsert: %d changes, %v", len(chs), err)
		}
	}
}

// BenchmarkUpsert200Workspace is one batch of 200 new workspace artifacts (files that
// exist): each is resolved and stat'ed.
func BenchmarkUpsert200Workspace(b *testing.B) {
	h := newHarness(b)
	ins := make([]Input, 200)
	for i := range ins {
		p := fmt.Sprintf("out/dir%d/file%d.html", i%10, i)
		h.write(p, "<p>hello</p>")
		ins[i] = Input{Title: fmt.Sprint("File ", i), WorkspacePath: p, Source: SourceTool}
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := h.db.DeleteConversation(h.ctx, h.conv); err != nil {
			b.Fatal(err)
		}
		if err := h.db.CreateConversation(h.ctx, store.Conversation{ID: h.conv}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if chs, err := h.svc.Upsert(h.ctx, h.conv, ins, true); err != nil || len(chs) != 200 {
			b.Fatalf("Upsert: %d changes, %v", len(chs), err)
		}
	}
}

// BenchmarkList200Refresh lists 200 workspace artifacts with every one due for a status
// refresh (the clock moves RefreshInterval between lists): 200 containment + realpath
// checks and 200 stat updates in one transaction.
func BenchmarkList200Refresh(b *testing.B) {
	h := newHarness(b)
	seedWorkspace(b, h)
	b.ReportAllocs()
	for b.Loop() {
		h.advance(RefreshInterval)
		if as, err := h.svc.List(h.ctx, h.conv); err != nil || len(as) != 200 {
			b.Fatalf("List: %d, %v", len(as), err)
		}
	}
}

// BenchmarkList200Cached lists the same 200 artifacts within RefreshInterval (no stat).
func BenchmarkList200Cached(b *testing.B) {
	h := newHarness(b)
	seedWorkspace(b, h)
	b.ReportAllocs()
	for b.Loop() {
		if as, err := h.svc.List(h.ctx, h.conv); err != nil || len(as) != 200 {
			b.Fatalf("List: %d, %v", len(as), err)
		}
	}
}

// seedWorkspace registers 200 workspace files (half present, some missing).
func seedWorkspace(b *testing.B, h *harness) {
	ins := make([]Input, 200)
	for i := range ins {
		p := fmt.Sprintf("out/dir%d/file%d.pdf", i%10, i)
		if i%20 != 0 {
			h.write(p, "%PDF-1.7 bench")
		}
		ins[i] = Input{Title: fmt.Sprint("File ", i), WorkspacePath: p, Source: SourceTool}
	}
	if _, err := h.svc.Upsert(h.ctx, h.conv, ins, true); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkChooseVictims is the eviction choice at its largest: a full conversation (100
// tool, 50 client, 50 hook artifacts) and 1,000 new hook inputs (five hooks declaring 200
// each), so 1,000 victims among 1,200 slots.
func BenchmarkChooseVictims(b *testing.B) {
	var slots []slot
	for i := range MaxPerConversation {
		src := SourceTool
		switch {
		case i%4 == 1:
			src = SourceClient
		case i%4 == 3:
			src = SourceHook
		}
		slots = append(slots, slot{source: src, retained: src == SourceClient, missing: i%17 == 0})
	}
	for range 1000 {
		slots = append(slots, slot{source: SourceHook, fresh: true})
	}
	b.ReportAllocs()
	for b.Loop() {
		if v := chooseVictims(slots, 1000); len(v) != 1000 {
			b.Fatal(len(v))
		}
	}
}

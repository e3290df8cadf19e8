package declared

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// fill registers n artifacts of source src in one batch (prefix names their URLs and
// titles) one second after the previous fill, and returns their ids in order. No
// artifact may be removed while filling.
func (h *harness) fill(src, prefix string, n int) []string {
	h.t.Helper()
	h.advance(time.Second)
	ins := make([]Input, n)
	for i := range ins {
		ins[i] = Input{Title: fmt.Sprintf("%s %d", prefix, i), URL: urlN(prefix, i), Source: src, ClientID: "cli"}
	}
	chs := h.upsert(ins...)
	ids := make([]string, 0, n)
	for _, c := range chs {
		if c.Action != ActionCreated {
			h.t.Fatalf("fill %s: unexpected %s", prefix, c.Action)
		}
		ids = append(ids, c.ArtifactID)
	}
	if len(ids) != n {
		h.t.Fatalf("fill %s: %d created, want %d", prefix, len(ids), n)
	}
	return ids
}

// one is a single new input of src.
func one(src, name string) Input {
	return Input{Title: name, URL: "https://new.example/" + name, Source: src, ClientID: "cli"}
}

// expectEviction upserts ins and checks the changes: the created/updated ones (as
// "action:id"), then exactly the victims removed with reason eviction, in that order, each
// carrying its full last state; and that the conversation holds at most 200 afterwards.
func (h *harness) expectEviction(ins []Input, wantFirst []string, victims ...string) []Change {
	h.t.Helper()
	chs := h.upsert(ins...)
	want := slices.Clone(wantFirst)
	for _, v := range victims {
		want = append(want, ActionRemoved+":"+v+":"+ReasonEviction)
	}
	if got := actions(chs); !slices.Equal(got, want) {
		h.t.Fatalf("changes =\n%v\nwant\n%v", got, want)
	}
	for _, c := range chs {
		if c.Action == ActionRemoved && (c.Artifact == nil || c.Artifact.Title == "" || c.Artifact.CreatedAt == "") {
			h.t.Errorf("removed change without the full artifact: %+v", c)
		}
	}
	as := h.list()
	if len(as) > MaxPerConversation {
		h.t.Errorf("%d artifacts after eviction", len(as))
	}
	for _, v := range victims {
		if _, ok := byID(as, v); ok {
			h.t.Errorf("victim %s still listed", v)
		}
	}
	p := h.pubs()
	if len(p) < len(chs) {
		h.t.Fatalf("published %d changes, want at least %d", len(p), len(chs))
	}
	for i, c := range chs {
		if got := p[len(p)-len(chs)+i].Change; got.Action != c.Action || got.ArtifactID != c.ArtifactID {
			h.t.Errorf("published change %d = %s %s, want %s %s (same order as returned)", i, got.Action, got.ArtifactID, c.Action, c.ArtifactID)
		}
	}
	return chs
}

func newID(h *harness, name string) string {
	return artifactID(h.conv, "url:https://new.example/"+name)
}

// TestEvictionAtDefaults: 50 hook + 50 client + 100 tool, then one more of each source.
func TestEvictionAtDefaults(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		victim func(hook, client, tool []string) string
	}{
		{"one more tool evicts the oldest tool", SourceTool, func(_, _, tool []string) string { return tool[0] }},
		{"one more hook evicts the oldest hook", SourceHook, func(hook, _, _ []string) string { return hook[0] }},
		// Client is over its reservation: its oldest goes although clients retain every
		// client artifact (retention breaks no reservation), never a hook or tool
		// artifact within its own reservation.
		{"one more client evicts the oldest client", SourceClient, func(_, client, _ []string) string { return client[0] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			hook := h.fill(SourceHook, "hook", 50)
			client := h.fill(SourceClient, "client", 50)
			tool := h.fill(SourceTool, "tool", 100)
			if n := len(h.list()); n != 200 {
				t.Fatalf("%d artifacts after filling", n)
			}
			h.advance(time.Second)
			h.expectEviction([]Input{one(tt.src, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, tt.victim(hook, client, tool))
			if n := len(h.list()); n != 200 {
				t.Errorf("%d artifacts, want 200", n)
			}
		})
	}
}

func TestEvictionMissingFirst(t *testing.T) {
	t.Run("a missing artifact of the paying source goes before its older live ones", func(t *testing.T) {
		h := newHarness(t)
		h.fill(SourceHook, "hook", 50)
		h.fill(SourceClient, "client", 50)
		h.fill(SourceTool, "tool", 50)
		h.advance(time.Second)
		gone := h.upsert(Input{Title: "gone", WorkspacePath: "gone.html", Source: SourceTool})[0].ArtifactID
		h.fill(SourceTool, "tool2", 49)
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, gone)
	})
	t.Run("the status is re-checked just before: a file that came back is not missing", func(t *testing.T) {
		h := newHarness(t)
		h.fill(SourceHook, "hook", 50)
		h.fill(SourceClient, "client", 50)
		tool := h.fill(SourceTool, "tool", 50)
		h.advance(time.Second)
		gone := h.upsert(Input{Title: "gone", WorkspacePath: "gone.html", Source: SourceTool})[0].ArtifactID
		h.fill(SourceTool, "tool2", 49)
		h.write("gone.html", "back")
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, tool[0])
		a, _ := byID(h.list(), gone)
		if a.Status != StatusAvailable {
			t.Errorf("re-checked artifact status %s, want available (persisted)", a.Status)
		}
	})
	t.Run("a missing artifact of a source within its reservation is not evicted for another", func(t *testing.T) {
		h := newHarness(t)
		h.fill(SourceHook, "hook", 49)
		h.advance(time.Second)
		missingHook := h.upsert(Input{Title: "gone", WorkspacePath: "gone.html", Source: SourceHook})[0].ArtifactID
		h.fill(SourceClient, "client", 50)
		tool := h.fill(SourceTool, "tool", 100)
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, tool[0])
		if _, ok := byID(h.list(), missingHook); !ok {
			t.Error("the hook's missing artifact was evicted although hooks are within their reservation")
		}
	})
	t.Run("a missing client-retained artifact is not evicted first", func(t *testing.T) {
		h := newHarness(t)
		h.upsert(Input{Title: "gone", WorkspacePath: "gone.html", Source: SourceClient}) // the oldest, and missing
		h.fill(SourceClient, "client", 49)
		h.fill(SourceHook, "hook", 50)
		tool := h.fill(SourceTool, "tool", 100)
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, tool[0])
	})
	t.Run("a file deleted since it was registered is found missing", func(t *testing.T) {
		h := newHarness(t)
		h.write("present.txt", "here")
		h.fill(SourceHook, "hook", 50)
		h.fill(SourceTool, "tool", 50)
		h.advance(time.Second)
		present := h.upsert(Input{Title: "present", WorkspacePath: "present.txt", Source: SourceTool})[0].ArtifactID
		h.fill(SourceTool, "tool2", 49)
		h.fill(SourceClient, "client", 50)
		if err := os.Remove(filepath.Join(h.ws, "present.txt")); err != nil {
			t.Fatal(err)
		}
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, present)
	})
}

func TestEvictionClientRetainedLast(t *testing.T) {
	t.Run("an unretained artifact of the over source goes before retained ones", func(t *testing.T) {
		h := newHarness(t)
		tool := h.fill(SourceTool, "tool", 100)
		h.fill(SourceHook, "hook", 50)
		h.fill(SourceClient, "client", 50)
		// A client registers the ten oldest tool artifacts: retained, still the tool's.
		h.advance(time.Second)
		var ins []Input
		for i := range 10 {
			ins = append(ins, Input{Title: "keep", URL: urlN("tool", i), Source: SourceClient, ClientID: "keeper"})
		}
		if chs := h.upsert(ins...); len(chs) != 10 {
			t.Fatalf("retaining: %v", actions(chs))
		}
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, tool[10])
	})
	t.Run("a client over its reservation cannot push out the agent's artifacts", func(t *testing.T) {
		h := newHarness(t)
		h.fill(SourceTool, "tool", 100)
		client := h.fill(SourceClient, "client", 100) // borrowing the hooks' unused share
		var ins []Input
		for i := range 10 {
			ins = append(ins, one(SourceClient, fmt.Sprintf("more%d", i)))
		}
		chs := h.upsert(ins...)
		var removed []string
		for _, c := range chs {
			if c.Action == ActionRemoved {
				removed = append(removed, c.ArtifactID)
			}
		}
		if want := client[:10]; !slices.Equal(removed, want) {
			t.Errorf("removed %v, want the ten oldest client artifacts %v", removed, want)
		}
	})
	t.Run("a missing client-retained artifact goes first among retained ones", func(t *testing.T) {
		h := newHarness(t)
		h.fill(SourceClient, "client", 199)
		h.upsert(Input{Title: "gone", WorkspacePath: "gone.html", Source: SourceClient}) // the newest, and missing
		gone := artifactID(h.conv, "workspace:gone.html")
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, gone)
	})
	t.Run("when every artifact is client-retained the oldest still goes", func(t *testing.T) {
		h := newHarness(t)
		client := h.fill(SourceClient, "client", 200) // borrowing everything
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, client[0])
	})
	t.Run("a batch that retains an artifact spares it", func(t *testing.T) {
		h := newHarness(t)
		tool := h.fill(SourceTool, "tool", 200)
		h.advance(time.Second)
		batch := []Input{{Title: "keep", URL: urlN("tool", 0), Source: SourceClient, ClientID: "k"}, one(SourceTool, "x")}
		h.expectEviction(batch, []string{ActionUpdated + ":" + tool[0], ActionCreated + ":" + newID(h, "x")}, tool[1])
	})
}

func TestEvictionBorrowing(t *testing.T) {
	t.Run("an unused reservation is borrowed, then reclaimed", func(t *testing.T) {
		h := newHarness(t)
		tool := h.fill(SourceTool, "tool", 150) // 50 over its reservation, borrowing the client's
		h.fill(SourceHook, "hook", 50)
		if n := len(h.list()); n != 200 {
			t.Fatalf("%d artifacts", n)
		}
		// A client arrives: tool is the source most over its reservation.
		h.expectEviction([]Input{one(SourceClient, "c1")}, []string{ActionCreated + ":" + newID(h, "c1")}, tool[0])
		// A hook arrives: hook is 1 over, tool 49 over: the tool pays again.
		h.expectEviction([]Input{one(SourceHook, "h1")}, []string{ActionCreated + ":" + newID(h, "h1")}, tool[1])
	})
	t.Run("the source most over pays, not the one adding", func(t *testing.T) {
		h := newHarness(t)
		h.fill(SourceTool, "tool", 100)
		hook := h.fill(SourceHook, "hook", 100) // hook borrows the client's 50
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, hook[0])
	})
	t.Run("equally over: the source with the older artifact pays", func(t *testing.T) {
		h := newHarness(t)
		hook := h.fill(SourceHook, "hook", 75) // 25 over
		h.fill(SourceTool, "tool", 124)        // 24 over, 25 with the new one
		h.fill(SourceClient, "client", 1)
		h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, hook[0])
	})
}

func TestEvictionBatches(t *testing.T) {
	t.Run("new inputs beyond capacity are dropped, never created then removed", func(t *testing.T) {
		h := newHarness(t)
		var ins []Input
		for i := range 205 {
			ins = append(ins, Input{Title: fmt.Sprint("n", i), URL: urlN("n", i), Source: SourceTool})
		}
		rep := h.upsertReport(true, ins...)
		if got := droppedIndices(rep.Dropped, DropQuota); !slices.Equal(got, seq(200, 205)) {
			t.Errorf("dropped %v, want inputs 200..204", got)
		}
		chs := rep.Changes
		if len(chs) != 200 {
			t.Fatalf("%d changes, want 200 created", len(chs))
		}
		for i, c := range chs {
			if c.Action != ActionCreated || c.Artifact.Title != fmt.Sprint("n", i) {
				t.Fatalf("change %d = %s %s, want the first 200 inputs created in order", i, c.Action, c.Artifact.Title)
			}
		}
		if _, ok := byID(h.list(), artifactID(h.conv, "url:"+urlN("n", 200))); ok {
			t.Error("input 201 stored")
		}
	})
	t.Run("a full store and a large batch of another source: both end equally over, each paying with its own", func(t *testing.T) {
		h := newHarness(t)
		old := h.fill(SourceTool, "old", 200) // borrowing everything
		h.advance(time.Second)
		var ins []Input
		for i := range 201 {
			ins = append(ins, Input{Title: fmt.Sprint("n", i), URL: urlN("n", i), Source: SourceHook})
		}
		rep := h.upsertReport(true, ins...)
		// Tool 200 (100 over) and hook 201 new (151 over), 201 too many: the hook drops its
		// newest 51 inputs, then each pays in turn, 75 each: tool 125, hook 75, both 25 over.
		chs := rep.Changes
		if len(chs) != 150 {
			t.Fatalf("%d changes, want 75 created + 75 removed", len(chs))
		}
		seen := map[string]bool{}
		for i, c := range chs {
			switch {
			case i < 75:
				if c.Action != ActionCreated || c.Artifact.Title != fmt.Sprint("n", i) {
					t.Fatalf("change %d = %s %s, want the first 75 inputs created in order", i, c.Action, c.ArtifactID)
				}
			case c.Action != ActionRemoved || c.ArtifactID != old[i-75] || c.Reason != ReasonEviction:
				t.Fatalf("change %d = %s %s (%s), want the oldest tool artifacts evicted, oldest first", i, c.Action, c.ArtifactID, c.Reason)
			}
			if seen[c.ArtifactID] {
				t.Fatalf("change %d: %s twice", i, c.ArtifactID)
			}
			seen[c.ArtifactID] = true
		}
		if got, want := droppedIndices(rep.Dropped, DropQuota), seq(75, 201); !slices.Equal(got, want) {
			t.Errorf("dropped %v, want inputs 75..200", got)
		}
		if n := len(h.list()); n != 200 {
			t.Errorf("%d artifacts, want 200", n)
		}
	})
	t.Run("an artifact updated and evicted in one batch yields one removed", func(t *testing.T) {
		h := newHarness(t)
		tool := h.fill(SourceTool, "tool", 200)
		h.advance(time.Second)
		batch := []Input{
			{Title: "again", URL: urlN("tool", 0), Source: SourceTool, Metadata: map[string]any{"new": "key"}},
			one(SourceTool, "x"),
		}
		chs := h.expectEviction(batch, []string{ActionCreated + ":" + newID(h, "x")}, tool[0])
		if m := chs[1].Artifact.Metadata; m != nil {
			t.Errorf("removed artifact carries metadata %v it never stored", m)
		}
	})
	t.Run("three new over a full store: three created then three removed", func(t *testing.T) {
		h := newHarness(t)
		tool := h.fill(SourceTool, "tool", 200)
		h.advance(time.Second)
		h.expectEviction([]Input{one(SourceHook, "a"), one(SourceHook, "b"), one(SourceHook, "c")},
			[]string{ActionCreated + ":" + newID(h, "a"), ActionCreated + ":" + newID(h, "b"), ActionCreated + ":" + newID(h, "c")},
			tool[0], tool[1], tool[2])
	})
}

// droppedIndices returns the indices of the dropped inputs of reason, checking that each
// has a message.
func droppedIndices(ds []Dropped, reason string) []int {
	var out []int
	for _, d := range ds {
		if d.Reason == reason && d.Message != "" {
			out = append(out, d.Index)
		}
	}
	return out
}

// seq is from, from+1, …, to-1.
func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// TestEvictionKeepsOtherSourcesReservations: a batch of one source never evicts what
// another source holds within its reservation, however large; the batch's source pays
// with its own stored artifacts first, then its newest inputs are dropped and reported.
func TestEvictionKeepsOtherSourcesReservations(t *testing.T) {
	type fill struct {
		src string
		n   int
	}
	tests := []struct {
		name      string
		pre       []fill
		batch     string // source of the 200-input batch
		strict    bool
		evictFrom int // index in pre of the fill whose oldest are evicted (-1: none)
		evicted   int
		dropFrom  int // inputs dropFrom..199 are dropped
	}{
		{"a client's 200 links after the agent's 3", []fill{{SourceTool, 3}}, SourceClient, true, -1, 0, 197},
		{"a hook's 200 links after the agent's 3", []fill{{SourceTool, 3}}, SourceHook, false, -1, 0, 197},
		{"a tool's 200 links after a client's 3", []fill{{SourceClient, 3}}, SourceTool, true, -1, 0, 197},
		{"a hook flood beside the agent's and a client's", []fill{{SourceTool, 3}, {SourceClient, 40}}, SourceHook, false, -1, 0, 157},
		{"a client over its reservation loses its own oldest first", []fill{{SourceTool, 3}, {SourceClient, 30}}, SourceClient, true, 1, 30, 197},
		{"a hook over its reservation loses its stored ones before its inputs", []fill{{SourceHook, 120}, {SourceTool, 3}}, SourceHook, false, 0, 120, 197},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			var pre [][]string
			for i, f := range tt.pre {
				pre = append(pre, h.fill(f.src, fmt.Sprint("pre", i), f.n))
			}
			h.advance(time.Second)
			ins := make([]Input, 200)
			for i := range ins {
				ins[i] = Input{Title: fmt.Sprint("flood ", i), URL: urlN("flood", i), Source: tt.batch, ClientID: "B", HookName: "flood"}
			}
			pubs := len(h.pubs())
			rep := h.upsertReport(tt.strict, ins...)

			var want []string
			for i := range tt.dropFrom {
				want = append(want, ActionCreated+":"+artifactID(h.conv, "url:"+urlN("flood", i)))
			}
			var victims []string
			if tt.evictFrom >= 0 {
				victims = pre[tt.evictFrom][:tt.evicted]
			}
			for _, v := range victims {
				want = append(want, ActionRemoved+":"+v+":"+ReasonEviction)
			}
			if got := actions(rep.Changes); !slices.Equal(got, want) {
				t.Fatalf("changes: %d, want %d (the first %d inputs created, then %d evicted)\n%v", len(got), len(want), tt.dropFrom, len(victims), got)
			}
			if got := droppedIndices(rep.Dropped, DropQuota); !slices.Equal(got, seq(tt.dropFrom, 200)) || len(rep.Dropped) != 200-tt.dropFrom {
				t.Errorf("dropped %+v, want inputs %d..199 reported with reason quota", rep.Dropped, tt.dropFrom)
			}
			if p := h.pubs(); len(p)-pubs != len(rep.Changes) {
				t.Errorf("published %d changes, want the %d returned", len(p)-pubs, len(rep.Changes))
			}
			as := h.list()
			if len(as) != 200 {
				t.Errorf("%d artifacts, want 200", len(as))
			}
			for i, ids := range pre {
				for j, id := range ids {
					_, listed := byID(as, id)
					if gone := i == tt.evictFrom && j < tt.evicted; listed == gone {
						t.Errorf("%s artifact %d of fill %d: listed %v", tt.pre[i].src, j, i, listed)
					}
				}
			}
			for i := tt.dropFrom; i < 200; i++ {
				if _, ok := byID(as, artifactID(h.conv, "url:"+urlN("flood", i))); ok {
					t.Errorf("dropped input %d stored", i)
				}
			}
		})
	}
}

// TestChooseVictimsOnlySourcesOverPay: over random mixes of stored artifacts and batch
// inputs, every victim's source is over its reservation when it is chosen, so a source
// that loses anything still holds at least its reservation, and what is left fits.
func TestChooseVictimsOnlySourcesOverPay(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sources := []string{SourceTool, SourceClient, SourceHook}
	for round := range 500 {
		var slots []slot
		for range rng.IntN(MaxPerConversation + 1) {
			slots = append(slots, slot{source: sources[rng.IntN(3)], retained: rng.IntN(3) == 0, missing: rng.IntN(5) == 0})
		}
		for range rng.IntN(250) {
			slots = append(slots, slot{source: sources[rng.IntN(3)], fresh: true})
		}
		k := len(slots) - MaxPerConversation
		if k <= 0 {
			continue
		}
		counts := map[string]int{}
		for _, s := range slots {
			counts[s.source]++
		}
		victims := chooseVictims(slots, k)
		if len(victims) != k {
			t.Fatalf("round %d: %d victims, want %d", round, len(victims), k)
		}
		seen := map[int]bool{}
		for _, v := range victims {
			src := slots[v].source
			if seen[v] || counts[src] <= reservation(src) {
				t.Fatalf("round %d: victim %d (%s, %d held, reservation %d, seen %v)", round, v, src, counts[src], reservation(src), seen[v])
			}
			seen[v] = true
			counts[src]--
		}
	}
}

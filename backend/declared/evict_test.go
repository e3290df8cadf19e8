package declared

import (
	"fmt"
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
		// client artifact (retention breaks no reservation, seed 002), never a hook or tool
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
	type setup struct {
		h                  *harness
		hook, client, tool []string
		missingHook        string
		missingClient      string
	}
	build := func(t *testing.T) setup {
		h := newHarness(t)
		s := setup{h: h}
		s.hook = h.fill(SourceHook, "hook", 49)
		h.advance(time.Second)
		s.missingHook = h.upsert(Input{Title: "gone", WorkspacePath: "gone.html", Source: SourceHook})[0].ArtifactID
		s.client = h.fill(SourceClient, "client", 49)
		h.advance(time.Second)
		s.missingClient = h.upsert(Input{Title: "gone too", WorkspacePath: "gone-too.html", Source: SourceClient})[0].ArtifactID
		s.tool = h.fill(SourceTool, "tool", 100)
		return s
	}
	t.Run("a missing artifact goes before the over-reservation source", func(t *testing.T) {
		s := build(t)
		s.h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(s.h, "x")}, s.missingHook)
	})
	t.Run("the status is re-checked just before: a file that came back is not missing", func(t *testing.T) {
		s := build(t)
		s.h.write("gone.html", "back")
		s.h.expectEviction([]Input{one(SourceTool, "x")}, []string{ActionCreated + ":" + newID(s.h, "x")}, s.tool[0])
		a, _ := byID(s.h.list(), s.missingHook)
		if a.Status != StatusAvailable {
			t.Errorf("re-checked artifact status %s, want available (persisted)", a.Status)
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
		h.advance(time.Second)
		present := h.upsert(Input{Title: "present", WorkspacePath: "present.txt", Source: SourceTool})[0].ArtifactID
		h.fill(SourceTool, "tool", 99)
		h.fill(SourceClient, "client", 50)
		if err := os.Remove(filepath.Join(h.ws, "present.txt")); err != nil {
			t.Fatal(err)
		}
		h.expectEviction([]Input{one(SourceHook, "x")}, []string{ActionCreated + ":" + newID(h, "x")}, present)
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
		chs := h.upsert(ins...)
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
	t.Run("a full store and a large batch: created first, then removed, no identity twice", func(t *testing.T) {
		h := newHarness(t)
		old := h.fill(SourceTool, "old", 200)
		h.advance(time.Second)
		var ins []Input
		for i := range 201 {
			ins = append(ins, Input{Title: fmt.Sprint("n", i), URL: urlN("n", i), Source: SourceHook})
		}
		chs := h.upsert(ins...)
		if len(chs) != 400 {
			t.Fatalf("%d changes, want 200 created + 200 removed", len(chs))
		}
		seen := map[string]bool{}
		for i, c := range chs {
			wantAction := ActionCreated
			if i >= 200 {
				wantAction = ActionRemoved
				if c.ArtifactID != old[i-200] || c.Reason != ReasonEviction {
					t.Fatalf("removed %d = %s (%s), want %s oldest first", i-200, c.ArtifactID, c.Reason, old[i-200])
				}
			}
			if c.Action != wantAction || seen[c.ArtifactID] {
				t.Fatalf("change %d = %s %s (seen %v)", i, c.Action, c.ArtifactID, seen[c.ArtifactID])
			}
			seen[c.ArtifactID] = true
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

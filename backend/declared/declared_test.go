package declared

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/store"
)

func TestFirstWriterKeepsDisplayFields(t *testing.T) {
	h := newHarness(t)
	u := "https://platform.example.com/resources/user-profile"
	first := Input{Title: "用户画像资源详情", Description: "内部数据平台资源详情页", URL: u, MimeType: "text/html",
		Source: SourceTool, ToolCallID: "call_abc", ToolName: "record_artifact"}
	chs := h.upsert(first)
	created := *chs[0].Artifact
	if created.Source != SourceTool || created.ToolCallID != "call_abc" || created.ClientRetained {
		t.Fatalf("created = %+v", created)
	}

	h.advance(time.Minute)
	hook := Input{Title: "Hook title", Description: "hook", URL: u, MimeType: "application/json", Kind: KindImage,
		Source: SourceHook, HookName: "task-artifacts", ToolName: "other"}
	if chs := h.upsert(hook); len(chs) != 0 {
		t.Errorf("hook re-registration changed %v; the first writer's fields stay, so nothing changes", actions(chs))
	}

	h.advance(time.Minute)
	client := Input{Title: "Client title", URL: u, Source: SourceClient, ClientID: "cli-1"}
	chs = h.upsert(client)
	if len(chs) != 1 || chs[0].Action != ActionUpdated {
		t.Fatalf("client registration: %v, want one updated (client-retained)", actions(chs))
	}
	a := *chs[0].Artifact
	if a.Title != first.Title || a.Description != first.Description || a.MimeType != "text/html" || a.Kind != KindLink ||
		a.Source != SourceTool || a.ToolCallID != "call_abc" || a.ToolName != "record_artifact" || a.HookName != "" {
		t.Errorf("display or audit fields changed: %+v", a)
	}
	if !a.ClientRetained {
		t.Error("a client input must mark the artifact client-retained")
	}
	if a.CreatedAt != created.CreatedAt || a.UpdatedAt == created.UpdatedAt {
		t.Errorf("createdAt %s→%s (must stay), updatedAt %s→%s (must move)", created.CreatedAt, a.CreatedAt, created.UpdatedAt, a.UpdatedAt)
	}
	if a.UpdatedAt != "2026-06-26T10:02:00.000Z" {
		t.Errorf("updatedAt = %s, want the client's time (the hook changed nothing)", a.UpdatedAt)
	}
	if n := len(h.list()); n != 1 {
		t.Errorf("%d artifacts for one location", n)
	}
	// The stored row keeps the internal fields: retention source and first client id.
	rows, _ := h.db.ListDeclared(h.ctx, h.conv)
	if rows[0].RetentionSource != SourceTool || rows[0].ClientID != "" || !slices.Equal(rows[0].RetainedBy, []string{"cli-1"}) {
		t.Errorf("internal fields: retention %q, client %q, retained by %v", rows[0].RetentionSource, rows[0].ClientID, rows[0].RetainedBy)
	}
	// clientId is never exposed.
	b, _ := json.Marshal(a)
	if strings.Contains(string(b), "cli-1") || strings.Contains(string(b), "clientId") {
		t.Errorf("artifact JSON exposes the client id: %s", b)
	}
}

func TestMetadataEnrichment(t *testing.T) {
	h := newHarness(t)
	u := "https://ops.example.com/tasks/1"
	in := func(src string, m map[string]any) Input {
		return Input{Title: "Task", URL: u, Source: src, ClientID: "cli", Metadata: m}
	}
	meta := func() map[string]any {
		as := h.list()
		if len(as) != 1 {
			t.Fatalf("%d artifacts", len(as))
		}
		return as[0].Metadata
	}
	h.upsert(in(SourceTool, map[string]any{"resourceType": "scheduler_task", "env": "prod"}))

	steps := []struct {
		name    string
		in      Input
		changed bool
		want    map[string]any
	}{
		{"hook enrichment ignored", in(SourceHook, map[string]any{"hookKey": "x"}), false,
			map[string]any{"resourceType": "scheduler_task", "env": "prod"}},
		{"tool adds a missing key, keeps existing", in(SourceTool, map[string]any{"env": "dev", "owner": "ops"}), true,
			map[string]any{"resourceType": "scheduler_task", "env": "prod", "owner": "ops"}},
		{"same keys in another order change nothing", in(SourceTool, map[string]any{"owner": "x", "env": "y", "resourceType": "z"}), false,
			map[string]any{"resourceType": "scheduler_task", "env": "prod", "owner": "ops"}},
		{"over-size enrichment dropped, retention still applies", in(SourceClient, map[string]any{"big": strings.Repeat("x", 4050)}), true,
			map[string]any{"resourceType": "scheduler_task", "env": "prod", "owner": "ops"}},
		{"client adds a missing key", in(SourceClient, map[string]any{"n": 3, "ok": true, "nil": nil}), true,
			map[string]any{"resourceType": "scheduler_task", "env": "prod", "owner": "ops", "n": 3.0, "ok": true, "nil": nil}},
		{"nothing new", in(SourceClient, map[string]any{"n": 3}), false,
			map[string]any{"resourceType": "scheduler_task", "env": "prod", "owner": "ops", "n": 3.0, "ok": true, "nil": nil}},
	}
	for _, st := range steps {
		h.advance(time.Second)
		chs := h.upsert(st.in)
		if got := len(chs) == 1; got != st.changed || len(chs) > 1 {
			t.Errorf("%s: changes %v, want changed=%v", st.name, actions(chs), st.changed)
		}
		if got := meta(); !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s: metadata = %v, want %v", st.name, got, st.want)
		}
	}
	if a := h.list()[0]; !a.ClientRetained {
		t.Error("the over-size client input did not retain the artifact")
	}
}

func TestNoOpUpsertProducesNoChange(t *testing.T) {
	h := newHarness(t)
	h.write("out/report.html", "<html></html>")
	ins := []Input{
		{Title: "Report", WorkspacePath: "out/report.html", Source: SourceTool, Metadata: map[string]any{"a": 1, "b": "x"}},
		{Title: "Link", URL: "https://a.example/x", Source: SourceClient, ClientID: "c1", Metadata: map[string]any{"k": true}},
		{Title: "Managed", ManagedID: "m-1", Source: SourceHook},
	}
	first := h.upsert(ins...)
	if len(first) != 3 {
		t.Fatalf("first upsert: %v", actions(first))
	}
	before := h.list()
	h.advance(time.Hour)
	again := []Input{ins[0], ins[1], ins[2]}
	again[0].Metadata = map[string]any{"b": "x", "a": 1.0} // key order and number type differ
	if chs := h.upsert(again...); len(chs) != 0 {
		t.Errorf("identical upsert gave changes %v", actions(chs))
	}
	if after := h.list(); !reflect.DeepEqual(before, after) {
		t.Errorf("identical upsert changed the artifacts (updatedAt?):\nbefore %+v\nafter  %+v", before, after)
	}
	if n := len(h.changes()); n != 3 {
		t.Errorf("change log has %d entries, want 3", n)
	}
	if n := len(h.pubs()); n != 3 {
		t.Errorf("published %d changes, want 3", n)
	}
}

func TestBatchCoalescingAndOrder(t *testing.T) {
	h := newHarness(t)
	h.upsert(linkIn("https://a.example/old", "Old"))
	h.advance(time.Second)
	batch := []Input{
		linkIn("https://a.example/new1", "New 1"),
		{Title: "Old again", URL: "https://a.example/old", Source: SourceClient, ClientID: "c"},
		{Title: "New 1 later", URL: "https://A.example/new1#x", Source: SourceTool, Metadata: map[string]any{"k": "v"}},
		linkIn("https://a.example/new2", "New 2"),
		{Title: "New 2 by client", URL: "https://a.example/new2", Source: SourceClient, ClientID: "c"},
	}
	chs := h.upsert(batch...)
	got := actions(chs)
	id := func(u string) string { return artifactID(h.conv, "url:"+u) }
	want := []string{
		"created:" + id("https://a.example/new1"),
		"updated:" + id("https://a.example/old"),
		"created:" + id("https://a.example/new2"),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("changes = %v, want %v (one per identity, input order)", got, want)
	}
	if a := chs[0].Artifact; a.Title != "New 1" || a.Metadata["k"] != "v" {
		t.Errorf("coalesced new artifact: title %q (first input's), metadata %v (enriched by the second)", a.Title, a.Metadata)
	}
	if a := chs[2].Artifact; a.Source != SourceTool || !a.ClientRetained {
		t.Errorf("new2: source %q, retained %v; want tool and client-retained", a.Source, a.ClientRetained)
	}
	// The published changes are the returned ones, with increasing seqs.
	pubs := h.pubs()[1:]
	for i, p := range pubs {
		if !reflect.DeepEqual(p.Change, chs[i]) {
			t.Errorf("published %d = %+v, want %+v", i, p.Change, chs[i])
		}
	}
}

func TestWorkspaceStatusOnUpsert(t *testing.T) {
	h := newHarness(t)
	chs := h.upsert(wsIn("later.pdf", "Later"))
	if a := chs[0].Artifact; a.Status != StatusMissing || a.SizeBytes != nil || a.MissingReason != reasonNotExist {
		t.Fatalf("not yet written: %+v", a)
	}
	h.write("later.pdf", "%PDF-1.7")
	h.advance(time.Second)
	chs = h.upsert(wsIn("later.pdf", "Later"))
	if len(chs) != 1 || chs[0].Action != ActionUpdated {
		t.Fatalf("re-upsert after the file appeared: %v, want updated", actions(chs))
	}
	if a := chs[0].Artifact; a.Status != StatusAvailable || a.SizeBytes == nil || *a.SizeBytes != 8 || a.MissingReason != "" {
		t.Errorf("after writing: %+v", a)
	}
	// Managed and URL artifacts are never stat'ed: always available.
	chs = h.upsert(Input{Title: "M", ManagedID: "does-not-exist", Source: SourceTool}, linkIn("https://gone.example/", "L"))
	for _, c := range chs {
		if c.Artifact.Status != StatusAvailable {
			t.Errorf("%s: status %s, want available", c.Artifact.Title, c.Artifact.Status)
		}
	}
}

func TestListRefreshesWorkspaceStatus(t *testing.T) {
	h := newHarness(t)
	h.write("r.txt", "hello")
	secret := h.outside("secret.txt", "top secret, longer")
	id := h.upsert(wsIn("r.txt", "R"))[0].ArtifactID
	pubsBefore, logBefore := len(h.pubs()), len(h.changes())

	status := func() Artifact {
		t.Helper()
		a, ok := byID(h.list(), id)
		if !ok {
			t.Fatal("artifact gone from the list")
		}
		return a
	}
	stored := func() store.DeclaredRow {
		t.Helper()
		rows, err := h.db.ListDeclared(h.ctx, h.conv)
		if err != nil || len(rows) != 1 {
			t.Fatalf("ListDeclared: %d rows, %v", len(rows), err)
		}
		return rows[0]
	}
	steps := []struct {
		name    string
		act     func()
		advance time.Duration
		status  string
		size    int64
		reason  string
	}{
		{"deleted, within the interval: cached", func() { os.Remove(filepath.Join(h.ws, "r.txt")) }, RefreshInterval - time.Millisecond, StatusAvailable, 5, ""},
		{"deleted, interval passed", nil, time.Millisecond, StatusMissing, 0, reasonNotExist},
		{"written again", func() { h.write("r.txt", "hello again") }, RefreshInterval, StatusAvailable, 11, ""},
		{"swapped for a link leaving the workspace", func() {
			os.Remove(filepath.Join(h.ws, "r.txt"))
			h.link(secret, "r.txt")
		}, RefreshInterval, StatusMissing, 0, reasonEscapes},
		{"swapped for a dangling link leaving the workspace", func() {
			os.Remove(filepath.Join(h.ws, "r.txt"))
			h.link(secret+".gone", "r.txt")
		}, RefreshInterval, StatusMissing, 0, reasonEscapes},
		{"swapped for a link inside", func() {
			os.Remove(filepath.Join(h.ws, "r.txt"))
			h.write("real/r.txt", "inside!")
			h.link("real/r.txt", "r.txt")
		}, RefreshInterval, StatusAvailable, 7, ""},
	}
	for _, st := range steps {
		if st.act != nil {
			st.act()
		}
		h.advance(st.advance)
		a := status()
		if a.Status != st.status || a.MissingReason != st.reason {
			t.Errorf("%s: status %s (%q), want %s (%q)", st.name, a.Status, a.MissingReason, st.status, st.reason)
		}
		if st.status == StatusAvailable && (a.SizeBytes == nil || *a.SizeBytes != st.size) {
			t.Errorf("%s: size %v, want %d", st.name, a.SizeBytes, st.size)
		}
		if st.status == StatusMissing && a.SizeBytes != nil {
			t.Errorf("%s: a missing file reports size %d", st.name, *a.SizeBytes)
		}
		// What List found is persisted.
		if r := stored(); r.Status != a.Status || r.MissingReason != a.MissingReason {
			t.Errorf("%s: stored status %s (%q), listed %s", st.name, r.Status, r.MissingReason, a.Status)
		}
	}
	if len(h.pubs()) != pubsBefore || len(h.changes()) != logBefore {
		t.Error("a status refresh on List published or logged a change")
	}
	if a := status(); a.UpdatedAt != "2026-06-26T10:00:00.000Z" {
		t.Errorf("a status refresh moved updatedAt to %s", a.UpdatedAt)
	}
}

func TestRemove(t *testing.T) {
	h := newHarness(t)
	ids := map[string]string{}
	for _, in := range []Input{
		{Title: "By A", URL: "https://a.example/a", Source: SourceClient, ClientID: "A"},
		{Title: "By tool", URL: "https://a.example/t", Source: SourceTool},
		{Title: "Tool, retained by B", URL: "https://a.example/tb", Source: SourceTool},
		{Title: "By user", URL: "https://a.example/u", Source: SourceClient},
	} {
		ids[in.Title] = h.upsert(in)[0].ArtifactID
	}
	h.upsert(Input{Title: "x", URL: "https://a.example/tb", Source: SourceClient, ClientID: "B"})
	h.upsert(Input{Title: "x", URL: "https://a.example/a", Source: SourceClient, ClientID: "C"})

	tests := []struct {
		name, id, client string
		forbidden        bool
	}{
		{"another client may not remove A's", ids["By A"], "B", true},
		{"the tool's retained one is B's to remove, not A's", ids["Tool, retained by B"], "A", true},
		{"one retained without a client id: clients may not", ids["By user"], "A", true},
		{"any client may remove an unretained one", ids["By tool"], "B", false},
		{"a retaining client may", ids["Tool, retained by B"], "B", false},
		{"the user may remove anything", ids["By user"], "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pubs := len(h.pubs())
			chs, err := h.svc.Remove(h.ctx, h.conv, tt.id, tt.client)
			if tt.forbidden {
				if !errors.Is(err, ErrForbidden) || chs != nil {
					t.Fatalf("Remove = %v, %v; want ErrForbidden", actions(chs), err)
				}
				if _, ok := byID(h.list(), tt.id); !ok {
					t.Error("a forbidden remove removed it")
				}
				if len(h.pubs()) != pubs {
					t.Error("a forbidden remove published")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(chs) != 1 || chs[0].Action != ActionRemoved || chs[0].Reason != ReasonExplicit ||
				chs[0].ArtifactID != tt.id || chs[0].Artifact == nil || chs[0].Artifact.Title == "" {
				t.Fatalf("changes = %+v, want one removed (explicit) with the full artifact", chs)
			}
			if _, ok := byID(h.list(), tt.id); ok {
				t.Error("still listed")
			}
			if p := h.pubs(); len(p) != pubs+1 || p[len(p)-1].Change.ArtifactID != tt.id {
				t.Error("the removal was not published")
			}
			// Idempotent: again gives no change, no log entry, no publication.
			log := len(h.changes())
			chs, err = h.svc.Remove(h.ctx, h.conv, tt.id, tt.client)
			if err != nil || len(chs) != 0 || len(h.changes()) != log || len(h.pubs()) != pubs+1 {
				t.Errorf("second Remove = %v, %v; want nothing", actions(chs), err)
			}
		})
	}
	if chs, err := h.svc.Remove(h.ctx, h.conv, "never-existed", "A"); err != nil || chs != nil {
		t.Errorf("Remove(unknown id) = %v, %v; want no change, no error", chs, err)
	}
}

// TestRemoveReleasesOnlyTheClientsRetention: a client cannot remove another client's
// artifact by registering it too: its removal lifts only its own retention, and the
// artifact goes when its last retaining client removes it; the user removes it at once.
func TestRemoveReleasesOnlyTheClientsRetention(t *testing.T) {
	h := newHarness(t)
	const url = "https://a.example/report"
	id := h.upsert(Input{Title: "A's report", URL: url, Source: SourceClient, ClientID: "A"})[0].ArtifactID
	listed := func() bool { _, ok := byID(h.list(), id); return ok }
	remove := func(client string) (Report, error) {
		t.Helper()
		return h.svc.RemoveReport(h.ctx, h.conv, id, client)
	}

	if rep, err := remove("B"); !errors.Is(err, ErrForbidden) || len(rep.Changes) != 0 || !listed() {
		t.Fatalf("B removes A's: %+v, %v; want ErrForbidden and the artifact kept", rep, err)
	}
	for _, c := range h.upsert(Input{Title: "B's copy", URL: url, Source: SourceClient, ClientID: "B"}) {
		if c.ArtifactID != id || c.Action != ActionUpdated || c.Artifact.Title != "A's report" {
			t.Fatalf("B registers the same URL: %+v; want at most an update of A's artifact", c)
		}
	}
	pubs, logged := len(h.pubs()), len(h.changes())
	rep, err := remove("B")
	if err != nil || len(rep.Changes) != 0 || !rep.Released {
		t.Fatalf("B removes after registering: %+v, %v; want its retention released, no change", rep, err)
	}
	if !listed() || len(h.pubs()) != pubs || len(h.changes()) != logged {
		t.Fatal("B's release removed, logged or published something")
	}
	if a, _ := byID(h.list(), id); !a.ClientRetained || a.Title != "A's report" {
		t.Errorf("after B's release: %+v; want A's artifact, still client-retained", a)
	}
	if rep, err := remove("B"); !errors.Is(err, ErrForbidden) || !listed() {
		t.Fatalf("B removes again: %+v, %v; want ErrForbidden (it no longer retains it)", rep, err)
	}
	rep, err = remove("A")
	if err != nil || rep.Released || len(rep.Changes) != 1 || rep.Changes[0].Action != ActionRemoved ||
		rep.Changes[0].Reason != ReasonExplicit || rep.Changes[0].ArtifactID != id {
		t.Fatalf("A removes: %+v, %v; want removed (explicit)", rep, err)
	}
	if listed() {
		t.Error("still listed after its last retaining client removed it")
	}

	// The user removes an artifact several clients retain, at once.
	id = h.upsert(Input{Title: "Shared", URL: url, Source: SourceClient, ClientID: "A"})[0].ArtifactID
	h.upsert(Input{Title: "Shared", URL: url, Source: SourceClient, ClientID: "B"})
	if rep, err := remove(""); err != nil || len(rep.Changes) != 1 || rep.Changes[0].Reason != ReasonExplicit || listed() {
		t.Fatalf("the user removes: %+v, %v; want removed (explicit)", rep, err)
	}

	// A retention without a client id is one only the user lifts: a client retaining the
	// artifact beside it releases only its own.
	id = h.upsert(Input{Title: "Kept", URL: url, Source: SourceClient})[0].ArtifactID
	h.upsert(Input{Title: "Kept", URL: url, Source: SourceClient, ClientID: "A"})
	if rep, err := remove("A"); err != nil || !rep.Released || !listed() {
		t.Fatalf("A removes beside an anonymous retention: %+v, %v; want released, kept", rep, err)
	}
}

func TestChangesSinceAndPublish(t *testing.T) {
	h := newHarness(t)
	for i := range 5 {
		h.upsert(linkIn(urlN("c", i), fmt.Sprint("L", i)))
	}
	id := artifactID(h.conv, "url:"+urlN("c", 2))
	if _, err := h.svc.Remove(h.ctx, h.conv, id, ""); err != nil {
		t.Fatal(err)
	}
	all := h.changes()
	if len(all) != 6 {
		t.Fatalf("%d logged changes, want 6", len(all))
	}
	if !reflect.DeepEqual(all, h.pubs()) {
		t.Errorf("published %+v\nlogged %+v", h.pubs(), all)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Errorf("seq %d after %d", all[i].Seq, all[i-1].Seq)
		}
	}
	if last := all[5]; last.Action != ActionRemoved || last.Reason != ReasonExplicit || last.Artifact == nil || last.Artifact.Title != "L2" {
		t.Errorf("last change = %+v", last)
	}
	page, err := h.svc.ChangesSince(h.ctx, h.conv, all[1].Seq, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].Seq != all[2].Seq || page[1].Seq != all[3].Seq {
		t.Errorf("page after %d (limit 2) = %+v", all[1].Seq, page)
	}
	if rest, _ := h.svc.ChangesSince(h.ctx, h.conv, all[5].Seq, 0); len(rest) != 0 {
		t.Errorf("after the last seq: %d changes", len(rest))
	}
}

func TestConcurrentUpserts(t *testing.T) {
	h := newHarness(t)
	const workers, perWorker = 8, 50
	sources := []string{SourceTool, SourceHook, SourceClient, SourceTool}
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				in := Input{Title: fmt.Sprintf("w%d-%d", w, i), URL: urlN(fmt.Sprint("w", w), i),
					Source: sources[w%len(sources)], ClientID: fmt.Sprint("cli", w)}
				if _, err := h.svc.Upsert(h.ctx, h.conv, []Input{in}, true); err != nil {
					errs <- err
				}
				// Everyone also registers the same shared locations: they must stay one each.
				shared := Input{Title: fmt.Sprintf("shared %d by w%d", i%5, w), URL: urlN("shared", i%5), Source: SourceClient}
				if _, err := h.svc.Upsert(h.ctx, h.conv, []Input{shared}, true); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Upsert: %v", err)
	}
	as := h.list()
	if len(as) != MaxPerConversation {
		t.Fatalf("%d artifacts, want %d (405 distinct locations, capped)", len(as), MaxPerConversation)
	}
	seenID, seenURL := map[string]bool{}, map[string]bool{}
	for _, a := range as {
		if seenID[a.ID] || seenURL[a.URL] {
			t.Errorf("duplicate %s %s", a.ID, a.URL)
		}
		seenID[a.ID], seenURL[a.URL] = true, true
	}
	log := h.changes()
	live := map[string]bool{}
	for i, lc := range log {
		if i > 0 && lc.Seq <= log[i-1].Seq {
			t.Fatalf("log seq %d after %d", lc.Seq, log[i-1].Seq)
		}
		switch lc.Action {
		case ActionCreated:
			if live[lc.ArtifactID] {
				t.Errorf("%s created twice while live", lc.ArtifactID)
			}
			live[lc.ArtifactID] = true
		case ActionRemoved:
			if !live[lc.ArtifactID] {
				t.Errorf("%s removed while not live", lc.ArtifactID)
			}
			delete(live, lc.ArtifactID)
		case ActionUpdated:
			if !live[lc.ArtifactID] {
				t.Errorf("%s updated while not live", lc.ArtifactID)
			}
		}
	}
	if len(live) != len(as) {
		t.Errorf("replaying the log gives %d artifacts, the list %d", len(live), len(as))
	}
	for _, a := range as {
		if !live[a.ID] {
			t.Errorf("%s listed but not live in the log", a.ID)
		}
	}
	if !reflect.DeepEqual(log, h.pubs()) {
		t.Error("published changes differ from the log (order or content)")
	}
	// The shared locations are there at most once each (the duplicate check above); they
	// may have been evicted: the client source is far over its reservation here, and
	// client retention breaks no reservation.
}

func TestConcurrentSameLocations(t *testing.T) {
	h := newHarness(t)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				if _, err := h.svc.Upsert(h.ctx, h.conv, []Input{linkIn(urlN("same", i), fmt.Sprint("w", w))}, true); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if n := len(h.list()); n != 25 {
		t.Errorf("%d artifacts, want 25", n)
	}
	created := 0
	for _, lc := range h.changes() {
		if lc.Action == ActionCreated {
			created++
		}
	}
	if created != 25 || len(h.changes()) != 25 {
		t.Errorf("%d changes (%d created), want 25 created and nothing else", len(h.changes()), created)
	}
}

func TestTrustedPublish(t *testing.T) {
	h := newHarness(t)
	u := "https://pub.example/p/lineage.html"
	placeholder := h.upsert(linkIn(u, "placeholder"))[0].Artifact
	h.advance(time.Second)
	pub := Input{Title: "Lineage", Description: "published report", URL: u, ManagedID: "pub-42", Storage: StoragePublish,
		MimeType: "text/html", Source: SourceTool, ToolName: "artifact", TrustedPublisher: true}
	chs := h.upsert(pub)
	if len(chs) != 1 || chs[0].Action != ActionUpdated || chs[0].ArtifactID != placeholder.ID {
		t.Fatalf("publish over the placeholder link: %v, want it updated (identity by url only)", actions(chs))
	}
	a := chs[0].Artifact
	if a.Storage != StoragePublish || a.Kind != KindHTML || a.ManagedID != "pub-42" || a.Title != "Lineage" ||
		a.Description != "published report" || a.MimeType != "text/html" || a.CreatedAt != placeholder.CreatedAt {
		t.Errorf("upgraded artifact = %+v", a)
	}
	// Untrusted inputs can neither publish nor carry url + managedId.
	forged := pub
	forged.TrustedPublisher = false
	_, err := h.svc.Upsert(h.ctx, h.conv, []Input{forged}, true)
	fieldError(t, err, "storage")
	// A trusted file: URL must point inside the workspace; nobody else may use file:.
	inside := h.write("pub/x.html", "<p>")
	fileIn := Input{Title: "F", URL: "file://" + filepath.ToSlash(inside), Storage: StoragePublish, Source: SourceTool, TrustedPublisher: true}
	if chs := h.upsert(fileIn); len(chs) != 1 || chs[0].Artifact.URL != "file://"+filepath.ToSlash(inside) {
		t.Errorf("trusted file: URL inside the workspace: %v", actions(chs))
	}
	out := h.outside("x.html", "<p>")
	fileIn.URL = "file://" + filepath.ToSlash(out)
	_, err = h.svc.Upsert(h.ctx, h.conv, []Input{fileIn}, true)
	fieldError(t, err, "url")
	fileIn.URL, fileIn.TrustedPublisher, fileIn.Storage = "file://"+filepath.ToSlash(inside), false, ""
	_, err = h.svc.Upsert(h.ctx, h.conv, []Input{fileIn}, true)
	fieldError(t, err, "url")
}

func TestDefaultWorkspace(t *testing.T) {
	h := newHarness(t)
	ws := DefaultWorkspace(h.db, h.dir)
	got, err := ws(h.ctx, h.conv)
	if err != nil || got != filepath.Join(h.dir, "workspaces", h.conv) {
		t.Errorf("default = %q, %v", got, err)
	}
	chosen := filepath.Join(h.dir, "chosen")
	if err := h.db.SetConversationWorkspace(h.ctx, h.conv, chosen); err != nil {
		t.Fatal(err)
	}
	if got, err := ws(h.ctx, h.conv); err != nil || got != chosen {
		t.Errorf("chosen = %q, %v; want %q", got, err, chosen)
	}
	// Artifacts then resolve against the chosen folder.
	if err := os.MkdirAll(chosen, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(chosen, "c.txt"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a := h.upsert(wsIn("c.txt", "C"))[0].Artifact; a.Status != StatusAvailable {
		t.Errorf("file in the chosen workspace: %s", a.Status)
	}
	if _, err := ws(h.ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown conversation: %v", err)
	}
	for _, id := range []string{"..", "a/b"} {
		if err := h.db.CreateConversation(h.ctx, store.Conversation{ID: id}); err != nil {
			t.Fatal(err)
		}
		if got, err := ws(h.ctx, id); err == nil {
			t.Errorf("conversation id %q gave workspace %q", id, got)
		}
	}
	// No workspace function: workspace paths are refused with the field named.
	svc := New(h.db, Options{})
	_, err = svc.Upsert(context.Background(), h.conv, []Input{wsIn("c.txt", "C")}, true)
	fieldError(t, err, "workspacePath")
}

// TestRecheck checks that Recheck re-runs the containment check at once, inside
// RefreshInterval (the harness clock does not move): a file swapped for a link leaving the
// workspace right after a List is missing, and an unknown id is ErrNoArtifact.
func TestRecheck(t *testing.T) {
	h := newHarness(t)
	h.write("r.html", "<p>hi</p>")
	secret := h.outside("secret.txt", "top secret")
	id := h.upsert(wsIn("r.html", "Report"))[0].ArtifactID
	if a, _ := byID(h.list(), id); a.Status != StatusAvailable {
		t.Fatalf("before: %+v", a)
	}
	if err := os.Remove(filepath.Join(h.ws, "r.html")); err != nil {
		t.Fatal(err)
	}
	h.link(secret, "r.html")
	if a, _ := byID(h.list(), id); a.Status != StatusAvailable {
		t.Fatalf("List within RefreshInterval re-checked already (%+v): the test proves nothing", a)
	}
	got, err := h.svc.Recheck(h.ctx, h.conv, id)
	if err != nil || got.Status != StatusMissing {
		t.Fatalf("Recheck = %+v, %v; want missing", got, err)
	}
	if _, err := h.svc.Recheck(h.ctx, h.conv, "nope"); !errors.Is(err, ErrNoArtifact) {
		t.Errorf("unknown id: %v", err)
	}
}

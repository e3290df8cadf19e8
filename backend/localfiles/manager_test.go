package localfiles

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/extract"
)

// gate is an extractor that blocks every read until released (or its context ends).
type gate struct {
	release chan struct{}
	entered chan string
}

func newGate() *gate { return &gate{release: make(chan struct{}), entered: make(chan string, 1000)} }

func (g *gate) extract(ctx context.Context, name string, data []byte) (extract.Result, error) {
	g.entered <- name
	select {
	case <-g.release:
		return extract.Text(ctx, name, data)
	case <-ctx.Done():
		return extract.Result{}, ctx.Err()
	}
}

func TestManagerRunsOnePassPerConversation(t *testing.T) {
	g := newGate()
	f := newFixture(t, Options{Workers: 1, Extract: g.extract})
	f.write("a.md", []byte("alpha\n"))
	var mu sync.Mutex
	var phases []string
	m := NewManager(f.ix, ManagerOptions{Report: func(conv string, p Progress) {
		mu.Lock()
		phases = append(phases, conv+":"+p.Phase)
		mu.Unlock()
	}})
	defer m.Close()

	d1 := m.Start(f.conv, false)
	<-g.entered
	d2 := m.Start(f.conv, false) // joins the running pass
	if d1 != d2 {
		t.Fatal("a second Start while a pass runs started another pass")
	}
	if _, running := m.Status(f.conv); !running {
		t.Fatal("Status does not report the running pass")
	}
	close(g.release)
	select {
	case <-d1:
	case <-time.After(10 * time.Second):
		t.Fatal("the pass did not end")
	}
	p, running := m.Status(f.conv)
	if running || p.Phase != PhaseDone || p.Total != 1 {
		t.Fatalf("status after the pass = %+v, running %v", p, running)
	}
	mu.Lock()
	got := strings.Join(phases, " ")
	mu.Unlock()
	if strings.Count(got, "c1:done") != 1 || !strings.HasPrefix(got, "c1:scanning") {
		t.Fatalf("reported phases %q; want one pass, scanning first, done once", got)
	}
	s, err := m.Summary(context.Background(), f.conv)
	if err != nil || s.Files != 1 || s.Indexing {
		t.Fatalf("summary = %+v, %v", s, err)
	}
}

func TestManagerStopAndCloseEndPasses(t *testing.T) {
	g := newGate()
	f := newFixture(t, Options{Workers: 1, Extract: g.extract})
	for _, n := range []string{"a.md", "b.md", "c.md"} {
		f.write(n, []byte("x\n"))
	}
	m := NewManager(f.ix, ManagerOptions{})
	done := m.Start(f.conv, false)
	<-g.entered
	stopped := make(chan struct{})
	go func() {
		m.Stop(f.conv)
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the pass")
	}
	select {
	case <-done:
	default:
		t.Fatal("Stop returned before the pass ended")
	}
	if p, running := m.Status(f.conv); running || p.Error == "" {
		t.Fatalf("after Stop: %+v, running %v; want stopped with the reason", p, running)
	}

	// Close ends a running pass too, and no pass starts after it.
	m.Start(f.conv, false)
	<-g.entered
	closed := make(chan struct{})
	go func() {
		m.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the pass")
	}
	select {
	case <-m.Start(f.conv, true):
	default:
		t.Fatal("Start after Close returned a channel that is not closed")
	}
	if _, running := m.Status(f.conv); running {
		t.Fatal("a pass runs after Close")
	}
}

func TestManagerForcedStartRunsAgain(t *testing.T) {
	g := newGate()
	f := newFixture(t, Options{Workers: 1, Extract: g.extract})
	f.write("a.md", []byte("alpha\n"))
	m := NewManager(f.ix, ManagerOptions{})
	defer m.Close()
	done := m.Start(f.conv, false)
	<-g.entered
	f.write("b.md", []byte("beta\n")) // added after the scan: only a second pass sees it
	m.Start(f.conv, true)
	close(g.release)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the passes did not end")
	}
	if got := f.paths("beta"); len(got) != 1 {
		t.Fatalf("the forced pass did not follow the running one: beta in %v", got)
	}
}

func TestPrepareWaitsBoundedAndDescribes(t *testing.T) {
	g := newGate()
	f := newFixture(t, Options{Workers: 1, Extract: g.extract})
	f.write("a.md", []byte("alpha\n"))
	f.upload("up.md", "uploaded\n")
	m := NewManager(f.ix, ManagerOptions{PrepareWait: 50 * time.Millisecond})
	defer m.Close()

	// The pass is stuck: Prepare returns after its wait with what is indexed so far.
	start := time.Now()
	s, err := m.Prepare(context.Background(), f.conv)
	if err != nil || !s.Indexing || time.Since(start) > 5*time.Second {
		t.Fatalf("prepare during a stuck pass = %+v, %v after %v", s, err, time.Since(start))
	}
	if s.Describe() != "" {
		t.Fatalf("nothing indexed yet, but Describe says %q", s.Describe())
	}
	close(g.release)
	for time.Since(start) < 10*time.Second {
		if _, running := m.Status(f.conv); !running {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s, err = m.Prepare(context.Background(), f.conv)
	if err != nil || s.Indexing || s.Files != 2 || s.Uploads != 1 {
		t.Fatalf("prepare after the pass = %+v, %v", s, err)
	}
	d := s.Describe()
	for _, want := range []string{"2 files", "2 .md", "1 uploaded", "@uploads/", "search_agent", "search_files", "read_file", "[n]"} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe() = %q; missing %q", d, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Prepare(ctx, f.conv); err == nil {
		t.Fatal("Prepare with a cancelled context did not fail")
	}
}

// TestPrepareReportsOnlyWork: the pass a run starts reports nothing when the folder is
// unchanged, and its indexing and end when there is work; a Start always reports.
func TestPrepareReportsOnlyWork(t *testing.T) {
	f := newFixture(t, Options{})
	var mu sync.Mutex
	var phases []string
	m := NewManager(f.ix, ManagerOptions{Report: func(_ string, p Progress) {
		mu.Lock()
		phases = append(phases, p.Phase)
		mu.Unlock()
	}})
	defer m.Close()
	got := func() string {
		mu.Lock()
		defer mu.Unlock()
		s := strings.Join(phases, " ")
		phases = nil
		return s
	}
	prepare := func() {
		t.Helper()
		if s, err := m.Prepare(context.Background(), f.conv); err != nil || s.Indexing {
			t.Fatalf("prepare = %+v, %v", s, err)
		}
	}
	prepare() // an empty folder
	if s := got(); s != "" {
		t.Fatalf("a pass with nothing to do reported %q", s)
	}
	f.write("a.md", []byte("alpha\n"))
	prepare()
	if s := got(); s != "indexing done" {
		t.Fatalf("a pass with a new file reported %q, want indexing and done", s)
	}
	prepare()
	if s := got(); s != "" {
		t.Fatalf("an unchanged folder reported %q", s)
	}
	<-m.Start(f.conv, false)
	if s := got(); s != "scanning indexing done" {
		t.Fatalf("a Start reported %q, want every phase", s)
	}
}

package localfiles

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"artifactflow/backend/store"
)

// DefaultPrepareWait is how long Prepare waits for a pass by default: long enough for an
// incremental pass over a folder where nothing changed, short enough that a run does not
// wait long on a big first indexing (which goes on in the background).
const DefaultPrepareWait = 3 * time.Second

// ManagerOptions configure a Manager. Report receives the progress of passes with their
// conversation: every progress of a pass asked for with Start, and of a pass Prepare
// started only what follows the scan when it found files to read or remove (a run's
// check of an unchanged folder reports nothing). It is called from the pass's goroutine
// and must not block long. PrepareWait defaults to DefaultPrepareWait.
type ManagerOptions struct {
	Report      func(conversationID string, p Progress)
	PrepareWait time.Duration
}

// Manager owns the background indexing passes of an Index: at most one pass runs per
// conversation; a pass asked for while one runs is folded into it (a forced one runs once
// more after it). Stop ends a conversation's pass (its folder changed, it was deleted),
// Close ends them all (the app is closing) and waits for them. Its methods are safe for
// concurrent use.
type Manager struct {
	ix   *Index
	opts ManagerOptions

	base   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	running map[string]*pass
	last    map[string]Progress
	closed  bool
	wg      sync.WaitGroup
}

// pass is the indexing of one conversation, possibly followed by more passes asked for
// while it ran.
type pass struct {
	cancel   context.CancelFunc
	done     chan struct{}
	again    bool // run once more when this one ends
	force    bool // the next run is forced
	announce bool // report all progress (a Start), not only work found (Prepare)
}

// NewManager returns a manager of ix's passes.
func NewManager(ix *Index, opts ManagerOptions) *Manager {
	if opts.Report == nil {
		opts.Report = func(string, Progress) {}
	}
	if opts.PrepareWait <= 0 {
		opts.PrepareWait = DefaultPrepareWait
	}
	m := &Manager{ix: ix, opts: opts, running: map[string]*pass{}, last: map[string]Progress{}}
	m.base, m.cancel = context.WithCancel(context.Background())
	return m
}

// Index returns the index the manager runs passes of.
func (m *Manager) Index() *Index { return m.ix }

// closedCh is a channel that is always closed.
var closedCh = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Start starts an indexing pass of conversationID in the background unless one is running,
// and returns a channel closed when the conversation has no pass running or asked for.
// force reads again the files that failed or were skipped (PassOptions.Force); a forced
// Start while a pass runs makes one more, forced, pass follow it. After Close, Start does
// nothing and returns a closed channel.
func (m *Manager) Start(conversationID string, force bool) <-chan struct{} {
	return m.start(conversationID, force, true)
}

// start is Start; announce false starts a pass that reports only work it found (Prepare).
func (m *Manager) start(conversationID string, force, announce bool) <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return closedCh
	}
	if p, ok := m.running[conversationID]; ok {
		if force {
			p.again, p.force = true, true
		}
		p.announce = p.announce || announce
		return p.done
	}
	ctx, cancel := context.WithCancel(m.base)
	p := &pass{cancel: cancel, done: make(chan struct{}), force: force, announce: announce}
	m.running[conversationID] = p
	m.wg.Add(1)
	go m.run(ctx, conversationID, p)
	return p.done
}

// run runs the passes of one conversation until none is asked for any more.
func (m *Manager) run(ctx context.Context, conversationID string, p *pass) {
	defer m.wg.Done()
	defer p.cancel()
	for {
		m.mu.Lock()
		force := p.force
		p.force, p.again = false, false
		m.mu.Unlock()
		_, err := m.ix.Pass(ctx, conversationID, PassOptions{Force: force, Report: func(pr Progress) {
			m.mu.Lock()
			m.last[conversationID] = pr
			tell := p.announce || pr.Phase != PhaseScanning && (pr.Changed > 0 || pr.Removed > 0)
			m.mu.Unlock()
			if tell {
				m.opts.Report(conversationID, pr)
			}
		}})
		if err != nil && ctx.Err() == nil && !errors.Is(err, store.ErrNotFound) {
			m.ix.opts.Logger.Warn("localfiles: indexing pass failed", "conversation", conversationID, "err", err)
		}
		m.mu.Lock()
		if !p.again || ctx.Err() != nil {
			if m.running[conversationID] == p {
				delete(m.running, conversationID)
			}
			close(p.done)
			m.mu.Unlock()
			return
		}
		m.mu.Unlock()
	}
}

// Refresh starts an incremental pass of conversationID in the background, like the one
// Prepare starts (it reports progress only when it finds files to read or remove), and
// returns at once: the app calls it after the user uploads files.
func (m *Manager) Refresh(conversationID string) { m.start(conversationID, false, false) }

// Stop cancels conversationID's pass, if one runs, and waits for it to end. The files it
// stored stay; nothing is removed. A Start while it stops joins the stopping pass; a Start
// after Stop returned runs a new pass.
func (m *Manager) Stop(conversationID string) {
	m.mu.Lock()
	p, ok := m.running[conversationID]
	if ok {
		p.cancel() // run removes it when it has ended, so no second pass overlaps it
	}
	m.mu.Unlock()
	if ok {
		<-p.done
	}
}

// Forget stops conversationID's pass and drops what the manager remembers of it (its last
// progress), for a conversation that was deleted.
func (m *Manager) Forget(conversationID string) {
	m.Stop(conversationID)
	m.mu.Lock()
	delete(m.last, conversationID)
	m.mu.Unlock()
}

// Close cancels every pass and waits for them to end; later Starts do nothing. Calls after
// the first return at once.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
}

// Status returns the last progress reported for conversationID (the zero Progress when no
// pass ran since the app started) and whether a pass is running.
func (m *Manager) Status(conversationID string) (Progress, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, running := m.running[conversationID]
	return m.last[conversationID], running
}

// Summary is what a conversation's index holds: Files indexed (Uploads of them are
// uploads), ByExt the indexed files by lower-case extension, Skipped and Failed files,
// Bytes the indexed files' size, Indexing whether a pass is still running, Workspace the
// folder indexed ("" before the first pass).
type Summary struct {
	Files     int            `json:"files"`
	Uploads   int            `json:"uploads"`
	ByExt     map[string]int `json:"by_ext"`
	Skipped   int            `json:"skipped"`
	Failed    int            `json:"failed"`
	Bytes     int64          `json:"bytes"`
	Indexing  bool           `json:"indexing"`
	Workspace string         `json:"workspace"`
}

// Summary returns what conversationID's index holds now. A conversation never indexed
// has an empty summary and no error.
func (m *Manager) Summary(ctx context.Context, conversationID string) (Summary, error) {
	_, running := m.Status(conversationID)
	s := Summary{ByExt: map[string]int{}, Indexing: running}
	root, err := m.ix.opts.DB.FileRoot(ctx, conversationID)
	if errors.Is(err, store.ErrNotFound) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("localfiles: %w", err)
	}
	st, err := m.ix.opts.DB.FileIndexStats(ctx, root.ID)
	if err != nil {
		return s, fmt.Errorf("localfiles: %w", err)
	}
	s.Files, s.Uploads, s.ByExt, s.Skipped, s.Failed, s.Bytes, s.Workspace =
		st.Indexed, st.Uploads, st.ByExt, st.Skipped, st.Failed, st.Bytes, root.Workspace
	return s, nil
}

// Prepare readies conversationID's index for a run: it starts an incremental pass (or
// joins the running one) and waits for it up to PrepareWait, then returns the summary. A
// pass still running goes on in the background (Summary.Indexing). The pass reports its
// progress only when it finds files to read or remove. Errors: ctx's, and the database's.
func (m *Manager) Prepare(ctx context.Context, conversationID string) (Summary, error) {
	done := m.start(conversationID, false, false)
	t := time.NewTimer(m.opts.PrepareWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
		return Summary{}, ctx.Err()
	}
	return m.Summary(ctx, conversationID)
}

// Search finds places in conversationID's indexed files (Index.Search).
func (m *Manager) Search(ctx context.Context, conversationID, query string, limit int) ([]Hit, error) {
	return m.ix.Search(ctx, conversationID, query, limit)
}

// Read returns lines of one of conversationID's files (Index.Read).
func (m *Manager) Read(ctx context.Context, conversationID, path string, offset, limit int) (Excerpt, error) {
	return m.ix.Read(ctx, conversationID, path, offset, limit)
}

// Unindexed returns up to limit of conversationID's files that were skipped or failed, by
// path, with the reason (limit <= 0: all).
func (m *Manager) Unindexed(ctx context.Context, conversationID string, limit int) ([]store.IndexedFile, error) {
	root, err := m.ix.opts.DB.FileRoot(ctx, conversationID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("localfiles: %w", err)
	}
	return m.ix.opts.DB.UnindexedFiles(ctx, root.ID, limit)
}

// Describe says in a few sentences what the index holds, for the lead agent's system
// prompt (the <local_files> block): how many files of which kinds, that search_agent
// searches them with search_files and crawl_agent reads one with read_file. It returns ""
// when nothing is indexed.
func (s Summary) Describe() string {
	if s.Files == 0 {
		return ""
	}
	type kc struct {
		ext string
		n   int
	}
	var kinds []kc
	for e, n := range s.ByExt {
		kinds = append(kinds, kc{e, n})
	}
	sort.Slice(kinds, func(i, j int) bool {
		if kinds[i].n != kinds[j].n {
			return kinds[i].n > kinds[j].n
		}
		return kinds[i].ext < kinds[j].ext
	})
	var parts []string
	others := 0
	for i, k := range kinds {
		if i >= 8 {
			others += k.n
			continue
		}
		name := "." + k.ext
		if k.ext == "" {
			name = "without extension"
		}
		parts = append(parts, fmt.Sprintf("%d %s", k.n, name))
	}
	if others > 0 {
		parts = append(parts, fmt.Sprintf("%d others", others))
	}
	var b strings.Builder
	files := "files"
	if s.Files == 1 {
		files = "file"
	}
	fmt.Fprintf(&b, "The user's local files are indexed for this conversation: %d %s (%s)", s.Files, files, strings.Join(parts, ", "))
	switch {
	case s.Uploads == s.Files:
		b.WriteString(", all uploaded by the user.")
	case s.Uploads > 0:
		fmt.Fprintf(&b, " from the conversation's workspace folder and its uploads (%d uploaded, under %s/).", s.Uploads, UploadsDir)
	default:
		b.WriteString(" from the conversation's workspace folder.")
	}
	if s.Indexing {
		b.WriteString(" Indexing is still running, so more may become searchable during this run.")
	}
	b.WriteString("\nWhen the question may concern these files, ask search_agent to search them (its tool search_files finds passages by words, in any language) and crawl_agent to read a file it found (its tool read_file takes the path, e.g. notes/plan.md). Local files get source numbers like web pages: cite them as [n].")
	return b.String()
}

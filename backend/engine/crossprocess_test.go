package engine

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmfake"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// Two processes on one data dir (the window and `artifactflow ask --conversation X`)
// running in the SAME conversation. The one-run-per-conversation guard must hold across
// processes, and no event of either run may be lost.

// The helper process: this test binary run again with envEngineHelper set is the second
// ArtifactFlow process. It opens the database named by envEngineDB, beats as instance
// helperInstance, starts a run in conversation envEngineConv whose model call blocks, and
// once the run's first events are journaled prints "running <message id>". Then it reads
// one line: "finish" lets the run complete and exits 0 after a clean shutdown; "crash"
// exits 3 at once, as a killed process would (its running message and heartbeat stay).
const (
	envEngineHelper = "AF_ENGINE_HELPER"
	envEngineDB     = "AF_ENGINE_DB"
	envEngineConv   = "AF_ENGINE_CONV"
	helperInstance  = "helper-process"
)

// TestEngineHelperProcess is not a test: it runs only in a child started by
// startEngineHelper.
func TestEngineHelperProcess(t *testing.T) {
	if os.Getenv(envEngineHelper) == "" {
		return
	}
	if err := engineHelperMain(); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func engineHelperMain() error {
	ctx := context.Background()
	db, err := store.Open(ctx, os.Getenv(envEngineDB))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Heartbeat(ctx, helperInstance, os.Getpid()); err != nil {
		return err
	}
	release := make(chan struct{})
	called := make(chan struct{}, 1)
	model := llmfake.New(func(llm.Request, int) llmfake.Reply {
		select {
		case called <- struct{}{}:
		default:
		}
		return llmfake.Reply{Content: "the helper's answer", Block: release}
	})
	e, err := New(Config{Store: db, InstanceID: helperInstance, RunStaleAfter: time.Hour, Deps: func() (Deps, error) {
		return Deps{Model: model, ModelName: "m", Mode: toolcall.ModeNative}, nil
	}})
	if err != nil {
		return err
	}
	r, err := e.Start(ctx, Request{ConversationID: os.Getenv(envEngineConv), Content: "the helper's question"})
	if err != nil {
		return err
	}
	<-called
	// Wait (bounded) until the run's events so far are journaled, so that a crash keeps them.
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs, err := db.ListEvents(ctx, store.EventQuery{ConversationID: r.ConversationID, MessageID: r.MessageID})
		if err != nil {
			return err
		}
		if len(evs) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the run's events were not journaled: %d", len(evs))
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("running", r.MessageID)
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil {
		return fmt.Errorf("wait for a command: %w", err)
	}
	switch strings.TrimSpace(line) {
	case "crash":
		os.Exit(3)
	case "finish":
	default:
		return fmt.Errorf("unknown command %q", line)
	}
	close(release)
	res, err := r.Wait(ctx)
	if err != nil {
		return err
	}
	if res.Status != events.Complete {
		return fmt.Errorf("helper run ended %s: %v", res.Status, res.Err)
	}
	if err := e.Close(ctx); err != nil {
		return err
	}
	return db.RemoveInstance(ctx, helperInstance)
}

// engineHelper is a running helper process.
type engineHelper struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *strings.Builder
	msgID  string
}

// startEngineHelper starts the helper on dbPath's conversation conv and waits for its
// "running" line. The child is killed when t ends if it is still running.
func startEngineHelper(t *testing.T, dbPath, conv string) *engineHelper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEngineHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envEngineHelper+"=1", envEngineDB+"="+dbPath, envEngineConv+"="+conv)
	h := &engineHelper{cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n') // EOF if the child fails first
	id, ok := strings.CutPrefix(strings.TrimSpace(line), "running ")
	if err != nil || !ok {
		_ = cmd.Wait()
		t.Fatalf("helper did not start its run: %q, %v; stderr: %s", line, err, h.stderr)
	}
	h.msgID = id
	return h
}

// command sends cmd to the helper and waits for it to exit; it returns the exit code.
func (h *engineHelper) command(t *testing.T, cmd string) int {
	t.Helper()
	if _, err := io.WriteString(h.stdin, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	_ = h.stdin.Close()
	err := h.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("helper: %v; stderr: %s", err, h.stderr)
	}
	return h.cmd.ProcessState.ExitCode()
}

// openEngine opens path as another process would and returns an engine on it beating as
// instance id, whose runs call model (nil: one that answers "answer" at once); tune, when
// given, adjusts the engine's Config and every run's Deps.
func openEngine(t *testing.T, path, id string, model llm.Model, tune ...func(*Config, *Deps)) (*Engine, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Heartbeat(ctx, id, os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if model == nil {
		model = llmfake.New(func(llm.Request, int) llmfake.Reply { return llmfake.Reply{Content: "answer"} })
	}
	var deps Deps
	cfg := Config{Store: db, InstanceID: id, RunStaleAfter: time.Hour}
	for _, f := range tune {
		f(&cfg, &deps)
	}
	cfg.Deps = func() (Deps, error) {
		d := deps
		d.Model, d.ModelName, d.Mode = model, "m", toolcall.ModeNative
		return d, nil
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e, db
}

// checkJournal fails unless conversation conv's journal numbers its events 1..n without a
// gap and each of msgs has its metadata event first and exactly one terminal event (want
// gives the terminal type by message, "" = none expected: a crashed run).
func checkJournal(t *testing.T, db *store.DB, conv string, want map[string]events.Type) {
	t.Helper()
	evs, err := db.ListEvents(context.Background(), store.EventQuery{ConversationID: conv})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]events.Type{}
	terminal := map[string][]events.Type{}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: the journal has a gap or a repeat", i, ev.Seq)
		}
		if _, ok := first[ev.MessageID]; !ok {
			first[ev.MessageID] = ev.Type
		}
		if ev.Type.Terminal() {
			terminal[ev.MessageID] = append(terminal[ev.MessageID], ev.Type)
		}
	}
	for msg, term := range want {
		if first[msg] != events.Metadata {
			t.Errorf("message %s: first event %q, want metadata", msg, first[msg])
		}
		switch {
		case term == "" && len(terminal[msg]) != 0:
			t.Errorf("message %s: terminal events %v, want none", msg, terminal[msg])
		case term != "" && (len(terminal[msg]) != 1 || terminal[msg][0] != term):
			t.Errorf("message %s: terminal events %v, want [%s]", msg, terminal[msg], term)
		}
	}
	if len(first) != len(want) {
		t.Errorf("events of %d messages, want %d", len(first), len(want))
	}
}

// TestRunBusyAcrossProcesses: while a real second process (the helper) runs in conversation
// c, this process's engine refuses a run there with ErrBusy (wrapping store.ErrRunLive) and
// writes nothing; once the helper finishes, or once it has crashed and its heartbeat went
// stale (the sweep's definition of a dead process), the next run goes ahead and the
// journal holds every event of both runs, numbered without gap or repeat.
func TestRunBusyAcrossProcesses(t *testing.T) {
	t.Parallel() // waits on timers and child processes; runs beside the other slow tests
	tests := []struct {
		name       string
		command    string
		exit       int
		helperEnd  events.Type // "" = the helper's run has no terminal event (it crashed)
		helperStat string
	}{
		{"helper finishes", "finish", 0, events.Complete, store.StatusComplete},
		{"helper crashes", "crash", 3, "", store.StatusInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "af.db")
			e, db := openEngine(t, path, "window", nil)
			if err := db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "c"}); err != nil {
				t.Fatal(err)
			}
			h := startEngineHelper(t, path, "c")

			_, err := e.Start(ctx, Request{ConversationID: "c", Content: "mine"})
			if !errors.Is(err, ErrBusy) || !errors.Is(err, store.ErrRunLive) {
				t.Fatalf("Start while the helper runs: %v, want ErrBusy and store.ErrRunLive", err)
			}
			if e.Active("c") != nil {
				t.Fatal("a refused run is still registered")
			}
			if got := h.command(t, tt.command); got != tt.exit {
				t.Fatalf("helper exit code %d, want %d; stderr: %s", got, tt.exit, h.stderr)
			}
			if tt.command == "crash" {
				// Its heartbeat is still fresh: the conversation stays claimed ...
				if _, err := e.Start(ctx, Request{ConversationID: "c", Content: "mine"}); !errors.Is(err, ErrBusy) {
					t.Fatalf("Start right after the crash: %v, want ErrBusy", err)
				}
				// ... until it is older than RunStaleAfter.
				ageHeartbeat(t, path, helperInstance, 2*time.Hour)
			}
			res, err := e.Ask(ctx, Request{ConversationID: "c", Content: "mine"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("Ask after the helper: %v, %s %v", err, res.Status, res.Err)
			}
			m, err := db.GetMessage(ctx, h.msgID)
			if err != nil {
				t.Fatal(err)
			}
			if m.Status != tt.helperStat {
				t.Fatalf("helper's message %s, want %s", m.Status, tt.helperStat)
			}
			checkJournal(t, db, "c", map[string]events.Type{h.msgID: tt.helperEnd, res.MessageID: events.Complete})
		})
	}
}

// ageHeartbeat sets instance id's last beat d in the past, through a connection of its own.
func ageHeartbeat(t *testing.T, path, id string, d time.Duration) {
	t.Helper()
	conn, err := sql.Open("sqlite3", path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	old := time.Now().Add(-d).UTC().Format("2006-01-02T15:04:05.000000000Z07:00")
	res, err := conn.Exec(`UPDATE instances SET heartbeat_at = ? WHERE id = ?`, old, id)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("instance %q not found", id)
	}
}

// TestTwoEnginesOneConversation: two engines on two *store.DB opened on one file (two
// processes, from SQLite's view) racing to start a run in one conversation while runs last
// until released: exactly one starts, the other gets ErrBusy; once released and ended, the
// next round races again; the journal keeps every run whole.
func TestTwoEnginesOneConversation(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "af.db")
	var gate struct {
		sync.Mutex
		ch chan struct{}
	}
	model := llmfake.New(func(llm.Request, int) llmfake.Reply {
		gate.Lock()
		defer gate.Unlock()
		return llmfake.Reply{Content: "answer", Block: gate.ch}
	})
	a, db := openEngine(t, path, "a", model)
	b, _ := openEngine(t, path, "b", model)
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]events.Type{}
	for round := range 5 {
		release := make(chan struct{})
		gate.Lock()
		gate.ch = release
		gate.Unlock()
		var wg sync.WaitGroup
		runs := make([]*Run, 2)
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, e := range []*Engine{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				runs[i], errs[i] = e.Start(ctx, Request{ConversationID: "c", Content: fmt.Sprintf("q%d", round)})
			}()
		}
		close(start)
		wg.Wait()
		close(release)
		started := 0
		for i := range runs {
			if errs[i] != nil {
				if !errors.Is(errs[i], ErrBusy) {
					t.Fatalf("round %d: %v", round, errs[i])
				}
				continue
			}
			started++
			res, err := runs[i].Wait(ctx)
			if err != nil || res.Status != events.Complete {
				t.Fatalf("round %d: %v %s %v", round, err, res.Status, res.Err)
			}
			want[res.MessageID] = events.Complete
		}
		if started != 1 {
			t.Fatalf("round %d: %d runs started, want 1 (errors %v)", round, started, errs)
		}
	}
	checkJournal(t, db, "c", want)
}

// TestEmitterKeepsAnotherWritersEvents: two emitters of two messages of one conversation
// that both numbered from the same MaxSeq (two writers the claim did not keep apart: a
// process whose run outlived its stale heartbeat) both keep every event: the one that finds
// its seqs taken renumbers after the other's instead of taking them for its own, already
// written batch and dropping it.
func TestEmitterKeepsAnotherWritersEvents(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "af.db")
	db1, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db1.Close()
	db2, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if err := db1.CreateConversation(ctx, store.Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"m1", "m2"} {
		if err := db1.AddMessage(ctx, store.Message{ID: m, ConversationID: "c", Content: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	em1, err := newEmitter(ctx, db1, nil, "c", "m1", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	em2, err := newEmitter(ctx, db2, nil, "c", "m2", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	const perRun = 6
	for i := range perRun {
		em1.emit(ctx, events.AgentStart, "lead_agent", events.DataAgentStart{Round: i})
		em1.sync(ctx)
		em2.emit(ctx, events.AgentStart, "lead_agent", events.DataAgentStart{Round: i})
		em2.sync(ctx)
	}
	em2.emit(ctx, events.Complete, "", events.DataTerminal{})
	em1.emit(ctx, events.Complete, "", events.DataTerminal{})
	em1.close()
	em2.close()
	for i, em := range []*emitter{em1, em2} {
		if err := em.err(); err != nil {
			t.Fatalf("emitter %d: %v", i+1, err)
		}
	}
	evs, err := db1.ListEvents(ctx, store.EventQuery{ConversationID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		count[ev.MessageID]++
	}
	if count["m1"] != perRun+1 || count["m2"] != perRun+1 {
		t.Fatalf("events stored per message %v, want %d each", count, perRun+1)
	}
}

// landedOnce is an EventStore whose first AppendEvents commits and then reports an error,
// as a commit that landed although the driver returned one.
type landedOnce struct {
	*store.DB
	mu   sync.Mutex
	done bool
}

func (l *landedOnce) AppendEvents(ctx context.Context, evs ...events.Event) error {
	err := l.DB.AppendEvents(ctx, evs...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil && !l.done {
		l.done = true
		return errors.New("disk I/O error after commit")
	}
	return err
}

// TestEmitterRetryOfLandedBatch: the retry of a batch that landed although AppendEvents
// reported an error hits the same message's seqs (store.ErrDuplicate, not ErrSeqTaken) and
// is dropped as written: no failure, no event twice, none renumbered.
func TestEmitterRetryOfLandedBatch(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c", Title: "c"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMessage(ctx, store.Message{ID: "m", ConversationID: "c", Content: "q"}); err != nil {
		t.Fatal(err)
	}
	em, err := newEmitter(ctx, &landedOnce{DB: db}, nil, "c", "m", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	em.emit(ctx, events.AgentStart, "lead_agent", events.DataAgentStart{Round: 0})
	em.sync(ctx) // lands, reported failed: stays pending
	em.mu.Lock()
	em.failure = nil // the run would stop on it; here we look at the retry
	em.mu.Unlock()
	em.emit(ctx, events.Complete, "", events.DataTerminal{}) // retries the landed batch with it
	em.close()
	evs, err := db.ListEvents(ctx, store.EventQuery{ConversationID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 || evs[1].Type != events.Complete {
		t.Fatalf("journal %+v, want agent_start 1 and complete 2", evs)
	}
}

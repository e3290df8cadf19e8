package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"artifactflow/backend/events"
)

// The helper process: this test binary run again with envHelper set takes the part of a
// second ArtifactFlow process (the window while `artifactflow ask` runs, say) on the
// database named by envDB. It says "ready" on stdout once the database is open, waits for a
// line on stdin, does its part, and exits 0, or 1 with the error on stderr.
const (
	envHelper = "AF_STORE_HELPER" // "writer" or "reader"
	envDB     = "AF_STORE_DB"
	envPrefix = "AF_STORE_PREFIX" // the writer's conversation ids start with it
	envN      = "AF_STORE_N"      // conversations per writer goroutine
)

// Per conversation a writer stores 1 message, helperEvents events in batches of 5 and an
// artifact with helperVersions versions: 2 + helperEvents/5 + helperVersions write
// transactions, plus a heartbeat and a sweep.
const (
	helperEvents   = 20
	helperVersions = 4
	helperWorkers  = 2 // goroutines per writer process
	// holdFor is how long the "holder" helper keeps the write lock: above the 5 s busy
	// timeout Open set before, well below BusyTimeout.
	holdFor = 6 * time.Second
)

// TestHelperProcess is not a test: it runs only in a child started by the tests below.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(envHelper)
	if role == "" {
		return
	}
	if err := helperMain(role); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func helperMain(role string) error {
	ctx := context.Background()
	db, err := Open(ctx, os.Getenv(envDB))
	if err != nil {
		return err
	}
	defer db.Close()
	in := bufio.NewReader(os.Stdin)
	switch role {
	case "writer":
		n, err := strconv.Atoi(os.Getenv(envN))
		if err != nil {
			return err
		}
		fmt.Println("ready")
		if _, err := in.ReadString('\n'); err != nil {
			return fmt.Errorf("wait for go: %w", err)
		}
		var wg sync.WaitGroup
		errs := make([]error, helperWorkers)
		for w := range helperWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = writeConversations(ctx, db, fmt.Sprintf("%s-w%d", os.Getenv(envPrefix), w), n)
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	case "holder":
		// A long write, as a large upload is (a 64 MB artifact holds the write lock for
		// about 7 s on a loaded machine): the write lock held for longer than the 5 s
		// busy timeout Open used to set, then committed.
		conn, err := db.SQL().Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('held', 'held', ?, ?)`,
			formatTime(now()), formatTime(now())); err != nil {
			return err
		}
		fmt.Println("ready")
		time.Sleep(holdFor)
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			return err
		}
		_, err = in.ReadString('\n') // the parent's "go", sent once its own write is done
		return err
	case "reader":
		// A long read: a transaction that has read (so holds a WAL snapshot) and stays open
		// until told to end.
		conn, err := db.SQL().Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
			return err
		}
		var n int
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM message_events").Scan(&n); err != nil {
			return err
		}
		fmt.Println("ready", n)
		if _, err := in.ReadString('\n'); err != nil {
			return fmt.Errorf("wait for end: %w", err)
		}
		// Still the same snapshot: the other process's writes are not seen yet.
		var again int
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM message_events").Scan(&again); err != nil {
			return err
		}
		if again != n {
			return fmt.Errorf("the read transaction saw %d events, then %d", n, again)
		}
		_, err = conn.ExecContext(ctx, "COMMIT")
		return err
	}
	return fmt.Errorf("unknown role %q", role)
}

// writeConversations stores n conversations named prefix-0 … with their message, events and
// artifact versions, as a run does, plus the heartbeat and sweep each process makes.
func writeConversations(ctx context.Context, db *DB, prefix string, n int) error {
	body := strings.Repeat("report text ", 200)
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		if err := db.CreateConversation(ctx, Conversation{ID: id, Title: id}); err != nil {
			return err
		}
		if err := db.AddMessage(ctx, Message{ID: id + "-m", ConversationID: id, Content: "question", Owner: prefix}); err != nil {
			return err
		}
		for b := 0; b < helperEvents; b += 5 {
			evs := make([]events.Event, 5)
			for j := range evs {
				evs[j] = benchEvent(int64(b + j + 1))
				evs[j].ConversationID, evs[j].MessageID = id, id+"-m"
			}
			if err := db.AppendEvents(ctx, evs...); err != nil {
				return err
			}
		}
		if _, err := db.CreateArtifact(ctx, ArtifactWrite{SessionID: id, ID: "report", ContentType: "text/markdown", Title: "Report",
			Content: body, Version: 1, UpdateType: UpdateCreate, MessageID: id + "-m"}); err != nil {
			return err
		}
		for v := 2; v <= helperVersions; v++ {
			if _, err := db.UpdateArtifactContent(ctx, ArtifactWrite{SessionID: id, ID: "report", Content: body + strconv.Itoa(v),
				Version: v, ExpectedLockVersion: v - 1, UpdateType: UpdateUpdate, MessageID: id + "-m"}); err != nil {
				return err
			}
		}
		if err := db.Heartbeat(ctx, prefix, os.Getpid()); err != nil {
			return err
		}
		if _, err := db.InterruptOrphanedRuns(ctx, prefix, time.Unix(0, 0), nil); err != nil {
			return err
		}
		if err := db.FinishMessage(ctx, id+"-m", "", StatusComplete, ""); err != nil {
			return err
		}
	}
	return nil
}

// helper is one started child process.
type helper struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *strings.Builder
}

// startHelper starts this test binary as a helper process with role and extra environment
// and waits for its "ready" line, which it returns. The child is killed when t ends if it
// is still running.
func startHelper(t *testing.T, role, dbPath string, env ...string) (*helper, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), append([]string{envHelper + "=" + role, envDB + "=" + dbPath}, env...)...)
	h := &helper{cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h.stdout = bufio.NewReader(out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	line, err := h.stdout.ReadString('\n') // EOF if the child fails before "ready"
	if err != nil || !strings.HasPrefix(line, "ready") {
		_ = cmd.Wait()
		t.Fatalf("%s helper did not start: %q, %v; stderr: %s", role, line, err, h.stderr)
	}
	return h, strings.TrimSpace(line)
}

// finish tells h to go on (a line on stdin) and waits for it to exit; it returns its
// error with its stderr.
func (h *helper) finish() error {
	if _, err := io.WriteString(h.stdin, "go\n"); err != nil {
		return err
	}
	_ = h.stdin.Close()
	_, _ = io.Copy(io.Discard, h.stdout)
	if err := h.cmd.Wait(); err != nil {
		return fmt.Errorf("%w; stderr: %s", err, h.stderr)
	}
	return nil
}

// TestTwoProcessesWriteOneDatabase: two processes (the window and `artifactflow ask`)
// creating the same new database at once and then writing conversations, messages, events
// and artifact versions into it concurrently lose nothing and never fail with "database
// is locked" (WAL, busy_timeout, BEGIN IMMEDIATE).
func TestTwoProcessesWriteOneDatabase(t *testing.T) {
	const perWorker = 15
	tests := []struct {
		name  string
		fresh bool // no database before the processes start
	}{
		{"new database", true},
		{"existing database", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "artifactflow.db")
			if !tt.fresh {
				db, err := Open(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			prefixes := []string{"p1", "p2"}
			helpers := make([]*helper, len(prefixes))
			for i, p := range prefixes {
				helpers[i], _ = startHelper(t, "writer", path, envPrefix+"="+p, envN+"="+strconv.Itoa(perWorker))
			}
			errs := make([]error, len(helpers))
			var wg sync.WaitGroup
			for i, h := range helpers {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = h.finish() }()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("writer %s: %v", prefixes[i], err)
				}
			}
			db, err := Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			convs := len(prefixes) * helperWorkers * perWorker
			for _, q := range []struct {
				what  string
				query string
				want  int
			}{
				{"conversations", `SELECT count(*) FROM conversations`, convs},
				{"complete messages", `SELECT count(*) FROM messages WHERE status = 'complete'`, convs},
				{"events", `SELECT count(*) FROM message_events`, convs * helperEvents},
				{"conversations with events 1..N", `SELECT count(*) FROM (SELECT conversation_id FROM message_events
					GROUP BY conversation_id HAVING count(*) = ` + strconv.Itoa(helperEvents) + ` AND min(seq) = 1 AND max(seq) = ` + strconv.Itoa(helperEvents) + `)`, convs},
				{"artifact versions", `SELECT count(*) FROM artifact_versions`, convs * helperVersions},
				{"artifacts at their last version", `SELECT count(*) FROM artifacts WHERE current_version = ` + strconv.Itoa(helperVersions), convs},
				{"schema migrations applied once", `SELECT count(*) - count(DISTINCT version) FROM schema_migrations`, 0},
			} {
				var got int
				if err := db.SQL().QueryRow(q.query).Scan(&got); err != nil {
					t.Fatalf("%s: %v", q.what, err)
				}
				if got != q.want {
					t.Errorf("%s = %d, want %d", q.what, got, q.want)
				}
			}
			if err := db.IntegrityCheck(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestWriteDuringOtherProcessLongRead: while another process holds a read transaction
// open (a long export or history scan), this process's writes go through at once instead
// of waiting for it or failing with "database is locked".
func TestWriteDuringOtherProcessLongRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "artifactflow.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := writeConversations(context.Background(), db, "before", 2); err != nil {
		t.Fatal(err)
	}
	reader, ready := startHelper(t, "reader", path)
	if want := fmt.Sprintf("ready %d", 2*helperEvents); ready != want {
		t.Fatalf("reader said %q, want %q", ready, want)
	}
	// The writes must not wait for the reader: a context shorter than the busy timeout
	// turns a wait on a lock into a failure here (not a timing assertion: without WAL the
	// write blocks until the reader ends, which it does only after this).
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if err := writeConversations(ctx, db, "during", 3); err != nil {
		t.Errorf("write during the other process's read: %v", err)
	}
	if err := reader.finish(); err != nil {
		t.Errorf("reader: %v", err)
	}
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM message_events`).Scan(&n); err != nil || n != 5*helperEvents {
		t.Errorf("events after both = %d (%v), want %d", n, err, 5*helperEvents)
	}
}

// TestWriteWaitsForOtherProcessLongWrite: while another process holds the write lock for
// longer than the old 5 s busy timeout (a large upload), this process's writes wait for it
// instead of failing with "database is locked", and both processes' rows are kept. A
// write whose context ends while it waits (a stopped run, a local API request past its
// deadline) gives up then, with the context's error, not when the other process lets go:
// SQLite's own busy wait cannot be interrupted, so the store waits in slices.
func TestWriteWaitsForOtherProcessLongWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "artifactflow.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder, _ := startHelper(t, "holder", path)
	gaveUp := []struct {
		name  string
		ctx   func() (context.Context, context.CancelFunc)
		write func(ctx context.Context) error
		want  error
	}{
		{"transaction past its deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, func(ctx context.Context) error {
			return db.CreateConversation(ctx, Conversation{ID: "late", Title: "late"})
		}, context.DeadlineExceeded},
		{"statement stopped", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			return ctx, cancel
		}, func(ctx context.Context) error { return db.Heartbeat(ctx, "stopped", 1) }, context.Canceled},
	}
	for _, tt := range gaveUp {
		ctx, cancel := tt.ctx()
		err := tt.write(ctx)
		cancel()
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		// Not a timing assertion: the holder commits its row only when it lets go, so
		// finding no row proves the write gave up while the lock was still held.
		if _, err := db.GetConversation(context.Background(), "held"); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: returned only after the other process's write (held: %v)", tt.name, err)
		}
	}
	// The helper holds the lock from before "ready" for holdFor; these writes start now.
	if err := writeConversations(context.Background(), db, "waiting", 1); err != nil {
		t.Errorf("write during the other process's long write: %v", err)
	}
	if err := holder.finish(); err != nil {
		t.Errorf("holder: %v", err)
	}
	for _, id := range []string{"held", "waiting-0"} {
		if _, err := db.GetConversation(context.Background(), id); err != nil {
			t.Errorf("conversation %s: %v", id, err)
		}
	}
}

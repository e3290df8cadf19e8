package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"artifactflow/app"
	"artifactflow/app/localapi"
	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reading test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newConversation creates a conversation in the database of dataDir (no app running).
func newConversation(t *testing.T, dataDir, id string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dataDir, "artifactflow.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateConversation(ctx, store.Conversation{ID: id, Title: "t"}); err != nil {
		t.Fatal(err)
	}
}

// waitDiscovery waits (at most 30 s) for api.json in dataDir and returns it.
func waitDiscovery(t *testing.T, dataDir string, stderr func() string) localapi.Discovery {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := localapi.ReadDiscovery(dataDir)
		if err == nil {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("no api.json after 30 s: %v\nstderr: %s", err, stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runningServe is `artifactflow serve` started by a test: in-process through Main, or the
// built binary named by AF_WINDOW_BIN.
type runningServe struct {
	disc   localapi.Discovery
	stop   func() int // stops serve and returns its exit code
	stderr func() string
}

// startServe runs `serve --data-dir dataDir` until the test stops it (or ends).
func startServe(t *testing.T, dataDir string) *runningServe {
	t.Helper()
	var stop func() int
	var stderr func() string
	if bin := os.Getenv("AF_WINDOW_BIN"); bin != "" {
		bin, _ = filepath.Abs(bin)
		var errBuf syncBuffer
		cmd := exec.Command(bin, "serve", "--data-dir", dataDir)
		cmd.Stdout, cmd.Stderr = io.Discard, &errBuf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		code := -1
		stop = func() int {
			once.Do(func() {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				done := make(chan struct{})
				go func() { _ = cmd.Wait(); close(done) }()
				select {
				case <-done:
				case <-time.After(40 * time.Second):
					_ = cmd.Process.Kill()
					<-done
				}
				code = cmd.ProcessState.ExitCode()
			})
			return code
		}
		stderr = errBuf.String
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errBuf syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- Main(ctx, Env{Args: []string{"serve", "--data-dir", dataDir}, Stdout: &out, Stderr: &errBuf})
		}()
		var once sync.Once
		code := -1
		stop = func() int {
			once.Do(func() {
				cancel()
				select {
				case code = <-done:
				case <-time.After(40 * time.Second):
					t.Error("serve did not stop within 40 s")
				}
			})
			return code
		}
		stderr = errBuf.String
	}
	t.Cleanup(func() { stop() })
	return &runningServe{disc: waitDiscovery(t, dataDir, stderr), stop: stop, stderr: stderr}
}

// scriptCall is a request as a script would send it: url and token from api.json.
func scriptCall(t *testing.T, d localapi.Discovery, method, path, clientID, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, d.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+d.Token)
	if clientID != "" {
		req.Header.Set("X-Client-Id", clientID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// eventStream reads an SSE stream of the local API into parsed events.
type eventStream struct {
	events chan localapi.Event
	ids    chan int64
	done   chan struct{}
	body   io.Closer
}

// openEvents connects a script's event stream and waits for its first comment.
func openEvents(t *testing.T, d localapi.Discovery, conv string) *eventStream {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, d.URL+"/session/"+conv+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+d.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	s := &eventStream{events: make(chan localapi.Event, 64), ids: make(chan int64, 64), done: make(chan struct{}), body: resp.Body}
	ready := make(chan struct{})
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(resp.Body)
		first := true
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, ":") && first:
				first = false
				close(ready)
			case strings.HasPrefix(line, "id: "):
				n, _ := strconv.ParseInt(line[4:], 10, 64)
				s.ids <- n
			case strings.HasPrefix(line, "data: "):
				var ev localapi.Event
				if err := json.Unmarshal([]byte(line[6:]), &ev); err == nil {
					s.events <- ev
				}
			}
		}
	}()
	t.Cleanup(func() { resp.Body.Close(); <-s.done })
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("event stream: no first comment")
	}
	return s
}

func (s *eventStream) next(t *testing.T) localapi.Event {
	t.Helper()
	select {
	case ev := <-s.events:
		<-s.ids
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return localapi.Event{}
}

// TestLocalAPIServeEndToEnd runs `serve` (in-process, or the binary named by
// AF_WINDOW_BIN) and plays a script: it finds the API through api.json (mode 0600),
// posts a link, sees it created on the event stream and in the list, deletes it and sees
// it removed (reason explicit); when serve exits, the stream ends and api.json is gone.
func TestLocalAPIServeEndToEnd(t *testing.T) {
	dataDir := t.TempDir()
	const conv = "conv-e2e"
	newConversation(t, dataDir, conv)
	srv := startServe(t, dataDir)
	fi, err := os.Stat(filepath.Join(dataDir, localapi.DiscoveryFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("api.json: %v %v", fi, err)
	}
	d := srv.disc
	if !strings.HasPrefix(d.URL, "http://127.0.0.1:") || len(d.Token) < 32 || d.PID <= 0 {
		t.Fatalf("api.json %+v", d)
	}

	code, body := scriptCall(t, d, "GET", "/capabilities", "", "")
	if code != 200 || !strings.Contains(string(body), `"session_artifacts"`) {
		t.Fatalf("capabilities: %d %s", code, body)
	}
	stream := openEvents(t, d, conv)
	code, body = scriptCall(t, d, "POST", "/session/"+conv+"/artifacts", "script-1",
		`{"kind":"link","title":"Dataset page","url":"https://data.example.org/ds/1","metadata":{"rows":1200}}`)
	var added localapi.MutationResult
	if err := json.Unmarshal(body, &added); code != 200 || err != nil || len(added.Changes) != 1 || added.Changes[0].Action != "created" {
		t.Fatalf("POST: %d %s", code, body)
	}
	id := added.Changes[0].ArtifactID
	ev := stream.next(t)
	if ev.Type != "artifact_changed" || ev.Data.SessionID != conv || ev.Data.Change.Action != "created" || ev.Data.Change.ArtifactID != id ||
		ev.Data.Change.Artifact == nil || ev.Data.Change.Artifact.Source != "client" {
		t.Fatalf("created event %+v", ev)
	}

	code, body = scriptCall(t, d, "GET", "/session/"+conv+"/artifacts", "", "")
	var list localapi.ArtifactsEnvelope
	if err := json.Unmarshal(body, &list); code != 200 || err != nil || len(list.Artifacts) != 1 || list.Artifacts[0].ID != id ||
		list.Artifacts[0].URL != "https://data.example.org/ds/1" {
		t.Fatalf("GET: %d %s", code, body)
	}

	code, body = scriptCall(t, d, "DELETE", "/session/"+conv+"/artifacts/"+id, "script-1", "")
	if code != 200 || !strings.Contains(string(body), `"removed"`) {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	ev = stream.next(t)
	if ev.Data.Change.Action != "removed" || ev.Data.Change.Reason != "explicit" || ev.Data.Change.ArtifactID != id {
		t.Fatalf("removed event %+v", ev)
	}

	if code := srv.stop(); code != ExitOK {
		t.Fatalf("serve exited %d: %s", code, srv.stderr())
	}
	select {
	case <-stream.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream outlived serve")
	}
	if _, err := os.Stat(filepath.Join(dataDir, localapi.DiscoveryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("api.json after serve exited: %v", err)
	}
}

// TestWindowStartsLocalAPI: while the window is open (a stand-in WindowFunc), api.json
// names a live API on the --api-addr port whose changes reach the window's sinks (the
// panel) as artifact_changed events; after it closes, api.json is gone. A non-loopback --api-addr
// is bad usage and opens no window.
func TestWindowStartsLocalAPI(t *testing.T) {
	dataDir := t.TempDir()
	const conv = "conv-window"
	newConversation(t, dataDir, conv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	opened := false
	window := func(core *app.Core) error {
		opened = true
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		got := make(chan events.Event, 8)
		defer core.AddSink(app.SinkFunc(func(ev events.Event) {
			if ev.Type == events.ArtifactChanged {
				got <- ev
			}
		}))()
		d, err := localapi.ReadDiscovery(dataDir)
		if err != nil || d.URL != "http://"+addr {
			return errors.New("api.json: " + d.URL + " " + errString(err))
		}
		c, err := localapi.Discover(ctx, dataDir)
		if err != nil {
			return err
		}
		defer c.Close()
		changes, err := c.Add(ctx, conv, "window-test", []declared.Input{{Title: "Report", URL: "https://example.com/report"}})
		if err != nil || len(changes) != 1 {
			return errors.New("add: " + errString(err))
		}
		select {
		case ev := <-got:
			var d events.DataArtifactChanged
			_ = json.Unmarshal(ev.Data, &d)
			if ev.ConversationID != conv || d.Declared == nil || d.ArtifactID != changes[0].ArtifactID || d.Action != "created" {
				return fmt.Errorf("event %s seq %d: %s", ev.ConversationID, ev.Seq, ev.Data)
			}
		case <-ctx.Done():
			return errors.New("no artifact_changed event reached the window")
		}
		return nil
	}
	var stderr syncBuffer
	code := Main(context.Background(), Env{Args: []string{"--data-dir", dataDir, "--api-addr", addr}, Stdout: io.Discard, Stderr: &stderr, Window: window})
	if code != ExitOK || !opened {
		t.Fatalf("window exit %d (opened %v): %s", code, opened, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dataDir, localapi.DiscoveryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("api.json after the window closed: %v", err)
	}

	for _, bad := range []string{"0.0.0.0:0", "localhost:0", "[::1]:0", "nonsense"} {
		opened = false
		stderr = syncBuffer{}
		code := Main(context.Background(), Env{Args: []string{"--data-dir", dataDir, "--api-addr", bad}, Stdout: io.Discard, Stderr: &stderr, Window: window})
		if code != ExitUsage || opened || !strings.Contains(stderr.String(), "api-addr") {
			t.Errorf("--api-addr %s: exit %d, opened %v: %s", bad, code, opened, stderr.String())
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

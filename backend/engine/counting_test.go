package engine

import (
	"context"
	"encoding/base64"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
)

// TestStopWhileCounting: the token count of a request (seconds of work for megabytes of
// tool arguments) runs under the run's context, so Stop during the count ends the run as
// cancelled within half a second, without calling the model again.
func TestStopWhileCounting(t *testing.T) {
	t.Parallel() // waits on timers and child processes; runs beside the other slow tests
	// 3.9 MB of random base64 (the slowest text to count, 1.5 to 2 MB/s) in the arguments
	// of a call to an unknown tool, within the client's 4 MiB answer limit: the count takes
	// about 2 s while the tool's result and the stored message stay small.
	raw := make([]byte, 3_900_000*3/4)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	args := `{"query":"` + base64.StdEncoding.EncodeToString(raw) + `"}`
	queued := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(queued) }) }
	defer release() // a failed test must not leave the model's handler waiting
	e, _, rec, srv := newEngine(t, func(_ openai.ChatCompletionRequest, n int) llmtest.Reply {
		if n == 0 {
			<-queued
			r := call("no_such_tool", args)
			r.ChunkSize = 64 << 10
			return r
		}
		return llmtest.Reply{Content: "answer"}
	})
	r, err := e.Start(context.Background(), Request{Content: "q"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor := func(typ events.Type) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); countType(rec.types(), typ) == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s within 30 s: %v", typ, rec.types())
			}
		}
	}
	waitFor(events.AgentStart)
	// A queued message is taken as user_input at the start of the next round, a few
	// milliseconds before the round's request, with the tool call's arguments, is counted.
	// Stop comes 100 ms later, within the count: a second of work or more.
	if _, err := e.Inject(r.ConversationID, "Also cover B"); err != nil {
		t.Fatal(err)
	}
	release()
	waitFor(events.UserInput)
	time.Sleep(100 * time.Millisecond)
	stopped := time.Now()
	if !e.Stop(r.ConversationID) {
		t.Fatal("Stop found no run")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(stopped); took > time.Second { // milliseconds in fact; 1.3-1.5 s before the fix
		t.Fatalf("the run took %v to stop", took)
	}
	if res.Status != events.Cancelled {
		t.Fatalf("status %s", res.Status)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the model was called %d times, want once (before Stop)", n)
	}
}

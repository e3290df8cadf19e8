package llm_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

// testBound bounds every Stream call of these tests, so that a client without the limits
// under test fails the test instead of hanging it.
const testBound = 20 * time.Second

// waitEnd returns how the server's response to call ended, failing the test when it has
// not ended within testBound.
func waitEnd(t *testing.T, srv *llmtest.Server, call int) llmtest.End {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	end, err := srv.WaitEnd(ctx, call)
	if err != nil {
		t.Fatalf("the server's response to call %d never ended: %v", call, err)
	}
	return end
}

// checkErr checks err against the sentinels it must and must not wrap and the texts it
// must contain ("{endpoint}" replaced), and that it is one line.
func checkErr(t *testing.T, c *llm.Client, err error, is, notIs []error, texts ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("Stream succeeded; want an error")
	}
	for _, want := range is {
		if !errors.Is(err, want) {
			t.Errorf("error %q does not wrap %v", err, want)
		}
	}
	for _, no := range notIs {
		if errors.Is(err, no) {
			t.Errorf("error %q wraps %v", err, no)
		}
	}
	for _, want := range texts {
		want = strings.ReplaceAll(want, "{endpoint}", c.Endpoint())
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
}

// TestStreamTimeouts: an endpoint that stays silent (no headers at all, headers and then
// nothing, or nothing more mid-stream) fails each try with ErrTimeout naming the wait that
// ran out, retried like a network error, and the server sees the client hang up. Without
// the watchdog each of these hangs until testBound.
func TestStreamTimeouts(t *testing.T) {
	const short = 400 * time.Millisecond // long enough for a good answer on a loaded machine
	twoSleeps := []time.Duration{time.Second, 2 * time.Second}
	good := llmtest.Reply{Content: "Finally an answer."}
	tests := []struct {
		name       string
		handler    llmtest.Handler
		edit       func(*llm.Config)
		wantCalls  int
		wantSleeps []time.Duration
		wantResets int
		wantErr    string // empty: success with good's content
		idle       bool   // the error is ErrIdleTimeout (the answer had started)
	}{
		{
			name:       "no response headers at all",
			handler:    always(llmtest.Reply{Hang: llmtest.HangBeforeHeaders}),
			edit:       func(c *llm.Config) { c.FirstByteTimeout = short },
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantErr:    "llm: POST {endpoint}: timed out after 3 tries: no response headers within 400ms of sending the request (FirstByteTimeout)",
		},
		{
			name:       "headers, then silence",
			handler:    always(llmtest.Reply{Content: "never sent", Hang: llmtest.HangAfterHeaders}),
			edit:       func(c *llm.Config) { c.FirstByteTimeout = short },
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantErr:    "timed out after 3 tries: no data within 400ms of sending the request (FirstByteTimeout)",
		},
		{
			name:    "silence mid-stream",
			handler: always(llmtest.Reply{Content: "a first piece and never the rest", Hang: llmtest.HangMidStream}),
			edit:    func(c *llm.Config) { c.IdleTimeout = short },
			// the idle timeout is not the first-byte one: that stays at its 10-minute default
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantResets: 2, // the first piece was delivered by tries 1 and 2
			wantErr:    "timed out after 3 tries: no data for 400ms (IdleTimeout)",
			idle:       true,
		},
		{
			name:    "with an HTTPClient of the caller's own",
			handler: always(llmtest.Reply{Content: "never sent", Hang: llmtest.HangAfterHeaders}),
			edit: func(c *llm.Config) {
				c.FirstByteTimeout = short
				c.HTTPClient = &http.Client{Transport: &http.Transport{}}
			},
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantErr:    "timed out after 3 tries: no data within 400ms",
		},
		{
			name: "silent twice, then an answer: a timeout is retried",
			handler: llmtest.Script(llmtest.Reply{Hang: llmtest.HangBeforeHeaders},
				llmtest.Reply{Content: "partial", Hang: llmtest.HangMidStream}, good),
			edit:       func(c *llm.Config) { c.FirstByteTimeout = short; c.IdleTimeout = short },
			wantCalls:  3,
			wantSleeps: twoSleeps,
			wantResets: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.handler)
			h := newHarness(t, srv.URL(), tt.edit)
			ctx, cancel := context.WithTimeout(context.Background(), testBound)
			defer cancel()
			var c consumer
			resp, err := h.client.Stream(ctx, userRequest("hello"), c.onDelta)
			if tt.wantErr == "" {
				if err != nil || resp.Content != good.Content || c.content.String() != good.Content {
					t.Fatalf("Stream = %+v, %v (deltas %q); want %q", resp, err, c.content.String(), good.Content)
				}
			} else {
				is, notIs := []error{llm.ErrTimeout, llm.ErrUnavailable}, []error{llm.ErrRejected, llm.ErrTooLarge, context.DeadlineExceeded}
				if tt.idle {
					is = append(is, llm.ErrIdleTimeout)
				} else {
					notIs = append(notIs, llm.ErrIdleTimeout)
				}
				checkErr(t, h.client, err, is, notIs, tt.wantErr)
			}
			if srv.Calls() != tt.wantCalls || !reflect.DeepEqual(h.sleeps, tt.wantSleeps) || c.resets != tt.wantResets {
				t.Errorf("%d calls, sleeps %v, %d resets; want %d, %v, %d",
					srv.Calls(), h.sleeps, c.resets, tt.wantCalls, tt.wantSleeps, tt.wantResets)
			}
			for call := range srv.Calls() {
				want := llmtest.EndClientGone
				if tt.wantErr == "" && call == srv.Calls()-1 {
					want = llmtest.EndComplete
				}
				if end := waitEnd(t, srv, call); end.Reason != want {
					t.Errorf("call %d ended %q; want %q", call, end.Reason, want)
				}
			}
		})
	}
}

// TestStreamSlowButSteady: the timeouts bound each silence, not the whole answer: a
// stream that takes far longer than both, in steps shorter than either, succeeds; and
// time the caller spends in onDelta is not silence of the endpoint.
func TestStreamSlowButSteady(t *testing.T) {
	const limit = 500 * time.Millisecond    // steps of 150 ms leave 350 ms for a loaded machine
	content := strings.Repeat("steady ", 6) // 42 runes: 6 chunks of 7, plus role and finish
	tests := []struct {
		name    string
		reply   llmtest.Reply
		onDelta func(llm.Delta)
	}{
		{name: "chunks every 150ms for over a second", reply: llmtest.Reply{Content: content, Delay: 150 * time.Millisecond}},
		{name: "a consumer that takes longer than IdleTimeout", reply: llmtest.Reply{Content: content},
			onDelta: slowFirstDeltas(2, limit+100*time.Millisecond)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Script(tt.reply))
			h := newHarness(t, srv.URL(), func(c *llm.Config) { c.FirstByteTimeout = limit; c.IdleTimeout = limit })
			ctx, cancel := context.WithTimeout(context.Background(), testBound)
			defer cancel()
			start := time.Now()
			resp, err := h.client.Stream(ctx, userRequest("hello"), tt.onDelta)
			if err != nil || resp.Content != content {
				t.Fatalf("Stream = %q, %v; want the whole answer", resp.Content, err)
			}
			if took := time.Since(start); took < 2*limit {
				t.Fatalf("the stream took %s, not longer than both timeouts: the test proves nothing", took)
			}
		})
	}
}

// slowFirstDeltas returns an onDelta that sleeps d in each of its first n calls.
func slowFirstDeltas(n int, d time.Duration) func(llm.Delta) {
	calls := 0
	return func(llm.Delta) {
		if calls++; calls <= n {
			time.Sleep(d)
		}
	}
}

// TestStreamStopDuringSilence: cancelling ctx while the endpoint is silent ends Stream
// within a second, whatever the timeouts, and the connection is closed.
func TestStreamStopDuringSilence(t *testing.T) {
	for _, hang := range []struct {
		name string
		at   llmtest.HangPoint
	}{
		{"before headers", llmtest.HangBeforeHeaders},
		{"after headers", llmtest.HangAfterHeaders},
		{"mid-stream", llmtest.HangMidStream},
	} {
		t.Run(hang.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cancelled := make(chan time.Time, 1)
			srv := llmtest.NewServer(t, func(openai.ChatCompletionRequest, int) llmtest.Reply {
				// Stop a little after the request arrived, while the client waits on silence.
				time.AfterFunc(100*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
				return llmtest.Reply{Content: "a first piece and never the rest", Hang: hang.at}
			})
			h := newHarness(t, srv.URL(), nil) // default timeouts: minutes
			done := make(chan error, 2)        // from Stream and from the bound: neither blocks
			bound := time.AfterFunc(testBound, func() { done <- errors.New("Stream did not return") })
			defer bound.Stop()
			go func() {
				_, err := h.client.Stream(ctx, userRequest("hello"), nil)
				done <- err
			}()
			err := <-done
			returned := time.Now()
			if !errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrUnavailable) {
				t.Fatalf("err = %v; want context.Canceled only", err)
			}
			if took := returned.Sub(<-cancelled); took > time.Second {
				t.Errorf("Stream returned %s after the cancel; want within 1s", took)
			}
			if end := waitEnd(t, srv, 0); end.Reason != llmtest.EndClientGone || srv.Calls() != 1 {
				t.Errorf("response ended %q after %d calls; want the client to hang up, 1 call", end.Reason, srv.Calls())
			}
		})
	}
}

// TestStreamSizeLimits: a server that streams without end, in any of the shapes the wire
// format allows, ends the try with ErrTooLarge naming the limit, at once (not retried),
// and the client hangs up long before the server's safety net. Without the limits the
// client takes the flood as an answer (or keeps it all in memory until then).
func TestStreamSizeLimits(t *testing.T) {
	const (
		small  = 64 << 10 // MaxAnswerBytes in most cases
		safety = 16 << 20 // the server's safety net: FloodLimit
	)
	tests := []struct {
		name     string
		flood    llmtest.FloodKind
		max      int64 // MaxAnswerBytes; 0 is the default
		wantText string
	}{
		{"endless content", llmtest.FloodContent, small,
			"answer too large: the answer's content, reasoning and tool calls exceed 64 KiB (MaxAnswerBytes)"},
		{"endless content, default limit", llmtest.FloodContent, 0,
			"answer too large: the answer's content, reasoning and tool calls exceed 4 MiB (MaxAnswerBytes)"},
		{"endless reasoning", llmtest.FloodReasoning, small,
			"answer too large: the answer's content, reasoning and tool calls exceed 64 KiB (MaxAnswerBytes)"},
		{"endless tool-call arguments", llmtest.FloodToolArguments, small,
			"answer too large: the answer's content, reasoning and tool calls exceed 64 KiB (MaxAnswerBytes)"},
		{"endless tool calls", llmtest.FloodToolCalls, small, "answer too large: the answer has more than 256 tool calls"},
		{"endless empty chunks", llmtest.FloodEmptyChunks, small,
			"answer too large: the stream went past 4 MiB without finishing (64 × MaxAnswerBytes)"},
		{"endless comment lines", llmtest.FloodComments, small,
			"answer too large: the stream holds over 64 KiB of lines that are not data"},
		{"one endless line", llmtest.FloodLine, small,
			"answer too large: a line of the stream is longer than 448 KiB (6 × MaxAnswerBytes + 64 KiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The safety net is far past the limit under test: about a quarter of the wire
			// is content, so 16 MiB holds 4 MiB, and 64 MiB more than the default's 4 MiB.
			limit := int64(safety)
			if tt.max == 0 {
				limit = 4 * safety
			}
			srv := llmtest.NewServer(t, always(llmtest.Reply{Flood: tt.flood, FloodLimit: limit}))
			h := newHarness(t, srv.URL(), func(c *llm.Config) { c.MaxAnswerBytes = tt.max })
			ctx, cancel := context.WithTimeout(context.Background(), testBound)
			defer cancel()
			var c consumer
			_, err := h.client.Stream(ctx, userRequest("hello"), c.onDelta)
			checkErr(t, h.client, err, []error{llm.ErrTooLarge}, []error{llm.ErrUnavailable, llm.ErrRejected},
				"llm: POST {endpoint}: "+tt.wantText)
			if srv.Calls() != 1 || len(h.sleeps) != 0 {
				t.Errorf("%d calls, sleeps %v; want 1 call and no retry", srv.Calls(), h.sleeps)
			}
			end := waitEnd(t, srv, 0)
			if end.Reason != llmtest.EndClientGone || end.Written >= limit {
				t.Errorf("the server's flood ended %q after %d bytes; want the client to hang up first", end.Reason, end.Written)
			}
			if max := cmpOr(tt.max, llm.DefaultMaxAnswerBytes); int64(c.content.Len()+c.reasoning.Len()) > max {
				t.Errorf("%d bytes of text delivered, over the %d-byte limit", c.content.Len()+c.reasoning.Len(), max)
			}
		})
	}
}

func cmpOr(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

// TestStreamEndlessErrorBody: an HTTP error whose body never ends is read only up to a
// bound, then judged by its status like any other (a 500: retried); the client hangs up
// on each try instead of reading the server's whole flood.
func TestStreamEndlessErrorBody(t *testing.T) {
	const safety = 16 << 20
	srv := llmtest.NewServer(t, always(llmtest.Reply{Status: 500, Flood: llmtest.FloodErrorBody, FloodLimit: safety}))
	h := newHarness(t, srv.URL(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), testBound)
	defer cancel()
	_, err := h.client.Stream(ctx, userRequest("hello"), nil)
	checkErr(t, h.client, err, []error{llm.ErrUnavailable}, []error{llm.ErrTooLarge, llm.ErrRejected},
		"llm: POST {endpoint}: 500 Internal Server Error after 3 tries: {\"error\":{\"message\":\"xxx")
	if srv.Calls() != 3 {
		t.Errorf("%d calls, want 3", srv.Calls())
	}
	for call := range 3 {
		if end := waitEnd(t, srv, call); end.Reason != llmtest.EndClientGone || end.Written >= safety {
			t.Errorf("call %d: the error body ended %q after %d bytes; want the client to hang up first", call, end.Reason, end.Written)
		}
	}
}

// TestStreamEmptyAnswer: a stream that completes with [DONE] having produced nothing (no
// choice at all: only a usage chunk) is a failure the retry can fix (ErrNoChoices, a kind
// of ErrEmptyAnswer), not an empty answer.
func TestStreamEmptyAnswer(t *testing.T) {
	empty := llmtest.Reply{NoChoices: true}
	t.Run("empty twice, then an answer", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Script(empty, empty, llmtest.Reply{Content: "Here it is."}))
		h := newHarness(t, srv.URL(), nil)
		var c consumer
		resp, err := h.client.Stream(context.Background(), userRequest("hello"), c.onDelta)
		if err != nil || resp.Content != "Here it is." || resp.FinishReason != "stop" {
			t.Fatalf("Stream = %+v, %v; want the third try's answer", resp, err)
		}
		if srv.Calls() != 3 || !reflect.DeepEqual(h.sleeps, []time.Duration{time.Second, 2 * time.Second}) || c.resets != 0 {
			t.Errorf("%d calls, sleeps %v, %d resets; want 3 calls, 1s and 2s, no reset", srv.Calls(), h.sleeps, c.resets)
		}
		if !strings.Contains(h.logs.String(), "empty answer") {
			t.Errorf("retries not logged as empty answers: %s", h.logs.String())
		}
	})
	t.Run("always empty", func(t *testing.T) {
		srv := llmtest.NewServer(t, always(empty))
		runErrCase(t, srv, srv.URL(), errCase{
			wantIs:     []error{llm.ErrNoChoices, llm.ErrEmptyAnswer, llm.ErrUnavailable},
			wantNotIs:  []error{llm.ErrRejected, llm.ErrStreamBroken},
			wantCalls:  3,
			wantSleeps: []time.Duration{time.Second, 2 * time.Second},
			wantText: []string{"llm: POST {endpoint}: empty answer after 3 tries: " +
				`the stream ended with [DONE] after 1 chunk without a choice ("choices": [] throughout)`},
		})
	})
	t.Run("an empty content with finish_reason is an answer", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{}))
		h := newHarness(t, srv.URL(), nil)
		resp, err := h.client.Stream(context.Background(), userRequest("hello"), nil)
		if err != nil || resp.FinishReason != "stop" || srv.Calls() != 1 {
			t.Fatalf("Stream = %+v, %v after %d calls; want the model's empty stop", resp, err, srv.Calls())
		}
	})
}

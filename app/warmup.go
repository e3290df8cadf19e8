package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"artifactflow/backend/tokens"
	"artifactflow/backend/web"
)

// DefaultWarmupIdle is how long the app waits, with no run in progress and no run event,
// before each warm-up step (StartWarmup).
const DefaultWarmupIdle = 2 * time.Second

// WarmupStep is one thing the warm-up prepared: what (Name), when it started, how long it
// took, and its error (nil when it succeeded).
type WarmupStep struct {
	Name    string
	Started time.Time
	Took    time.Duration
	Err     error
}

// warmStep is one step of the warm-up: fn does it, stopping when its context is done.
type warmStep struct {
	name string
	fn   func(ctx context.Context) error
}

// warmup is the state of the warm-up (StartWarmup): the last run event, the cancel of the
// step in progress, what was done, and the owner goroutine's stop and end.
type warmup struct {
	mu        sync.Mutex
	last      time.Time          // the last run event seen (emit)
	cancel    context.CancelFunc // cancels the step in progress; nil between steps
	steps     []WarmupStep
	stop      context.CancelFunc
	done      chan struct{} // closed when the owner goroutine returns
	completed chan struct{} // closed once every step succeeded or failed for good
}

// StartWarmup prepares in the background what a first use would otherwise wait for, so
// that the first token count, the first PDF and the first converter child cost what later
// ones cost (docs/ARCHITECTURE.md, "Start-up"): the tokenizer tables of the models in the
// settings (loaded in this process: about 60 ms each) and the PDF reader (one page read in
// a converter child at the lowest CPU priority, which leaves PDFium's compiled module in
// the cache folder: seconds the first time after an install, then a fraction of one).
// Each step starts only after idle with no run in progress and no run event; a run event
// (a run starting or going on) cancels the step in progress, which is tried again at the
// next idle time, as is the PDF step when a PDF read the user asked for stops it
// (web.ErrWarmUpPreempted). Input in the page is not watched: the in-process step is short and the
// child runs at the lowest priority. One goroutine owns the warm-up; Close stops it (and
// kills a step's child). Each step is logged at Info level with how long it took.
// Calling StartWarmup again does nothing.
func (c *Core) StartWarmup(idle time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warm != nil {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	c.warm = &warmup{last: time.Now(), stop: stop, done: make(chan struct{}), completed: make(chan struct{})}
	steps := []warmStep{
		{"tokenizer tables", c.warmTokens},
		{"PDF reader (compiled PDFium, converter child)", web.WarmPDFReader},
	}
	go c.runWarmup(ctx, c.warm, idle, steps)
}

// WarmupDone is closed once every warm-up step has been done (nil before StartWarmup).
func (c *Core) WarmupDone() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warm == nil {
		return nil
	}
	return c.warm.completed
}

// Warmed returns the warm-up steps done so far, in order.
func (c *Core) Warmed() []WarmupStep {
	c.mu.Lock()
	w := c.warm
	c.mu.Unlock()
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]WarmupStep(nil), w.steps...)
}

// noteActivity records a run event for the warm-up and cancels its step in progress.
func (c *Core) noteActivity() {
	c.mu.Lock()
	w := c.warm
	c.mu.Unlock()
	if w == nil {
		return
	}
	w.mu.Lock()
	w.last = time.Now()
	if w.cancel != nil {
		w.cancel()
	}
	w.mu.Unlock()
}

// stopWarmup cancels the warm-up and waits for its goroutine to return.
func (c *Core) stopWarmup() {
	c.mu.Lock()
	w := c.warm
	c.mu.Unlock()
	if w == nil {
		return
	}
	w.stop()
	<-w.done
}

// errActivity cancels a warm-up step when a run event arrives.
var errActivity = errors.New("a run event arrived")

// runWarmup does steps one after the other, each once the app has been idle for idle with
// no run in progress; a step cancelled by a run event is done again later. It returns when
// every step is done or ctx ends.
func (c *Core) runWarmup(ctx context.Context, w *warmup, idle time.Duration, steps []warmStep) {
	defer close(w.done)
	timer := time.NewTimer(idle)
	defer timer.Stop()
	for i := 0; i < len(steps); {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		w.mu.Lock()
		wait := idle - time.Since(w.last)
		w.mu.Unlock()
		if wait > 0 || len(c.eng.Running()) > 0 {
			timer.Reset(max(wait, idle/4))
			continue
		}
		stepCtx, cancel := context.WithCancelCause(ctx)
		w.mu.Lock()
		w.cancel = func() { cancel(errActivity) }
		w.mu.Unlock()
		start := time.Now()
		err := steps[i].fn(stepCtx)
		took := time.Since(start)
		w.mu.Lock()
		w.cancel = nil
		w.mu.Unlock()
		cause := context.Cause(stepCtx)
		cancel(nil)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && (errors.Is(cause, errActivity) || errors.Is(err, web.ErrWarmUpPreempted)):
			c.log.Info("warm-up step stopped by a run or a PDF read; tried again when idle", "step", steps[i].name, "after", took.Round(time.Millisecond))
			timer.Reset(idle)
			continue
		}
		w.mu.Lock()
		w.steps = append(w.steps, WarmupStep{Name: steps[i].name, Started: start, Took: took, Err: err})
		w.mu.Unlock()
		if err != nil {
			c.log.Warn("warm-up step failed; its first use will pay for it", "step", steps[i].name, "took", took.Round(time.Millisecond), "err", err)
		} else {
			c.log.Info("warmed for first use", "step", steps[i].name, "took", took.Round(time.Millisecond))
		}
		i++
		timer.Reset(0)
	}
	close(w.completed)
}

// warmTokens loads the tokenizer tables of the lead's and the sub-agents' models.
func (c *Core) warmTokens(context.Context) error {
	s := c.Settings()
	for _, m := range []string{s.Agent(s.Lead).Model, s.Agent(s.SubAgents).Model} {
		if _, err := tokens.NewCounter(m); err != nil {
			return fmt.Errorf("tokenizer for %q: %w", m, err)
		}
	}
	return nil
}

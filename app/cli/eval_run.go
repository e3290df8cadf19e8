package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
)

// This file runs the questions of `artifactflow eval`, a few at a time, each as a new
// conversation.

// collect returns the rows run so far, in question order.
func collect(rows []*evalRow) []evalRow {
	out := []evalRow{}
	for _, r := range rows {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// evaluator runs and measures questions on one Core.
type evaluator struct {
	core   *app.Core
	grader *judgeModel // nil: no judging
	stderr io.Writer
	total  int

	mu   sync.Mutex // stderr lines and the rows
	done int
}

// runAll runs qs, n at a time, and returns one row per question run (nil for those not
// started: ctx ended first). After each row, saved is called with the rows so far, under
// the evaluator's lock. It returns when every started run has ended.
func (e *evaluator) runAll(ctx context.Context, qs []evalQuestion, n int, saved func([]*evalRow)) []*evalRow {
	rows := make([]*evalRow, len(qs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue
				}
				row, ok := e.one(ctx, qs[i])
				if !ok {
					continue
				}
				e.mu.Lock()
				rows[i] = &row
				e.done++
				e.progress("[%d/%d] %s: %s", e.done, e.total, row.ID, summary(row))
				saved(rows)
				e.mu.Unlock()
			}
		}()
	}
feed:
	for i := range qs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return rows
}

// progress prints one line to stderr; the caller holds e.mu.
func (e *evaluator) progress(format string, args ...any) {
	fmt.Fprintf(e.stderr, format+"\n", args...)
}

// summary is a row's progress line after its id.
func summary(r evalRow) string {
	s := fmt.Sprintf("%s in %.1f s, %d searches (%d failed), %d fetches (%d failed), %d sources, %d cited",
		r.Status, r.Seconds, r.Searches, r.SearchesFailed, r.Fetches, r.FetchesFailed, r.Sources, len(r.Cited))
	if r.Error != "" {
		s += ": " + text.Clip(r.Error, 160)
	}
	return s
}

// one runs q as a new conversation and measures it. ok is false when the run did not
// start because ctx ended first (the question is not run, not failed).
func (e *evaluator) one(ctx context.Context, q evalQuestion) (row evalRow, ok bool) {
	row = evalRow{ID: q.ID, Tags: q.Tags, Cited: []int{}}
	e.mu.Lock()
	e.progress("%s: %s", q.ID, text.Clip(q.Question, 100))
	e.mu.Unlock()
	start := time.Now()
	res, err := e.core.Engine().Ask(ctx, engine.Request{Content: q.Question})
	if err != nil {
		if ctx.Err() != nil {
			return row, false
		}
		row.Status, row.Error, row.Seconds = evalError, text.OneLine(err), time.Since(start).Seconds()
		return row, true
	}
	row.ConversationID, row.MessageID = res.ConversationID, res.MessageID
	row.Status = string(res.Status)
	if res.Status != events.Complete {
		row.Error = text.OneLine(res.Err)
	}
	row.Seconds = res.Duration.Seconds()
	if res.Duration <= 0 {
		row.Seconds = time.Since(start).Seconds()
	}
	row.PromptTokens, row.CompletionTokens = res.Usage.PromptTokens, res.Usage.CompletionTokens
	row.Rounds = res.Steps
	row.Answer = res.Response
	// The run has ended and stored everything: measure it even when ctx is cancelled.
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), measureTimeout)
	defer cancel()
	if err := measure(mctx, e.core.Store(), &row); err != nil {
		row.Error = strings.TrimPrefix(row.Error+"; ", "; ") + "measure: " + text.OneLine(err)
	}
	if e.grader != nil && q.Reference != "" && row.Status == evalComplete && ctx.Err() == nil {
		g := grade(ctx, e.grader, q, row.Answer, row.report)
		row.Judge = &g
	}
	return row, true
}

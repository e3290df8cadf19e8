package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// DefaultFollowInterval is Options.FollowInterval when unset: how often a process looks
// for stop requests addressed to its runs and, when it follows other processes' runs
// (Options.FollowOtherRuns), for their new events.
const DefaultFollowInterval = 500 * time.Millisecond

// watch runs until Close, every c.followEvery: it stops the runs of this process that
// another process asked to stop (ChatService.Stop on a run held elsewhere), and, with
// Options.FollowOtherRuns, relays the runs of other processes (followOthers).
func (c *Core) watch() {
	defer close(c.watchDone)
	t := time.NewTicker(c.followEvery)
	defer t.Stop()
	after := c.followFrom // the last event relayed (message_events.id); -1: not yet known
	for {
		select {
		case <-c.stopBeat:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), max(c.followEvery, time.Second))
			c.stopRequested(ctx)
			if c.follow {
				c.followOthers(ctx, &after)
			}
			cancel()
		}
	}
}

// startFollowing is NewCore's first look with Options.FollowOtherRuns: the runs going
// elsewhere (so the first conversation list shows them) and the newest event, after which
// watch relays.
func (c *Core) startFollowing(ctx context.Context) {
	c.followFrom = -1
	if !c.follow {
		return
	}
	c.refreshElsewhere(ctx)
	if last, err := c.db.LastEventID(ctx); err == nil {
		c.followFrom = last
	}
}

// stopRequested stops this process's runs that another process asked to stop
// (store.RequestStop), as this process's own Stop button would: only a run that is still
// the message asked about. The database is asked only while a run is going here.
func (c *Core) stopRequested(ctx context.Context) {
	if len(c.eng.Running()) == 0 {
		return
	}
	reqs, err := c.db.StopRequests(ctx, c.instance)
	if err != nil {
		c.log.Warn("could not read stop requests from other processes", "err", err)
		return
	}
	for _, r := range reqs {
		if run := c.eng.Active(r.ConversationID); run != nil && run.MessageID == r.MessageID {
			c.log.Info("stopping a run at another process's request", "conversation", r.ConversationID, "message", r.MessageID)
			c.eng.Stop(r.ConversationID)
		}
	}
}

// followOthers relays to this process's sinks the events other processes' runs stored
// since the last look (store.OtherEvents, after *after, which it advances): the window
// shows a run `artifactflow ask` or browser mode started as it shows its own, however
// short (the UI drops by seq what it has already loaded). Events stored before this
// process started are not relayed: the UI loads them with the conversation. What only the
// owner can answer is not relayed: a permission request, and its result. It also records
// which conversations run elsewhere (refreshElsewhere).
func (c *Core) followOthers(ctx context.Context, after *int64) {
	c.refreshElsewhere(ctx)
	last, err := c.db.LastEventID(ctx)
	if err != nil {
		c.log.Warn("could not read the newest event id", "err", err)
		return
	}
	if *after < 0 || last <= *after {
		*after = max(*after, last)
		return
	}
	evs, err := c.db.OtherEvents(ctx, c.instance, *after, last)
	if err != nil {
		c.log.Warn("could not read other processes' run events", "err", err)
		return // the same range again at the next look
	}
	*after = last
	for _, ev := range evs {
		if ev.Type != events.PermissionRequest && ev.Type != events.PermissionResult {
			c.emit(ev)
		}
	}
}

// refreshElsewhere records the conversations where another process holds a running
// message (store.HeldRuns), for runningElsewhere.
func (c *Core) refreshElsewhere(ctx context.Context) {
	held, err := c.db.HeldRuns(ctx, c.instance)
	if err != nil {
		c.log.Warn("could not list other processes' runs", "err", err)
		return
	}
	elsewhere := map[string]bool{}
	for _, h := range held {
		if h.Status == store.StatusRunning {
			elsewhere[h.ConversationID] = true
		}
	}
	c.mu.Lock()
	c.elsewhere = elsewhere
	c.mu.Unlock()
}

// stopElsewhereWait bounds how long stopElsewhere waits for another process to stop its
// run: it looks for requests every FollowInterval (500 ms), and the run then flushes.
const stopElsewhereWait = 15 * time.Second

// stopElsewhere asks the process running research in conversationID, if another one does,
// to stop (store.RequestStop) and waits until no running message there is held by
// another process, up to stopElsewhereWait. Errors: engine.ErrBusy when it is still
// running then; store errors.
func (c *Core) stopElsewhere(ctx context.Context, conversationID string) error {
	deadline := time.Now().Add(stopElsewhereWait)
	for asked := false; ; {
		held, err := c.db.HeldRuns(ctx, c.instance)
		if err != nil {
			return err
		}
		running := slices.ContainsFunc(held, func(h store.HeldRun) bool {
			return h.ConversationID == conversationID && h.Status == store.StatusRunning
		})
		if !running {
			return nil
		}
		if !asked {
			if _, err := c.db.RequestStop(ctx, conversationID, c.instance); err != nil {
				return fmt.Errorf("app: ask another process to stop the run: %w", err)
			}
			asked = true
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: the research in another ArtifactFlow process did not stop within %s", engine.ErrBusy, stopElsewhereWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// runningElsewhere reports whether another process runs research in conversationID, as
// seen at the last follow (Options.FollowOtherRuns; false without it).
func (c *Core) runningElsewhere(conversationID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.elsewhere[conversationID]
}

// runningElsewhereIDs returns the conversations another process runs research in, as seen
// at the last follow.
func (c *Core) runningElsewhereIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.elsewhere))
	for id := range c.elsewhere {
		out = append(out, id)
	}
	return out
}

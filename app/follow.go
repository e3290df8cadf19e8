package app

import (
	"context"
	"time"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// DefaultFollowInterval is Options.FollowInterval when unset: how often a process looks
// for stop requests addressed to its runs and, when it follows other processes' runs
// (Options.FollowOtherRuns), for their new events.
const DefaultFollowInterval = 500 * time.Millisecond

// followedRun is a message another process holds whose stored events this process relays.
type followedRun struct {
	conversationID string
	lastSeq        int64 // the highest seq relayed so far
}

// watch runs until Close, every c.followEvery: it stops the runs of this process that
// another process asked to stop (ChatService.Stop on a run held elsewhere), and, with
// Options.FollowOtherRuns, relays the runs other processes hold (followOthers).
func (c *Core) watch() {
	defer close(c.watchDone)
	t := time.NewTicker(c.followEvery)
	defer t.Stop()
	followed := map[string]*followedRun{}
	for {
		select {
		case <-c.stopBeat:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), max(c.followEvery, time.Second))
			c.stopRequested(ctx)
			if c.follow {
				c.followOthers(ctx, followed)
			}
			cancel()
		}
	}
}

// stopRequested stops this process's runs that another process asked to stop
// (store.RequestStop), as this process's own Stop button would. The database is asked only
// while a run is going here.
func (c *Core) stopRequested(ctx context.Context) {
	if len(c.eng.Running()) == 0 {
		return
	}
	ids, err := c.db.StopRequests(ctx, c.instance)
	if err != nil {
		c.log.Warn("could not read stop requests from other processes", "err", err)
		return
	}
	for _, id := range ids {
		if c.eng.Active(id) != nil {
			c.log.Info("stopping a run at another process's request", "conversation", id)
			c.eng.Stop(id)
		}
	}
}

// followOthers relays to this process's sinks the stored events of runs other processes
// hold (store.HeldRuns): the window shows a run `artifactflow ask` or browser mode
// started as it shows its own, from its start (the UI drops what it has already seen by
// seq) to its last event, Stop hooks' included. What only the owner can answer is not
// relayed: a permission request, and its result. It also records which conversations run
// elsewhere (runningElsewhere).
func (c *Core) followOthers(ctx context.Context, followed map[string]*followedRun) {
	held, err := c.db.HeldRuns(ctx, c.instance)
	if err != nil {
		c.log.Warn("could not list other processes' runs", "err", err)
		return
	}
	stillHeld := make(map[string]bool, len(held))
	elsewhere := map[string]bool{}
	for _, h := range held {
		stillHeld[h.MessageID] = true
		if h.Status == store.StatusRunning {
			elsewhere[h.ConversationID] = true
		}
		if followed[h.MessageID] == nil {
			followed[h.MessageID] = &followedRun{conversationID: h.ConversationID}
		}
	}
	c.mu.Lock()
	c.elsewhere = elsewhere
	c.mu.Unlock()
	for id, f := range followed {
		evs, err := c.db.ListEvents(ctx, store.EventQuery{ConversationID: f.conversationID, MessageID: id, AfterSeq: f.lastSeq})
		if err != nil {
			c.log.Warn("could not read another process's run events", "message", id, "err", err)
			continue
		}
		for _, ev := range evs {
			f.lastSeq = ev.Seq
			if ev.Type == events.PermissionRequest || ev.Type == events.PermissionResult {
				continue
			}
			c.emit(ev)
		}
		if !stillHeld[id] {
			delete(followed, id) // released: its last events were written before, and relayed now
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

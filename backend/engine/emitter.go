package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// JournalInterval is how often a run's event journal is written (crash safety: events are
// journaled as they happen, batched, at most 200 ms late). Terminal events and the end of
// every tool round are written at once.
const JournalInterval = 100 * time.Millisecond

// EventStore is what the emitter needs from the data layer; *store.DB satisfies it.
type EventStore interface {
	AppendEvents(ctx context.Context, evs ...events.Event) error
	MaxSeq(ctx context.Context, conversationID string) (int64, error)
	ListEvents(ctx context.Context, q store.EventQuery) ([]events.Event, error)
}

// emitter stamps events with the run's ids, the next per-conversation seq and the time,
// hands each to the sink at once and journals every type but llm_chunk
// (docs/ARCHITECTURE.md, "Contracts other code relies on") in batches: a background writer
// flushes every JournalInterval, and sync flushes on demand. It is owned by one run: close
// stops the writer after a last flush.
type emitter struct {
	st             EventStore
	sink           func(events.Event)
	conversationID string
	messageID      string
	now            func() time.Time

	mu      sync.Mutex
	seq     int64
	pending []events.Event
	failure error // first persistence error; the run stops on it

	order   sync.Mutex // emits from the run and from Inject reach the sink in seq order
	writeMu sync.Mutex // one AppendEvents at a time, in seq order
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

func newEmitter(ctx context.Context, st EventStore, sink func(events.Event), conversationID, messageID string, now func() time.Time) (*emitter, error) {
	seq, err := st.MaxSeq(ctx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("engine: read last event seq: %w", err)
	}
	e := &emitter{st: st, sink: sink, conversationID: conversationID, messageID: messageID, now: now, seq: seq,
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go e.writer()
	return e, nil
}

// writer flushes the journal every JournalInterval until close.
func (e *emitter) writer() {
	defer close(e.stopped)
	t := time.NewTicker(JournalInterval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			e.sync(context.Background())
		}
	}
}

// emit records one event: the sink gets it at once, the journal within JournalInterval,
// and a terminal event is written before emit returns. A persistence failure is
// remembered (see err) and the event still reaches the sink so the user sees it. Under a
// sub-agent instance's ctx (withInstance) the data gets "instance" as its first key. ctx may
// be cancelled: the terminal events of a cancelled run must be written all the same.
func (e *emitter) emit(ctx context.Context, t events.Type, agentName string, data any) events.Event {
	raw, ok := data.(json.RawMessage)
	if !ok {
		raw = events.MustData(data)
	}
	if id := instanceFrom(ctx); id != "" {
		raw = tagData(raw, id)
	}
	e.order.Lock()
	defer e.order.Unlock()
	e.mu.Lock()
	if t.Persisted() {
		e.seq++
	}
	ev := events.Event{Type: t, ConversationID: e.conversationID, MessageID: e.messageID, Seq: e.seq,
		AgentName: agentName, CreatedAt: e.now().UTC(), Data: raw}
	if t.Persisted() {
		e.pending = append(e.pending, ev)
	}
	e.mu.Unlock()
	if e.sink != nil {
		e.sink(ev)
	}
	if t.Terminal() {
		e.sync(ctx)
	}
	return ev
}

// retryAttempts bounds how often one sync mends and rewrites a batch the store refused
// as ErrSeqTaken or ErrDuplicate before it gives up (the batch stays pending and the run
// fails with the error).
const retryAttempts = 3

// sync writes every pending event in one transaction. A failed batch stays pending and is
// tried again by the next sync, with the events emitted since. When the store reports seqs
// of the batch as already stored for this run's message (store.ErrDuplicate: an earlier
// commit landed although it returned an error), the events it holds are dropped and the
// rest written. A batch whose seqs another message's events hold (store.ErrSeqTaken: another
// writer numbered from the same MaxSeq) is never dropped: it and every event pending after
// it are renumbered after the conversation's MaxSeq and written again, so the journal keeps
// every event of both writers (the sink has already had them under their first seqs).
func (e *emitter) sync(ctx context.Context) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.mu.Lock()
	batch := e.pending
	e.pending = nil
	e.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	wctx := context.WithoutCancel(ctx)
	err := e.st.AppendEvents(wctx, batch...)
	for try := 0; err != nil && try < retryAttempts; try++ {
		switch {
		case errors.Is(err, store.ErrSeqTaken):
			err = e.renumber(wctx, batch)
		case errors.Is(err, store.ErrDuplicate):
			batch, err = e.unwritten(wctx, batch)
		default:
			try = retryAttempts // not ours to mend: keep the batch pending
			continue
		}
		if err == nil && len(batch) > 0 {
			err = e.st.AppendEvents(wctx, batch...)
		}
	}
	if err == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pending = append(batch, e.pending...)
	if e.failure == nil {
		e.failure = fmt.Errorf("engine: save events %d-%d: %w", batch[0].Seq, batch[len(batch)-1].Seq, err)
	}
}

// renumber gives batch (taken from pending, not yet written) and the events pending after
// it the seqs following the conversation's stored MaxSeq, in order, and moves the run's
// counter past them. Called by sync with writeMu held.
func (e *emitter) renumber(ctx context.Context, batch []events.Event) error {
	top, err := e.st.MaxSeq(ctx, e.conversationID)
	if err != nil {
		return fmt.Errorf("engine: renumber events after another writer's: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range batch {
		top++
		batch[i].Seq = top
	}
	for i := range e.pending {
		top++
		e.pending[i].Seq = top
	}
	e.seq = max(e.seq, top)
	return nil
}

// unwritten returns the events of batch (all of this run's message, in seq order) that
// the store does not hold yet.
func (e *emitter) unwritten(ctx context.Context, batch []events.Event) ([]events.Event, error) {
	stored, err := e.st.ListEvents(ctx, store.EventQuery{ConversationID: e.conversationID, MessageID: e.messageID,
		AfterSeq: batch[0].Seq - 1, BeforeSeq: batch[len(batch)-1].Seq + 1})
	if err != nil {
		return batch, fmt.Errorf("engine: find the events already saved: %w", err)
	}
	have := make(map[int64]bool, len(stored))
	for _, ev := range stored {
		have[ev.Seq] = true
	}
	rest := batch[:0:0]
	for _, ev := range batch {
		if !have[ev.Seq] {
			rest = append(rest, ev)
		}
	}
	return rest, nil
}

// close stops the writer and writes what is left. Safe to call more than once.
func (e *emitter) close() {
	e.once.Do(func() {
		close(e.stop)
		<-e.stopped
		e.sync(context.Background())
	})
}

// err returns the first persistence error, nil when every event was saved.
func (e *emitter) err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failure
}

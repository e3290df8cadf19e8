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

// JournalInterval is how often a run's event journal is written (issue 4, crash safety:
// events are journaled as they happen, batched, at most 200 ms late). Terminal events and
// the end of every tool round are written at once.
const JournalInterval = 100 * time.Millisecond

// EventStore is what the emitter needs from the data layer; *store.DB satisfies it.
type EventStore interface {
	AppendEvents(ctx context.Context, evs ...events.Event) error
	MaxSeq(ctx context.Context, conversationID string) (int64, error)
}

// emitter stamps events with the run's ids, the next per-conversation seq and the time,
// hands each to the sink at once and journals every type but llm_chunk (DESIGN.md,
// "Events") in batches: a background writer flushes every JournalInterval, and sync
// flushes on demand. It is owned by one run: close stops the writer after a last flush.
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
// remembered (see err) and the event still reaches the sink so the user sees it. ctx may
// be cancelled: the terminal events of a cancelled run must be written all the same.
func (e *emitter) emit(ctx context.Context, t events.Type, agentName string, data any) events.Event {
	raw, ok := data.(json.RawMessage)
	if !ok {
		raw = events.MustData(data)
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

// sync writes every pending event in one transaction. A failed batch stays pending and is
// tried again by the next sync; a batch the store reports as already stored (a commit that
// landed although it returned an error) is dropped.
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
	err := e.st.AppendEvents(context.WithoutCancel(ctx), batch...)
	if err == nil || errors.Is(err, store.ErrDuplicate) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pending = append(batch, e.pending...)
	if e.failure == nil {
		e.failure = fmt.Errorf("engine: save events %d-%d: %w", batch[0].Seq, batch[len(batch)-1].Seq, err)
	}
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

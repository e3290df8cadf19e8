package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"artifactflow/backend/events"
)

// EventStore is what the emitter needs from the data layer; *store.DB satisfies it.
type EventStore interface {
	AppendEvents(ctx context.Context, evs ...events.Event) error
	MaxSeq(ctx context.Context, conversationID string) (int64, error)
}

// emitter stamps events with the run's ids, the next per-conversation seq and the time,
// persists every type but llm_chunk (DESIGN.md, "Events"), and hands each event to the
// sink. It is used by one run's goroutine; the mutex only guards the error field read by
// the run at the end.
type emitter struct {
	st             EventStore
	sink           func(events.Event)
	conversationID string
	messageID      string
	now            func() time.Time

	mu      sync.Mutex
	seq     int64
	failure error // first persistence error; the run stops on it
}

func newEmitter(ctx context.Context, st EventStore, sink func(events.Event), conversationID, messageID string, now func() time.Time) (*emitter, error) {
	seq, err := st.MaxSeq(ctx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("engine: read last event seq: %w", err)
	}
	return &emitter{st: st, sink: sink, conversationID: conversationID, messageID: messageID, now: now, seq: seq}, nil
}

// emit records one event. A persistence failure is remembered (see err) and the event
// is still delivered to the sink so the user sees it. ctx may be cancelled: events are
// persisted regardless, because the terminal events of a cancelled run must be written.
func (e *emitter) emit(ctx context.Context, t events.Type, agentName string, data any) events.Event {
	raw, ok := data.(json.RawMessage)
	if !ok {
		raw = events.MustData(data)
	}
	e.mu.Lock()
	if t.Persisted() {
		e.seq++
	}
	ev := events.Event{Type: t, ConversationID: e.conversationID, MessageID: e.messageID, Seq: e.seq,
		AgentName: agentName, CreatedAt: e.now().UTC(), Data: raw}
	e.mu.Unlock()
	if t.Persisted() {
		if err := e.st.AppendEvents(context.WithoutCancel(ctx), ev); err != nil {
			e.mu.Lock()
			if e.failure == nil {
				e.failure = fmt.Errorf("engine: save %s event: %w", t, err)
			}
			e.mu.Unlock()
		}
	}
	if e.sink != nil {
		e.sink(ev)
	}
	return ev
}

// err returns the first persistence error, nil when every event was saved.
func (e *emitter) err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failure
}

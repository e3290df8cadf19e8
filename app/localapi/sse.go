package localapi

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"artifactflow/backend/declared"
)

// events serves GET /session/:id/events: an SSE stream of the conversation's declared
// changes. Each event is
//
//	id: <seq>
//	event: artifact_changed
//	data: {"v":1,"type":"artifact_changed","data":{"sessionId":...,"change":{...}}}
//
// With a Last-Event-ID header (or ?lastEventId=), the logged changes after it are replayed
// first; then live changes follow, without duplicates, in the order the service publishes
// them (within one mutation: created/updated, then removed). A comment line is sent every
// heartbeat. The stream ends when the client disconnects, the server stops, or the client
// falls sseBuffer changes behind (it reconnects with Last-Event-ID and loses nothing).
// A token may hold Options.MaxStreams streams open at once; one more is answered 429
// RATE_LIMITED (no Retry-After: the slot frees when one of its streams ends).
func (s *Server) events(w http.ResponseWriter, r *http.Request, session string) {
	after, resume, e := lastEventID(r)
	if e != nil {
		writeError(w, e)
		return
	}
	release, ok := s.streams.acquire(s.token)
	if !ok {
		s.log.Warn("localapi: refused an event stream: too many open", "max", s.opts.MaxStreams, "session", session)
		writeError(w, errorf(http.StatusTooManyRequests, CodeRateLimited, "",
			"too many open event streams: this token already holds %d, the most allowed at once; close one before opening another", s.opts.MaxStreams))
		return
	}
	defer release()
	ctx := r.Context()
	// Subscribe before reading the log, so nothing falls between the two.
	live := make(chan declared.LoggedChange, sseBuffer)
	overflow := make(chan struct{})
	var once sync.Once
	remove := s.opts.Subscribe(func(conv string, ch declared.LoggedChange) {
		if conv != session {
			return
		}
		select {
		case live <- ch:
		default:
			once.Do(func() { close(overflow) })
		}
	})
	defer remove()

	var replay []declared.LoggedChange
	var err error
	if resume {
		replay, err = s.opts.Declared.ChangesSince(ctx, session, after, 0)
	} else {
		// Nothing to replay; this only checks that the session exists.
		_, err = s.opts.Declared.ChangesSince(ctx, session, math.MaxInt64, 1)
	}
	if err != nil {
		s.fail(w, r, err, "")
		return
	}

	rc := http.NewResponseController(w)
	// The stream outlives the server's ReadTimeout, which bounds reading the request only.
	_ = rc.SetReadDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(text string) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
		if _, err := w.Write([]byte(text)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send(": connected\n\n") {
		return
	}
	last := after
	for _, ch := range replay {
		if !send(s.frame(session, ch)) {
			return
		}
		last = max(last, ch.Seq)
	}
	ping := time.NewTicker(s.opts.Heartbeat)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-overflow:
			s.log.Warn("localapi: an event stream fell behind and was closed; the client resumes with Last-Event-ID", "session", session)
			return
		case <-ping.C:
			if !send(": ping\n\n") {
				return
			}
		case ch := <-live:
			if resume && ch.Seq <= last {
				continue // already replayed
			}
			if !send(s.frame(session, ch)) {
				return
			}
		}
	}
}

// frame formats one change as an SSE event.
func (s *Server) frame(session string, ch declared.LoggedChange) string {
	b, err := json.Marshal(Event{V: Version, Type: EventArtifactChanged, Data: EventData{SessionID: session, Change: ch.Change}})
	if err != nil {
		s.log.Error("localapi: encode a change", "session", session, "seq", ch.Seq, "err", err)
		return ": a change could not be encoded; GET the artifacts to resynchronize\n\n"
	}
	return fmt.Sprintf("id: %d\nevent: %s\ndata: %s\n\n", ch.Seq, EventArtifactChanged, b)
}

// lastEventID returns the sequence number to resume after, from the Last-Event-ID header
// or the lastEventId query parameter, and whether one was given.
func lastEventID(r *http.Request) (int64, bool, *apiError) {
	field, v := "Last-Event-ID", r.Header.Get("Last-Event-ID")
	if v == "" {
		field, v = "lastEventId", r.URL.Query().Get("lastEventId")
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false, invalid(field, "must be a non-negative integer (the id of the last event received)")
	}
	return n, true, nil
}

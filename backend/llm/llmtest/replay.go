package llmtest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// ReplayPiece is how many bytes of a replayed body Replay writes and flushes at a time:
// small enough that lines and events arrive split across reads, as on a real network.
const ReplayPiece = 1000

// Replayed is a loopback server that answers every POST to /v1/chat/completions with one
// recorded response: Status (0 means 200), Content-Type and Body as they were recorded,
// Body written in ReplayPiece-byte pieces, each flushed. It is for replaying responses
// recorded from real servers (backend/llm/testdata/recorded) through a client.
type Replayed struct {
	Status      int
	ContentType string
	Body        []byte

	srv   *httptest.Server
	calls atomic.Int32
}

// Replay starts r's server, closed when t ends, and returns r.
func Replay(t testing.TB, r *Replayed) *Replayed {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
		r.calls.Add(1)
		if r.ContentType != "" {
			w.Header().Set("Content-Type", r.ContentType)
		}
		status := r.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		for b := r.Body; len(b) > 0; {
			n := min(ReplayPiece, len(b))
			if _, err := w.Write(b[:n]); err != nil {
				return
			}
			flush(w)
			b = b[n:]
		}
	})
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the base URL to give a client ("http://127.0.0.1:port/v1").
func (r *Replayed) URL() string { return r.srv.URL + "/v1" }

// Calls is how many requests the server has answered.
func (r *Replayed) Calls() int { return int(r.calls.Load()) }

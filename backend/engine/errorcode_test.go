package engine

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// TestTerminalErrorCode: a failed run's terminal error event carries Config.ErrorCode's
// code for the run's error, and none without a classifier.
func TestTerminalErrorCode(t *testing.T) {
	classify := func(err error) string {
		if errors.Is(err, llm.ErrRejected) && llm.HTTPStatus(err) == http.StatusUnauthorized {
			return "model_auth"
		}
		return "other"
	}
	for _, tc := range []struct {
		name     string
		classify func(error) string
		want     string
	}{{"classifier", classify, "model_auth"}, {"none", nil, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "af.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			srv := llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Status: http.StatusUnauthorized}))
			model, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", RetryDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			e, err := New(Config{Store: db, ErrorCode: tc.classify, Deps: func() (Deps, error) {
				return Deps{Model: model, ModelName: "m", Mode: toolcall.ModeNative, Searcher: fakeSearch{}}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = e.Close(context.Background()) })
			res, err := e.Ask(context.Background(), Request{Content: "hello"})
			if err != nil || res.Status != events.Error {
				t.Fatalf("run = %+v, %v; want an error ending", res, err)
			}
			typ, data := lastStored(t, db, res.ConversationID)
			if typ != events.Error || data.Code != tc.want || data.Error == "" {
				t.Fatalf("terminal event %s %+v, want code %q", typ, data, tc.want)
			}
		})
	}
}

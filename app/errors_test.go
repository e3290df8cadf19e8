package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/localfiles"
	"artifactflow/backend/store"
	"artifactflow/backend/web"
)

// TestToAppErrorSentinels maps each backend sentinel, bare and wrapped twice, to its code.
func TestToAppErrorSentinels(t *testing.T) {
	tests := []struct {
		err       error
		code      string
		retryable bool
	}{
		{store.ErrNotFound, CodeNotFound, false},
		{artifact.ErrNotFound, CodeNotFound, false},
		{engine.ErrConversationNotFound, CodeNotFound, false},
		{ErrMessageNotFound, CodeNotFound, false},
		{ErrDeclaredNotFound, CodeNotFound, false},
		{localfiles.ErrNoFile, CodeNotFound, false},
		{store.ErrVersionConflict, CodeConflict, false},
		{artifact.ErrConflict, CodeConflict, false},
		{store.ErrDuplicate, CodeConflict, false},
		{engine.ErrBusy, CodeBusy, true},
		{config.ErrInvalid, CodeInvalidSettings, false},
		{llm.ErrConfig, CodeInvalidSettings, false},
		{ErrNoModel, CodeModelNotConfigured, false},
		{llm.ErrUnavailable, CodeModelUnreachable, true},
		{llm.ErrTimeout, CodeModelUnreachable, true},
		{llm.ErrStreamBroken, CodeModelUnavailable, true},
		{llm.ErrEmptyAnswer, CodeModelUnavailable, true},
		{engine.ErrEmptyAnswer, CodeModelUnavailable, true},
		{llm.ErrRejected, CodeModelRejected, false},
		{llm.ErrTooLarge, CodeModelTooLarge, false},
		{web.ErrAuth, CodeSearchFailed, false},
		{web.ErrRateLimited, CodeSearchFailed, true},
		{web.ErrNotConfigured, CodeSearchFailed, false},
		{artifact.ErrTooLarge, CodeFileTooLarge, false},
		{ErrNotAFile, CodeNotAFile, false},
		{ErrRevealedInstead, CodeNotAFile, false},
		{ErrFileUnavailable, CodeFileUnavailable, false},
		{ErrOpenFailed, CodeOpenFailed, false},
		{declared.ErrValidation, CodeValidation, false},
		{declared.ErrForbidden, CodeForbidden, false},
		{localfiles.ErrOutside, CodeForbidden, false},
		{ErrInvalidRequest, CodeInvalidRequest, false},
		{engine.ErrEmptyMessage, CodeInvalidRequest, false},
		{store.ErrInvalid, CodeInvalidRequest, false},
		{engine.ErrNotRunning, CodeNotRunning, false},
		{ErrNoFolderDialog, CodeDesktopOnly, false},
		{engine.ErrClosed, CodeUnavailable, false},
		{context.DeadlineExceeded, CodeTimeout, true},
		{context.Canceled, CodeCancelled, false},
		{errors.New("disk on fire"), CodeInternal, false},
	}
	for _, tc := range tests {
		for _, err := range []error{tc.err, fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", tc.err))} {
			t.Run(err.Error(), func(t *testing.T) {
				ae := ToAppError(err)
				if ae.Code != tc.code || ae.Retryable != tc.retryable {
					t.Fatalf("ToAppError(%q) = %s retryable=%v, want %s retryable=%v", err, ae.Code, ae.Retryable, tc.code, tc.retryable)
				}
				if ae.Message == "" || !errors.Is(ae, tc.err) {
					t.Fatalf("ToAppError(%q) = %+v: empty message or lost the sentinel", err, ae)
				}
				if ae.Message != err.Error() && ae.Detail != err.Error() {
					t.Fatalf("ToAppError(%q) dropped the original text: %+v", err, ae)
				}
				if got := ErrorCode(err); got != tc.code {
					t.Fatalf("ErrorCode = %q, want %q", got, tc.code)
				}
			})
		}
	}
	if ToAppError(nil) != nil || ErrorCode(nil) != "" {
		t.Fatal("nil error mapped to something")
	}
	// An AppError already in the chain is kept as is.
	own := &AppError{Code: CodeConflict, Message: "mine"}
	if got := ToAppError(fmt.Errorf("x: %w", own)); got != own {
		t.Fatalf("wrapped AppError became %+v", got)
	}
}

// TestEmptyAnswerMessage: a run that failed on an empty answer says so to the user,
// rather than blaming the endpoint.
func TestEmptyAnswerMessage(t *testing.T) {
	for _, err := range []error{llm.ErrEmptyAnswer, fmt.Errorf("lead_agent: %w", engine.ErrEmptyAnswer)} {
		if ae := ToAppError(err); ae.Code != CodeModelUnavailable || !strings.Contains(ae.Message, "empty answer") {
			t.Errorf("ToAppError(%q) = %+v, want model_unavailable saying the answer was empty", err, ae)
		}
	}
}

// TestToAppErrorFields checks the fields of invalid settings, a declared field error and
// a search failure.
func TestToAppErrorFields(t *testing.T) {
	bad := config.Settings{BaseURL: "ftp://x", SearxngURL: "nope"}.Validate()
	ae := ToAppError(fmt.Errorf("save: %w", bad))
	if ae.Code != CodeInvalidSettings || !strings.Contains(ae.Fields["base_url"], "http(s)") ||
		!strings.Contains(ae.Fields["searxng_url"], "http(s)") || len(ae.Fields) != 2 {
		t.Fatalf("invalid settings = %+v", ae)
	}
	ae = ToAppError(fmt.Errorf("declare: %w", &declared.FieldError{Field: "title", Message: "too long"}))
	if ae.Code != CodeValidation || ae.Fields["title"] != "too long" {
		t.Fatalf("declared field error = %+v", ae)
	}
	for reason, err := range map[string]error{"auth": web.ErrAuth, "rate_limited": web.ErrRateLimited,
		"not_configured": web.ErrNotConfigured, "unknown_provider": web.ErrUnknownProvider} {
		if ae := ToAppError(fmt.Errorf("search: %w", err)); ae.Code != CodeSearchFailed || ae.Fields["reason"] != reason {
			t.Fatalf("%v = %+v, want reason %s", err, ae, reason)
		}
	}
}

// TestToAppErrorModel maps real llm client failures: statuses from an in-process
// endpoint and a refused connection.
func TestToAppErrorModel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	tests := []struct {
		name, base string
		status     int
		code       string
	}{
		{"401", "", http.StatusUnauthorized, CodeModelAuth},
		{"403", "", http.StatusForbidden, CodeModelAuth},
		{"429", "", http.StatusTooManyRequests, CodeModelRateLimited},
		{"503", "", http.StatusServiceUnavailable, CodeModelUnavailable},
		{"404", "", http.StatusNotFound, CodeModelRejected},
		{"refused", dead, 0, CodeModelUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base
			if base == "" {
				base = llmtest.NewServer(t, llmtest.Script(llmtest.Reply{Status: tc.status})).URL()
			}
			c, err := llm.New(llm.Config{BaseURL: base, Model: "m", MaxTries: 1, RetryDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Stream(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if st := llm.HTTPStatus(err); st != tc.status {
				t.Fatalf("HTTPStatus = %d, want %d", st, tc.status)
			}
			if ae := ToAppError(fmt.Errorf("lead_agent: %w", err)); ae.Code != tc.code || ae.Detail == "" {
				t.Fatalf("%v -> %+v, want %s with the detail", err, ae, tc.code)
			}
		})
	}
}

// TestRunErrorCode checks that a run the endpoint refuses ends with an error event whose
// data carries the code (live and stored), and that the conversation list shows it failed.
func TestRunErrorCode(t *testing.T) {
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return llmtest.Script(llmtest.Reply{Status: http.StatusUnauthorized})
	})
	core := newCore(t, w)
	done := make(chan events.Event, 1)
	defer core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.Error || ev.Type == events.Complete || ev.Type == events.Cancelled {
			done <- ev
		}
	}))()
	res, err := (&ChatService{core}).Send(SendRequest{Content: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	var ev events.Event
	select {
	case ev = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end")
	}
	var data events.DataTerminal
	if ev.Type != events.Error || json.Unmarshal(ev.Data, &data) != nil || data.Code != CodeModelAuth {
		t.Fatalf("terminal event %s %s, want error with code %s", ev.Type, ev.Data, CodeModelAuth)
	}
	waitIdle(core, res.ConversationID) // the journal is flushed when the run closes
	stored, err := (&ConversationService{core}).Events(res.ConversationID, res.MessageID)
	if err != nil || len(stored) == 0 || !strings.Contains(string(stored[len(stored)-1].Data), `"code":"model_auth"`) {
		t.Fatalf("stored events end with %v (%v)", stored, err)
	}
	list, err := (&ConversationService{core}).List()
	if err != nil || len(list) != 1 || list[0].LastStatus != "error" {
		t.Fatalf("list = %+v (%v), want one conversation with last_status error", list, err)
	}
}

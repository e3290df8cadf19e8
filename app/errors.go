package app

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/engine"
	"artifactflow/backend/llm"
	"artifactflow/backend/localfiles"
	"artifactflow/backend/mcp"
	"artifactflow/backend/store"
	"artifactflow/backend/useragents"
	"artifactflow/backend/web"
)

// Error codes of AppError. They are stable: the page switches on them
// (frontend/src/api/call.ts) and the run's terminal error event carries one
// (events.DataTerminal.Code).
const (
	CodeNotFound           = "not_found"            // the conversation, message, artifact or file does not exist (any more)
	CodeConflict           = "conflict"             // someone else changed it first (artifact lock version, duplicate id)
	CodeBusy               = "busy"                 // a run is already going in that conversation
	CodeInvalidRequest     = "invalid_request"      // the call's arguments are wrong (empty message, bad id, …)
	CodeValidation         = "validation"           // a declared artifact's fields are wrong (Fields names them)
	CodeInvalidSettings    = "invalid_settings"     // the settings are wrong (Fields names them)
	CodeModelNotConfigured = "model_not_configured" // no base URL or model chosen yet
	CodeModelUnreachable   = "model_unreachable"    // network error, refused connection, DNS, timeout
	CodeModelAuth          = "model_auth"           // the endpoint refused the key (HTTP 401/403)
	CodeModelRateLimited   = "model_rate_limited"   // HTTP 429 after every try
	CodeModelUnavailable   = "model_unavailable"    // 5xx, a broken stream or an empty answer after every try
	CodeModelRejected      = "model_rejected"       // any other refusal (unknown model, bad request)
	CodeModelTooLarge      = "model_answer_too_large"
	CodeSearchFailed       = "search_failed" // web search: Fields["reason"] is auth, rate_limited, not_configured or unknown_provider
	CodeFileTooLarge       = "file_too_large"
	CodeNotAFile           = "not_a_file"
	CodeNotAnImage         = "not_an_image" // a file named .png, .jpg, .gif or .webp whose bytes are no such picture
	CodeFileUnavailable    = "file_unavailable"
	CodeOpenFailed         = "open_failed"
	CodeForbidden          = "forbidden"    // a path outside the workspace, a forbidden declared action
	CodeNotRunning         = "not_running"  // no run in progress to take the message or decision
	CodeDesktopOnly        = "desktop_only" // needs the window's native dialogs
	CodeCancelled          = "cancelled"
	CodeTimeout            = "timeout"
	CodeUnavailable        = "unavailable" // the engine is closed (the app is shutting down)
	CodeInternal           = "internal"    // anything else; Message is the error's text
	// CodeDatabaseCorrupt: artifactflow.db is damaged (store.IsCorrupt): at start
	// (store.ErrCorrupt, whose Message names the file and the way out; the command line
	// and the window's start-error page show it), or from a call whose query reached a
	// damaged page later (SQLite's SQLITE_CORRUPT in Detail).
	CodeDatabaseCorrupt = "database_corrupt"
	// CodeSettingsFileInvalid: config.json cannot be read (config.ErrBadFile): broken JSON,
	// or a hook whose program is not an absolute path or a name on PATH; Message names the
	// file, the line and column or the hook, and the way out. At start, and from reading
	// (SettingsService.Get) or saving settings after the file was broken by hand while the
	// app ran (the file is kept, and the last good settings stay in use).
	CodeSettingsFileInvalid = "settings_file_invalid"
)

// AppError is the one error type bound methods return across the Wails boundary and
// browser mode's HTTP API. Its JSON form is
// {"code","message","detail"?,"fields"?,"retryable"?}; Error() is "<code>: <message>".
// The window gets the JSON text as the rejected promise's message (window.go sets Wails'
// ErrorFormatter to FormatBoundError); browser mode sends the same object (plus "error",
// the Error() text) with status 500.
type AppError struct {
	// Code is one of the Code* constants.
	Code string `json:"code"`
	// Message is a sentence for the user.
	Message string `json:"message"`
	// Detail is the underlying error's text when Message replaces it ("" otherwise).
	Detail string `json:"detail,omitempty"`
	// Fields maps a field name ("base_url", "lead.temperature", "title") to what is wrong
	// with it, for invalid_settings and validation; search_failed uses "reason".
	Fields map[string]string `json:"fields,omitempty"`
	// Retryable reports that trying the same thing again later may succeed.
	Retryable bool `json:"retryable,omitempty"`
	err       error
}

// Error returns "<code>: <message>".
func (e *AppError) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the error AppError was made from (nil for one built by hand), so
// errors.Is still finds the backend's sentinels.
func (e *AppError) Unwrap() error { return e.err }

// JSON returns the JSON text of e (see AppError).
func (e *AppError) JSON() string {
	b, err := json.Marshal(e)
	if err != nil { // a struct of strings and a map of strings always marshals
		return `{"code":"internal","message":"unencodable error"}`
	}
	return string(b)
}

// ToAppError maps err to its AppError: the one place where the backend's sentinel errors
// (store, artifact, config, llm, web, declared, localfiles, engine and app's own) become
// codes. err may be wrapped any number of times; an *AppError in its chain is returned as
// is. nil gives nil; an error no rule knows gives CodeInternal with err's text.
func ToAppError(err error) *AppError {
	if err == nil {
		return nil
	}
	if ae := (*AppError)(nil); errors.As(err, &ae) {
		return ae
	}
	if te := (*troubleError)(nil); errors.As(err, &te) {
		ae := ToAppError(te.err)
		ae.Fields, ae.err = te.t.fields(), err
		return ae
	}
	text := err.Error()
	mk := func(code, msg string) *AppError {
		ae := &AppError{Code: code, Message: msg, err: err}
		if msg != text {
			ae.Detail = text
		}
		return ae
	}
	is := func(targets ...error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
	switch {
	case is(store.ErrCorrupt):
		return mk(CodeDatabaseCorrupt, text)
	case store.IsCorrupt(err):
		return mk(CodeDatabaseCorrupt, "The database file (artifactflow.db in the data directory) is damaged: close ArtifactFlow, move the file aside or restore a backup, and start again.")
	case is(config.ErrBadFile):
		return mk(CodeSettingsFileInvalid, text)
	case is(ErrNoModel):
		return mk(CodeModelNotConfigured, "No model is configured: choose an endpoint and a model in Settings.")
	case is(config.ErrInvalid, llm.ErrConfig):
		ae := mk(CodeInvalidSettings, text)
		if ie := (*config.InvalidError)(nil); errors.As(err, &ie) {
			ae.Fields = ie.Fields()
		}
		return ae
	case is(llm.ErrTooLarge):
		return mk(CodeModelTooLarge, "The model's answer was larger than the limit.")
	case is(llm.ErrRejected):
		switch st := llm.HTTPStatus(err); st {
		case http.StatusUnauthorized, http.StatusForbidden:
			return mk(CodeModelAuth, "The model endpoint refused the API key: check it in Settings.")
		default:
			return mk(CodeModelRejected, "The model endpoint refused the request: check the model name and endpoint in Settings.")
		}
	case is(llm.ErrUnavailable):
		st := llm.HTTPStatus(err)
		ae := mk(CodeModelUnavailable, "The model endpoint failed; trying again may help.")
		switch {
		case st == http.StatusTooManyRequests:
			ae = mk(CodeModelRateLimited, "The model endpoint is rate limiting requests: wait a moment and retry.")
		case is(llm.ErrIdleTimeout):
			ae = mk(CodeModelUnreachable, "The model stopped sending its answer for longer than the idle timeout: retry, or raise the timeout in Settings → Model call limits.")
		case is(llm.ErrEmptyAnswer):
			ae = mk(CodeModelUnavailable, "The model sent an empty answer: retry, or choose another model in Settings.")
		case is(llm.ErrTimeout):
			ae = mk(CodeModelUnreachable, "The model endpoint did not start answering in time: check that it is running, or retry.")
		case st == 0 && !is(llm.ErrStreamBroken, llm.ErrEmptyAnswer):
			ae = mk(CodeModelUnreachable, "The model endpoint could not be reached: check the base URL in Settings, or retry.")
		}
		ae.Retryable = true
		return ae
	case is(web.ErrAuth):
		return search(mk, "auth", "The search provider refused the API key: check it in Settings → Search.", false)
	case is(web.ErrRateLimited):
		return search(mk, "rate_limited", "The search provider is rate limiting requests: wait a moment and retry.", true)
	case is(web.ErrNotConfigured):
		return search(mk, "not_configured", "Web search is not configured: choose a provider in Settings → Search.", false)
	case is(web.ErrUnknownProvider):
		return search(mk, "unknown_provider", "Unknown search provider: choose one in Settings → Search.", false)
	case is(engine.ErrBusy):
		ae := mk(CodeBusy, "A run is already going in this conversation: wait for it or stop it.")
		ae.Retryable = true
		return ae
	case is(store.ErrNotFound, artifact.ErrNotFound, engine.ErrConversationNotFound, ErrMessageNotFound,
		ErrDeclaredNotFound, declared.ErrNoArtifact, declared.ErrNotInWorkspace, localfiles.ErrNoFile,
		localfiles.ErrNotIndexed, engine.ErrNoSuchRequest, ErrNoMCPServer, mcp.ErrUnknownServer,
		useragents.ErrNotFound):
		return mk(CodeNotFound, "Not found: it may have been deleted.")
	case is(store.ErrVersionConflict, artifact.ErrConflict, store.ErrDuplicate, artifact.ErrExists, useragents.ErrExists):
		return mk(CodeConflict, text)
	case is(declared.ErrValidation):
		ae := mk(CodeValidation, text)
		if fe := (*declared.FieldError)(nil); errors.As(err, &fe) {
			ae.Fields = map[string]string{fe.Field: fe.Message}
		}
		return ae
	case is(declared.ErrForbidden, localfiles.ErrOutside, localfiles.ErrNotIndexedFile,
		declared.ErrBadWorkspacePath, declared.ErrOutsideWorkspace):
		return mk(CodeForbidden, text)
	case is(artifact.ErrTooLarge):
		return mk(CodeFileTooLarge, text)
	case is(ErrNotAFile):
		return mk(CodeNotAFile, text)
	case is(artifact.ErrNotImage):
		return mk(CodeNotAnImage, text)
	case is(ErrFileUnavailable):
		return mk(CodeFileUnavailable, text)
	case is(ErrOpenFailed):
		return mk(CodeOpenFailed, text)
	case is(ErrInvalidRequest, store.ErrInvalid, engine.ErrEmptyMessage, engine.ErrBadImages, engine.ErrBadDecision,
		artifact.ErrInvalidID, artifact.ErrNoMatch, artifact.ErrAmbiguous, web.ErrEmptyQuery,
		web.ErrBadURL, localfiles.ErrEmptyQuery, localfiles.ErrNotText, config.ErrMCPPaste, mcp.ErrDisabled,
		useragents.ErrBadFileName, useragents.ErrInvalid):
		return mk(CodeInvalidRequest, text)
	case is(engine.ErrNotRunning):
		return mk(CodeNotRunning, text)
	case is(ErrNoFolderDialog):
		return mk(CodeDesktopOnly, text)
	case is(engine.ErrClosed, mcp.ErrClosed):
		return mk(CodeUnavailable, text)
	case is(context.DeadlineExceeded, web.ErrTimeout, mcp.ErrTimeout):
		ae := mk(CodeTimeout, text)
		ae.Retryable = true
		return ae
	case is(context.Canceled):
		return mk(CodeCancelled, text)
	}
	return mk(CodeInternal, text)
}

// search is the search_failed AppError with Fields["reason"] = reason.
func search(mk func(code, msg string) *AppError, reason, msg string, retryable bool) *AppError {
	ae := mk(CodeSearchFailed, msg)
	ae.Fields = map[string]string{"reason": reason}
	ae.Retryable = retryable
	return ae
}

// ErrorCode returns ToAppError(err).Code, or "" for nil: what the engine puts in a failed
// run's terminal event (events.DataTerminal.Code; engine.Config.ErrorCode).
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	return ToAppError(err).Code
}

// FormatBoundError is the window's Wails ErrorFormatter (options.App.ErrorFormatter):
// the text a bound method's error rejects the page's promise with, which is the JSON of
// ToAppError(err) (frontend toApiError parses it).
func FormatBoundError(err error) any {
	return ToAppError(err).JSON()
}

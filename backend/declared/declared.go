// Package declared keeps a conversation's declared artifacts (seed 002, qwen-code's
// session artifacts): links and files the user can open again (a dataset's page, an
// official tool, a report file in the workspace), registered by the lead agent's
// record_artifact tool, by hooks, or by local clients through the local API. They sit in
// the panel beside the documents (seed 000) but are a different thing: a declared artifact
// is a reference to a resource, never its content; the app never fetches a link to
// preview it.
//
// Every entry point turns what it received into Inputs and calls Service.Upsert, so one
// place validates, normalizes, merges and evicts (seed 002: "no second pipeline"):
//
//   - Identity: an artifact is its location, per conversation: the workspace path
//     (cleaned, relative), the managed id, or the URL normalized for identity (scheme and
//     host lower-cased, default port dropped, userinfo and fragment dropped); the public
//     id is a hash of "conversation:kind-of-locator:value". Tool, hook and client
//     registering the same location make one artifact.
//   - Upsert: the first writer's title, description, source, tool call and hook name are
//     kept; later inputs refresh updatedAt and may only add metadata keys that are
//     missing (tool and client inputs; hooks' are ignored), re-checked against the 4 KB
//     cap; an input identical to what is stored (key order ignored) changes nothing and
//     produces no change. A client input marks the artifact client-retained. Only a
//     trusted publisher may set storage "published" (which alone may carry a managed id
//     beside its url); no entry point of this app is one yet.
//   - Quotas (seed 002): at most 200 per conversation, soft reservations tool 100, client
//     50, hook 50 (a source may borrow what the others leave unused). Eviction, over the
//     artifacts that existed before the batch: missing ones first (status re-checked just
//     before), then the source most over its reservation, then the oldest (createdAt,
//     then insert order), client-retained ones last. New inputs beyond what fits are
//     dropped with a warning. A batch yields one net change per artifact: created or
//     updated ones first, in input order, then removed ones (reason "eviction").
//   - Workspace artifacts are stat'ed: status available or missing (deleted, or swapped
//     for a symlink leaving the workspace) and sizeBytes refreshed on List at most every
//     RefreshInterval.
//
// Changes are stored in a per-conversation change log whose sequence numbers let a
// client resume an event stream (Last-Event-ID) and are handed to the Publish callback.
package declared

import (
	"context"
	"errors"
	"fmt"
	"time"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// Artifact is a declared artifact as clients see it (seed 002, DaemonSessionArtifact).
type Artifact = events.DeclaredArtifact

// Known values of the enumerations (seed 002). Clients must tolerate others.
const (
	KindHTML, KindImage, KindVideo, KindAudio, KindPDF = "html", "image", "video", "audio", "pdf"
	KindNotebook, KindFile, KindLink, KindOther        = "notebook", "file", "link", "other"

	StorageWorkspace, StorageManaged   = "workspace", "managed"
	StorageExternalURL, StoragePublish = "external_url", "published"

	StatusAvailable, StatusMissing = "available", "missing"

	SourceTool, SourceHook, SourceClient = "tool", "hook", "client"

	ActionCreated, ActionUpdated, ActionRemoved = "created", "updated", "removed"
	ReasonEviction, ReasonExplicit              = "eviction", "explicit"
)

// Limits (seed 002).
const (
	MaxPerConversation = 200             // artifacts per conversation
	ReserveTool        = 100             // soft reservation of source tool
	ReserveClient      = 50              // soft reservation of source client
	ReserveHook        = 50              // soft reservation of source hook
	MaxTitleRunes      = 200             // title, trimmed, one line
	MaxDescription     = 1000            // description, trimmed, in runes
	MaxMetadataBytes   = 4 << 10         // metadata as compact JSON
	RefreshInterval    = time.Second * 5 // workspace stat refresh on List
)

// Input is one artifact as an entry point received it (seed 002, ToolArtifact plus the
// fields the entry point sets). The first block comes from the payload; Source and the
// rest are set by the entry point from its own context, never from the payload.
type Input struct {
	Kind          string         `json:"kind,omitempty"`
	Storage       string         `json:"storage,omitempty"`
	Title         string         `json:"title"`
	Description   string         `json:"description,omitempty"`
	WorkspacePath string         `json:"workspacePath,omitempty"`
	ManagedID     string         `json:"managedId,omitempty"`
	URL           string         `json:"url,omitempty"`
	MimeType      string         `json:"mimeType,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`

	Source           string `json:"-"` // SourceTool, SourceHook or SourceClient
	ToolCallID       string `json:"-"`
	ToolName         string `json:"-"`
	HookName         string `json:"-"`
	ClientID         string `json:"-"` // stored, never exposed
	TrustedPublisher bool   `json:"-"` // may set storage "published"
}

// Change is one net change of a mutation (seed 002, DaemonSessionArtifactChange). Artifact
// is the whole artifact (for removed, its last state); Reason is set for removed only.
type Change struct {
	Action     string    `json:"action"`
	ArtifactID string    `json:"artifactId"`
	Artifact   *Artifact `json:"artifact,omitempty"`
	Reason     string    `json:"reason,omitempty"`
}

// LoggedChange is a Change with its place in the conversation's change log.
type LoggedChange struct {
	Seq int64 `json:"seq"`
	Change
}

// Sentinel errors callers branch on.
var (
	// ErrValidation: an input is invalid; the error is a *FieldError naming the field.
	ErrValidation = errors.New("validation failed")
	// ErrForbidden: a client tried to remove an artifact another client retains.
	ErrForbidden = errors.New("forbidden")
)

// FieldError is a validation failure of one field of one input. It wraps ErrValidation.
// Index is the input's position in its batch.
type FieldError struct {
	Index   int
	Field   string // seed 002's JSON name: "url", "workspacePath", "title", "metadata.key" ...
	Message string // e.g. "must use http or https"
}

// Error returns "<field>: <message>".
func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Message) }

// Unwrap returns ErrValidation.
func (e *FieldError) Unwrap() error { return ErrValidation }

// Options configure a Service.
type Options struct {
	// Workspace returns the absolute path of a conversation's workspace folder (it may not
	// exist yet); store.ErrNotFound when the conversation does not exist.
	Workspace func(ctx context.Context, conversationID string) (string, error)
	// Publish receives every logged change, in log order, after its transaction
	// committed; nil publishes nothing. It must not block.
	Publish func(conversationID string, ch LoggedChange)
	// Now returns the time; nil means time.Now. Tests inject a clock.
	Now func() time.Time
}

// Service is the declared-artifact store of all conversations, backed by the database. It
// is safe for concurrent use; mutations of one conversation are serialized.
type Service struct {
	db   *store.DB
	opts Options
}

// New returns a Service over db.
func New(db *store.DB, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{db: db, opts: opts}
}

// Upsert validates inputs and merges them into the conversation's artifacts by the rules
// in the package doc, then evicts over the quota, in one transaction, logging and
// publishing the net changes (created/updated first, then removed). With strict (the
// local API, record_artifact), the first invalid input fails the whole call with its
// *FieldError and nothing is written; without (hooks), invalid inputs are logged with
// slog and skipped. Errors: store.ErrNotFound when the conversation does not exist; the
// context's error; store errors, wrapped.
func (s *Service) Upsert(ctx context.Context, conversationID string, inputs []Input, strict bool) ([]Change, error) {
	return nil, errors.New("declared: Upsert not implemented")
}

// List returns the conversation's artifacts, oldest first (createdAt, then insert order),
// after refreshing the status and size of workspace artifacts not stat'ed within
// RefreshInterval. Errors: store.ErrNotFound for an unknown conversation.
func (s *Service) List(ctx context.Context, conversationID string) ([]Artifact, error) {
	return nil, errors.New("declared: List not implemented")
}

// Remove removes one artifact by id (reason "explicit"), logging and publishing the
// change; the file or URL it points to is untouched. Removing an id that does not exist
// returns no change and no error (idempotent). clientID, when not "", names the client
// asking: a client-retained artifact may be removed only by a client that retains it
// (ErrForbidden otherwise); the user (clientID "") may remove anything. Errors:
// store.ErrNotFound for an unknown conversation.
func (s *Service) Remove(ctx context.Context, conversationID, artifactID, clientID string) ([]Change, error) {
	return nil, errors.New("declared: Remove not implemented")
}

// ChangesSince returns the logged changes of the conversation with Seq > after, oldest
// first, at most limit (0 = all kept). The log keeps at least the last 1,000 changes of
// each conversation.
func (s *Service) ChangesSince(ctx context.Context, conversationID string, after int64, limit int) ([]LoggedChange, error) {
	return nil, errors.New("declared: ChangesSince not implemented")
}

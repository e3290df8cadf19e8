// Package declared keeps a conversation's declared artifacts (qwen-code's session
// artifacts): links and files the user can open again (a dataset's page, an official
// tool, a report file in the workspace), registered by the lead agent's record_artifact
// tool, by hooks, or by local clients through the local API. They sit in the panel
// beside the documents but are a different thing: a declared artifact is a reference to
// a resource, never its content; the app never fetches a link to preview it.
//
// Every entry point turns what it received into Inputs and calls Service.Upsert, so one
// place validates, normalizes, merges and evicts (no second pipeline):
//
//   - Validation, each failure a *FieldError naming the field:
//     title required, trimmed 1–200 characters, one line; description trimmed at most
//     1,000 characters (line breaks allowed); exactly one of workspacePath, managedId and
//     url (a trusted publish may carry a managedId beside its url); url parsed with
//     net/url, http or https only; workspacePath relative, no ".." escape, and on disk a
//     realpath containment check that follows every symbolic link, dangling ones
//     included (a path that does not exist yet is accepted as missing); managedId
//     without "/", "\", ".." or control characters; no unsafe display text in title,
//     description, mimeType or metadata (markup, entity-encoded markup, javascript: and
//     data: URLs, control characters, U+2028/2029, bidirectional controls; see
//     checkText); metadata flat (strings, finite numbers, booleans, null), at most 4 KB
//     as compact JSON.
//   - Kind and storage defaults: storage workspace for a workspacePath, managed for a
//     managedId, external_url for a url; kind html for a publish, link for a url, by
//     extension for a workspacePath (html, image, video, audio, pdf, notebook, else
//     file), other otherwise.
//   - Identity: an artifact is its location, per conversation: the workspace path
//     (backslashes as separators, cleaned, "./" dropped, case kept), the managed id, or
//     the URL normalized for identity (scheme and host lower-cased, default port,
//     userinfo and fragment dropped, an empty path as "/"); the public id is the first
//     12 hex digits of the SHA-256 of "conversation:workspace|managed|url:value". Tool,
//     hook and client registering the same location make one artifact. The url shown
//     keeps its fragment but never userinfo.
//   - Upsert: the first writer's title, description, kind, mimeType, source, tool call,
//     hook name and client id are kept; later tool and client inputs may only add
//     metadata keys that are missing (hooks' are ignored), re-checked against the 4 KB
//     cap (an enrichment that would pass it is dropped with a warning); a workspace
//     file is stat'ed again. A client input marks the artifact client-retained and adds
//     the client to its retainers. When the result equals
//     what is stored (metadata key order ignored) nothing is written, updatedAt does not
//     move and no change is logged. Only a trusted publisher may set storage
//     "published"; its input upgrades an external_url artifact of the same url (storage,
//     kind, mimeType, title, description, managedId). No entry point of this app is a
//     trusted publisher yet.
//   - Quotas: at most 200 per conversation, soft reservations tool 100, client 50, hook 50
//     by the first writer's source (a source may borrow what the others leave unused).
//     When a batch does not fit, only a source over its reservation pays, with its own
//     artifacts: stored ones first (missing ones, status re-checked just before, then the
//     oldest by createdAt and insert order, client-retained ones last), then its newest
//     inputs of the batch, which are dropped with a warning and reported (never created
//     then removed). An artifact of a source within its reservation is never evicted to
//     make room for another source. A batch yields one net change per artifact: created
//     or updated ones first, in input order, then removed ones (reason "eviction",
//     carrying the artifact's last state).
//   - Removal: the user removes anything; a client removes an artifact no client retains,
//     and for a client-retained one only lifts its own retention: the artifact goes when
//     no other client retains it (see RemoveReport).
//   - Workspace artifacts are stat'ed on upsert and, at most every RefreshInterval, on
//     List: status available or missing (deleted, or swapped for a symbolic link leaving
//     the workspace; MissingReason says which) and sizeBytes. The workspace of a
//     conversation comes from Options.Workspace (DefaultWorkspace: the folder the user
//     chose, else <data-dir>/workspaces/<conversation-id>). Host paths never appear in an
//     artifact (but in the file: URL of a trusted publish).
//
// Changes are stored in a per-conversation change log (the last 1,000 kept) whose
// sequence numbers let a client resume an event stream (Last-Event-ID) and are handed to
// the Publish callback after commit, in log order. createdAt and updatedAt are UTC RFC
// 3339 with milliseconds ("2026-06-26T10:00:00.000Z").
package declared

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// Artifact is a declared artifact as clients see it.
type Artifact = events.DeclaredArtifact

// Known values of the enumerations. Clients must tolerate others.
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

// Limits.
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

// Input is one artifact as an entry point received it (the record_artifact input plus the
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

	// Source is SourceTool, SourceHook or SourceClient; any other value fails the input
	// (field "source"). It picks the quota bucket of a new artifact and the merge rules.
	Source     string `json:"-"`
	ToolCallID string `json:"-"` // the tool call that registered it, if any
	ToolName   string `json:"-"` // e.g. "record_artifact"
	HookName   string `json:"-"` // the hook that registered it, if any
	// ClientID names the local client (source client): stored, never exposed; the
	// clients that registered an artifact may remove it while it is client-retained. ""
	// is allowed (then only the user may remove it).
	ClientID string `json:"-"`
	// TrustedPublisher may set storage "published" (url plus an optional managedId, or a
	// file: URL inside the workspace). Set only by the app's own publisher, never from a
	// payload.
	TrustedPublisher bool `json:"-"`
}

// Change is one net change of a mutation. Artifact is the whole artifact (for removed, its
// last state); Reason is set for removed only.
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
	// ErrForbidden: a client tried to remove a client-retained artifact it did not
	// register itself (the user may remove anything).
	ErrForbidden = errors.New("forbidden")
)

// FieldError is a validation failure of one field of one input. It wraps ErrValidation.
// Index is the input's position in its batch. Field is the JSON name of the field:
// "title", "description", "kind", "storage", "workspacePath", "managedId", "url" (also
// when no locator is given), "mimeType", "metadata" (a bad key, or the whole object over
// 4 KB), "metadata.<key>" (a bad value), or "source" (an entry point that set no known
// Source). Message is a short English reason that never echoes the refused text, e.g.
// "must use http or https".
type FieldError struct {
	Index   int
	Field   string
	Message string
}

// Error returns "<field>: <message>".
func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Message) }

// Unwrap returns ErrValidation.
func (e *FieldError) Unwrap() error { return ErrValidation }

// Options configure a Service.
type Options struct {
	// Workspace returns the absolute path of a conversation's workspace folder (it may not
	// exist yet); store.ErrNotFound when the conversation does not exist. DefaultWorkspace
	// builds the app's. Nil: workspacePath inputs fail (field "workspacePath") and List
	// leaves statuses as stored.
	Workspace func(ctx context.Context, conversationID string) (string, error)
	// Publish receives every logged change, in log order, after its transaction
	// committed; nil publishes nothing. It must not block.
	Publish func(conversationID string, ch LoggedChange)
	// Now returns the time; nil means time.Now. Tests inject a clock.
	Now func() time.Time
}

// Service is the declared-artifact store of all conversations, backed by the database. It
// is safe for concurrent use; mutations of one conversation are serialized (a
// per-conversation lock around each write transaction, which itself is BEGIN IMMEDIATE),
// so concurrent upserts neither lose nor duplicate artifacts and changes are logged and
// published in one order.
type Service struct {
	db    *store.DB
	opts  Options
	locks lockMap
}

// New returns a Service over db.
func New(db *store.DB, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{db: db, opts: opts}
}

// now is the service clock in UTC without a monotonic reading.
func (s *Service) now() time.Time { return s.opts.Now().UTC().Round(0) }

// txAttempts is how often a write transaction is tried when SQLite reports busy.
const txAttempts = 3

// Upsert is UpsertReport without the list of dropped inputs, for callers that have no one
// to tell (a single input is never dropped by the quota: its source, if over its
// reservation, holds older artifacts that are evicted first).
func (s *Service) Upsert(ctx context.Context, conversationID string, inputs []Input, strict bool) ([]Change, error) {
	rep, err := s.UpsertReport(ctx, conversationID, inputs, strict)
	return rep.Changes, err
}

// Report is what a mutation did. Changes are its net changes as logged and published
// (created and updated first, in input order, then removed). Dropped lists the inputs an
// upsert did not store, by input position (nil when none). Released is set by
// RemoveReport when the asking client's retention was lifted but the artifact stays,
// because other clients still retain it (Changes is then empty).
type Report struct {
	Changes  []Change
	Dropped  []Dropped
	Released bool
}

// Reasons of a Dropped input.
const (
	// DropQuota: the conversation was full and the input's source over its reservation.
	DropQuota = "quota"
	// DropInvalid: the input failed validation (non-strict upserts only).
	DropInvalid = "invalid"
)

// Dropped is one input an upsert did not store. Index is its position in the batch;
// Reason is DropQuota or DropInvalid; Field names the invalid field (DropInvalid only);
// Message is a short English explanation that never echoes the input's text.
type Dropped struct {
	Index   int    `json:"index"`
	Reason  string `json:"reason"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// UpsertReport validates inputs and merges them into the conversation's artifacts by the
// rules in the package doc, then applies the quota, in one transaction, logging and
// publishing the net changes (created/updated first, in input order, then removed). With
// strict (the local API, record_artifact), the first invalid input fails the whole call
// with its *FieldError (which wraps ErrValidation) and nothing is written; without
// (hooks, tool results), invalid inputs are logged with slog, skipped and reported as
// dropped (DropInvalid).
//
// Quota: at most MaxPerConversation artifacts, soft reservations ReserveTool,
// ReserveClient and ReserveHook by each artifact's first writer's source. When a batch
// does not fit, only a source over its reservation pays, with its own artifacts: its
// stored ones are evicted (missing ones first, then the oldest; client-retained ones
// last) and, when it has none left, its newest inputs of the batch are dropped with a
// warning and reported in Report.Dropped (DropQuota; never created then removed). An
// artifact of a source within its reservation is never evicted for another source's
// batch. See chooseVictims.
//
// Merging: one identity per location (tool, hook and client registering the same location
// make one artifact); the first writer keeps the display fields; later tool and client
// inputs may only add missing metadata keys (hooks' are ignored; an enrichment that would
// pass 4 KB is dropped with a warning); a client input marks the artifact client-retained
// and adds the client to its retainers; an input changing nothing produces no change, no
// updatedAt bump and no log entry; one net change per artifact per batch.
//
// Errors: store.ErrNotFound when the conversation does not exist; the context's error;
// store errors, wrapped.
func (s *Service) UpsertReport(ctx context.Context, conversationID string, inputs []Input, strict bool) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	root := s.rootFunc(ctx, conversationID)
	cands := make([]candidate, 0, len(inputs))
	var invalid []Dropped
	for i, in := range inputs {
		c, err := validateInput(in, i, root)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				return Report{}, fmt.Errorf("declared: upsert into %q: %w", conversationID, err)
			}
			if strict {
				return Report{}, fe
			}
			slog.Warn("declared: invalid artifact skipped", "conversation", conversationID, "source", in.Source,
				"hook", in.HookName, "tool", in.ToolName, "index", i, "field", fe.Field, "error", fe.Message)
			invalid = append(invalid, Dropped{Index: i, Reason: DropInvalid, Field: fe.Field, Message: fe.Message})
			continue
		}
		cands = append(cands, c)
	}
	unlock, err := s.locks.lock(ctx, conversationID)
	if err != nil {
		return Report{}, err
	}
	defer unlock()
	var (
		logged []LoggedChange
		over   []Dropped
	)
	err = store.WithRetry(ctx, txAttempts, func(ctx context.Context) error {
		logged, over = nil, nil
		return s.db.DeclaredTx(ctx, conversationID, func(tx *store.DeclaredTx) error {
			var err error
			logged, over, err = s.upsertTx(tx, conversationID, cands, root)
			return err
		})
	})
	if err != nil {
		return Report{}, fmt.Errorf("declared: upsert into %q: %w", conversationID, err)
	}
	s.publish(conversationID, logged)
	if len(over) > 0 {
		perSource := map[string]int{}
		for _, d := range over {
			perSource[inputs[d.Index].Source]++
		}
		for _, src := range slices.Sorted(maps.Keys(perSource)) {
			slog.Warn("declared: inputs dropped, the conversation is full and their source is over its reservation",
				"conversation", conversationID, "source", src, "dropped", perSource[src],
				"reservation", reservation(src), "limit", MaxPerConversation)
		}
	}
	dropped := append(invalid, over...)
	slices.SortFunc(dropped, func(a, b Dropped) int { return a.Index - b.Index })
	return Report{Changes: plain(logged), Dropped: dropped}, nil
}

// entry is one artifact touched by a batch: its new state, the positions of the inputs
// that made it, and, for one that existed before the batch, its index among the stored
// rows (-1 for a new one).
type entry struct {
	row     store.DeclaredRow
	meta    map[string]any
	inputs  []int
	stored  int
	dropped bool // a new artifact that did not fit
}

// countNew counts the entries new in the batch.
func countNew(entries []*entry) int {
	n := 0
	for _, e := range entries {
		if e.stored < 0 {
			n++
		}
	}
	return n
}

// droppedInputs reports the inputs of the dropped entries, one Dropped per input.
func droppedInputs(entries []*entry) []Dropped {
	var out []Dropped
	for _, e := range entries {
		if !e.dropped {
			continue
		}
		src := e.row.RetentionSource
		msg := fmt.Sprintf("not stored: the conversation holds at most %d declared artifacts and %s artifacts are over their reservation of %d",
			MaxPerConversation, src, reservation(src))
		for _, i := range e.inputs {
			out = append(out, Dropped{Index: i, Reason: DropQuota, Message: msg})
		}
	}
	return out
}

// upsertTx is Upsert's transaction: merge, quota, write, log. It returns the logged
// changes and the inputs dropped by the quota.
func (s *Service) upsertTx(tx *store.DeclaredTx, conv string, cands []candidate, root rootFunc) ([]LoggedChange, []Dropped, error) {
	rows, err := tx.List()
	if err != nil {
		return nil, nil, err
	}
	now := s.now()
	byID := make(map[string]int, len(rows))
	for i, r := range rows {
		byID[r.ID] = i
	}
	var entries []*entry // in input order of each identity's first input
	touched := map[string]*entry{}
	for i := range cands {
		c := &cands[i]
		id := artifactID(conv, c.identity)
		e := touched[id]
		if e == nil {
			if at, ok := byID[id]; ok {
				meta, err := decodeMeta(rows[at].Metadata)
				if err != nil {
					return nil, nil, fmt.Errorf("stored metadata of %q: %w", id, err)
				}
				e = &entry{row: rows[at], meta: meta, stored: at}
				e.row.RetainedBy = slices.Clone(rows[at].RetainedBy)
			} else {
				e = newEntry(conv, id, c, now)
			}
			touched[id] = e
			entries = append(entries, e)
			e.inputs = append(e.inputs, c.index)
			if e.stored < 0 {
				continue // the first input made it
			}
		} else {
			e.inputs = append(e.inputs, c.index)
		}
		merge(e, c, conv, now)
	}

	// Quota: when the batch would take the conversation past MaxPerConversation, the
	// stored artifacts and the new ones compete for the places (chooseVictims): a stored
	// victim is evicted, a new one is dropped with its inputs (never created then removed).
	var victims []int // stored rows evicted, in the order chosen
	if k := len(rows) + countNew(entries) - MaxPerConversation; k > 0 {
		if err := s.refreshForEviction(tx, rows, root, now); err != nil {
			return nil, nil, err
		}
		// Victims are chosen by each artifact's state after the batch: an input of this
		// batch may have retained it or found its file again.
		slots := make([]slot, 0, len(rows)+len(entries))
		for _, r := range rows {
			slots = append(slots, slot{source: r.RetentionSource, retained: r.ClientRetained, missing: r.Status == StatusMissing})
		}
		var fresh []*entry
		for _, e := range entries {
			if e.stored >= 0 {
				slots[e.stored].retained, slots[e.stored].missing = e.row.ClientRetained, e.row.Status == StatusMissing
			} else {
				slots = append(slots, slot{source: e.row.RetentionSource, fresh: true})
				fresh = append(fresh, e)
			}
		}
		for _, v := range chooseVictims(slots, k) {
			if v < len(rows) {
				victims = append(victims, v)
			} else {
				fresh[v-len(rows)].dropped = true
			}
		}
	}
	evicted := make(map[int]bool, len(victims))
	for _, v := range victims {
		evicted[v] = true
	}
	dropped := droppedInputs(entries)

	var changes []Change
	for _, e := range entries {
		if e.dropped || (e.stored >= 0 && evicted[e.stored]) {
			continue
		}
		meta, err := metaJSON(e.meta)
		if err != nil {
			return nil, nil, err
		}
		e.row.Metadata = meta
		if e.stored < 0 {
			row, err := tx.Insert(e.row)
			if err != nil {
				return nil, nil, err
			}
			a := toArtifact(row)
			changes = append(changes, Change{Action: ActionCreated, ArtifactID: row.ID, Artifact: &a})
			continue
		}
		same, err := sameRow(e.row, rows[e.stored])
		if err != nil {
			return nil, nil, err
		}
		if same {
			continue
		}
		e.row.UpdatedAt = now
		if err := tx.Update(e.row); err != nil {
			return nil, nil, err
		}
		a := toArtifact(e.row)
		changes = append(changes, Change{Action: ActionUpdated, ArtifactID: e.row.ID, Artifact: &a})
	}
	for _, v := range victims {
		if err := tx.Delete(rows[v].ID); err != nil {
			return nil, nil, err
		}
		a := toArtifact(rows[v])
		changes = append(changes, Change{Action: ActionRemoved, ArtifactID: a.ID, Artifact: &a, Reason: ReasonEviction})
	}
	logged, err := appendLog(tx, now, changes)
	return logged, dropped, err
}

// newEntry is a new artifact from its first input (createdAt set once; the first
// writer's source is its retention source; a client input retains it).
func newEntry(conv, id string, c *candidate, now time.Time) *entry {
	r := store.DeclaredRow{
		ID: id, IdentityKey: conv + ":" + c.identity, Kind: c.kind, Storage: c.storage,
		Title: c.title, Description: c.description, Status: StatusAvailable, Source: c.source,
		WorkspacePath: c.workspacePath, ManagedID: c.managedID, URL: c.url, MimeType: c.mimeType,
		ToolCallID: c.toolCallID, ToolName: c.toolName, HookName: c.hookName, ClientID: c.clientID,
		ClientRetained: c.source == SourceClient, RetentionSource: c.source, CreatedAt: now, UpdatedAt: now,
	}
	if c.source == SourceClient {
		r.RetainedBy = []string{c.clientID} // "" too: a hold only the user may lift
	}
	if c.storage == StorageWorkspace {
		applyStat(&r, c.stat, now)
	}
	return &entry{row: r, meta: c.metadata, stored: -1}
}

// merge applies a later input of the same identity to e: the first writer's display and
// audit fields stay; a client input retains the artifact; a trusted publish upgrades an
// external_url artifact (storage, kind, mimeType, title, description, managedId); a
// workspace file's fresh stat is taken; tool and client inputs add missing metadata keys
// unless the result would pass MaxMetadataBytes (then the enrichment is dropped with a
// warning and the rest still applies); hooks' metadata is ignored.
func merge(e *entry, c *candidate, conv string, now time.Time) {
	r := &e.row
	if c.source == SourceClient {
		r.ClientRetained = true
		if !slices.Contains(r.RetainedBy, c.clientID) && len(r.RetainedBy) < maxRetainers {
			r.RetainedBy = append(r.RetainedBy, c.clientID)
		}
	}
	if c.storage == StoragePublish && c.trusted {
		if r.Storage == StorageExternalURL {
			r.Storage, r.Kind, r.Title, r.URL = StoragePublish, c.kind, c.title, c.url
			if c.description != "" {
				r.Description = c.description
			}
			if c.mimeType != "" {
				r.MimeType = c.mimeType
			}
		}
		if r.Storage == StoragePublish && r.ManagedID == "" {
			r.ManagedID = c.managedID
		}
	}
	if r.Storage == StorageWorkspace && c.storage == StorageWorkspace {
		applyStat(r, c.stat, now)
	}
	if (c.source != SourceTool && c.source != SourceClient) || len(c.metadata) == 0 {
		return
	}
	merged := make(map[string]any, len(e.meta)+len(c.metadata))
	maps.Copy(merged, e.meta)
	added := false
	for k, v := range c.metadata {
		if _, ok := merged[k]; !ok {
			merged[k] = v
			added = true
		}
	}
	if !added {
		return
	}
	if b, err := canonicalJSON(merged); err != nil || len(b) > MaxMetadataBytes {
		slog.Warn("declared: metadata enrichment dropped, it would pass the size limit", "conversation", conv,
			"artifact", r.ID, "source", c.source, "limit", MaxMetadataBytes)
		return
	}
	e.meta = merged
}

// applyStat records a workspace stat on r. A stat that could not be made counts as
// missing (never available without the containment check).
func applyStat(r *store.DeclaredRow, st wsStat, now time.Time) {
	r.Status, r.MissingReason, r.SizeBytes, r.LastStatAt = st.status, st.reason, st.size, now
	if r.Status == StatusAvailable {
		r.MissingReason = ""
	} else {
		r.SizeBytes = nil
	}
}

// refreshForEviction re-checks every stored workspace artifact just before victims are
// chosen (a missing artifact is evicted first only if it is still missing); a changed
// status is persisted (not logged). A check that fails keeps the cached status.
func (s *Service) refreshForEviction(tx *store.DeclaredTx, rows []store.DeclaredRow, root rootFunc, now time.Time) error {
	if !slices.ContainsFunc(rows, func(r store.DeclaredRow) bool { return r.Storage == StorageWorkspace && r.WorkspacePath != "" }) {
		return nil
	}
	wr, err := root()
	if err != nil {
		slog.Warn("declared: workspace unavailable, statuses not re-checked before eviction", "error", err)
		return nil
	}
	for i := range rows {
		if rows[i].Storage == StorageWorkspace && rows[i].WorkspacePath != "" {
			if err := restat(tx, &rows[i], wr, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// restat stats workspace artifact r (containment and realpath check included), updates r
// and persists the stat. A check that fails keeps the cached status (only the stat time
// moves).
func restat(tx *store.DeclaredTx, r *store.DeclaredRow, wr workspaceRoot, now time.Time) error {
	if st := wr.check(r.WorkspacePath); st.err != nil {
		r.LastStatAt = now
	} else {
		applyStat(r, st, now)
	}
	return tx.SetStat(r.ID, r.Status, r.MissingReason, r.SizeBytes, now)
}

// appendLog appends changes to the log and pairs them with their sequence numbers.
func appendLog(tx *store.DeclaredTx, now time.Time, changes []Change) ([]LoggedChange, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	raws := make([]json.RawMessage, len(changes))
	for i, ch := range changes {
		b, err := json.Marshal(ch)
		if err != nil {
			return nil, fmt.Errorf("encode change: %w", err)
		}
		raws[i] = b
	}
	seqs, err := tx.AppendChanges(now, raws...)
	if err != nil {
		return nil, err
	}
	out := make([]LoggedChange, len(changes))
	for i, ch := range changes {
		out[i] = LoggedChange{Seq: seqs[i], Change: ch}
	}
	return out, nil
}

// publish hands logged changes to Options.Publish in order (called after commit, under
// the conversation's lock so publications keep log order).
func (s *Service) publish(conv string, logged []LoggedChange) {
	if s.opts.Publish == nil {
		return
	}
	for _, lc := range logged {
		s.opts.Publish(conv, lc)
	}
}

// plain drops the sequence numbers.
func plain(logged []LoggedChange) []Change {
	if len(logged) == 0 {
		return nil
	}
	out := make([]Change, len(logged))
	for i, lc := range logged {
		out[i] = lc.Change
	}
	return out
}

// List returns the conversation's artifacts, oldest first (createdAt, then insert order),
// after refreshing the status and size of workspace artifacts not stat'ed within
// RefreshInterval: the same containment and realpath check as on upsert, so a file
// deleted or swapped for a symbolic link leaving the workspace becomes missing (with
// MissingReason, without sizeBytes) and one that comes back becomes available. A status
// change found here is persisted but not published. A workspace that cannot be resolved
// leaves the cached statuses. Errors: store.ErrNotFound for an unknown conversation;
// store errors, wrapped.
func (s *Service) List(ctx context.Context, conversationID string) ([]Artifact, error) {
	rows, err := s.db.ListDeclared(ctx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("declared: list %q: %w", conversationID, err)
	}
	if now := s.now(); slices.ContainsFunc(rows, func(r store.DeclaredRow) bool { return stale(r, now) }) {
		if rows, err = s.refresh(ctx, conversationID, stale); err != nil {
			return nil, fmt.Errorf("declared: list %q: %w", conversationID, err)
		}
	}
	out := make([]Artifact, len(rows))
	for i, r := range rows {
		out[i] = toArtifact(r)
	}
	return out, nil
}

// stale reports a workspace artifact not stat'ed within RefreshInterval.
func stale(r store.DeclaredRow, now time.Time) bool {
	return r.Storage == StorageWorkspace && r.WorkspacePath != "" &&
		(r.LastStatAt.IsZero() || now.Sub(r.LastStatAt) >= RefreshInterval)
}

// refresh re-stats the workspace artifacts of conv for which due holds, under its lock,
// and returns the rows as stored afterwards.
func (s *Service) refresh(ctx context.Context, conv string, due func(store.DeclaredRow, time.Time) bool) ([]store.DeclaredRow, error) {
	unlock, err := s.locks.lock(ctx, conv)
	if err != nil {
		return nil, err
	}
	defer unlock()
	wr, err := s.resolveWorkspace(ctx, conv)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		slog.Warn("declared: workspace unavailable, statuses not refreshed", "conversation", conv, "error", err)
		return s.db.ListDeclared(ctx, conv)
	}
	var rows []store.DeclaredRow
	err = store.WithRetry(ctx, txAttempts, func(ctx context.Context) error {
		return s.db.DeclaredTx(ctx, conv, func(tx *store.DeclaredTx) error {
			var err error
			if rows, err = tx.List(); err != nil {
				return err
			}
			now := s.now()
			for i := range rows {
				if !due(rows[i], now) {
					continue
				}
				if err := restat(tx, &rows[i], wr, now); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return rows, err
}

// ErrNoArtifact: the conversation has no declared artifact with that id.
var ErrNoArtifact = errors.New("no such declared artifact")

// Recheck re-runs the containment and realpath check of one workspace artifact now,
// whatever RefreshInterval says, under the conversation's lock, persists what it finds and
// returns the artifact as it stands: what the panel calls before it opens a file, so a file
// deleted or swapped for a link leaving the workspace a moment ago is not opened. An
// artifact that is not a workspace file is returned as stored. Errors: ErrNoArtifact;
// store.ErrNotFound for an unknown conversation; store errors, wrapped.
func (s *Service) Recheck(ctx context.Context, conversationID, artifactID string) (Artifact, error) {
	rows, err := s.refresh(ctx, conversationID, func(r store.DeclaredRow, _ time.Time) bool {
		return r.ID == artifactID && r.Storage == StorageWorkspace && r.WorkspacePath != ""
	})
	if err != nil {
		return Artifact{}, fmt.Errorf("declared: recheck %q: %w", artifactID, err)
	}
	for _, r := range rows {
		if r.ID == artifactID {
			return toArtifact(r), nil
		}
	}
	return Artifact{}, fmt.Errorf("declared: recheck %q: %w", artifactID, ErrNoArtifact)
}

// Remove is RemoveReport without Report.Released.
func (s *Service) Remove(ctx context.Context, conversationID, artifactID, clientID string) ([]Change, error) {
	rep, err := s.RemoveReport(ctx, conversationID, artifactID, clientID)
	return rep.Changes, err
}

// RemoveReport removes one artifact by id (reason "explicit"), logging and publishing the
// change; the file or URL it points to is untouched. Removing an id that does not exist
// returns no change and no error (idempotent).
//
// clientID "" is the user, who may remove anything. Any other clientID is a client asking:
//   - an artifact no client retains is removed;
//   - a client-retained artifact the client does not retain is left alone (ErrForbidden);
//   - one it retains loses that client's retention; it is removed only when no other
//     client retains it, else it stays (Report.Released, no change, nothing logged or
//     published), so a client cannot remove another client's artifact by registering it
//     too and then removing it.
//
// A client that registered an artifact without a client id holds a retention only the
// user can lift; at most maxRetainers retaining clients are remembered per artifact.
// Errors: store.ErrNotFound for an unknown conversation; ErrForbidden; store errors,
// wrapped.
func (s *Service) RemoveReport(ctx context.Context, conversationID, artifactID, clientID string) (Report, error) {
	unlock, err := s.locks.lock(ctx, conversationID)
	if err != nil {
		return Report{}, err
	}
	defer unlock()
	var (
		logged   []LoggedChange
		released bool
	)
	err = store.WithRetry(ctx, txAttempts, func(ctx context.Context) error {
		logged, released = nil, false
		return s.db.DeclaredTx(ctx, conversationID, func(tx *store.DeclaredTx) error {
			row, err := tx.Get(artifactID)
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			if clientID != "" && row.ClientRetained {
				if !slices.Contains(row.RetainedBy, clientID) {
					return fmt.Errorf("artifact %q is retained by another client: %w", artifactID, ErrForbidden)
				}
				if others := slices.DeleteFunc(slices.Clone(row.RetainedBy), func(id string) bool { return id == clientID }); len(others) > 0 {
					// Not a public change: the artifact stays client-retained.
					row.RetainedBy, released = others, true
					return tx.Update(row)
				}
			}
			if err := tx.Delete(artifactID); err != nil {
				return err
			}
			a := toArtifact(row)
			logged, err = appendLog(tx, s.now(), []Change{{Action: ActionRemoved, ArtifactID: artifactID, Artifact: &a, Reason: ReasonExplicit}})
			return err
		})
	})
	if err != nil {
		return Report{}, fmt.Errorf("declared: remove %q from %q: %w", artifactID, conversationID, err)
	}
	s.publish(conversationID, logged)
	return Report{Changes: plain(logged), Released: released}, nil
}

// ChangesSince returns the logged changes of the conversation with Seq > after, oldest
// first, at most limit (0 = all kept). The log keeps at least the last 1,000 changes of
// each conversation (store.DeclaredChangesKept); a client whose Last-Event-ID is older
// than the oldest kept should resynchronize with List. Errors: store.ErrNotFound for an
// unknown conversation; store errors, wrapped.
func (s *Service) ChangesSince(ctx context.Context, conversationID string, after int64, limit int) ([]LoggedChange, error) {
	rows, err := s.db.DeclaredChangesSince(ctx, conversationID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("declared: changes of %q: %w", conversationID, err)
	}
	out := make([]LoggedChange, 0, len(rows))
	for _, r := range rows {
		lc := LoggedChange{Seq: r.Seq}
		if err := json.Unmarshal(r.Change, &lc.Change); err != nil {
			return nil, fmt.Errorf("declared: changes of %q: seq %d: %w", conversationID, r.Seq, err)
		}
		out = append(out, lc)
	}
	return out, nil
}

// rootFunc returns a rootFunc resolving conv's workspace at most once.
func (s *Service) rootFunc(ctx context.Context, conv string) rootFunc {
	var (
		done bool
		wr   workspaceRoot
		err  error
	)
	return func() (workspaceRoot, error) {
		if !done {
			done = true
			wr, err = s.resolveWorkspace(ctx, conv)
		}
		return wr, err
	}
}

// errNoWorkspace: the Service has no Options.Workspace.
var errNoWorkspace = errors.New("declared: no workspace configured")

// resolveWorkspace asks Options.Workspace for conv's folder and resolves it.
func (s *Service) resolveWorkspace(ctx context.Context, conv string) (workspaceRoot, error) {
	if s.opts.Workspace == nil {
		return workspaceRoot{}, errNoWorkspace
	}
	ws, err := s.opts.Workspace(ctx, conv)
	if err != nil {
		return workspaceRoot{}, fmt.Errorf("workspace of %q: %w", conv, err)
	}
	if !filepath.IsAbs(ws) {
		return workspaceRoot{}, fmt.Errorf("workspace of %q: %q is not an absolute path", conv, ws)
	}
	return resolveRoot(ws), nil
}

// artifactID is the public id: the first 12 hex digits of the SHA-256 of
// "conversation:kind-of-locator:value" (store.DeclaredID of the identity key).
func artifactID(conv, identity string) string {
	return store.DeclaredID(conv + ":" + identity)
}

// timeFormat renders createdAt and updatedAt as clients see them (UTC, milliseconds).
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// toArtifact is the public form of a stored row (clientId and the bookkeeping stay
// inside; sizeBytes only while available).
func toArtifact(r store.DeclaredRow) Artifact {
	a := Artifact{
		ID: r.ID, Kind: r.Kind, Storage: r.Storage, Title: r.Title, Description: r.Description,
		Status: r.Status, Source: r.Source, WorkspacePath: r.WorkspacePath, ManagedID: r.ManagedID,
		URL: r.URL, MimeType: r.MimeType, ToolCallID: r.ToolCallID, ToolName: r.ToolName,
		HookName: r.HookName, ClientRetained: r.ClientRetained,
		CreatedAt: r.CreatedAt.UTC().Format(timeFormat), UpdatedAt: r.UpdatedAt.UTC().Format(timeFormat),
		MissingReason: r.MissingReason,
	}
	if r.Status == StatusAvailable && r.SizeBytes != nil {
		n := *r.SizeBytes
		a.SizeBytes = &n
	}
	if m, err := decodeMeta(r.Metadata); err == nil {
		a.Metadata = m
	}
	return a
}

// decodeMeta decodes stored metadata (nil for none).
func decodeMeta(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// metaJSON encodes metadata for storage (nil for none).
func metaJSON(m map[string]any) (json.RawMessage, error) {
	if len(m) == 0 {
		return nil, nil
	}
	b, err := canonicalJSON(m)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return b, nil
}

// sameRow reports whether a and b hold the same artifact state, ignoring updatedAt and the
// stat time; metadata is compared in canonical form (key order ignored).
func sameRow(a, b store.DeclaredRow) (bool, error) {
	ma, err := canonicalMeta(a.Metadata)
	if err != nil {
		return false, err
	}
	mb, err := canonicalMeta(b.Metadata)
	if err != nil {
		return false, err
	}
	return a.Kind == b.Kind && a.Storage == b.Storage && a.Title == b.Title && a.Description == b.Description &&
		a.Status == b.Status && a.MissingReason == b.MissingReason && a.Source == b.Source &&
		a.WorkspacePath == b.WorkspacePath && a.ManagedID == b.ManagedID && a.URL == b.URL &&
		a.MimeType == b.MimeType && sameSize(a.SizeBytes, b.SizeBytes) && a.ToolCallID == b.ToolCallID &&
		a.ToolName == b.ToolName && a.HookName == b.HookName && a.ClientID == b.ClientID &&
		a.ClientRetained == b.ClientRetained && slices.Equal(a.RetainedBy, b.RetainedBy) &&
		a.RetentionSource == b.RetentionSource && bytes.Equal(ma, mb), nil
}

// canonicalMeta re-encodes stored metadata canonically (nil for none).
func canonicalMeta(raw json.RawMessage) ([]byte, error) {
	m, err := decodeMeta(raw)
	if err != nil {
		return nil, fmt.Errorf("stored metadata: %w", err)
	}
	return metaJSON(m)
}

// sameSize compares two optional sizes.
func sameSize(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// lockMap holds one lock per conversation with mutations in flight; an entry lives while
// someone holds or waits for it.
type lockMap struct {
	mu sync.Mutex
	m  map[string]*convLock
}

type convLock struct {
	ch   chan struct{} // capacity 1: full while held
	refs int
}

// lock takes conv's lock, giving up when ctx ends; the returned func releases it.
func (l *lockMap) lock(ctx context.Context, conv string) (func(), error) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*convLock{}
	}
	c := l.m[conv]
	if c == nil {
		c = &convLock{ch: make(chan struct{}, 1)}
		l.m[conv] = c
	}
	c.refs++
	l.mu.Unlock()
	release := func() {
		l.mu.Lock()
		if c.refs--; c.refs == 0 {
			delete(l.m, conv)
		}
		l.mu.Unlock()
	}
	select {
	case c.ch <- struct{}{}:
		return func() { <-c.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, fmt.Errorf("declared: waiting for conversation %q: %w", conv, ctx.Err())
	}
}

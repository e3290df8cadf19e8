// Package artifact implements the ArtifactManager: the write-back cache that
// holds every artifact a run creates or edits, the operations the artifact tools call, the
// inventory shown to the lead agent, and the flush that persists one version per dirty
// artifact at the end of a run.
package artifact

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
	"artifactflow/backend/textmatch"
)

// TaskPlanID is the artifact id of the lead agent's task plan.
const TaskPlanID = "task_plan"

// InventoryPreviewLength is the number of runes of each artifact shown in the
// inventory.
const InventoryPreviewLength = 200

// Update types recorded on versions.
const (
	// UpdateCreate is the update type of the version create_artifact made.
	UpdateCreate = "create"
	// UpdateUpdate is the update type of an update_artifact matched exactly or after
	// normalization (textmatch Layers 0 and 1).
	UpdateUpdate = "update"
	// UpdateFuzzy is the update type of an update_artifact matched approximately
	// (textmatch Layer 2).
	UpdateFuzzy = "update_fuzzy"
	// UpdateRewrite is the update type of a rewrite_artifact.
	UpdateRewrite = "rewrite"
)

// Sources of artifacts.
const (
	// SourceAgent marks artifacts the agents created.
	SourceAgent = "agent"
	// SourceUpload marks artifacts made from a file the user uploaded.
	SourceUpload = "user_upload"
)

// Sentinel errors callers branch on.
var (
	// ErrExists: create_artifact with an id the session already has (cached or stored).
	ErrExists = errors.New("artifact already exists")
	// ErrNotFound: no artifact with that id, or no stored version with that number.
	ErrNotFound = errors.New("artifact not found")
	// ErrNoMatch: update_artifact's old_str matched nowhere (or was empty).
	ErrNoMatch = errors.New("old_str not found")
	// ErrAmbiguous: update_artifact's old_str matched more than one place.
	ErrAmbiguous = errors.New("old_str is ambiguous")
	// ErrInvalidID: an artifact id that is not 1-64 letters, digits, '_', '-' or '.'.
	ErrInvalidID = errors.New("invalid artifact id")
	// ErrConflict: the artifact changed since the version the user's edit started from,
	// or the running research holds unsaved changes to it (optimistic locking). Its text
	// "conflict" is the code the page branches on ("conflict: <what to do>").
	ErrConflict = errors.New("conflict")
)

// Store is what the manager needs from the data layer; *store.DB satisfies it.
type Store interface {
	GetArtifact(ctx context.Context, sessionID, id string) (store.Artifact, error)
	ListArtifacts(ctx context.Context, sessionID string) ([]store.Artifact, error)
	CreateArtifact(ctx context.Context, w store.ArtifactWrite) (store.Artifact, error)
	UpdateArtifactContent(ctx context.Context, w store.ArtifactWrite) (store.Artifact, error)
	GetVersion(ctx context.Context, sessionID, id string, version int) (store.ArtifactVersion, error)
	SaveDrafts(ctx context.Context, ds ...store.Draft) error
	DeleteDraft(ctx context.Context, conversationID, artifactID, messageID string) error
	DeleteArtifact(ctx context.Context, sessionID, id string) (store.Artifact, error)
	UploadBySHA256(ctx context.Context, sessionID, sha string) (store.Artifact, error)
}

// memory is one artifact held in the cache.
type memory struct {
	id, contentType, title, content, source string
	version                                 int // in-memory version: DB current_version plus one per operation
	lockVersion                             int // lock_version read from the DB; 0 for artifacts new in this run
	updateType                              string
	changes                                 []store.Change
	updatedAt                               time.Time
	baseVersion                             int // stored current_version when loaded; 0 for new
	drafted                                 int // in-memory version last checkpointed; 0 = none
}

func (m *memory) snapshot() events.ArtifactSnapshot {
	return events.ArtifactSnapshot{ID: m.id, ContentType: m.contentType, Title: m.title, Content: m.content,
		Version: m.version, Source: m.source, UpdateType: m.updateType}
}

// Manager is the write-back cache for one artifact session (= one conversation) during
// one run. Create, Update and Rewrite touch only memory and mark the artifact dirty; Flush
// persists. It is safe for concurrent use: the engine writes while the UI reads.
type Manager struct {
	st        Store
	sessionID string
	messageID string

	mu    sync.Mutex
	cache map[string]*memory
	dirty map[string]bool
	isNew map[string]bool

	blobLock sync.Locker // held from writing an upload's original to storing its artifact; nil: none
}

// NewManager returns an empty cache for sessionID; versions it flushes record messageID
// as the message that produced them.
func NewManager(st Store, sessionID, messageID string) *Manager {
	return &Manager{st: st, sessionID: sessionID, messageID: messageID,
		cache: map[string]*memory{}, dirty: map[string]bool{}, isNew: map[string]bool{}}
}

// SetBlobLock makes CreateFromUpload hold l from writing an upload's original into the
// blobs directory until its artifact is stored (or the blob is removed again), so a caller
// that deletes unreferenced originals under l never removes one an upload is about to
// refer to. Text extraction, which may take seconds, runs before l is taken, so uploads do
// not wait on each other's parsing. Call it before the first upload.
func (m *Manager) SetBlobLock(l sync.Locker) {
	m.mu.Lock()
	m.blobLock = l
	m.mu.Unlock()
}

// SessionID returns the artifact session (conversation) id.
func (m *Manager) SessionID() string { return m.sessionID }

// validID reports whether id is usable as an artifact id: 1-64 bytes of letters, digits,
// '_', '-' and '.'.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// load returns the cached artifact id, reading it from the store into the cache (clean)
// when absent. Caller holds m.mu.
func (m *Manager) load(ctx context.Context, id string) (*memory, error) {
	if mem, ok := m.cache[id]; ok {
		return mem, nil
	}
	a, err := m.st.GetArtifact(ctx, m.sessionID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("artifact: load %q: %w", id, err)
	}
	mem := &memory{id: a.ID, contentType: a.ContentType, title: a.Title, content: a.Content, source: a.Source,
		version: a.CurrentVersion, lockVersion: a.LockVersion, updatedAt: a.UpdatedAt, baseVersion: a.CurrentVersion}
	m.cache[id] = mem
	return mem, nil
}

// maxListedIDs bounds how many artifact ids a "not found" error names.
const maxListedIDs = 20

// loadExisting is load for the tools that need an existing artifact (update, rewrite,
// read): an unknown id is ErrNotFound with a message for the model that names the
// artifacts that do exist and says how to create this one. Caller holds m.mu.
func (m *Manager) loadExisting(ctx context.Context, id string) (*memory, error) {
	mem, err := m.load(ctx, id)
	if !errors.Is(err, ErrNotFound) {
		return mem, err
	}
	ids := make(map[string]bool, len(m.cache))
	for cid := range m.cache {
		ids[cid] = true
	}
	if rows, lerr := m.st.ListArtifacts(ctx, m.sessionID); lerr == nil {
		for _, a := range rows {
			ids[a.ID] = true
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: %q; this conversation has no artifacts yet: use create_artifact to create it", ErrNotFound, id)
	}
	sorted := make([]string, 0, len(ids))
	for cid := range ids {
		sorted = append(sorted, cid)
	}
	sort.Strings(sorted)
	quoted := make([]string, 0, min(len(sorted), maxListedIDs))
	for _, cid := range sorted[:min(len(sorted), maxListedIDs)] {
		quoted = append(quoted, fmt.Sprintf("%q", cid))
	}
	list := strings.Join(quoted, ", ")
	if len(sorted) > maxListedIDs {
		list += fmt.Sprintf(" and %d more", len(sorted)-maxListedIDs)
	}
	return nil, fmt.Errorf("%w: %q; the existing artifacts are %s: use one of these ids, or create_artifact to create %q",
		ErrNotFound, id, list, id)
}

// Create adds a new artifact at version 1 (create_artifact: rejected when the id exists in
// the cache or the database). Errors: ErrInvalidID, ErrExists, store errors.
func (m *Manager) Create(ctx context.Context, id, contentType, title, content string) (events.ArtifactSnapshot, error) {
	if !validID(id) {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w %q: use 1-64 letters, digits, '_', '-' or '.'", ErrInvalidID, id)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.load(ctx, id); err == nil {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w: %q; use update_artifact or rewrite_artifact to change it", ErrExists, id)
	} else if !errors.Is(err, ErrNotFound) {
		return events.ArtifactSnapshot{}, err
	}
	if contentType == "" {
		contentType = "markdown"
	}
	if title == "" {
		title = id
	}
	mem := &memory{id: id, contentType: contentType, title: title, content: content, source: SourceAgent,
		version: 1, updateType: UpdateCreate, updatedAt: time.Now().UTC()}
	m.cache[id] = mem
	m.dirty[id] = true
	m.isNew[id] = true
	return mem.snapshot(), nil
}

// Update replaces the one place oldStr matches with newStr and bumps the in-memory version.
// Matching is textmatch's three layers: exact, normalized and approximate; the version
// records update_type "update" (Layers 0 and 1) or "update_fuzzy" (Layer 2) and the (old,
// new) pair with the original text that was replaced. Errors: ErrNotFound for the artifact
// (naming the existing ones), and the textmatch errors (ErrNoMatch and ErrAmbiguous are
// matched by errors.Is), each telling the model what to do next.
func (m *Manager) Update(ctx context.Context, id, oldStr, newStr string) (events.ArtifactSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mem, err := m.loadExisting(ctx, id)
	if err != nil {
		return events.ArtifactSnapshot{}, err
	}
	res, err := textmatch.Replace(ctx, mem.content, oldStr, newStr)
	if err != nil {
		return events.ArtifactSnapshot{}, fmt.Errorf("update_artifact %q: %w", id, matchErr(err))
	}
	mem.content = res.Content
	m.touch(mem, res.UpdateType, store.Change{Old: res.Matched, New: newStr})
	return mem.snapshot(), nil
}

// matchErr makes textmatch's "not found" and "ambiguous" errors also match this
// package's sentinels, keeping textmatch's message.
func matchErr(err error) error {
	switch {
	case errors.Is(err, textmatch.ErrNotFound), errors.Is(err, textmatch.ErrEmptyOld):
		return &joined{err, ErrNoMatch}
	case errors.Is(err, textmatch.ErrAmbiguous):
		return &joined{err, ErrAmbiguous}
	}
	return err
}

// joined is an error with err's message that also matches sentinel.
type joined struct{ err, sentinel error }

// Error returns the wrapped error's message.
func (j *joined) Error() string { return j.err.Error() }

// Unwrap returns the wrapped error and the sentinel, so errors.Is matches both.
func (j *joined) Unwrap() []error { return []error{j.err, j.sentinel} }

// Rewrite replaces the whole content and bumps the version.
func (m *Manager) Rewrite(ctx context.Context, id, content string) (events.ArtifactSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mem, err := m.loadExisting(ctx, id)
	if err != nil {
		return events.ArtifactSnapshot{}, err
	}
	old := mem.content
	mem.content = content
	m.touch(mem, UpdateRewrite, store.Change{Old: old, New: content})
	return mem.snapshot(), nil
}

// touch records one operation on mem: version+1, dirty, change appended. A new artifact
// keeps update_type "create" until it is first flushed. When one run makes several edits,
// its version takes the weightiest of their types (rewrite, then update_fuzzy, then
// update), so a fuzzy match is never hidden by a later exact one. Caller holds m.mu.
func (m *Manager) touch(mem *memory, updateType string, c store.Change) {
	mem.version++
	if !m.isNew[mem.id] && (!m.dirty[mem.id] || updateWeight[updateType] > updateWeight[mem.updateType]) {
		mem.updateType = updateType
	}
	mem.changes = append(mem.changes, c)
	mem.updatedAt = time.Now().UTC()
	m.dirty[mem.id] = true
}

// updateWeight orders the update types one run's version can combine.
var updateWeight = map[string]int{UpdateUpdate: 1, UpdateFuzzy: 2, UpdateRewrite: 3}

// SourceUser marks versions the user made in the window (edits and restores).
const SourceUser = "user"

// Edit saves content as a new version made by the user (optimistic locking):
// baseVersion is the version the user's editor started from. It fails with ErrConflict,
// never overwriting anything, when the artifact has moved past baseVersion or when the
// running research holds unsaved changes to it. updateType is store.UpdateUserEdit or
// store.UpdateRestore. The write bypasses the cache and commits at once; a run that has
// the artifact cached sees the new content from then on.
func (m *Manager) Edit(ctx context.Context, id string, baseVersion int, content, updateType string) (events.ArtifactSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirty[id] {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w: the research run is changing %q right now; wait for it to finish or stop it, then edit again", ErrConflict, id)
	}
	a, err := m.st.GetArtifact(ctx, m.sessionID, id)
	if errors.Is(err, store.ErrNotFound) {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return events.ArtifactSnapshot{}, fmt.Errorf("artifact: edit %q: %w", id, err)
	}
	if a.CurrentVersion != baseVersion {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w: %q is now at version %d, but your edit started from version %d; reload it and apply your change again", ErrConflict, id, a.CurrentVersion, baseVersion)
	}
	updated, err := m.st.UpdateArtifactContent(ctx, store.ArtifactWrite{SessionID: m.sessionID, ID: id, Content: content,
		Version: a.CurrentVersion + 1, UpdateType: updateType, Changes: []store.Change{{Old: a.Content, New: content}},
		Source: SourceUser, ExpectedLockVersion: a.LockVersion})
	if errors.Is(err, store.ErrVersionConflict) || errors.Is(err, store.ErrDuplicate) {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w: %q was changed while you saved; reload it and apply your change again", ErrConflict, id)
	}
	if err != nil {
		return events.ArtifactSnapshot{}, fmt.Errorf("artifact: edit %q: %w", id, err)
	}
	mem, ok := m.cache[id]
	if !ok {
		mem = &memory{id: id, contentType: updated.ContentType, title: updated.Title, source: updated.Source}
		m.cache[id] = mem
	}
	mem.content, mem.version, mem.lockVersion, mem.updateType, mem.updatedAt = updated.Content, updated.CurrentVersion, updated.LockVersion, updateType, updated.UpdatedAt
	return mem.snapshot(), nil
}

// Recover keeps the draft an interrupted run left of artifact id: its content becomes a
// new version on top of whatever is stored now (update_type "recover", recording the
// run's message), or the artifact is created when the run had created it. The draft is
// then deleted. Errors: ErrConflict while a run holds unsaved changes to id; ErrNotFound
// when there is no such draft.
func (m *Manager) Recover(ctx context.Context, d store.Draft) (events.ArtifactSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirty[d.ArtifactID] {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w: the research run is changing %q right now; keep the draft when it has finished", ErrConflict, d.ArtifactID)
	}
	w := store.ArtifactWrite{SessionID: m.sessionID, ID: d.ArtifactID, ContentType: d.ContentType, Title: d.Title,
		Content: d.Content, Version: 1, UpdateType: store.UpdateRecover, Changes: d.Changes, Source: d.Source, MessageID: d.MessageID}
	a, err := m.st.GetArtifact(ctx, m.sessionID, d.ArtifactID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		a, err = m.st.CreateArtifact(ctx, w)
	case err == nil:
		w.Version, w.ExpectedLockVersion = a.CurrentVersion+1, a.LockVersion
		a, err = m.st.UpdateArtifactContent(ctx, w)
		if errors.Is(err, store.ErrVersionConflict) || errors.Is(err, store.ErrDuplicate) {
			err = fmt.Errorf("%w: %q was changed while you recovered it; try again", ErrConflict, d.ArtifactID)
		}
	}
	if err != nil {
		return events.ArtifactSnapshot{}, fmt.Errorf("artifact: recover %q: %w", d.ArtifactID, err)
	}
	if err := m.st.DeleteDraft(ctx, m.sessionID, d.ArtifactID, d.MessageID); err != nil {
		return events.ArtifactSnapshot{}, fmt.Errorf("artifact: recover %q: %w", d.ArtifactID, err)
	}
	delete(m.cache, d.ArtifactID)
	mem := &memory{id: a.ID, contentType: a.ContentType, title: a.Title, content: a.Content, source: a.Source,
		version: a.CurrentVersion, lockVersion: a.LockVersion, updateType: store.UpdateRecover, updatedAt: a.UpdatedAt, baseVersion: a.CurrentVersion}
	m.cache[a.ID] = mem
	return mem.snapshot(), nil
}

// Restore makes stored version `version` the content of a new version (update_type
// "restore"), with the same conflict rules as Edit.
func (m *Manager) Restore(ctx context.Context, id string, version, baseVersion int) (events.ArtifactSnapshot, error) {
	v, err := m.st.GetVersion(ctx, m.sessionID, id, version)
	if errors.Is(err, store.ErrNotFound) {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w: %q has no version %d", ErrNotFound, id, version)
	}
	if err != nil {
		return events.ArtifactSnapshot{}, fmt.Errorf("artifact: restore %q v%d: %w", id, version, err)
	}
	return m.Edit(ctx, id, baseVersion, v.Content, store.UpdateRestore)
}

// Read returns the artifact's current content (from the cache, so it includes unflushed
// edits) when version is 0, else that stored version from the database. Errors:
// ErrNotFound for an unknown id or version.
func (m *Manager) Read(ctx context.Context, id string, version int) (events.ArtifactSnapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mem, err := m.loadExisting(ctx, id)
	if err != nil {
		return events.ArtifactSnapshot{}, err
	}
	if version == 0 || version == mem.version {
		return mem.snapshot(), nil
	}
	v, err := m.st.GetVersion(ctx, m.sessionID, id, version)
	if errors.Is(err, store.ErrNotFound) {
		return events.ArtifactSnapshot{}, fmt.Errorf("%w: %q has no stored version %d (versions are saved at the end of each run)", ErrNotFound, id, version)
	}
	if err != nil {
		return events.ArtifactSnapshot{}, fmt.Errorf("artifact: read %q v%d: %w", id, version, err)
	}
	s := mem.snapshot()
	s.Content, s.Version, s.UpdateType = v.Content, v.Version, v.UpdateType
	return s, nil
}

// Item is one artifact in List: its snapshot, when it last changed, and whether the run
// holds changes not yet flushed.
type Item struct {
	events.ArtifactSnapshot
	// UpdatedAt is when the artifact last changed, in memory or in the store.
	UpdatedAt time.Time
	// Unsaved reports that the run holds changes to it not yet flushed.
	Unsaved bool
}

// List returns every artifact of the session, database rows overlaid with the cache
// (during a run the list and contents come from the cache), oldest first.
func (m *Manager) List(ctx context.Context) ([]Item, error) {
	rows, err := m.st.ListArtifacts(ctx, m.sessionID)
	if err != nil {
		return nil, fmt.Errorf("artifact: list: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := make(map[string]bool, len(rows))
	out := make([]Item, 0, len(rows)+len(m.cache))
	for _, a := range rows {
		seen[a.ID] = true
		if mem, ok := m.cache[a.ID]; ok {
			out = append(out, Item{mem.snapshot(), mem.updatedAt, m.dirty[a.ID]})
			continue
		}
		out = append(out, Item{events.ArtifactSnapshot{ID: a.ID, ContentType: a.ContentType, Title: a.Title,
			Content: a.Content, Version: a.CurrentVersion, Source: a.Source}, a.UpdatedAt, false})
	}
	var fresh []Item
	for id, mem := range m.cache {
		if !seen[id] {
			fresh = append(fresh, Item{mem.snapshot(), mem.updatedAt, m.dirty[id]})
		}
	}
	sort.Slice(fresh, func(i, j int) bool { return fresh[i].UpdatedAt.Before(fresh[j].UpdatedAt) })
	return append(out, fresh...), nil
}

// TaskPlan returns the full task plan content, "" when there is none yet. It is injected
// whole into the lead agent's system prompt.
func (m *Manager) TaskPlan(ctx context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mem, err := m.load(ctx, TaskPlanID)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return mem.content, nil
}

// Inventory renders the <artifacts_inventory> block of the lead's system prompt: every
// artifact except the task plan, with id, title, type, version, source and the first
// InventoryPreviewLength runes of its content (Artifact Inventory).
func (m *Manager) Inventory(ctx context.Context) (string, error) {
	items, err := m.List(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, it := range items {
		if it.ID == TaskPlanID {
			continue
		}
		preview, cut := runePrefix(it.Content, InventoryPreviewLength)
		if cut {
			preview += "…"
		}
		fmt.Fprintf(&b, "<artifact id=%q title=%q content_type=%q version=\"%d\" source=%q length=\"%d\">\n%s\n</artifact>\n",
			it.ID, it.Title, it.ContentType, it.Version, it.Source, utf8.RuneCountInString(it.Content), preview)
	}
	if b.Len() == 0 {
		return "(no artifacts yet)", nil
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// FlushAttempts is how many times Flush tries each artifact before reporting it failed.
const FlushAttempts = 3

// Flush persists every dirty artifact, each in its own transaction, retrying up to
// FlushAttempts times. New artifacts are inserted with their in-memory version; existing
// ones are updated under optimistic locking with version = in-memory version, so three
// edits in one run leave one stored version. When an attempt fails but its commit landed
// (the stored version already holds our content), it counts as success. Failures are
// returned by id and stay dirty so a later Flush can retry them; artifacts already
// written are never rolled back.
func (m *Manager) Flush(ctx context.Context) (failed map[string]error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.dirty))
	for id := range m.dirty {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if err := m.flushOne(ctx, m.cache[id]); err != nil {
			if failed == nil {
				failed = map[string]error{}
			}
			failed[id] = err
		}
	}
	return failed
}

// Dirty reports how many artifacts hold unflushed changes.
func (m *Manager) Dirty() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.dirty)
}

func (m *Manager) flushOne(ctx context.Context, mem *memory) error {
	w := store.ArtifactWrite{SessionID: m.sessionID, ID: mem.id, ContentType: mem.contentType, Title: mem.title,
		Content: mem.content, Version: mem.version, UpdateType: mem.updateType, Changes: mem.changes,
		Source: mem.source, MessageID: m.messageID, ExpectedLockVersion: mem.lockVersion}
	var err error
	for attempt := 0; attempt < FlushAttempts; attempt++ {
		if attempt > 0 {
			if m.landed(ctx, mem) {
				err = nil
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("artifact: flush %q: %w (after: %w)", mem.id, ctx.Err(), err)
			case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
			}
		}
		var a store.Artifact
		if m.isNew[mem.id] {
			a, err = m.st.CreateArtifact(ctx, w)
		} else {
			a, err = m.st.UpdateArtifactContent(ctx, w)
		}
		if err == nil {
			mem.lockVersion = a.LockVersion
			break
		}
		if errors.Is(err, store.ErrVersionConflict) && !m.landed(ctx, mem) {
			return fmt.Errorf("artifact: flush %q: it was changed outside this run: %w", mem.id, err)
		}
	}
	if err != nil {
		return fmt.Errorf("artifact: flush %q after %d attempts: %w", mem.id, FlushAttempts, err)
	}
	delete(m.dirty, mem.id)
	delete(m.isNew, mem.id)
	mem.changes = nil
	mem.baseVersion = mem.version
	if mem.drafted > 0 {
		// The version is stored: its draft is no longer needed. A failure here leaves a
		// stale draft, which RecoverableDrafts recognises and drops.
		if err := m.st.DeleteDraft(ctx, m.sessionID, mem.id, m.messageID); err == nil {
			mem.drafted = 0
		}
	}
	return nil
}

// Checkpoint saves every dirty artifact changed since the last checkpoint as a draft, in
// one transaction, so a crash loses at most the tool round in flight (crash safety:
// without checkpoints a crash would lose the whole run). The engine calls it after each
// completed tool round. On error nothing is marked saved and the next checkpoint tries
// again.
func (m *Manager) Checkpoint(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ds []store.Draft
	var mems []*memory
	for id := range m.dirty {
		mem := m.cache[id]
		if mem.drafted == mem.version {
			continue
		}
		base := mem.baseVersion
		if m.isNew[id] {
			base = 0
		}
		ds = append(ds, store.Draft{ConversationID: m.sessionID, ArtifactID: id, MessageID: m.messageID,
			ContentType: mem.contentType, Title: mem.title, Content: mem.content, Source: mem.source,
			Version: mem.version, BaseVersion: base, UpdateType: mem.updateType, Changes: mem.changes})
		mems = append(mems, mem)
	}
	if len(ds) == 0 {
		return nil
	}
	if err := m.st.SaveDrafts(ctx, ds...); err != nil {
		return fmt.Errorf("artifact: checkpoint: %w", err)
	}
	for _, mem := range mems {
		mem.drafted = mem.version
	}
	return nil
}

// landed reports whether the store already holds mem's version with mem's content: an
// earlier attempt whose commit succeeded although it reported an error (a duplicate or
// integrity error means the earlier attempt committed). It refreshes lockVersion.
func (m *Manager) landed(ctx context.Context, mem *memory) bool {
	v, err := m.st.GetVersion(ctx, m.sessionID, mem.id, mem.version)
	if err != nil || v.Content != mem.content {
		return false
	}
	if a, err := m.st.GetArtifact(ctx, m.sessionID, mem.id); err == nil {
		mem.lockVersion = a.LockVersion
	}
	return true
}

// runePrefix returns the first n runes of s and whether s was longer.
func runePrefix(s string, n int) (string, bool) {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos], true
		}
		i++
	}
	return s, false
}

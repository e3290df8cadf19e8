package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Artifact is one row of artifacts, keyed by (SessionID, ID); SessionID is the conversation
// id. CurrentVersion is the newest recorded version number (versions are sparse);
// LockVersion is the optimistic lock, 1 at creation and +1 per update. Source is who
// created it ("agent", "user_upload" ...). Metadata is JSON or nil.
type Artifact struct {
	ID             string
	SessionID      string
	ContentType    string
	Title          string
	Content        string
	CurrentVersion int
	LockVersion    int
	Source         string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Metadata       json.RawMessage
}

// Change is one old→new replacement recorded with a version; stored as JSON {"old": ...,
// "new": ...}.
type Change struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// Update types of artifact_versions.update_type.
const (
	UpdateCreate   = "create"
	UpdateUpdate   = "update"
	UpdateFuzzy    = "update_fuzzy"
	UpdateRewrite  = "rewrite"
	UpdateUserEdit = "user_edit"
	UpdateRestore  = "restore"
	UpdateUpload   = "upload"
	// UpdateRecover: the user kept a draft an interrupted run left behind.
	UpdateRecover = "recover"
)

func validUpdateType(s string) bool {
	switch s {
	case UpdateCreate, UpdateUpdate, UpdateFuzzy, UpdateRewrite, UpdateUserEdit, UpdateRestore, UpdateUpload, UpdateRecover:
		return true
	}
	return false
}

// ArtifactWrite is the input of CreateArtifact and UpdateArtifactContent. Version is the
// version number to record (>= 1; for updates it must exceed the stored current_version).
// UpdateType is one of the Update* constants. Changes may be nil. Source "" means "agent".
// MessageID is the run's message ("" for none). ExpectedLockVersion is the lock_version the
// writer read (updates only). ContentType and Metadata (a JSON value, or nil for SQL NULL;
// e.g. an upload's original name and checksum) are used by CreateArtifact only;
// UpdateArtifactContent keeps the stored ones.
type ArtifactWrite struct {
	SessionID           string
	ID                  string
	ContentType         string
	Title               string
	Content             string
	Version             int
	UpdateType          string
	Changes             []Change
	Source              string
	MessageID           string
	ExpectedLockVersion int
	Metadata            json.RawMessage
}

// VersionInfo describes one stored version without its content. Size is the content length
// in bytes.
type VersionInfo struct {
	Version    int
	UpdateType string
	Source     string
	MessageID  string
	Size       int
	CreatedAt  time.Time
}

// ArtifactVersion is one stored version with its content and changes (nil when none).
type ArtifactVersion struct {
	VersionInfo
	ArtifactID string
	SessionID  string
	Content    string
	Changes    []Change
}

func (w *ArtifactWrite) validate(op string, create bool) error {
	if err := requireIDs(op, "session id", w.SessionID, "artifact id", w.ID); err != nil {
		return err
	}
	if create && w.ContentType == "" {
		return fmt.Errorf("store: %s %q: empty content type: %w", op, w.ID, ErrInvalid)
	}
	if w.Version < 1 {
		return fmt.Errorf("store: %s %q: version %d must be >= 1: %w", op, w.ID, w.Version, ErrInvalid)
	}
	if !validUpdateType(w.UpdateType) {
		return fmt.Errorf("store: %s %q: unknown update type %q: %w", op, w.ID, w.UpdateType, ErrInvalid)
	}
	if w.Source == "" {
		w.Source = "agent"
	}
	return nil
}

// insertVersion records w's content as version w.Version.
func insertVersion(ctx context.Context, tx *sql.Tx, w ArtifactWrite, at string) error {
	var changes any
	if len(w.Changes) > 0 {
		b, err := json.Marshal(w.Changes)
		if err != nil {
			return fmt.Errorf("encode changes: %w", err)
		}
		changes = string(b)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO artifact_versions
		(artifact_id, session_id, version, content, update_type, changes, message_id, source, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.SessionID, w.Version, w.Content, w.UpdateType, changes, nullString(w.MessageID), w.Source, at)
	return err
}

// CreateArtifact inserts a new artifact (current_version = w.Version, lock_version = 1) and
// its first version row in one transaction and returns the stored artifact.
//
// Errors: empty ids or content type, version < 1, unknown update type, Metadata that is not
// valid JSON → ErrInvalid; no artifact session w.SessionID → ErrNotFound; (session, id)
// already exists → ErrDuplicate.
func (db *DB) CreateArtifact(ctx context.Context, w ArtifactWrite) (Artifact, error) {
	if err := w.validate("create artifact", true); err != nil {
		return Artifact{}, err
	}
	meta, err := nullJSON(w.Metadata, "artifact metadata")
	if err != nil {
		return Artifact{}, err
	}
	t := now()
	at := formatTime(t)
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO artifacts
			(id, session_id, content_type, title, content, current_version, lock_version, source, created_at, updated_at, metadata)
			VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
			w.ID, w.SessionID, w.ContentType, w.Title, w.Content, w.Version, w.Source, at, at, meta); err != nil {
			return err
		}
		return insertVersion(ctx, tx, w, at)
	})
	switch {
	case isUnique(err):
		return Artifact{}, fmt.Errorf("store: create artifact %q in session %q: %w", w.ID, w.SessionID, ErrDuplicate)
	case isForeignKey(err):
		return Artifact{}, fmt.Errorf("store: create artifact %q: artifact session %q: %w", w.ID, w.SessionID, ErrNotFound)
	case err != nil:
		return Artifact{}, fmt.Errorf("store: create artifact %q in session %q: %w", w.ID, w.SessionID, err)
	}
	a := Artifact{ID: w.ID, SessionID: w.SessionID, ContentType: w.ContentType, Title: w.Title, Content: w.Content,
		CurrentVersion: w.Version, LockVersion: 1, Source: w.Source, CreatedAt: t, UpdatedAt: t}
	if meta != nil {
		a.Metadata = w.Metadata
	}
	return a, nil
}

const artifactCols = `id, session_id, content_type, title, content, current_version, lock_version, source,
	created_at, updated_at, metadata`

func scanArtifact(sc rowScanner) (Artifact, error) {
	var a Artifact
	var created, updated, meta sql.NullString
	if err := sc.Scan(&a.ID, &a.SessionID, &a.ContentType, &a.Title, &a.Content, &a.CurrentVersion, &a.LockVersion,
		&a.Source, &created, &updated, &meta); err != nil {
		return Artifact{}, err
	}
	var err error
	if a.CreatedAt, err = parseTime(created); err != nil {
		return Artifact{}, err
	}
	if a.UpdatedAt, err = parseTime(updated); err != nil {
		return Artifact{}, err
	}
	a.Metadata = rawJSON(meta)
	return a, nil
}

// UpdateArtifactContent writes new content as version w.Version under the optimistic lock:
// the artifact row is updated only if its lock_version equals w.ExpectedLockVersion and its
// current_version is below w.Version; lock_version is then incremented and the version row
// inserted, all in one transaction. An empty Title keeps the stored title; ContentType,
// Source and Metadata of the artifact row are not changed (the version row records w.Source).
// Returns the updated artifact.
//
// Errors: invalid input → ErrInvalid; no such artifact → ErrNotFound; stale lock or
// w.Version <= current_version → ErrVersionConflict; version row already present →
// ErrDuplicate. On any error nothing is changed.
func (db *DB) UpdateArtifactContent(ctx context.Context, w ArtifactWrite) (Artifact, error) {
	if err := w.validate("update artifact", false); err != nil {
		return Artifact{}, err
	}
	var a Artifact
	at := formatTime(now())
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = scanArtifact(tx.QueryRowContext(ctx, `UPDATE artifacts
			SET content = ?, title = CASE WHEN ? = '' THEN title ELSE ? END, current_version = ?,
				lock_version = lock_version + 1, updated_at = ?
			WHERE id = ? AND session_id = ? AND lock_version = ? AND current_version < ?
			RETURNING `+artifactCols,
			w.Content, w.Title, w.Title, w.Version, at, w.ID, w.SessionID, w.ExpectedLockVersion, w.Version))
		if errors.Is(err, sql.ErrNoRows) {
			return whyNotUpdated(ctx, tx, w)
		}
		if err != nil {
			return err
		}
		return insertVersion(ctx, tx, w, at)
	})
	switch {
	case isUnique(err):
		return Artifact{}, fmt.Errorf("store: update artifact %q in session %q: version %d: %w", w.ID, w.SessionID, w.Version, ErrDuplicate)
	case err != nil:
		return Artifact{}, fmt.Errorf("store: update artifact %q in session %q: %w", w.ID, w.SessionID, err)
	}
	return a, nil
}

// whyNotUpdated explains why the guarded UPDATE matched no row: ErrNotFound or
// ErrVersionConflict.
func whyNotUpdated(ctx context.Context, tx *sql.Tx, w ArtifactWrite) error {
	var lock, current int
	err := tx.QueryRowContext(ctx, `SELECT lock_version, current_version FROM artifacts WHERE id = ? AND session_id = ?`,
		w.ID, w.SessionID).Scan(&lock, &current)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case err != nil:
		return err
	case lock != w.ExpectedLockVersion:
		return fmt.Errorf("%w: lock_version is %d, expected %d", ErrVersionConflict, lock, w.ExpectedLockVersion)
	default:
		return fmt.Errorf("%w: version %d is not above current version %d", ErrVersionConflict, w.Version, current)
	}
}

// GetArtifact returns artifact id of session sessionID, or ErrNotFound.
func (db *DB) GetArtifact(ctx context.Context, sessionID, id string) (Artifact, error) {
	a, err := scanArtifact(db.sql.QueryRowContext(ctx, `SELECT `+artifactCols+` FROM artifacts WHERE id = ? AND session_id = ?`, id, sessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return Artifact{}, fmt.Errorf("store: artifact %q in session %q: %w", id, sessionID, ErrNotFound)
	}
	if err != nil {
		return Artifact{}, fmt.Errorf("store: get artifact %q in session %q: %w", id, sessionID, err)
	}
	return a, nil
}

// ListArtifacts returns the artifacts of a session ordered by creation time (then insertion
// order), with content. An unknown session gives an empty slice.
func (db *DB) ListArtifacts(ctx context.Context, sessionID string) ([]Artifact, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+artifactCols+` FROM artifacts WHERE session_id = ? ORDER BY created_at, rowid`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: list artifacts of session %q: %w", sessionID, err)
	}
	defer rows.Close()
	var out []Artifact
	for rows.Next() {
		a, err := scanArtifact(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list artifacts of session %q: %w", sessionID, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list artifacts of session %q: %w", sessionID, err)
	}
	return out, nil
}

const versionInfoCols = `version, update_type, source, COALESCE(message_id, ''), length(CAST(content AS BLOB)), created_at`

func scanVersionInfo(v *VersionInfo, created *sql.NullString) []any {
	return []any{&v.Version, &v.UpdateType, &v.Source, &v.MessageID, &v.Size, created}
}

// ListVersions returns the versions of an artifact in ascending order without
// content. Errors: no such artifact → ErrNotFound.
func (db *DB) ListVersions(ctx context.Context, sessionID, id string) ([]VersionInfo, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+versionInfoCols+` FROM artifact_versions
		WHERE artifact_id = ? AND session_id = ? ORDER BY version`, id, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: list versions of artifact %q in session %q: %w", id, sessionID, err)
	}
	defer rows.Close()
	var out []VersionInfo
	for rows.Next() {
		var v VersionInfo
		var created sql.NullString
		if err := rows.Scan(scanVersionInfo(&v, &created)...); err != nil {
			return nil, fmt.Errorf("store: list versions of artifact %q in session %q: %w", id, sessionID, err)
		}
		if v.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("store: list versions of artifact %q in session %q: %w", id, sessionID, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list versions of artifact %q in session %q: %w", id, sessionID, err)
	}
	if len(out) == 0 {
		if _, err := db.GetArtifact(ctx, sessionID, id); err != nil {
			return nil, fmt.Errorf("store: list versions: %w", err)
		}
	}
	return out, nil
}

// GetVersion returns one stored version of an artifact with its content and changes.
// Errors: no such artifact or version → ErrNotFound.
func (db *DB) GetVersion(ctx context.Context, sessionID, id string, version int) (ArtifactVersion, error) {
	v := ArtifactVersion{ArtifactID: id, SessionID: sessionID}
	var created, changes sql.NullString
	dest := append(scanVersionInfo(&v.VersionInfo, &created), &v.Content, &changes)
	err := db.sql.QueryRowContext(ctx, `SELECT `+versionInfoCols+`, content, changes FROM artifact_versions
		WHERE artifact_id = ? AND session_id = ? AND version = ?`, id, sessionID, version).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return ArtifactVersion{}, fmt.Errorf("store: version %d of artifact %q in session %q: %w", version, id, sessionID, ErrNotFound)
	}
	if err != nil {
		return ArtifactVersion{}, fmt.Errorf("store: get version %d of artifact %q in session %q: %w", version, id, sessionID, err)
	}
	if v.CreatedAt, err = parseTime(created); err != nil {
		return ArtifactVersion{}, fmt.Errorf("store: get version %d of artifact %q: %w", version, id, err)
	}
	if changes.Valid {
		if err := json.Unmarshal([]byte(changes.String), &v.Changes); err != nil {
			return ArtifactVersion{}, fmt.Errorf("store: version %d of artifact %q: stored changes: %w", version, id, err)
		}
	}
	return v, nil
}

// DeleteArtifact removes artifact id of session sessionID and everything recorded for it,
// in one transaction: its versions (artifact_versions), the crash drafts runs left of it
// (artifact_drafts, any message) and the artifact row. The search index (search_fts)
// covers conversation titles and messages only, so no search row refers to an artifact.
// It returns the artifact as it was (content and Metadata included: an upload's metadata
// names its blob, which the caller may remove once BlobsInUse says nothing else uses it).
// Errors: no such artifact → ErrNotFound; the context's error and database errors,
// wrapped.
func (db *DB) DeleteArtifact(ctx context.Context, sessionID, id string) (Artifact, error) {
	var a Artifact
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = scanArtifact(tx.QueryRowContext(ctx, `SELECT `+artifactCols+` FROM artifacts WHERE id = ? AND session_id = ?`, id, sessionID))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM artifact_versions WHERE artifact_id = ? AND session_id = ?`, id, sessionID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM artifact_drafts WHERE conversation_id = ? AND artifact_id = ?`, sessionID, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM artifacts WHERE id = ? AND session_id = ?`, id, sessionID)
		return err
	})
	if err != nil {
		return Artifact{}, fmt.Errorf("store: delete artifact %q in session %q: %w", id, sessionID, err)
	}
	return a, nil
}

// UploadBySHA256 returns the oldest artifact of session sessionID whose metadata records
// an upload of the bytes with SHA-256 sha (lower-case hex, metadata "sha256"), so the same
// file uploaded again can be recognised. Errors: none → ErrNotFound; database errors,
// wrapped.
func (db *DB) UploadBySHA256(ctx context.Context, sessionID, sha string) (Artifact, error) {
	a, err := scanArtifact(db.sql.QueryRowContext(ctx, `SELECT `+artifactCols+` FROM artifacts
		WHERE session_id = ? AND json_valid(metadata) AND json_extract(metadata, '$.sha256') = ?
		ORDER BY created_at, rowid LIMIT 1`, sessionID, sha))
	if errors.Is(err, sql.ErrNoRows) {
		return Artifact{}, fmt.Errorf("store: upload %s in session %q: %w", sha, sessionID, ErrNotFound)
	}
	if err != nil {
		return Artifact{}, fmt.Errorf("store: upload %s in session %q: %w", sha, sessionID, err)
	}
	return a, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Status values of an IndexedFile (file_index_files.status, migration 0006).
const (
	// FileIndexed: the file's text is in the index.
	FileIndexed = "indexed"
	// FileSkipped: the file was left out by policy (too large, binary); Reason says why.
	FileSkipped = "skipped"
	// FileFailed: the file could not be read or converted; Reason says why.
	FileFailed = "failed"
)

// FileRoot is the file index of one conversation (file_index_roots): ID names it in the
// other calls; Workspace is the absolute folder its files were read from.
type FileRoot struct {
	ID             int64
	ConversationID string
	Workspace      string
	CreatedAt      time.Time
}

// IndexedFile is one file the indexer looked at (file_index_files). Path is the
// workspace-relative slash path (or a virtual path such as "@uploads/<id>" chosen by the
// caller); Ext the lower-case extension without the dot; Size (bytes) and ModTime
// (nanoseconds since 1970) what the file had when read; Status FileIndexed, FileSkipped or
// FileFailed with Reason; Lines and TextBytes the size of its text (0 unless indexed).
type IndexedFile struct {
	Path      string
	Ext       string
	Size      int64
	ModTime   int64
	Status    string
	Reason    string
	Lines     int
	TextBytes int
	IndexedAt time.Time
}

// FileChunk is one piece of an indexed file's text (file_index_chunks): Line is the 1-based
// line it starts on, Page its PDF page (0 for none), Text the piece itself (the pieces of a
// file, concatenated in order, are its whole text) and Terms what the full-text index is
// given for it (the text as the caller's segmenter wrote it; write only, never read back).
type FileChunk struct {
	Line  int
	Page  int
	Text  string
	Terms string
}

// FileWrite is one file to store with PutIndexedFiles: its row and, when indexed, its chunks
// in order.
type FileWrite struct {
	File   IndexedFile
	Chunks []FileChunk
}

// FileChunkHit is one chunk SearchFileChunks found: its file's Path and Ext, the chunk's
// Line, Page and Text, and its Score (FTS5 bm25 rank: lower is better).
type FileChunkHit struct {
	Path  string
	Ext   string
	Line  int
	Page  int
	Text  string
	Score float64
}

// FileIndexStats counts the files of one root: Indexed, Skipped and Failed by status,
// Bytes the total size on disk of the indexed files, ByExt the indexed files by extension,
// Uploads the indexed files whose path starts with "@uploads/" (the conversation's uploads).
type FileIndexStats struct {
	Indexed int
	Skipped int
	Failed  int
	Bytes   int64
	ByExt   map[string]int
	Uploads int
}

// FileRootOf returns the file index root of conversationID, creating it for workspace when
// there is none. When the root exists for another folder, it is emptied (every file and
// chunk dropped) and moved to workspace: the conversation's folder changed and everything
// is read again. workspace must be an absolute path.
//
// Errors: empty ids or workspace (ErrInvalid); ErrNotFound for an unknown conversation.
func (db *DB) FileRootOf(ctx context.Context, conversationID, workspace string) (FileRoot, error) {
	const op = "file index root of"
	if err := requireIDs(op, "conversation id", conversationID, "workspace", workspace); err != nil {
		return FileRoot{}, err
	}
	var root FileRoot
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		r, err := scanFileRoot(tx.QueryRowContext(ctx,
			`SELECT id, conversation_id, workspace, created_at FROM file_index_roots WHERE conversation_id = ?`, conversationID))
		switch {
		case err == nil && r.Workspace == workspace:
			root = r
			return nil
		case err == nil: // another folder: start over
			if _, err := tx.ExecContext(ctx, `DELETE FROM file_index_roots WHERE id = ?`, r.ID); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		at := now()
		res, err := tx.ExecContext(ctx, `INSERT INTO file_index_roots (conversation_id, workspace, created_at) VALUES (?, ?, ?)`,
			conversationID, workspace, formatTime(at))
		if err != nil {
			if isForeignKey(err) {
				return fmt.Errorf("conversation %q: %w", conversationID, ErrNotFound)
			}
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		root = FileRoot{ID: id, ConversationID: conversationID, Workspace: workspace, CreatedAt: at}
		return nil
	})
	if err != nil {
		return FileRoot{}, fmt.Errorf("store: %s %q: %w", op, conversationID, err)
	}
	return root, nil
}

// FileRoot returns the file index root of conversationID. Errors: ErrNotFound when the
// conversation has none (nothing was ever indexed for it) or does not exist.
func (db *DB) FileRoot(ctx context.Context, conversationID string) (FileRoot, error) {
	r, err := scanFileRoot(db.sql.QueryRowContext(ctx,
		`SELECT id, conversation_id, workspace, created_at FROM file_index_roots WHERE conversation_id = ?`, conversationID))
	if errors.Is(err, sql.ErrNoRows) {
		return FileRoot{}, fmt.Errorf("store: file index of %q: %w", conversationID, ErrNotFound)
	}
	if err != nil {
		return FileRoot{}, fmt.Errorf("store: file index of %q: %w", conversationID, err)
	}
	return r, nil
}

func scanFileRoot(row rowScanner) (FileRoot, error) {
	var r FileRoot
	var at sql.NullString
	if err := row.Scan(&r.ID, &r.ConversationID, &r.Workspace, &at); err != nil {
		return FileRoot{}, err
	}
	t, err := parseTime(at)
	r.CreatedAt = t
	return r, err
}

// IndexedFiles returns every file row of root, by path. Chunks are not read.
func (db *DB) IndexedFiles(ctx context.Context, rootID int64) ([]IndexedFile, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT path, ext, size, mod_time, status, reason, lines, text_bytes, indexed_at
		FROM file_index_files WHERE root_id = ? ORDER BY path`, rootID)
	if err != nil {
		return nil, fmt.Errorf("store: indexed files of root %d: %w", rootID, err)
	}
	defer rows.Close()
	var out []IndexedFile
	for rows.Next() {
		f, err := scanIndexedFile(rows)
		if err != nil {
			return nil, fmt.Errorf("store: indexed files of root %d: %w", rootID, err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: indexed files of root %d: %w", rootID, err)
	}
	return out, nil
}

func scanIndexedFile(row rowScanner, extra ...any) (IndexedFile, error) {
	var f IndexedFile
	var at sql.NullString
	if err := row.Scan(append([]any{&f.Path, &f.Ext, &f.Size, &f.ModTime, &f.Status, &f.Reason, &f.Lines, &f.TextBytes, &at}, extra...)...); err != nil {
		return IndexedFile{}, err
	}
	t, err := parseTime(at)
	f.IndexedAt = t
	return f, err
}

// PutIndexedFiles stores files in root in one transaction: each replaces the row of the
// same path (its old chunks leave the index) and, when its status is FileIndexed, adds its
// chunks in order. IndexedAt zero means now. Errors: an empty path or an unknown status
// (ErrInvalid; nothing is written); ErrNotFound when the root no longer exists (its
// conversation was deleted or its folder changed meanwhile).
func (db *DB) PutIndexedFiles(ctx context.Context, rootID int64, files []FileWrite) error {
	for _, w := range files {
		if w.File.Path == "" {
			return fmt.Errorf("store: put indexed files: empty path: %w", ErrInvalid)
		}
		switch w.File.Status {
		case FileIndexed, FileSkipped, FileFailed:
		default:
			return fmt.Errorf("store: put indexed file %q: unknown status %q: %w", w.File.Path, w.File.Status, ErrInvalid)
		}
	}
	if len(files) == 0 {
		return nil
	}
	token := rootToken(rootID)
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		del, err := tx.PrepareContext(ctx, `DELETE FROM file_index_files WHERE root_id = ? AND path = ?`)
		if err != nil {
			return err
		}
		defer del.Close()
		ins, err := tx.PrepareContext(ctx, `INSERT INTO file_index_files
			(root_id, path, ext, size, mod_time, status, reason, lines, text_bytes, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		chunk, err := tx.PrepareContext(ctx, `INSERT INTO file_index_chunks (file_id, seq, line, page, text) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer chunk.Close()
		fts, err := tx.PrepareContext(ctx, `INSERT INTO file_index_fts (rowid, root, body) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer fts.Close()
		at := formatTime(now())
		for _, w := range files {
			f := w.File
			if _, err := del.ExecContext(ctx, rootID, f.Path); err != nil {
				return fmt.Errorf("replace %q: %w", f.Path, err)
			}
			when := at
			if !f.IndexedAt.IsZero() {
				when = formatTime(f.IndexedAt)
			}
			res, err := ins.ExecContext(ctx, rootID, f.Path, f.Ext, f.Size, f.ModTime, f.Status, f.Reason, f.Lines, f.TextBytes, when)
			if err != nil {
				if isForeignKey(err) {
					return fmt.Errorf("root %d: %w", rootID, ErrNotFound)
				}
				return fmt.Errorf("insert %q: %w", f.Path, err)
			}
			if f.Status != FileIndexed {
				continue
			}
			fileID, err := res.LastInsertId()
			if err != nil {
				return err
			}
			for i, c := range w.Chunks {
				r, err := chunk.ExecContext(ctx, fileID, i, c.Line, c.Page, c.Text)
				if err != nil {
					return fmt.Errorf("insert a chunk of %q: %w", f.Path, err)
				}
				id, err := r.LastInsertId()
				if err != nil {
					return err
				}
				if _, err := fts.ExecContext(ctx, id, token, c.Terms); err != nil {
					return fmt.Errorf("index a chunk of %q: %w", f.Path, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: put indexed files in root %d: %w", rootID, err)
	}
	return nil
}

// DeleteIndexedFiles removes the rows of paths from root (their chunks leave the index).
// Paths not in the root are ignored.
func (db *DB) DeleteIndexedFiles(ctx context.Context, rootID int64, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		del, err := tx.PrepareContext(ctx, `DELETE FROM file_index_files WHERE root_id = ? AND path = ?`)
		if err != nil {
			return err
		}
		defer del.Close()
		for _, p := range paths {
			if _, err := del.ExecContext(ctx, rootID, p); err != nil {
				return fmt.Errorf("%q: %w", p, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: delete indexed files of root %d: %w", rootID, err)
	}
	return nil
}

// SearchFileChunks returns up to limit chunks of root matching bodyMatch, best first
// (FTS5 bm25 over the chunk text). bodyMatch is an FTS5 query expression over the chunk
// terms that the caller built (backend/localfiles quotes every term of the user's text);
// it is confined to the body column and to root by this function. Errors: a malformed
// expression (the SQLite error, wrapped); limit < 1 (ErrInvalid).
func (db *DB) SearchFileChunks(ctx context.Context, rootID int64, bodyMatch string, limit int) ([]FileChunkHit, error) {
	if limit < 1 {
		return nil, fmt.Errorf("store: search files: limit %d: %w", limit, ErrInvalid)
	}
	match := `root : "` + rootToken(rootID) + `" AND body : (` + bodyMatch + `)`
	rows, err := db.sql.QueryContext(ctx, `
		SELECT f.path, f.ext, c.line, c.page, c.text, m.score
		FROM (SELECT rowid AS id, rank AS score FROM file_index_fts WHERE file_index_fts MATCH ? ORDER BY rank LIMIT ?) m
		JOIN file_index_chunks c ON c.id = m.id
		JOIN file_index_files f ON f.id = c.file_id
		ORDER BY m.score, f.path, c.seq`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("store: search files of root %d for %s: %w", rootID, bodyMatch, err)
	}
	defer rows.Close()
	var out []FileChunkHit
	for rows.Next() {
		var h FileChunkHit
		if err := rows.Scan(&h.Path, &h.Ext, &h.Line, &h.Page, &h.Text, &h.Score); err != nil {
			return nil, fmt.Errorf("store: search files of root %d: %w", rootID, err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search files of root %d for %s: %w", rootID, bodyMatch, err)
	}
	return out, nil
}

// IndexedFile returns the row of one file of root. Errors: ErrNotFound.
func (db *DB) IndexedFile(ctx context.Context, rootID int64, path string) (IndexedFile, error) {
	f, err := scanIndexedFile(db.sql.QueryRowContext(ctx, `SELECT path, ext, size, mod_time, status, reason, lines, text_bytes, indexed_at
		FROM file_index_files WHERE root_id = ? AND path = ?`, rootID, path))
	if errors.Is(err, sql.ErrNoRows) {
		return IndexedFile{}, fmt.Errorf("store: indexed file %q: %w", path, ErrNotFound)
	}
	if err != nil {
		return IndexedFile{}, fmt.Errorf("store: indexed file %q: %w", path, err)
	}
	return f, nil
}

// FileChunks returns, in order, the chunks of an indexed file of root that hold lines
// fromLine to toLine (1-based, inclusive; the first chunk may start before fromLine and
// the last end after toLine). A line longer than a chunk is split over several chunks
// with the same Line; the first returned is the one its text starts in. Terms is left
// empty. A file that is not indexed gives no chunks and no error.
func (db *DB) FileChunks(ctx context.Context, rootID int64, path string, fromLine, toLine int) ([]FileChunk, error) {
	rows, err := db.sql.QueryContext(ctx, `
		WITH f AS (SELECT id FROM file_index_files WHERE root_id = ? AND path = ?),
		start AS (SELECT MAX(line) AS line FROM file_index_chunks WHERE file_id = (SELECT id FROM f) AND line <= ?),
		first AS (SELECT COALESCE(MIN(seq), 0) AS seq FROM file_index_chunks
			WHERE file_id = (SELECT id FROM f) AND line = (SELECT line FROM start))
		SELECT line, page, text FROM file_index_chunks
		WHERE file_id = (SELECT id FROM f) AND seq >= (SELECT seq FROM first) AND line <= ?
		ORDER BY seq`, rootID, path, fromLine, toLine)
	if err != nil {
		return nil, fmt.Errorf("store: chunks of %q: %w", path, err)
	}
	defer rows.Close()
	var out []FileChunk
	for rows.Next() {
		var c FileChunk
		if err := rows.Scan(&c.Line, &c.Page, &c.Text); err != nil {
			return nil, fmt.Errorf("store: chunks of %q: %w", path, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: chunks of %q: %w", path, err)
	}
	return out, nil
}

// FileIndexStats counts the files of root by status and the indexed ones by extension.
func (db *DB) FileIndexStats(ctx context.Context, rootID int64) (FileIndexStats, error) {
	st := FileIndexStats{ByExt: map[string]int{}}
	rows, err := db.sql.QueryContext(ctx, `SELECT status, ext, substr(path, 1, 9) = '@uploads/', count(*), COALESCE(SUM(size), 0)
		FROM file_index_files WHERE root_id = ? GROUP BY 1, 2, 3`, rootID)
	if err != nil {
		return st, fmt.Errorf("store: file index stats of root %d: %w", rootID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var status, ext string
		var upload bool
		var n int
		var size int64
		if err := rows.Scan(&status, &ext, &upload, &n, &size); err != nil {
			return st, fmt.Errorf("store: file index stats of root %d: %w", rootID, err)
		}
		switch status {
		case FileIndexed:
			st.Indexed += n
			st.Bytes += size
			st.ByExt[ext] += n
			if upload {
				st.Uploads += n
			}
		case FileSkipped:
			st.Skipped += n
		case FileFailed:
			st.Failed += n
		}
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("store: file index stats of root %d: %w", rootID, err)
	}
	return st, nil
}

// UnindexedFiles returns the files of root that were skipped or failed, by path, at most
// limit of them (all when limit <= 0).
func (db *DB) UnindexedFiles(ctx context.Context, rootID int64, limit int) ([]IndexedFile, error) {
	q := `SELECT path, ext, size, mod_time, status, reason, lines, text_bytes, indexed_at
		FROM file_index_files WHERE root_id = ? AND status != 'indexed' ORDER BY path`
	args := []any{rootID}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unindexed files of root %d: %w", rootID, err)
	}
	defer rows.Close()
	var out []IndexedFile
	for rows.Next() {
		f, err := scanIndexedFile(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unindexed files of root %d: %w", rootID, err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unindexed files of root %d: %w", rootID, err)
	}
	return out, nil
}

// rootToken is the token of root id in the index's root column ("r42"): one unicode61
// token, which porter leaves alone.
func rootToken(id int64) string { return "r" + strconv.FormatInt(id, 10) }

// UploadInfo describes an uploaded artifact of a conversation without its content: its
// artifact ID, Title (the original file name), ContentType ("binary" when its text could
// not be read), Size (bytes of its stored text) and UpdatedAt (changes with every new
// version).
type UploadInfo struct {
	ID          string
	Title       string
	ContentType string
	Size        int
	UpdatedAt   time.Time
}

// UploadInfos returns the artifacts of conversationID that were uploaded (source
// "user_upload"), by id, without their content. An unknown conversation has none.
func (db *DB) UploadInfos(ctx context.Context, conversationID string) ([]UploadInfo, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, title, content_type, length(CAST(content AS BLOB)), updated_at
		FROM artifacts WHERE session_id = ? AND source = 'user_upload' ORDER BY id`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("store: uploads of %q: %w", conversationID, err)
	}
	defer rows.Close()
	var out []UploadInfo
	for rows.Next() {
		var u UploadInfo
		var at sql.NullString
		if err := rows.Scan(&u.ID, &u.Title, &u.ContentType, &u.Size, &at); err != nil {
			return nil, fmt.Errorf("store: uploads of %q: %w", conversationID, err)
		}
		if u.UpdatedAt, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: uploads of %q: %w", conversationID, err)
	}
	return out, nil
}

-- 0006_file_index: the full-text index of each conversation's local files:
-- the files of its workspace folder and the text of its uploads, searched by the agents'
-- search_files tool and read back by read_file (backend/localfiles).
--
-- file_index_roots: one per conversation; workspace is the absolute folder its rows were
-- read from (a different folder means the rows are dropped and read again). Root ids are
-- never reused (AUTOINCREMENT), so a pass still writing for a dropped root fails instead
-- of filling its successor.
--
-- file_index_files: one row per file the indexer looked at. path is the workspace-relative
-- slash path, or "@uploads/<artifact id>" for an upload's stored text. ext is the lower-case
-- extension without the dot ("md", "pdf", "go"). size (bytes) and mod_time (nanoseconds
-- since 1970) are what the file had when read: a file whose size and mod_time are unchanged
-- is not read again. status: 'indexed' (its text is in the chunks below), 'skipped' (by
-- policy: too large, binary; reason says why) or 'failed' (it could not be read; reason
-- says why). lines counts the text's lines, text_bytes its bytes.
--
-- file_index_chunks: the text of an indexed file in order, cut at line ends into pieces of
-- a few KB (and at every "[Page N]" marker of PDF text): concatenated by seq they are the
-- whole text. line is the 1-based line the chunk starts on, page the PDF page it is on
-- (0 when the file has no pages).
--
-- file_index_fts: the full-text index of the chunks (rowid = chunk id), contentless (the
-- text is in file_index_chunks). Column root holds the token "r<root id>", so a search is
-- confined to one conversation by the index itself; column body holds the chunk's text with
-- every run of Chinese, Japanese or Korean characters written as its overlapping
-- two-character pieces and its last character (数据库 -> "数据 据库 库"), so that the
-- unicode61 tokenizer (which otherwise keeps such a run as one token) finds a two-character
-- word inside a longer run. porter folds English inflections (index, indexing, indexes);
-- case and diacritics are folded. The rank ignores the root column. See
-- backend/localfiles for why this was chosen over the trigram tokenizer.
CREATE TABLE file_index_roots (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL UNIQUE REFERENCES conversations(id) ON DELETE CASCADE,
    workspace       TEXT NOT NULL,
    created_at      TEXT NOT NULL
);

CREATE TABLE file_index_files (
    id         INTEGER PRIMARY KEY,
    root_id    INTEGER NOT NULL REFERENCES file_index_roots(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    ext        TEXT NOT NULL DEFAULT '',
    size       INTEGER NOT NULL,
    mod_time   INTEGER NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('indexed', 'skipped', 'failed')),
    reason     TEXT NOT NULL DEFAULT '',
    lines      INTEGER NOT NULL DEFAULT 0,
    text_bytes INTEGER NOT NULL DEFAULT 0,
    indexed_at TEXT NOT NULL,
    UNIQUE (root_id, path)
);

CREATE TABLE file_index_chunks (
    id      INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES file_index_files(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    line    INTEGER NOT NULL,
    page    INTEGER NOT NULL DEFAULT 0,
    text    TEXT NOT NULL,
    UNIQUE (file_id, seq)
);

CREATE VIRTUAL TABLE file_index_fts USING fts5(
    root, body,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO file_index_fts (file_index_fts, rank) VALUES ('rank', 'bm25(0.0, 1.0)');

-- A chunk leaves the index with its row, also when a file, root or conversation is deleted
-- (foreign-key cascades fire this trigger).
CREATE TRIGGER file_index_chunks_ad AFTER DELETE ON file_index_chunks BEGIN
    DELETE FROM file_index_fts WHERE rowid = old.id;
END;

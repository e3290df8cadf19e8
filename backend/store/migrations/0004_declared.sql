-- 0004_declared: declared artifacts (links and files, not content) and the conversation's workspace folder.
--
-- declared_artifacts: links and files registered by record_artifact, hooks and local
-- clients; one row per (conversation, location). id is the public id (a hash of
-- identity_key, which is "conversation:workspace|managed|url:value"). The public fields
-- are what the local API returns for an artifact; the others are internal:
--   client_id        the first writer's client (never exposed)
--   client_retained  1 once any client registered the location (eviction spares it last)
--   retained_by      JSON array of the ids of the clients that registered it (who may
--                    remove it)
--   retention_source the first writer's source; its quota bucket, never changed
--   insert_seq       per-conversation insertion order, set once (eviction tiebreaker)
--   last_stat_at     when the workspace file was last stat'ed (status refresh on list)
-- size_bytes is NULL when unknown; missing_reason is NULL while status is available.
CREATE TABLE declared_artifacts (
    conversation_id  TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    id               TEXT NOT NULL,
    identity_key     TEXT NOT NULL,
    kind             TEXT NOT NULL,
    storage          TEXT NOT NULL,
    title            TEXT NOT NULL,
    description      TEXT,
    status           TEXT NOT NULL,
    missing_reason   TEXT,
    source           TEXT NOT NULL,
    workspace_path   TEXT,
    managed_id       TEXT,
    url              TEXT,
    mime_type        TEXT,
    size_bytes       INTEGER,
    tool_call_id     TEXT,
    tool_name        TEXT,
    hook_name        TEXT,
    client_id        TEXT,
    client_retained  INTEGER NOT NULL DEFAULT 0,
    retained_by      TEXT,
    retention_source TEXT NOT NULL,
    insert_seq       INTEGER NOT NULL,
    metadata         TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    last_stat_at     TEXT,
    PRIMARY KEY (conversation_id, id),
    UNIQUE (conversation_id, identity_key)
);
CREATE INDEX idx_declared_artifacts_order ON declared_artifacts(conversation_id, created_at, insert_seq);
CREATE INDEX idx_declared_artifacts_insert_seq ON declared_artifacts(conversation_id, insert_seq);

-- declared_changes: the append-only log of declared-artifact changes (created, updated,
-- removed), one JSON object per change; seq orders them and lets a client resume an event
-- stream (Last-Event-ID). Appending prunes a conversation's log to its last 1,000 rows.
CREATE TABLE declared_changes (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    change          TEXT NOT NULL,
    created_at      TEXT NOT NULL
);
CREATE INDEX idx_declared_changes_conversation_seq ON declared_changes(conversation_id, seq);

-- The folder the user chose for the conversation's workspace; NULL means the default,
-- <data-dir>/workspaces/<conversation-id>/.
ALTER TABLE conversations ADD COLUMN workspace TEXT;

-- 0001_init: the data layer (conversations, messages, artifacts and their versions) plus the
-- append-only event table that history is rebuilt from.
-- Table and column names are a contract with the rest of the app (docs/ARCHITECTURE.md,
-- "Contracts other code relies on"):
-- extend through new numbered migrations, never rename.
-- Times are UTC RFC 3339 text with a fixed 9-digit fraction, so text order is time order.
-- JSON columns (metadata, changes) hold JSON text or NULL.

CREATE TABLE conversations (
    id            TEXT PRIMARY KEY,
    title         TEXT NOT NULL DEFAULT '',
    active_branch TEXT,
    user_id       TEXT,
    created_at    TEXT,
    updated_at    TEXT,
    metadata      TEXT
);
CREATE INDEX idx_conversations_updated_at ON conversations(updated_at);
CREATE INDEX idx_conversations_user_id ON conversations(user_id);

-- Messages form a tree through parent_id (NULL = root); content is the user's text and
-- graph_response the final answer. status follows the run: running until a terminal state;
-- 'interrupted' marks runs that were still running when the app stopped.
CREATE TABLE messages (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    parent_id       TEXT,
    content         TEXT NOT NULL,
    thread_id       TEXT NOT NULL DEFAULT '',
    graph_response  TEXT,
    status          TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'complete', 'cancelled', 'error', 'interrupted')),
    error           TEXT,
    created_at      TEXT,
    updated_at      TEXT,
    metadata        TEXT
);
CREATE INDEX idx_messages_conversation_created ON messages(conversation_id, created_at);
CREATE INDEX idx_messages_parent_id ON messages(parent_id);

-- The append-only event log of every run; seq increases per conversation.
CREATE TABLE message_events (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    type            TEXT NOT NULL,
    agent_name      TEXT NOT NULL DEFAULT '',
    data            TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    UNIQUE (conversation_id, seq)
);
CREATE INDEX idx_message_events_message_seq ON message_events(message_id, seq);

-- One artifact session per conversation, sharing its id.
CREATE TABLE artifact_sessions (
    id         TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
    created_at TEXT,
    updated_at TEXT
);

-- lock_version is the optimistic lock; current_version is the newest row in
-- artifact_versions (versions are sparse: only flushed states are recorded).
CREATE TABLE artifacts (
    id              TEXT NOT NULL,
    session_id      TEXT NOT NULL REFERENCES artifact_sessions(id) ON DELETE CASCADE,
    content_type    TEXT NOT NULL,
    title           TEXT NOT NULL,
    content         TEXT NOT NULL DEFAULT '',
    current_version INTEGER NOT NULL DEFAULT 1,
    lock_version    INTEGER NOT NULL DEFAULT 1,
    source          TEXT NOT NULL DEFAULT 'agent',
    created_at      TEXT,
    updated_at      TEXT,
    metadata        TEXT,
    PRIMARY KEY (id, session_id)
);
CREATE INDEX idx_artifacts_session_created ON artifacts(session_id, created_at);

-- update_type is one of create, update, update_fuzzy, rewrite, user_edit, restore, upload
-- (checked by the store code, so new kinds need no table rebuild); changes is a JSON array
-- of {"old": ..., "new": ...}.
CREATE TABLE artifact_versions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    artifact_id TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    version     INTEGER NOT NULL,
    content     TEXT NOT NULL,
    update_type TEXT NOT NULL,
    changes     TEXT,
    message_id  TEXT,
    source      TEXT NOT NULL DEFAULT 'agent',
    created_at  TEXT,
    UNIQUE (artifact_id, session_id, version),
    FOREIGN KEY (artifact_id, session_id) REFERENCES artifacts(id, session_id) ON DELETE CASCADE
);

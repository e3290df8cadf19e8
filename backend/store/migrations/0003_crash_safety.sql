-- 0003_crash_safety: what lets a crash lose at most the tool round in flight.
--
-- artifact_drafts: the run's write-back cache, checkpointed after every completed tool
-- round. A finished run deletes its drafts when its flush succeeds; drafts of a run that
-- never finished (the app was killed) are offered to the user. version is the in-memory
-- version, base_version the stored current_version the run started from
-- (0 = created by the run).
CREATE TABLE artifact_drafts (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    artifact_id     TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    content_type    TEXT NOT NULL,
    title           TEXT NOT NULL,
    content         TEXT NOT NULL,
    source          TEXT NOT NULL DEFAULT 'agent',
    version         INTEGER NOT NULL,
    base_version    INTEGER NOT NULL,
    update_type     TEXT NOT NULL,
    changes         TEXT,
    updated_at      TEXT NOT NULL,
    PRIMARY KEY (conversation_id, artifact_id, message_id)
);
CREATE INDEX idx_artifact_drafts_message ON artifact_drafts(message_id);

-- instances: each process that runs research (window, serve, ask) beats here every few
-- seconds; messages.owner names the instance running them. A running message whose owner
-- stopped beating is interrupted, so two processes on one data dir never mark each
-- other's live runs interrupted.
CREATE TABLE instances (
    id           TEXT PRIMARY KEY,
    pid          INTEGER NOT NULL,
    started_at   TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL
);
ALTER TABLE messages ADD COLUMN owner TEXT;

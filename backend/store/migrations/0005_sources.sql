-- 0005_sources: the conversation's numbered source list: every search result,
-- fetched page and local-file hit an agent saw, cited as [n] in answers and reports.
--
-- sources: one row per (conversation, n); n starts at 1 per conversation, is assigned
-- once and never changes or is reused. kind is 'web' (location: absolute URL, the final
-- one for a fetched page) or 'file' (location: workspace-relative slash path). fetched is
-- 1 once the page or file was read. message_id is the run that first recorded it (not a
-- foreign key: the source outlives a deleted branch). page and line are 0 when unknown.
CREATE TABLE sources (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    n               INTEGER NOT NULL CHECK (n > 0),
    kind            TEXT NOT NULL,
    location        TEXT NOT NULL,
    title           TEXT NOT NULL DEFAULT '',
    site            TEXT NOT NULL DEFAULT '',
    excerpt         TEXT NOT NULL DEFAULT '',
    published       TEXT NOT NULL DEFAULT '',
    page            INTEGER NOT NULL DEFAULT 0,
    line            INTEGER NOT NULL DEFAULT 0,
    fetched         INTEGER NOT NULL DEFAULT 0,
    message_id      TEXT NOT NULL DEFAULT '',
    added_at        TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    PRIMARY KEY (conversation_id, n)
);

-- source_keys: the names of a source (sources.Key of its location, and of the URL a
-- redirected fetch asked for), so the same page keeps one number. The primary key is the
-- unique index the upsert relies on.
CREATE TABLE source_keys (
    conversation_id TEXT NOT NULL,
    key             TEXT NOT NULL,
    n               INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, key),
    FOREIGN KEY (conversation_id, n) REFERENCES sources(conversation_id, n) ON DELETE CASCADE
);

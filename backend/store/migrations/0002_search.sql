-- 0002_search: full-text search over conversation titles and message text
-- and an index for paging the history of one branch.
--
-- search_fts is an FTS5 table with the trigram tokenizer: it matches any substring of three
-- or more characters, so Chinese and Japanese text, which has no spaces between words, is
-- searchable without a word segmenter. remove_diacritics makes "cafe" match "café"; case is
-- folded. It holds its own copy of the text (needed for snippets and for LIKE on terms
-- shorter than three characters) and is kept in sync by the triggers below.
--
-- Each search document is either a conversation's title (message_id = '') or one message
-- (content = the user's text, response = graph_response). search_docs maps a document to its
-- FTS rowid (docid). The rowid is kept here, as an INTEGER PRIMARY KEY that VACUUM never
-- renumbers, instead of reusing the implicit rowids of conversations and messages, which
-- VACUUM may change (their primary keys are TEXT).

CREATE TABLE search_docs (
    docid           INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    message_id      TEXT NOT NULL DEFAULT '',
    UNIQUE (conversation_id, message_id)
);

CREATE VIRTUAL TABLE search_fts USING fts5(
    title, content, response,
    tokenize = 'trigram remove_diacritics 1'
);

-- Backfill what earlier versions stored.
INSERT INTO search_docs (conversation_id, message_id) SELECT id, '' FROM conversations;
INSERT INTO search_docs (conversation_id, message_id) SELECT conversation_id, id FROM messages;
INSERT INTO search_fts (rowid, title)
    SELECT d.docid, c.title FROM search_docs d JOIN conversations c ON c.id = d.conversation_id
    WHERE d.message_id = '';
INSERT INTO search_fts (rowid, content, response)
    SELECT d.docid, m.content, COALESCE(m.graph_response, '') FROM search_docs d JOIN messages m
        ON m.conversation_id = d.conversation_id AND m.id = d.message_id;

CREATE TRIGGER search_conversations_ai AFTER INSERT ON conversations BEGIN
    INSERT INTO search_docs (conversation_id, message_id) VALUES (new.id, '');
    INSERT INTO search_fts (rowid, title)
        VALUES ((SELECT docid FROM search_docs WHERE conversation_id = new.id AND message_id = ''), new.title);
END;

CREATE TRIGGER search_conversations_au AFTER UPDATE OF title ON conversations BEGIN
    UPDATE search_fts SET title = new.title
        WHERE rowid = (SELECT docid FROM search_docs WHERE conversation_id = old.id AND message_id = '');
END;

-- Removes the title document and every message document of the conversation (the messages
-- themselves go by ON DELETE CASCADE; their own trigger below finds nothing left to do).
CREATE TRIGGER search_conversations_ad AFTER DELETE ON conversations BEGIN
    DELETE FROM search_fts WHERE rowid IN (SELECT docid FROM search_docs WHERE conversation_id = old.id);
    DELETE FROM search_docs WHERE conversation_id = old.id;
END;

CREATE TRIGGER search_messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO search_docs (conversation_id, message_id) VALUES (new.conversation_id, new.id);
    INSERT INTO search_fts (rowid, content, response)
        VALUES ((SELECT docid FROM search_docs WHERE conversation_id = new.conversation_id AND message_id = new.id),
                new.content, COALESCE(new.graph_response, ''));
END;

CREATE TRIGGER search_messages_au AFTER UPDATE OF content, graph_response ON messages BEGIN
    UPDATE search_fts SET content = new.content, response = COALESCE(new.graph_response, '')
        WHERE rowid = (SELECT docid FROM search_docs WHERE conversation_id = old.conversation_id AND message_id = old.id);
END;

CREATE TRIGGER search_messages_ad AFTER DELETE ON messages BEGIN
    DELETE FROM search_fts
        WHERE rowid = (SELECT docid FROM search_docs WHERE conversation_id = old.conversation_id AND message_id = old.id);
    DELETE FROM search_docs WHERE conversation_id = old.conversation_id AND message_id = old.id;
END;

-- 0007_search_artifacts: the sidebar search also finds a conversation by the text of its
-- artifacts, as well as by its questions and answers.
--
-- Each artifact is one more search document of its conversation (the artifact session's id
-- is the conversation id): search_docs.message_id is 'artifact:' followed by the artifact
-- id (message ids never start with it), search_fts.title holds the artifact's title and
-- search_fts.response its current content, so an artifact ranks like an answer with a
-- title. Only the current content is indexed: older versions are history, and searching
-- them would find conversations by text their reports no longer hold.
--
-- A deleted conversation loses these documents through search_conversations_ad of 0002
-- (it removes every document of the conversation); the artifact trigger below covers an
-- artifact deleted on its own.

INSERT INTO search_docs (conversation_id, message_id) SELECT session_id, 'artifact:' || id FROM artifacts;
INSERT INTO search_fts (rowid, title, response)
    SELECT d.docid, a.title, a.content FROM search_docs d JOIN artifacts a
        ON a.session_id = d.conversation_id AND d.message_id = 'artifact:' || a.id;

CREATE TRIGGER search_artifacts_ai AFTER INSERT ON artifacts BEGIN
    INSERT INTO search_docs (conversation_id, message_id) VALUES (new.session_id, 'artifact:' || new.id);
    INSERT INTO search_fts (rowid, title, response)
        VALUES ((SELECT docid FROM search_docs WHERE conversation_id = new.session_id AND message_id = 'artifact:' || new.id),
                new.title, new.content);
END;

CREATE TRIGGER search_artifacts_au AFTER UPDATE OF title, content ON artifacts BEGIN
    UPDATE search_fts SET title = new.title, response = new.content
        WHERE rowid = (SELECT docid FROM search_docs WHERE conversation_id = old.session_id AND message_id = 'artifact:' || old.id);
END;

CREATE TRIGGER search_artifacts_ad AFTER DELETE ON artifacts BEGIN
    DELETE FROM search_fts
        WHERE rowid = (SELECT docid FROM search_docs WHERE conversation_id = old.session_id AND message_id = 'artifact:' || old.id);
    DELETE FROM search_docs WHERE conversation_id = old.session_id AND message_id = 'artifact:' || old.id;
END;

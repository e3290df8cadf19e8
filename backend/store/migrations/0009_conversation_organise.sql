-- 0009_conversation_organise: pinned and archived conversations, and who wrote a title.
--
-- conversations.pinned_at is when the user pinned the conversation (NULL: not pinned); the
-- sidebar lists pinned conversations in a group above the others. conversations.archived_at
-- is when the user archived it (NULL: not archived); archived conversations leave the main
-- list for a collapsed "Archived" group, from which they are restored. Neither changes
-- updated_at, so pinning or archiving does not reorder the list.
--
-- conversations.title_source says who wrote the title: 'question' (made from the first
-- question when the conversation was created: the model may replace it once the first run
-- completes), 'model' (written by the sub-agents' model), 'user' (a rename; never replaced).
-- NULL for conversations from before this column, whose titles are kept as they are.
ALTER TABLE conversations ADD COLUMN pinned_at TEXT;
ALTER TABLE conversations ADD COLUMN archived_at TEXT;
ALTER TABLE conversations ADD COLUMN title_source TEXT;

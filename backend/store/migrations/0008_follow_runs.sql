-- 0008_follow_runs: a process can follow and stop a run another process on the same data
-- directory holds (the window showing, and stopping, a run `artifactflow ask` started).
--
-- messages.started_by is the instance that started the message's run (its first owner);
-- unlike owner, which ReleaseRun clears when the run ends, it stays, so a follower can tell
-- another process's events from its own even after that run has ended (a run that starts
-- and ends between two looks). Messages of older versions have none.
--
-- messages.stop_requested_at is set by the process that asks (store.RequestStop) on a
-- running message another instance holds (messages.owner); the owner reads its requests a
-- few times a second (store.StopRequests) and stops the run as its own Stop button would.
-- Followers list the held messages (store.HeldRuns) as often, hence the partial index on
-- owner: only claimed messages are in it, a handful at any time.
ALTER TABLE messages ADD COLUMN started_by TEXT;
ALTER TABLE messages ADD COLUMN stop_requested_at TEXT;
CREATE INDEX idx_messages_owner ON messages(owner) WHERE owner IS NOT NULL;

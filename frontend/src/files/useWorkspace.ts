// The open conversation's workspace folder and the progress of its local-file index, for
// the workspace bar: a status from the store when the conversation opens, after a
// reconnect and when a pass ends, kept live in between by index_progress events.

import { useCallback, useEffect, useRef, useState } from 'react';
import { toApiError } from '../api/call';
import {
  chooseWorkspace,
  getWorkspaceStatus,
  reindexWorkspace,
  resetWorkspace,
  workspaceFailures,
  type IndexFailure,
  type IndexProgress,
  type WorkspaceStatus,
} from '../api/conversations';
import { isBrowserMode, onIndexProgress, onReconnect } from '../api/runtime';

/** What useWorkspace gives the workspace bar. */
export interface WorkspaceState {
  /** The open conversation's status; null while it loads and with no conversation open. */
  status: WorkspaceStatus | null;
  /** The latest progress of a pass of this conversation (live), or null. */
  progress: IndexProgress | null;
  /** A pass is running (from the status or the latest event). */
  indexing: boolean;
  /** Whether a folder can be chosen here (the desktop window); false in browser mode. */
  canChoose: boolean;
  /** A choose, re-index or reset call is in flight. */
  busy: boolean;
  /** The last call's error message, "" for none. */
  error: string;
  /** The files the index left out, once asked for with loadFailures (null before). */
  failures: IndexFailure[] | null;
  /** Opens the folder dialog; a folder chosen with no conversation open starts one. */
  choose: () => void;
  /** Indexes the folder again, failed files included. */
  reindex: () => void;
  /** Goes back to the default folder. */
  reset: () => void;
  /** Loads the list of files left out. */
  loadFailures: () => void;
}

/**
 * Keeps the workspace status of `conversationId` (null: none open). `onConversation` is
 * called with the id of a conversation that choosing a folder started (no conversation was
 * open), so the caller can open it.
 */
export function useWorkspace(conversationId: string | null, onConversation?: (id: string) => void): WorkspaceState {
  const [status, setStatus] = useState<WorkspaceStatus | null>(null);
  const [progress, setProgress] = useState<{ conversationId: string; p: IndexProgress } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setErrorFor] = useState<{ conversationId: string | null; message: string }>({ conversationId: null, message: '' });
  const [failures, setFailures] = useState<{ conversationId: string; items: IndexFailure[] } | null>(null);
  const [tick, setTick] = useState(0);
  const current = useRef(conversationId);
  useEffect(() => {
    current.current = conversationId;
  }, [conversationId]);
  // An error belongs to the conversation it happened in.
  const setError = useCallback((message: string) => setErrorFor({ conversationId: current.current, message }), []);

  useEffect(() => {
    if (conversationId === null) return;
    let stale = false;
    getWorkspaceStatus(conversationId).then(
      (st) => {
        if (!stale) setStatus(st);
      },
      (e: unknown) => {
        const err = toApiError(e);
        if (!stale && err.code !== 'unsupported' && err.code !== 'unavailable') setError(err.message);
      },
    );
    return () => {
      stale = true;
    };
  }, [conversationId, tick, setError]);

  useEffect(
    () =>
      onIndexProgress((id, p) => {
        if (id !== current.current) return;
        setProgress({ conversationId: id, p });
        if (p.phase === 'done') {
          setFailures(null);
          setTick((t) => t + 1); // the counts changed: reload them
        }
      }),
    [],
  );
  useEffect(() => onReconnect(() => setTick((t) => t + 1)), []);

  const act = useCallback(
    (fn: (id: string) => Promise<WorkspaceStatus>, id: string) => {
      setBusy(true);
      setError('');
      fn(id).then(
        (st) => {
          setBusy(false);
          setFailures(null);
          if (st.conversationId === '') return; // the dialog was cancelled with no conversation open
          if (st.conversationId !== current.current) {
            onConversation?.(st.conversationId);
            return;
          }
          setStatus(st);
        },
        (e: unknown) => {
          setBusy(false);
          setError(toApiError(e).message);
        },
      );
    },
    [onConversation, setError],
  );

  const shown = conversationId !== null && status?.conversationId === conversationId ? status : null;
  const live = progress !== null && progress.conversationId === conversationId ? progress.p : null;
  const latest = live ?? shown?.progress ?? null;
  const indexing = live !== null ? live.phase !== 'done' : (shown?.indexing ?? false);
  return {
    status: shown,
    progress: latest,
    indexing,
    canChoose: shown !== null ? shown.canChoose : !isBrowserMode(),
    busy,
    error: error.conversationId === conversationId ? error.message : '',
    failures: failures !== null && failures.conversationId === conversationId ? failures.items : null,
    choose: () => act(chooseWorkspace, conversationId ?? ''),
    reindex: () => {
      if (conversationId !== null) act(reindexWorkspace, conversationId);
    },
    reset: () => {
      if (conversationId !== null) act(resetWorkspace, conversationId);
    },
    loadFailures: () => {
      if (conversationId === null) return;
      const id = conversationId;
      workspaceFailures(id).then(
        (items) => setFailures({ conversationId: id, items }),
        (e: unknown) => setError(toApiError(e).message),
      );
    },
  };
}

// Loads a conversation's history page by page (ConversationService.History) for the chat:
// the newest page when a conversation or branch opens, newer events when the branch grows
// or a run ends, older pages when the reader scrolls to the top.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { toApiError } from '../api/call';
import { historyPage, type HistoryRequest } from '../api/conversations';
import type { RunState } from './events';
import { applyHistoryPage, emptyHistory, extendsPath, runsFromHistory, type HistoryWindow } from './history';

/** Events per History page. */
export const HISTORY_PAGE_SIZE = 200;

/**
 * What the chat knows of the loaded history. status: "loading" until the newest page of
 * this conversation and branch arrived; "unsupported" when the backend has no History (the
 * chat then loads each past run with ConversationService.Events); "error" when loading
 * failed (`error` says why).
 */
export interface HistoryView {
  status: 'idle' | 'loading' | 'ready' | 'unsupported' | 'error';
  error: string;
  /** The loaded window of this conversation and branch; null while loading. */
  window: HistoryWindow | null;
  /** Runs rebuilt from the loaded events, by message id. */
  runs: Record<string, RunState>;
  /** True while an older page is being loaded. */
  loadingOlder: boolean;
  /** Why the last older page failed to load ("" when it did not); loadOlder retries. */
  olderError: string;
  /** Loads the page before the window (no-op when nothing is older or a load is going). */
  loadOlder: () => void;
}

interface Loaded {
  conversationId: string;
  path: string[];
  /** The message ids and statuses the window was last brought up to date for. */
  revision: string;
  w: HistoryWindow;
  failed: '' | 'unsupported' | 'error';
  error: string;
}

/**
 * The history of conversation `conversationId` along its active branch `path` (message ids,
 * root first). `revision` should change whenever the branch's messages or their statuses
 * change (a message added, a run ended): newer events are then loaded with after_seq.
 */
export function useConversationHistory(conversationId: string | null, path: readonly string[], revision: string, pageSize = HISTORY_PAGE_SIZE): HistoryView {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [olderBusy, setOlderBusy] = useState(false);
  // The last failed older page, with its conversation: another conversation never shows it.
  const [olderError, setOlderError] = useState({ conversationId: '', message: '' });
  // The latest (conversation, branch, revision) asked for: answers to older requests are dropped.
  const want = useRef('');
  const pathKey = path.join(',');

  const current =
    loaded !== null && conversationId !== null && loaded.conversationId === conversationId && extendsPath(loaded.path, path)
      ? loaded
      : null;
  const needsReset = conversationId !== null && current === null;
  const needsNewer = current !== null && current.failed === '' && current.revision !== revision;

  useEffect(() => {
    if (conversationId === null || (!needsReset && !needsNewer)) return;
    const ids = pathKey === '' ? [] : pathKey.split(',');
    const key = `${conversationId}|${pathKey}|${revision}`;
    want.current = key;
    const base = needsReset || loaded === null ? emptyHistory(conversationId) : loaded.w;
    const fetchPage = (req: HistoryRequest) => historyPage(conversationId, { limit: pageSize, ...req });
    void (async () => {
      let w = base;
      try {
        if (needsReset || !w.loaded || w.lastSeq === 0) {
          w = applyHistoryPage(w, await fetchPage({ latest: true }), 'latest');
        } else {
          w = applyHistoryPage(w, await fetchPage({ after_seq: w.lastSeq }), 'after');
        }
        // Bring the window up to the newest stored event (no cap: page until none is left).
        while (w.hasAfter && want.current === key) {
          const size = w.events.length;
          w = applyHistoryPage(w, await fetchPage({ after_seq: w.lastSeq }), 'after');
          if (w.events.length === size) break;
        }
        if (want.current !== key) return;
        setLoaded({ conversationId, path: ids, revision, w, failed: '', error: '' });
      } catch (e) {
        if (want.current !== key) return;
        const err = toApiError(e);
        setLoaded({ conversationId, path: ids, revision, w: base, failed: err.code === 'unsupported' ? 'unsupported' : 'error', error: err.message });
      }
    })();
    // `loaded` is read for its window only when the branch grew; the flags above capture when to run.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conversationId, pathKey, revision, needsReset, needsNewer, pageSize]);

  const loadOlder = useCallback(() => {
    if (current === null || current.failed !== '' || !current.w.hasBefore || olderBusy) return;
    const key = want.current;
    const at = current;
    setOlderBusy(true);
    setOlderError({ conversationId: '', message: '' });
    historyPage(at.conversationId, { before_seq: at.w.firstSeq, limit: pageSize }).then(
      (page) => {
        setOlderBusy(false);
        if (want.current !== key) return;
        setLoaded((l) => (l === null || l.conversationId !== at.conversationId ? l : { ...l, w: applyHistoryPage(l.w, page, 'before') }));
      },
      (e: unknown) => {
        setOlderBusy(false);
        if (want.current !== key) return;
        setOlderError({ conversationId: at.conversationId, message: toApiError(e).message });
      },
    );
  }, [current, olderBusy, pageSize]);

  const events = current?.w.events;
  const runs = useMemo(() => (conversationId !== null && events ? runsFromHistory(conversationId, events) : {}), [conversationId, events]);

  let status: HistoryView['status'] = 'idle';
  if (conversationId !== null) {
    if (current === null) status = 'loading';
    else if (current.failed !== '') status = current.failed;
    else status = current.w.loaded ? 'ready' : 'loading';
  }
  return {
    status,
    error: current?.error ?? '',
    window: current !== null && current.failed === '' ? current.w : null,
    runs,
    loadingOlder: olderBusy,
    olderError: current !== null && olderError.conversationId === current.conversationId ? olderError.message : '',
    loadOlder,
  };
}

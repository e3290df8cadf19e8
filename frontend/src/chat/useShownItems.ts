import { useCallback, useMemo } from 'react';
import type { RunState } from '../run/events';
import { firstShownIndex } from '../run/history';
import { useConversationHistory } from '../run/useHistory';
import type { ChatItem } from './types';

/** Messages shown while the newest history page of a conversation is loading. */
const SHOWN_WHILE_LOADING = 3;

/**
 * The exchanges of the open conversation to show, from the first message the loaded history
 * covers (older ones appear as older pages load; all of them when the backend cannot page),
 * with the run of each (live, or rebuilt from the history).
 */
export function useShownItems(cid: string | null, items: ChatItem[], loading: boolean) {
  // The active branch and what changes on it (messages added, runs ending).
  const messages = useMemo(() => items.flatMap((it) => (it.message ? [it.message] : [])), [items]);
  const path = useMemo(() => messages.map((m) => m.id), [messages]);
  const revision = messages.map((m) => `${m.id}:${m.status}`).join(',');
  const history = useConversationHistory(loading ? null : cid, path, revision);
  const fallback = history.status === 'unsupported' || history.status === 'error';

  const shownItems = useMemo(() => {
    if (fallback || history.status === 'idle') return items;
    let start: number;
    if (history.window === null) start = Math.max(0, messages.length - SHOWN_WHILE_LOADING);
    else start = firstShownIndex(path, history.window.events, history.window.hasBefore);
    const firstId = messages[start]?.id;
    if (firstId === undefined) return items;
    const at = items.findIndex((it) => it.message?.id === firstId);
    return at > 0 ? items.slice(at) : items;
  }, [fallback, history.status, history.window, items, messages, path]);
  const hasOlder = !fallback && (history.window?.hasBefore === true || (history.window === null && shownItems.length < items.length));
  const runOf = useCallback(
    (it: ChatItem): RunState | undefined => it.live ?? (it.message ? history.runs[it.message.id] : undefined),
    [history.runs],
  );
  return { history, fallback, shownItems, hasOlder, runOf, revision };
}

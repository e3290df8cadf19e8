import { useCallback, useEffect, useEffectEvent, useMemo, useState } from 'react';
import { toApiError } from '../api/call';
import { onRunEvent } from '../api/runtime';
import { archiveConversation, deleteConversation, listConversations, pinConversation, renameConversation, type Conversation } from '../api/conversations';
import { isRunning, runsOf, type RunsState } from '../run/events';
import { firstListAnswer, takeFirstList } from './first-list';

/**
 * The sidebar's conversation list: loaded on start (from the answer to the request main.tsx
 * made before the first render, when there was one), reloaded when any conversation starts or
 * ends a run, after a reconnect (reloadTick) and
 * on refresh(); with the ids of conversations running (the store's word, corrected by the
 * events seen since). pin and archive change a row at once and reject with an ApiError;
 * a title the model writes comes through useModelTitles.
 */
export function useConversationList(runs: RunsState, reloadTick: number) {
  // The list asked for at start-up (chat/first-list.ts), when it came before the first render.
  const [first] = useState(firstListAnswer);
  const [conversations, setConversations] = useState<Conversation[]>(first?.ok === true ? first.list : []);
  const [loading, setLoading] = useState(first === null);
  const [error, setError] = useState(first !== null && !first.ok ? toApiError(first.error).message : '');
  const [listTick, setListTick] = useState(0);

  // A key that changes when any conversation starts or ends a run: the list is reloaded then.
  const runKey = useMemo(
    () =>
      Object.entries(runs.conversations)
        .map(([id, c]) => `${id}:${runsOf(c).map((r) => r.status).join(',')}`)
        .join('|'),
    [runs.conversations],
  );

  useEffect(() => {
    let stale = false;
    const asked = takeFirstList();
    if (asked !== null && first !== null) return; // the first render showed its answer
    (asked ?? listConversations()).then(
      (list) => {
        if (stale) return;
        setConversations(list);
        setLoading(false);
        setError('');
      },
      (e: unknown) => {
        if (stale) return;
        setLoading(false);
        setError(toApiError(e).message);
      },
    );
    return () => {
      stale = true;
    };
  }, [runKey, listTick, reloadTick, first]);

  const runningIds = useMemo(() => {
    const ids = new Set(conversations.filter((c) => c.running).map((c) => c.id));
    for (const [id, c] of Object.entries(runs.conversations)) {
      if (isRunning(c)) ids.add(id);
      else if (c.order.length > 0) ids.delete(id);
    }
    return ids;
  }, [conversations, runs.conversations]);

  const refresh = useCallback(() => setListTick((t) => t + 1), []);
  const rename = async (id: string, title: string) => {
    await renameConversation(id, title);
    setConversations((cs) => cs.map((c) => (c.id === id ? { ...c, title } : c)));
  };
  const remove = async (id: string) => {
    await deleteConversation(id);
    setConversations((cs) => cs.filter((c) => c.id !== id));
    refresh();
  };
  const pin = async (id: string, pinned: boolean) => {
    await pinConversation(id, pinned);
    setConversations((cs) => cs.map((c) => (c.id === id ? { ...c, pinned } : c)));
  };
  const archive = async (id: string, archived: boolean) => {
    await archiveConversation(id, archived);
    setConversations((cs) => cs.map((c) => (c.id === id ? { ...c, archived } : c)));
  };
  return { conversations, loading, error, runningIds, refresh, rename, remove, pin, archive };
}

/**
 * Calls onTitle(conversationId, title) for each title the model gives a conversation while
 * the window is open: a live suggestions event with a title (the backend sends one only when
 * the title replaced the one made from the question, so never over a rename). Stored events
 * (history, hydration) never call it.
 */
export function useModelTitles(onTitle: (conversationId: string, title: string) => void) {
  const handle = useEffectEvent(onTitle);
  useEffect(
    () =>
      onRunEvent((ev) => {
        const title = ev.type === 'suggestions' ? ev.data.title : undefined;
        if (typeof title === 'string' && title !== '') handle(ev.conversation_id, title);
      }),
    [],
  );
}

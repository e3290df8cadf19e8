import { useCallback, useEffect, useRef, useState, type Dispatch } from 'react';
import { artifactChange, listArtifacts, type ArtifactSummary } from '../api/artifacts';
import { toApiError } from '../api/call';
import { feedbackOf, getConversation, messageEvents, type ConversationDetail } from '../api/conversations';
import { onRunEvent } from '../api/runtime';
import { describeError } from '../shared/errors';
import { runsOf, type ConversationRuns } from '../run/events';
import type { RunsAction } from '../run/useRuns';

/**
 * The open conversation's stored messages and artifacts: loaded when it is opened, when a
 * run in it starts or ends (runs of `conv`) and after a reconnect (reloadTick). A run going
 * on that this window may not have seen from its start, or the latest run after a
 * reconnect, has its stored events merged into the run state (the reducer keeps what it
 * saw itself). A document deleted (here, in another window or by a client) leaves the panel.
 */
export function useConversationDetail(selectedId: string | null, conv: ConversationRuns | undefined, reloadTick: number, dispatch: Dispatch<RunsAction>) {
  const [detail, setDetail] = useState<ConversationDetail | null>(null);
  const [detailError, setDetailError] = useState('');
  const [stored, setStored] = useState<{ conversationId: string; items: ArtifactSummary[] } | null>(null);
  // The same key as the list's for the open conversation only: its messages and artifacts are reloaded then.
  const selectedRunKey = runsOf(conv).map((r) => `${r.messageId}:${r.status}`).join(',');

  useEffect(() => {
    if (selectedId === null) return;
    let stale = false;
    Promise.all([getConversation(selectedId), listArtifacts(selectedId)]).then(
      ([d, arts]) => {
        if (stale) return;
        setDetail(d);
        setDetailError('');
        setStored({ conversationId: selectedId, items: arts });
        const last = d.messages.at(-1);
        for (const m of d.messages) {
          // An interrupted run has no terminal event: rebuilt from its events it would look running.
          if ((m.status !== 'running' && m !== last) || m.status === 'interrupted') continue;
          messageEvents(selectedId, m.id).then(
            (events) => {
              if (!stale) dispatch({ type: 'hydrate', conversationId: selectedId, events });
            },
            () => undefined,
          );
        }
      },
      (e: unknown) => {
        if (!stale) setDetailError(describeError(toApiError(e)));
      },
    );
    return () => {
      stale = true;
    };
    // selectedRunKey: reload when a run in this conversation starts or ends; reloadTick: after a reconnect.
  }, [selectedId, selectedRunKey, reloadTick, dispatch]);

  // The stored artifacts of the open conversation, reloaded after a save, restore or upload.
  const selectedRef = useRef(selectedId);
  useEffect(() => {
    selectedRef.current = selectedId;
  }, [selectedId]);
  const refreshArtifacts = useCallback(() => {
    const id = selectedRef.current;
    if (id === null) return;
    listArtifacts(id).then(
      (items) => {
        if (selectedRef.current === id) setStored({ conversationId: id, items });
      },
      () => undefined,
    );
  }, []);

  const forgetDocument = useCallback(
    (conversationId: string, artifactId: string) => {
      dispatch({ type: 'forget', conversationId, artifactId });
      setStored((s) => (s?.conversationId === conversationId ? { ...s, items: s.items.filter((a) => a.id !== artifactId) } : s));
    },
    [dispatch],
  );
  useEffect(
    () =>
      onRunEvent((ev) => {
        const ch = artifactChange(ev.type, ev.data);
        if (ch?.kind === 'document-removed') forgetDocument(ev.conversation_id, ch.artifactId);
        // A rating given here or in another window: the message shows it.
        if (ev.type === 'feedback') {
          const rated = feedbackOf({ ...ev.data, at: ev.created_at });
          setDetail((d) =>
            d && d.conversation.id === ev.conversation_id && d.messages.some((m) => m.id === ev.message_id)
              ? { ...d, messages: d.messages.map((m) => (m.id === ev.message_id ? { ...m, feedback: rated } : m)) }
              : d,
          );
        }
      }),
    [forgetDocument],
  );

  /** Forgets what was loaded (another conversation is being opened). */
  const clear = useCallback(() => {
    setDetail(null);
    setDetailError('');
    setStored(null);
  }, []);
  const renamed = useCallback((id: string, title: string) => {
    setDetail((d) => (d && d.conversation.id === id ? { ...d, conversation: { ...d.conversation, title } } : d));
  }, []);
  return { detail, setDetail, detailError, stored, selectedRunKey, selectedRef, refreshArtifacts, forgetDocument, clear, renamed };
}

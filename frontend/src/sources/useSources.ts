// The open conversation's numbered sources for the citation chips and the panel's Sources
// tab: a snapshot from the store (ConversationService.Sources) when the conversation opens,
// after a reconnect and when a run starts or ends, kept live in between by source_added
// events.

import { useEffect, useRef, useState } from 'react';
import { listSources, normalizeSource, type Source } from '../api/conversations';
import { onRunEvent } from '../api/runtime';
import { upsertSource } from './citations';

/** What useSources gives the window. */
export interface SourcesState {
  /** The open conversation's sources in number order; null while the first snapshot loads. */
  sources: Source[] | null;
  /** Why the snapshot could not be loaded ("" when it was, or is loading). */
  error: string;
}

/** The sources of no conversation (a new research): nothing to resolve, nothing loading. */
const NONE: Source[] = [];

/**
 * Keeps the sources of `conversationId` (null: none open, an empty list). Loads a snapshot
 * when the id or `reloadKey` changes (the caller changes it after a reconnect and when a
 * run starts or ends) and applies every source_added event of that conversation by number
 * (a new number is added in order, a known one replaced: e.g. a listed result that was
 * then fetched). Events that arrive while a snapshot loads are applied again on top of it,
 * so a snapshot read just before an event cannot lose it. A backend without
 * ConversationService.Sources gives an empty list; another error keeps what was shown
 * (none at first) and is reported in `error`.
 */
export function useSources(conversationId: string | null, reloadKey: string | number, load: (conversationId: string) => Promise<Source[]> = listSources): SourcesState {
  const [state, setState] = useState<{ conversationId: string; sources: Source[] | null; error: string } | null>(null);
  const pending = useRef<{ conversationId: string; added: Source[] } | null>(null);

  useEffect(
    () =>
      onRunEvent((ev) => {
        if (ev.type !== 'source_added') return;
        const s = normalizeSource(ev.data);
        if (s === null) return;
        if (pending.current?.conversationId === ev.conversation_id) pending.current.added.push(s);
        setState((st) => (st?.conversationId === ev.conversation_id && st.sources !== null ? { ...st, sources: upsertSource(st.sources, s) } : st));
      }),
    [],
  );

  useEffect(() => {
    if (conversationId === null) return;
    let stale = false;
    const inFlight = { conversationId, added: [] as Source[] };
    pending.current = inFlight;
    const done = () => {
      if (pending.current === inFlight) pending.current = null;
    };
    load(conversationId).then(
      (list) => {
        done();
        if (!stale) setState({ conversationId, sources: inFlight.added.reduce(upsertSource, list), error: '' });
      },
      (e: unknown) => {
        done();
        if (stale) return;
        const err = e as { code?: unknown; message?: unknown };
        if (err.code === 'unsupported' || err.code === 'unavailable') {
          setState({ conversationId, sources: [], error: '' });
          return;
        }
        const message = typeof err.message === 'string' ? err.message : String(e);
        setState((st) => (st?.conversationId === conversationId ? { ...st, error: message } : { conversationId, sources: [], error: message }));
      },
    );
    return () => {
      stale = true;
    };
  }, [conversationId, reloadKey, load]);

  if (conversationId === null) return { sources: NONE, error: '' };
  if (state === null || state.conversationId !== conversationId) return { sources: null, error: '' };
  return { sources: state.sources, error: state.error };
}

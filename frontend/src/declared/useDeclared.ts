// The open conversation's declared artifacts for the panel's "Links & files": a snapshot
// from the store (ArtifactService.ListDeclared) when the conversation opens, after a
// reconnect and when the window comes back into view, kept live in between by
// artifact_changed events.

import { useCallback, useEffect, useRef, useState } from 'react';
import { applyDeclaredChange, artifactChange, listDeclared, type ArtifactChange, type DeclaredArtifact } from '../api/artifacts';
import { onRunEvent } from '../api/runtime';

/** What useDeclared gives the panel. */
export interface DeclaredState {
  /** The open conversation's declared artifacts, oldest first ([] until loaded, or with none open). */
  items: DeclaredArtifact[];
  /** Drops one artifact at once (the user removed it; its event may come later). */
  remove: (artifactId: string) => void;
}

/**
 * Keeps the declared artifacts of `conversationId` (null: none open): loads a snapshot when
 * it changes, when `reloadKey` changes (the caller bumps it after a reconnect: browser mode's
 * `browser:connected`) and when the window regains focus or becomes visible (the desktop
 * window has no reconnect signal), and applies every declared artifact_changed event by
 * artifact id (created and updated replace or append, removed drops). Changes that arrive
 * while a snapshot is loading are applied again on top of it, so a snapshot read just
 * before a change cannot undo it. A backend without ListDeclared gives an empty list; other
 * load errors keep what is shown.
 */
export function useDeclared(conversationId: string | null, reloadKey: number): DeclaredState {
  const [state, setState] = useState<{ conversationId: string; items: DeclaredArtifact[] } | null>(null);
  const [viewTick, setViewTick] = useState(0);
  const pending = useRef<{ conversationId: string; changes: ArtifactChange[] } | null>(null);

  useEffect(
    () =>
      onRunEvent((ev) => {
        // Every declared change reaches the window once from the declared store (no
        // message_id), in log order; a run's copy of its own change (message_id set) comes
        // later and could undo a removal made meanwhile, so only the store's count.
        if (ev.message_id !== '') return;
        const ch = artifactChange(ev.type, ev.data);
        if (ch?.kind !== 'declared') return;
        if (pending.current?.conversationId === ev.conversation_id) pending.current.changes.push(ch);
        setState((s) => (s?.conversationId === ev.conversation_id ? { ...s, items: applyDeclaredChange(s.items, ch) } : s));
      }),
    [],
  );

  useEffect(() => {
    const bump = () => {
      if (document.visibilityState !== 'hidden') setViewTick((t) => t + 1);
    };
    window.addEventListener('focus', bump);
    document.addEventListener('visibilitychange', bump);
    return () => {
      window.removeEventListener('focus', bump);
      document.removeEventListener('visibilitychange', bump);
    };
  }, []);

  useEffect(() => {
    if (conversationId === null) return;
    let stale = false;
    const inFlight = { conversationId, changes: [] as ArtifactChange[] };
    pending.current = inFlight;
    const done = () => {
      if (pending.current === inFlight) pending.current = null;
    };
    listDeclared(conversationId).then(
      (items) => {
        done();
        if (!stale) setState({ conversationId, items: inFlight.changes.reduce(applyDeclaredChange, items) });
      },
      (e: unknown) => {
        done();
        if (stale) return;
        const code = (e as { code?: unknown }).code;
        if (code === 'unsupported' || code === 'unavailable') setState({ conversationId, items: [] });
      },
    );
    return () => {
      stale = true;
    };
  }, [conversationId, reloadKey, viewTick]);

  const remove = useCallback((artifactId: string) => {
    setState((s) => (s ? { ...s, items: s.items.filter((a) => a.id !== artifactId) } : s));
  }, []);

  return { items: state !== null && state.conversationId === conversationId ? state.items : [], remove };
}

import { useEffect, useReducer, useState, type Dispatch } from 'react';
import { onReconnect, onRunEvent } from '../api/runtime';
import { applyEvent, emptyRunsState, forgetArtifact, hydrateConversation, type RunEvent, type RunsState } from './events';

/** What changes the window's run state: one live event, stored events merged, an artifact forgotten. */
export type RunsAction =
  | { type: 'event'; event: RunEvent }
  | { type: 'hydrate'; conversationId: string; events: RunEvent[] }
  | { type: 'forget'; conversationId: string; artifactId: string };

function runsReducer(state: RunsState, action: RunsAction): RunsState {
  switch (action.type) {
    case 'event':
      return applyEvent(state, action.event);
    case 'hydrate':
      return hydrateConversation(state, action.conversationId, action.events);
    case 'forget':
      return forgetArtifact(state, action.conversationId, action.artifactId);
  }
}

/**
 * The run state of every conversation, fed by run events (the only source of live
 * progress), and a tick that grows after each reconnect (browser mode): events may have
 * been missed, so the list and the open conversation are reloaded from the store then.
 */
export function useRuns(): { runs: RunsState; dispatch: Dispatch<RunsAction>; reloadTick: number; reload: () => void } {
  const [runs, dispatch] = useReducer(runsReducer, undefined, emptyRunsState);
  const [reloadTick, setReloadTick] = useState(0);
  useEffect(() => onRunEvent((event) => dispatch({ type: 'event', event })), []);
  useEffect(() => onReconnect(() => setReloadTick((t) => t + 1)), []);
  return { runs, dispatch, reloadTick, reload: () => setReloadTick((t) => t + 1) };
}

/** The current time in ms since epoch, refreshed every 30 s (relative times in the list). */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), 30_000);
    return () => window.clearInterval(t);
  }, []);
  return now;
}

import { useEffect, useRef } from 'react';

/** The localStorage key of the id of the conversation open when the window was last used. */
export const LAST_CONVERSATION_KEY = 'artifactflow.lastConversation';

function readLast(): string {
  try {
    return window.localStorage.getItem(LAST_CONVERSATION_KEY) ?? '';
  } catch {
    return '';
  }
}

function writeLast(id: string | null): void {
  try {
    if (id === null) window.localStorage.removeItem(LAST_CONVERSATION_KEY);
    else window.localStorage.setItem(LAST_CONVERSATION_KEY, id);
  } catch {
    // Storage unavailable: the next start opens nothing, as before.
  }
}

/**
 * Reopens the conversation that was open when the window was last used. The id read at
 * start is opened (through `open`) once the first conversation list has loaded (`loaded`
 * true), if that list still holds it and nothing was opened meanwhile; from then on the
 * open conversation's id (`selectedId`; null: none, which forgets it) is stored on every
 * change. Before that decision nothing is written, so the start's empty selection does not
 * erase the id.
 */
export function useLastConversation(selectedId: string | null, ids: readonly string[], loaded: boolean, open: (id: string) => void): void {
  const initial = useRef<string>(readLast());
  const decided = useRef(false);

  useEffect(() => {
    if (!decided.current) {
      if (!loaded) return;
      decided.current = true;
      const id = initial.current;
      if (id !== '' && selectedId === null && ids.includes(id)) {
        // The render that opens it stores it again.
        open(id);
        return;
      }
    }
    writeLast(selectedId);
  }, [loaded, ids, selectedId, open]);
}

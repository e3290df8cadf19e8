// Settings' "Load remote images: Ask / Always" as the Markdown component reads it: one
// value for the page, fetched from the settings once and updated when the settings dialog
// saves, so every rendered answer, artifact and page text follows it.

import { useEffect, useSyncExternalStore } from 'react';
import { getSettings, type RemoteImages } from '../api/settings';

let mode: RemoteImages = 'ask';
let asked = false;
const listeners = new Set<() => void>();

/** Sets the page's remote-image choice (after the settings load or are saved) and re-renders the Markdown using it. */
export function setRemoteImages(next: RemoteImages): void {
  asked = true;
  if (next === mode) return;
  mode = next;
  for (const l of listeners) l();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/**
 * The remote-image choice in effect: "ask" until the settings say otherwise (so nothing is
 * fetched before they are known). The first component to use it asks the backend once;
 * a backend without the setting leaves "ask".
 */
export function useRemoteImages(): RemoteImages {
  const value = useSyncExternalStore(subscribe, () => mode);
  useEffect(() => {
    if (asked) return;
    asked = true;
    getSettings().then(
      (s) => setRemoteImages(s.load_remote_images),
      () => undefined,
    );
  }, []);
  return value;
}

import { useEffect, useState } from 'react';
import { getConversationSettings, SETTINGS_SAVED_EVENT } from '../api/settings';

/** The model-context settings the header meter needs, reloaded when Settings are saved. */
export function useContextSettings(): { window: number; percent: number } {
  const [s, setS] = useState({ window: 0, percent: 80 });
  useEffect(() => {
    let stale = false;
    const load = () => {
      void getConversationSettings().then(
        (v) => {
          if (!stale) setS({ window: v.effective_context_window, percent: v.compact_at_percent });
        },
        () => undefined,
      );
    };
    load();
    window.addEventListener(SETTINGS_SAVED_EVENT, load);
    return () => {
      stale = true;
      window.removeEventListener(SETTINGS_SAVED_EVENT, load);
    };
  }, []);
  return s;
}

import { useEffect, useRef, useState } from 'react';
import { messageEvents } from '../api/conversations';
import { replayRun, type RunState } from '../run/events';

/**
 * Loads the stored events of a past run once its element scrolls into view
 * (ConversationService.Events): the fallback when the backend has no History.
 */
export function usePastRun(conversationId: string, messageId: string, enabled: boolean) {
  const ref = useRef<HTMLElement>(null);
  const [visible, setVisible] = useState(false);
  const [result, setResult] = useState<{ run?: RunState; error?: string } | null>(null);

  useEffect(() => {
    const el = ref.current;
    if (!enabled || visible || !el) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setVisible(true);
      },
      { rootMargin: '300px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [enabled, visible]);

  useEffect(() => {
    if (!enabled || !visible || conversationId === '') return;
    let stale = false;
    messageEvents(conversationId, messageId).then(
      (events) => {
        if (!stale) setResult({ run: replayRun(events, messageId) });
      },
      (e: unknown) => {
        if (!stale) setResult({ error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      stale = true;
    };
  }, [enabled, visible, conversationId, messageId]);

  return { ref, past: result };
}

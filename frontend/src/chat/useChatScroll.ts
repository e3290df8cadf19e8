import { useCallback, useEffect, useLayoutEffect, useRef, useState, type UIEvent } from 'react';
import { askedAnew, jumpShown, nearBottom, tailTop } from './scroll';
import { firstInView, type ViewAnchor } from './ExchangeList';

/** What useChatScroll needs to know about the conversation. */
export interface ChatScrollInput {
  conversationId: string | null;
  /** sendMarker() of the question asked last. */
  asked: string;
  /** Key of the first exchange shown (changes when older ones are put on top). */
  firstKey: string;
  /** An older history page is loading. */
  loadingOlder: boolean;
  /** An older page may be requested now. */
  canLoadOlder: boolean;
  /** Seq of the first event loaded (a new page re-arms the top sentinel). */
  windowFirst: number;
  loadOlder: () => void;
}

/**
 * The conversation's scrolling: follow the stream while the reader is at the bottom and
 * leave them alone once they scroll up; after older exchanges were put on top, keep what the
 * reader was looking at in place; a question just sent, regenerated or edited scrolls to it
 * even when the reader was up; scrolled to the top, the page before loads.
 */
export function useChatScroll(p: ChatScrollInput) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const sentinelRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  // What the reader looked at when older exchanges were requested: by distance from the
  // bottom (a plain list) and by the exchange in view (a virtualized list, see takeAnchor).
  const anchor = useRef<{ fromBottom: number; firstKey: string; view: ViewAnchor | null } | null>(null);
  const lastAsked = useRef(p.asked);
  // The end is in view: no "Jump to latest" (which would cover the last run's figures).
  const [atBottom, setAtBottom] = useState(true);
  const endInView = (el: HTMLElement) => !jumpShown(el.scrollHeight, el.scrollTop, el.clientHeight, tailTop(el));
  const { asked, firstKey, loadingOlder, loadOlder, canLoadOlder, windowFirst } = p;

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (askedAnew(lastAsked.current, asked)) {
      stick.current = true;
      anchor.current = null;
    }
    lastAsked.current = asked;
    const a = anchor.current;
    if (a !== null && (a.firstKey !== firstKey || !loadingOlder)) {
      el.scrollTop = el.scrollHeight - a.fromBottom;
      anchor.current = null;
      return;
    }
    if (a === null && stick.current) el.scrollTop = el.scrollHeight;
  });
  useEffect(() => {
    stick.current = true;
    anchor.current = null;
  }, [p.conversationId]);
  // Content that grows or shrinks without a scroll (a step expanded, the window resized) can
  // leave the reader above the end: recheck whether "Jump to latest" is needed.
  useEffect(() => {
    const el = scrollRef.current;
    const inner = el?.firstElementChild;
    if (!el || !inner || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setAtBottom(endInView(el)));
    ro.observe(inner);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const requestOlder = useCallback(() => {
    const el = scrollRef.current;
    if (el) anchor.current = { fromBottom: el.scrollHeight - el.scrollTop, firstKey, view: firstInView(el) };
    loadOlder();
  }, [firstKey, loadOlder]);

  // Scrolled to the top: load the page before the window. A fresh observer after each page
  // reports at once whether the top is still in view (short pages), so loading goes on.
  // After a failed page it waits for the reader's click (no retry loop).
  useEffect(() => {
    const el = sentinelRef.current;
    const root = scrollRef.current;
    if (!canLoadOlder || !el || !root) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) requestOlder();
      },
      { root, rootMargin: '200px 0px 0px 0px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [canLoadOlder, windowFirst, requestOlder]);

  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget;
    stick.current = nearBottom(el.scrollHeight, el.scrollTop, el.clientHeight);
    setAtBottom(endInView(el));
  };
  const jumpToLatest = () => {
    const el = scrollRef.current;
    stick.current = true;
    setAtBottom(true);
    el?.scrollTo({ top: el.scrollHeight });
  };
  /**
   * Keeps the end in view while following it: for renders of the list alone (a virtualized
   * list measuring its exchanges), which do not run this hook's layout effect.
   */
  const follow = useCallback(() => {
    const el = scrollRef.current;
    if (el && anchor.current === null && stick.current) el.scrollTop = el.scrollHeight;
  }, []);
  /**
   * For a virtualized list: once older exchanges were put on top (the first key is no longer
   * the one at the request), takes the exchange the reader was looking at and clears the
   * anchor, so the list restores the view itself; else null.
   */
  const takeAnchor = useCallback((firstKeyNow: string): ViewAnchor | null => {
    const a = anchor.current;
    if (a === null || a.firstKey === firstKeyNow || a.view === null) return null;
    anchor.current = null;
    return a.view;
  }, []);
  /** Follow the end again (the reader acted on the newest exchange). */
  const stickToBottom = useCallback(() => {
    stick.current = true;
  }, []);
  return { scrollRef, sentinelRef, atBottom, onScroll, jumpToLatest, requestOlder, stickToBottom, follow, takeAnchor };
}

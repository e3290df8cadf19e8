// The conversation's exchange list (a 10,000-event conversation opens in ≤ 300 ms, the list
// virtualized). Up to VIRTUALIZE_ABOVE exchanges are rendered as they always were; above
// that only those in and near the view are (TanStack Virtual, each exchange measured as it
// renders), so older pages loaded by scrolling up cost nothing until they are looked at.
// While the find bar (Ctrl+F) is open every exchange is rendered, so find, which searches
// the page's text, still reaches all loaded ones; what the reader was looking at stays in
// place across the switch.
import { useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { nearBottom } from './scroll';
import type { ChatItem } from './types';
import './exchange-list.css';

/** Exchanges rendered all at once up to this many; above it the list is virtualized. */
export const VIRTUALIZE_ABOVE = 30;

/** Height in px assumed for an exchange not measured yet. */
export const ESTIMATED_EXCHANGE_PX = 480;

/** Exchanges rendered beyond each end of the view. */
const OVERSCAN = 3;

/** Props of ExchangeList. */
export interface ExchangeListProps {
  items: readonly ChatItem[];
  /** The scrolling element the list is in (the conversation's .chat-scroll). */
  scrollRef: RefObject<HTMLDivElement | null>;
  renderItem: (it: ChatItem) => ReactNode;
  /** Called after every render of the virtualized list (the chat keeps following the end with it). */
  afterRender?: () => void;
  /**
   * Takes what the reader was looking at before older exchanges were put on top (see
   * useChatScroll's requestOlder), once the first exchange is no longer firstKey; null when
   * there is nothing to restore. The virtualized list restores it itself: the chat's own
   * restore by distance from the bottom is wrong there, as unmeasured exchanges are estimates.
   */
  takeAnchor?: (firstKey: string) => ViewAnchor | null;
}

/** An exchange in view (its message id) and how far its top is from the scroller's top, in px. */
export interface ViewAnchor {
  id: string;
  offset: number;
}

/** Whether the find bar (layout/FindBar, rendered beside the chat in .app) is open on the conversation. */
export function useFindOpen(scrollRef: RefObject<HTMLElement | null>, onChange?: (open: boolean) => void): boolean {
  const [open, setOpen] = useState(false);
  const changed = useRef(onChange);
  useEffect(() => {
    changed.current = onChange;
  });
  useEffect(() => {
    const app = scrollRef.current?.closest('main')?.parentElement;
    if (!app) return;
    const check = () => {
      const now = app.querySelector(':scope > .find-bar[data-scope="conversation"]') !== null;
      setOpen((was) => {
        if (was !== now) changed.current?.(now);
        return now;
      });
    };
    check();
    const mo = new MutationObserver(check);
    mo.observe(app, { childList: true });
    return () => mo.disconnect();
  }, [scrollRef]);
  return open;
}

/** The first exchange whose bottom is below the top of the scroller, and how far its top is from it (null: none rendered). */
export function firstInView(scroller: HTMLElement): ViewAnchor | null {
  const top = scroller.getBoundingClientRect().top;
  for (const el of scroller.querySelectorAll<HTMLElement>('.exchange[data-message-id]')) {
    const r = el.getBoundingClientRect();
    if (r.bottom > top) return { id: el.dataset.messageId ?? '', offset: r.top - top };
  }
  return null;
}

/** The exchanges of the conversation, virtualized above VIRTUALIZE_ABOVE (see the file's comment). */
export function ExchangeList({ items, scrollRef, renderItem, afterRender, takeAnchor }: ExchangeListProps) {
  const anchor = useRef<ViewAnchor | null>(null);
  // After older exchanges were put on top: the anchor still to be put exactly in place once
  // its exchange is rendered, and how many more renders to wait for it.
  const reveal = useRef<{ a: ViewAnchor; tries: number } | null>(null);
  const onFindChange = useCallback(() => {
    const el = scrollRef.current;
    anchor.current = el ? firstInView(el) : null;
  }, [scrollRef]);
  const findOpen = useFindOpen(scrollRef, onFindChange);
  const virtual = items.length > VIRTUALIZE_ABOVE && !findOpen;
  const listRef = useRef<HTMLDivElement>(null);
  const [margin, setMargin] = useState(0);
  // The virtualizer's functions change as it measures; this component is not memoized by the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_EXCHANGE_PX,
    getItemKey: (i) => items[i]?.key ?? i,
    overscan: OVERSCAN,
    scrollMargin: margin,
    enabled: virtual,
    // The view's size before the virtualizer observes it (else nothing renders in the first frame).
    initialRect: { width: scrollRef.current?.clientWidth ?? 0, height: scrollRef.current?.clientHeight || window.innerHeight },
    // A conversation opens at its end: start with the last exchanges rendered, unless the
    // reader is up the list (it grew past VIRTUALIZE_ABOVE by loading older pages).
    initialOffset: () => {
      const el = scrollRef.current;
      return el === null || nearBottom(el.scrollHeight, el.scrollTop, el.clientHeight) ? Number.MAX_SAFE_INTEGER : el.scrollTop;
    },
  });

  // Where the list starts in the scroller's content (banners and "Load older" are above it):
  // rechecked after every render, as what is above changes; set only when it moved.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useLayoutEffect(() => {
    const list = listRef.current;
    const el = scrollRef.current;
    if (!virtual || !list || !el) return;
    const m = Math.round(list.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop);
    if (m !== margin) setMargin(m);
  });
  // After find opened or closed, put what the reader was looking at back where it was.
  useLayoutEffect(() => {
    const a = anchor.current;
    const el = scrollRef.current;
    anchor.current = null;
    if (!a || !el) return;
    const at = items.findIndex((it) => it.message?.id === a.id);
    if (at < 0) return;
    if (virtual) v.scrollToIndex(at, { align: 'start' });
    const node = el.querySelector<HTMLElement>(`.exchange[data-message-id="${CSS.escape(a.id)}"]`);
    if (node) el.scrollTop += node.getBoundingClientRect().top - el.getBoundingClientRect().top - a.offset;
    // Only when find opens or closes (virtual flips); items are read for the index then.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [virtual]);
  // Older exchanges put on top of a virtualized list: scroll to where the exchange the reader
  // was looking at now starts (estimated), then, once it is rendered, put it exactly where
  // it was. Runs before the chat's layout effect, which then finds no anchor of its own.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!virtual || !el) return;
    const a = takeAnchor?.(items[0]?.key ?? '') ?? null;
    if (a !== null) {
      const at = items.findIndex((it) => it.message?.id === a.id);
      const start = at >= 0 ? v.getOffsetForIndex(at, 'start')?.[0] : undefined;
      if (start !== undefined) {
        el.scrollTop = start - a.offset;
        reveal.current = { a, tries: 10 };
      }
    }
    const r = reveal.current;
    if (r === null) return;
    const node = el.querySelector<HTMLElement>(`.exchange[data-message-id="${CSS.escape(r.a.id)}"]`);
    if (node) {
      el.scrollTop += node.getBoundingClientRect().top - el.getBoundingClientRect().top - r.a.offset;
      reveal.current = null;
    } else if (--r.tries <= 0) reveal.current = null;
  });
  // A plain list renders only with the chat, whose own layout effect follows the end.
  useLayoutEffect(() => {
    if (virtual) afterRender?.();
  });

  if (!virtual) return items.map((it) => <Fragment key={it.key}>{renderItem(it)}</Fragment>);
  const last = items.length - 1;
  return (
    <div ref={listRef} className="exchange-list" style={{ height: v.getTotalSize() }}>
      {v.getVirtualItems().map((vi) => {
        const it = items[vi.index];
        if (it === undefined) return null;
        return (
          <div
            key={vi.key}
            data-index={vi.index}
            ref={v.measureElement}
            className={`exchange-slot${vi.index === last ? ' exchange-slot-last' : ''}`}
            style={{ transform: `translateY(${String(vi.start - margin)}px)` }}
          >
            {renderItem(it)}
          </div>
        );
      })}
    </div>
  );
}

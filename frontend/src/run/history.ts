// Paging through a conversation's stored history: pure functions that merge pages into
// one window of events without loss or duplication, rebuild runs from them, and decide
// which messages of the branch the window covers.

import { applyEvents, emptyRunsState, type RunEvent, type RunState } from './events';

/** The events of a conversation's active branch loaded so far: one contiguous seq range. */
export interface HistoryWindow {
  conversationId: string;
  /** Ascending by seq, each seq once. */
  events: RunEvent[];
  /** Seq of the first and last loaded event (0 when none). */
  firstSeq: number;
  lastSeq: number;
  /** Whether older (hasBefore) or newer (hasAfter) stored events exist outside the window. */
  hasBefore: boolean;
  hasAfter: boolean;
  /** False until the first page arrived. */
  loaded: boolean;
}

/** A page as ConversationService.History returns it (api/conversations HistoryPage). */
export interface PageOfEvents {
  events: readonly RunEvent[];
  hasBefore: boolean;
  hasAfter: boolean;
  firstSeq: number;
  lastSeq: number;
}

/** How a page was asked for: the newest page, the page before firstSeq, or after lastSeq. */
export type PageDirection = 'latest' | 'before' | 'after';

/** The empty window of a conversation (nothing loaded yet). */
export function emptyHistory(conversationId: string): HistoryWindow {
  return { conversationId, events: [], firstSeq: 0, lastSeq: 0, hasBefore: false, hasAfter: false, loaded: false };
}

/**
 * Merges two seq-ascending event lists into one, ascending, each seq once (seq is unique
 * within a conversation; when both hold a seq, `a`'s event is kept). Events of other
 * conversations than the first event's, and llm_chunk events, are dropped.
 */
export function mergeEvents(a: readonly RunEvent[], b: readonly RunEvent[]): RunEvent[] {
  const conv = (a[0] ?? b[0])?.conversation_id;
  const bySeq = new Map<number, RunEvent>();
  for (const list of [b, a]) {
    for (const e of list) {
      if (e.type === 'llm_chunk' || e.conversation_id !== conv) continue;
      bySeq.set(e.seq, e);
    }
  }
  return [...bySeq.values()].sort((x, y) => x.seq - y.seq);
}

/**
 * Adds one page to the window. Pages must touch or overlap the window (ask with
 * before_seq = firstSeq or after_seq = lastSeq) so the window stays one contiguous range;
 * overlapping events are kept once. hasBefore comes from the page when it reaches at least
 * as far back as the window, hasAfter when it reaches at least as far forward; an empty
 * page settles the side it was asked for ("before" → hasBefore, "after" → hasAfter,
 * "latest" → both).
 */
export function applyHistoryPage(w: HistoryWindow, page: PageOfEvents, direction: PageDirection): HistoryWindow {
  const own = page.events.filter((e) => e.conversation_id === w.conversationId);
  if (own.length === 0) {
    return {
      ...w,
      loaded: true,
      hasBefore: direction === 'after' ? w.hasBefore : page.hasBefore,
      hasAfter: direction === 'before' ? w.hasAfter : page.hasAfter,
    };
  }
  const events = mergeEvents(w.events, own);
  const pageFirst = own[0]?.seq ?? 0;
  const pageLast = own.at(-1)?.seq ?? 0;
  const empty = w.events.length === 0;
  return {
    ...w,
    events,
    firstSeq: events[0]?.seq ?? 0,
    lastSeq: events.at(-1)?.seq ?? 0,
    hasBefore: empty || pageFirst <= w.firstSeq ? page.hasBefore : w.hasBefore,
    hasAfter: empty || pageLast >= w.lastSeq ? page.hasAfter : w.hasAfter,
    loaded: true,
  };
}

/**
 * Rebuilds the runs of the messages whose events are in `events` (seq order), keyed by
 * message id. A run whose first events lie before the window is rebuilt from what is
 * there (its question comes from the stored message).
 */
export function runsFromHistory(conversationId: string, events: readonly RunEvent[]): Record<string, RunState> {
  return applyEvents(emptyRunsState(), events).conversations[conversationId]?.runs ?? {};
}

/**
 * The index of the first message of the branch (`messageIds`, root first) to show for the
 * loaded window: 0 when nothing older is left (hasBefore false); else the first message
 * with a loaded event of its run, ratings (feedback events) aside (the ones before it
 * appear when older pages load), or the last
 * message when none has one.
 */
export function firstShownIndex(messageIds: readonly string[], events: readonly RunEvent[], hasBefore: boolean): number {
  if (!hasBefore || messageIds.length === 0) return 0;
  // A rating given later to an old run is no sign that the run's own events are loaded.
  const seen = new Set(events.filter((e) => e.type !== 'feedback').map((e) => e.message_id));
  const i = messageIds.findIndex((id) => seen.has(id));
  return i >= 0 ? i : messageIds.length - 1;
}

/**
 * Reports whether branch `next` continues branch `prev` (prev is a prefix of next): the
 * loaded window stays valid and only newer events need loading. Otherwise (another
 * branch, another conversation) the window must be loaded afresh.
 */
export function extendsPath(prev: readonly string[], next: readonly string[]): boolean {
  if (prev.length > next.length) return false;
  return prev.every((id, i) => next[i] === id);
}

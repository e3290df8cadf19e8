import { describe, expect, it } from 'vitest';
import type { RunEvent } from './events';
import {
  applyHistoryPage,
  emptyHistory,
  extendsPath,
  firstShownIndex,
  mergeEvents,
  runsFromHistory,
  type HistoryWindow,
  type PageOfEvents,
} from './history';

const CONV = 'c1';

/** A stored conversation: `messages` runs of `perRun` events each (metadata .. complete). */
function conversation(messages: number, perRun: number): RunEvent[] {
  const out: RunEvent[] = [];
  let seq = 0;
  for (let m = 0; m < messages; m++) {
    for (let k = 0; k < perRun; k++) {
      const type = k === 0 ? 'metadata' : k === perRun - 1 ? 'complete' : k % 2 === 1 ? 'agent_start' : 'agent_complete';
      out.push({
        type,
        conversation_id: CONV,
        message_id: `m${String(m)}`,
        seq: ++seq,
        agent_name: type === 'metadata' || type === 'complete' ? undefined : 'lead_agent',
        created_at: '2026-01-01T00:00:00Z',
        data: type === 'metadata' ? { content: `question ${String(m)}` } : type === 'complete' ? { response: `answer ${String(m)}`, steps: 1 } : { round: 0 },
      });
    }
  }
  return out;
}

/** The backend's paging (store.History) over `all`, for the test. */
function page(all: RunEvent[], req: { before?: number; after?: number; latest?: boolean; limit: number }): PageOfEvents {
  let sel: RunEvent[];
  if (req.after !== undefined) sel = all.filter((e) => e.seq > (req.after ?? 0)).slice(0, req.limit);
  else if (req.before !== undefined) sel = all.filter((e) => e.seq < (req.before ?? 0)).slice(-req.limit);
  else sel = all.slice(-req.limit);
  const first = sel[0]?.seq ?? 0;
  const last = sel.at(-1)?.seq ?? 0;
  return {
    events: sel,
    firstSeq: first,
    lastSeq: last,
    hasBefore: sel.length > 0 ? all.some((e) => e.seq < first) : req.before !== undefined ? false : all.length > 0,
    hasAfter: sel.length > 0 ? all.some((e) => e.seq > last) : false,
  };
}

const seqs = (w: HistoryWindow) => w.events.map((e) => e.seq);

describe('history paging', () => {
  it('pages a 10,000-event conversation backward to the start without loss or duplicates', () => {
    const all = conversation(1000, 10);
    let w = applyHistoryPage(emptyHistory(CONV), page(all, { latest: true, limit: 200 }), 'latest');
    expect(w.firstSeq).toBe(9801);
    expect(w.hasBefore).toBe(true);
    expect(w.hasAfter).toBe(false);
    let pages = 1;
    while (w.hasBefore) {
      w = applyHistoryPage(w, page(all, { before: w.firstSeq, limit: 200 }), 'before');
      pages++;
    }
    expect(pages).toBe(50);
    expect(seqs(w)).toEqual(all.map((e) => e.seq));
    expect(w.firstSeq).toBe(1);
    expect(w.lastSeq).toBe(10_000);
    expect(w.hasAfter).toBe(false);
  });

  it('pages forward from the start, and an overlapping page adds nothing twice', () => {
    const all = conversation(100, 7);
    let w = applyHistoryPage(emptyHistory(CONV), page(all, { after: 0, limit: 64 }), 'after');
    w = { ...w, hasBefore: false };
    while (w.hasAfter) w = applyHistoryPage(w, page(all, { after: w.lastSeq, limit: 64 }), 'after');
    expect(seqs(w)).toEqual(all.map((e) => e.seq));
    const again = applyHistoryPage(w, page(all, { before: 300, limit: 100 }), 'before');
    expect(seqs(again)).toEqual(seqs(w));
    expect(again.hasBefore).toBe(false);
  });

  it('loads newer events after a run without disturbing the older side', () => {
    const all = conversation(30, 10);
    const first = all.slice(0, 250);
    let w = applyHistoryPage(emptyHistory(CONV), page(first, { latest: true, limit: 100 }), 'latest');
    expect([w.firstSeq, w.lastSeq, w.hasBefore]).toEqual([151, 250, true]);
    w = applyHistoryPage(w, page(all, { after: w.lastSeq, limit: 100 }), 'after');
    expect([w.firstSeq, w.lastSeq, w.hasBefore, w.hasAfter]).toEqual([151, 300, true, false]);
    expect(new Set(seqs(w)).size).toBe(150);
  });

  it('settles hasBefore with an empty page and ignores other conversations', () => {
    const w = applyHistoryPage(emptyHistory(CONV), { events: [], firstSeq: 0, lastSeq: 0, hasBefore: false, hasAfter: false }, 'latest');
    expect(w.loaded).toBe(true);
    expect(w.events).toEqual([]);
    const other = conversation(1, 3).map((e) => ({ ...e, conversation_id: 'c2' }));
    expect(applyHistoryPage(w, { events: other, firstSeq: 1, lastSeq: 3, hasBefore: false, hasAfter: false }, 'after').events).toEqual([]);
  });

  it('mergeEvents keeps each seq once, in order, and drops chunks', () => {
    const a = conversation(2, 4);
    const chunk: RunEvent = { ...a[1]!, type: 'llm_chunk' };
    const merged = mergeEvents(a.slice(2), [...a.slice(0, 5), chunk]);
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(merged.some((e) => e.type === 'llm_chunk')).toBe(false);
  });
});

describe('what the window shows', () => {
  it('rebuilds runs, partial ones included', () => {
    const all = conversation(3, 6);
    const runs = runsFromHistory(CONV, all.slice(3));
    expect(Object.keys(runs)).toEqual(['m0', 'm1', 'm2']);
    expect(runs.m1?.question).toBe('question 1');
    expect(runs.m0?.status).toBe('complete');
    expect(runs.m0?.question).toBe('');
  });

  it('shows messages from the first one with a loaded event while older ones remain', () => {
    const ids = ['m0', 'm1', 'm2', 'm3'];
    const all = conversation(4, 5);
    expect(firstShownIndex(ids, all.slice(12), true)).toBe(2);
    expect(firstShownIndex(ids, all.slice(12), false)).toBe(0);
    expect(firstShownIndex(ids, [], true)).toBe(3);
    expect(firstShownIndex([], [], true)).toBe(0);
  });

  it('extendsPath tells a continued branch from another one', () => {
    expect(extendsPath(['a', 'b'], ['a', 'b', 'c'])).toBe(true);
    expect(extendsPath(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(extendsPath(['a', 'b'], ['a', 'x'])).toBe(false);
    expect(extendsPath(['a', 'b'], ['a'])).toBe(false);
    expect(extendsPath([], ['a'])).toBe(true);
  });
});

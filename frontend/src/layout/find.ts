// Find in the conversation (Ctrl+F): the matches of a query in the text
// the page shows, as DOM Ranges, so they can be highlighted with the CSS Custom Highlight
// API without changing the (React-owned) DOM.

import { i18n } from '../i18n/i18n';

/** Elements whose text is never searched: the find bar itself, hidden and non-text content. */
const SKIP = 'script, style, noscript, template, .find-bar, [aria-hidden="true"], .code-copy';

/** The largest number of matches find reports and highlights. */
export const MAX_MATCHES = 5000;

/**
 * The ranges of every occurrence of query in the text under root, in document order,
 * ignoring case (a match never spans two text nodes; a citation chip or a bold word
 * between parts of the query breaks it). An empty or blank query finds nothing. At most
 * MAX_MATCHES ranges.
 */
export function findRanges(root: Node, query: string): Range[] {
  const q = query.trim().toLocaleLowerCase();
  if (q === '') return [];
  const doc = root.ownerDocument ?? document;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement?.closest(SKIP) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const out: Range[] = [];
  for (let n = walker.nextNode(); n !== null && out.length < MAX_MATCHES; n = walker.nextNode()) {
    const text = (n.nodeValue ?? '').toLocaleLowerCase();
    // toLocaleLowerCase keeps UTF-16 lengths for the scripts the app shows (a few rare
    // characters change length; their offsets would be off by one, which only shifts a
    // highlight).
    for (let i = text.indexOf(q); i >= 0 && out.length < MAX_MATCHES; i = text.indexOf(q, i + q.length)) {
      const r = doc.createRange();
      r.setStart(n, i);
      r.setEnd(n, Math.min(i + q.length, n.nodeValue?.length ?? 0));
      out.push(r);
    }
  }
  return out;
}

/** What a find searches: the conversation, a report (the Reader, the artifact view, a comparison), the artifacts panel, or another dialog. */
export type FindKind = 'conversation' | 'report' | 'panel' | 'dialog';

/** Where a find searches: root holds the text; host is the open dialog the find bar goes into (null: the bar sits over the app). */
export interface FindScope {
  kind: FindKind;
  root: Element;
  host: HTMLDialogElement | null;
}

/**
 * Where Ctrl+F searches, from where the focus is (active, the focused element or null):
 * the open dialog holding the focus, else the last open dialog (the Reader, a comparison,
 * Settings: a modal dialog leaves the rest of the page inert, so the bar must go inside
 * it), searched in its body; else the artifact view's content when the focus is in it;
 * else the artifacts panel when the focus is there; else the conversation
 * (conversationSelector). Null when none of these is on the page.
 */
export function findScope(doc: Document, active: Element | null, conversationSelector = '.chat-scroll'): FindScope | null {
  const dialogs = Array.from(doc.querySelectorAll<HTMLDialogElement>('dialog[open]'));
  const dialog = active?.closest<HTMLDialogElement>('dialog[open]') ?? dialogs.at(-1) ?? null;
  if (dialog !== null) {
    const body = dialog.querySelector('.reader-body, .modal-body') ?? dialog;
    const report = dialog.classList.contains('reader') || dialog.classList.contains('modal-compare');
    return { kind: report ? 'report' : 'dialog', root: body, host: dialog };
  }
  const preview = active?.closest('.viewer')?.querySelector('.preview');
  if (preview) return { kind: 'report', root: preview, host: null };
  const panel = active?.closest('aside.panel');
  if (panel) return { kind: 'panel', root: panel, host: null };
  const convo = doc.querySelector(conversationSelector);
  return convo === null ? null : { kind: 'conversation', root: convo, host: null };
}

/**
 * The match to show after moving by step (1 next, -1 previous) from current among count
 * matches, wrapping around; -1 when there are none.
 */
export function stepMatch(current: number, count: number, step: 1 | -1): number {
  if (count === 0) return -1;
  if (current < 0) return step === 1 ? 0 : count - 1;
  return (((current + step) % count) + count) % count;
}

/** The find bar's count in the UI's language: "3 / 12", "0 / 0" with no match, "" with no query. */
export function matchCount(current: number, count: number, query: string): string {
  if (query.trim() === '') return '';
  return count === 0 ? i18n.t('tools:find.none') : i18n.t('tools:find.count', { current: current + 1, total: count });
}

/** A highlight of the CSS Custom Highlight API: a set of ranges. */
interface HighlightSet {
  add(r: Range): unknown;
  clear(): void;
}

/** The registry of the CSS Custom Highlight API, when the engine has one. */
interface HighlightRegistry {
  get(name: string): unknown;
  set(name: string, h: unknown): void;
  delete(name: string): boolean;
}

/** The Highlight constructor and registry, or null where the API is missing. */
function highlightApi(): { registry: HighlightRegistry; make: () => HighlightSet } | null {
  const g = globalThis as unknown as { CSS?: { highlights?: HighlightRegistry }; Highlight?: new (...r: Range[]) => HighlightSet };
  const registry = g.CSS?.highlights;
  const H = g.Highlight;
  if (registry === undefined || H === undefined) return null;
  return { registry, make: () => new H() };
}

/** Name of the highlight of every match (styled in everyday.css with ::highlight()). */
export const HIGHLIGHT_ALL = 'af-find';
/** Name of the highlight of the current match. */
export const HIGHLIGHT_CURRENT = 'af-find-current';

/** The highlight registered as name, registered empty first when there is none. */
function registered(api: NonNullable<ReturnType<typeof highlightApi>>, name: string): HighlightSet {
  const h = api.registry.get(name) as HighlightSet | undefined;
  if (h !== undefined) return h;
  const made = api.make();
  api.registry.set(name, made);
  return made;
}

/**
 * Shows ranges as highlights (all of them, and the current one stronger) through the CSS
 * Custom Highlight API; where it is missing, selects the current match instead. Returns
 * whether highlights were used.
 *
 * The registered highlights are kept and their ranges changed in place (clear, then add):
 * WebKitGTK repaints the text of a range taken out of a registered highlight, but not that
 * of a highlight replaced or deleted in the registry, which stayed painted on the page.
 */
export function paintMatches(ranges: Range[], current: number): boolean {
  const api = highlightApi();
  const cur = ranges[current];
  if (api === null) {
    const sel = window.getSelection();
    if (sel !== null && cur !== undefined) {
      sel.removeAllRanges();
      sel.addRange(cur);
    }
    return false;
  }
  const all = registered(api, HIGHLIGHT_ALL);
  all.clear();
  for (const r of ranges) all.add(r);
  const now = registered(api, HIGHLIGHT_CURRENT);
  now.clear();
  if (cur !== undefined) now.add(cur);
  return true;
}

/** Removes the find highlights, emptying them first so every engine repaints their text. */
export function clearMatches(): void {
  const api = highlightApi();
  if (api === null) return;
  for (const name of [HIGHLIGHT_ALL, HIGHLIGHT_CURRENT]) {
    (api.registry.get(name) as HighlightSet | undefined)?.clear();
    api.registry.delete(name);
  }
}

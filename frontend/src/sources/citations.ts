// Numbered citations: the conversation's sources (backend/sources, one number per URL or
// local file, stable for the conversation), the `[n]`, `[n, m]` and `[n-m]` markers agents
// write, the footer the engine appends to every answer, and the tally of searches and
// fetches. Pure functions and one DOM transform; the chips' hover card and clicks
// live in Citations.tsx.

import type { Source } from '../api/conversations';
import { clip } from '../shared/format';
import { i18n } from '../i18n/i18n';

export type { Source } from '../api/conversations';

type Loose = Record<string, unknown>;

/**
 * Adds or replaces `s` in a list kept in number order (a source recorded again, e.g. fetched
 * after being listed, replaces its earlier entry). Returns a new list; `list` is unchanged.
 */
export function upsertSource(list: readonly Source[], s: Source): Source[] {
  const out = list.filter((x) => x.n !== s.n);
  const at = out.findIndex((x) => x.n > s.n);
  if (at < 0) out.push(s);
  else out.splice(at, 0, s);
  return out;
}

/** Reports whether a source is on the web (its location opens in the system browser). */
export function isWebSource(s: Pick<Source, 'kind' | 'location'>): boolean {
  return s.kind !== 'file' && /^https?:\/\//i.test(s.location);
}

/** The host of a web source's URL without "www." ("" when the location is not a URL). */
export function hostOf(location: string): string {
  try {
    return new URL(location).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** The name to show for a source: its title, else its site or host, else its location. */
export function sourceTitle(s: Source): string {
  return s.title.trim() || s.site.trim() || hostOf(s.location) || s.location;
}

/**
 * The artifact id of a source that is an uploaded file ("@uploads/notes.md" is artifact
 * "notes.md"), or "" for a workspace file or a web source.
 */
export function uploadArtifactId(s: Pick<Source, 'kind' | 'location'>): string {
  return s.kind === 'file' && s.location.startsWith('@uploads/') ? s.location.slice('@uploads/'.length) : '';
}

/** Where in a local file a source points: "p. 3", "line 12" or "" (in the UI's language). */
export function sourcePlace(s: Pick<Source, 'page' | 'line'>): string {
  if (s.page > 0) return i18n.t('sources:place.page', { page: s.page });
  if (s.line > 0) return i18n.t('sources:place.line', { line: s.line });
  return '';
}

/**
 * The short description under a source's title: the site (or host) and the published
 * date for web sources; the path and page or line for files ("uploaded file notes.md" for
 * an upload). Parts are joined by " · ".
 */
export function sourceMeta(s: Source): string {
  const upload = uploadArtifactId(s);
  if (upload !== '') return [i18n.t('sources:place.upload', { name: upload }), sourcePlace(s)].filter((x) => x !== '').join(' · ');
  if (s.kind === 'file') return [s.location, sourcePlace(s)].filter((x) => x !== '').join(' · ');
  return [s.site.trim() || hostOf(s.location), s.published.trim()].filter((x) => x !== '').join(' · ');
}

/**
 * The sources whose title, site, location or excerpt contain every word of `query`
 * (case-insensitive; a number alone also matches the source with that number). An empty
 * query returns the list itself.
 */
export function filterSources(list: readonly Source[], query: string): readonly Source[] {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return list;
  return list.filter((s) => {
    const hay = `${s.title}\n${s.site}\n${s.location}\n${s.excerpt}\n${s.published}`.toLowerCase();
    return words.every((w) => hay.includes(w) || (/^\[?\d+\]?$/.test(w) && Number(w.replace(/[[\]]/g, '')) === s.n));
  });
}

/** A number cited by one marker, or a run of them; see parseCitation. */
const MAX_N = 9999;
/** A range wider than this ("[1-500]") is not a citation. */
const MAX_RANGE = 50;

// "[3]", "[1, 2]", "[3-5]", "[1,3–4]", "[2、5]", "[3 - 5]": numbers without a leading zero
// separated by ",", ";", "，" or "、", and ranges (hyphen or en dash), between square
// brackets, with spaces allowed inside and around separators and dashes. The same rule as
// the engine's sources.Citations, which decides what the footer lists; the rest of it
// (code, links, escaped brackets) is the rendered Markdown's: code and links are skipped
// below, and renderMarkdown renders an escaped bracket as an element of its own, so it is
// never part of a text node's marker. backend/sources/testdata/citations.json holds the
// cases both sides' tests check.
const MARKER_RE = /\[( *[1-9]\d{0,3}(?: *[-–] *[1-9]\d{0,3})?(?: *[,;，、] *[1-9]\d{0,3}(?: *[-–] *[1-9]\d{0,3})?)* *)\]/g;

/**
 * The numbers one bracketed marker's inside cites ("1, 2" → [1, 2]; "3-5" → [3, 4, 5]), in
 * order and without repeats, or null when it is not a citation (a range that does not
 * run upwards or is wider than 50, a number over 9999).
 */
export function parseCitation(inner: string): number[] | null {
  const out: number[] = [];
  for (const part of inner.split(/[,;，、]/)) {
    const ends = part.split(/[-–]/).map((x) => x.trim());
    if (ends.length > 2 || !ends.every((x) => /^[1-9]\d{0,3}$/.test(x))) return null;
    const [a, b] = ends.map(Number);
    if (a === undefined || !Number.isInteger(a) || a < 1 || a > MAX_N) return null;
    const end = b ?? a;
    if (!Number.isInteger(end) || (b !== undefined && end <= a) || end > MAX_N || end - a > MAX_RANGE) return null;
    for (let n = a; n <= end; n++) if (!out.includes(n)) out.push(n);
  }
  return out.length > 0 ? out : null;
}

/** One citation marker found in plain text: its span [start, end) and the numbers it cites. */
export interface CitationMatch {
  start: number;
  end: number;
  numbers: number[];
}

/** The citation markers in a plain-text string, in order (see parseCitation). */
export function findCitations(text: string): CitationMatch[] {
  const out: CitationMatch[] = [];
  for (const m of text.matchAll(MARKER_RE)) {
    const numbers = parseCitation(m[1] ?? '');
    if (numbers !== null) out.push({ start: m.index, end: m.index + m[0].length, numbers });
  }
  return out;
}

/** What a chip needs to know about the source behind a number. */
export interface CiteTarget {
  title: string;
}

/** Looks up a cited number in the conversation's sources; undefined: not in the list. */
export type CiteResolver = (n: number) => CiteTarget | undefined;

/** Elements whose text is never scanned for citations: code, links, controls, and chips themselves. */
const SKIP = 'code, pre, kbd, samp, a, button, textarea, script, style, svg, math, .cite';

/** The class of every chip; `cite-missing` marks a number that is not among the sources. */
export const CITE_CLASS = 'cite';

/** The title of an unresolved chip (the brief's exact words in English; in the UI's language). */
export function missingTitle(n: number): string {
  return i18n.t('sources:chip.missing', { n });
}

/** The accessible name of a resolved chip: "Source 3: title" ("Source 3" without a title). */
export function chipLabel(n: number, title: string): string {
  return title ? i18n.t('sources:chip.label', { n, title: clip(title, 120) }) : i18n.t('sources:chip.labelNoTitle', { n });
}

/**
 * Replaces the citation markers in the text of `root` (rendered, already sanitized
 * Markdown) with chips, leaving code, `pre`, links, buttons and existing chips alone. Each
 * marker becomes `<span class="cite-group" data-marker="[1-3]">` (the marker as written,
 * for copying) holding one chip per number, in order:
 * - a number `resolve` knows: `<button type="button" class="cite" data-cite="n"
 *   aria-label="Source n: title">n</button>` (keyboard-focusable; the Markdown component
 *   shows its card and opens it);
 * - any other: `<span class="cite cite-missing" data-cite="n" title="source n is not in
 *   this conversation's sources">n</span>`, never a link.
 * Everything is made with DOM calls and text nodes (no HTML parsing), so a title cannot
 * inject markup. Returns how many chips were made.
 */
export function linkCitations(root: Node, resolve: CiteResolver): number {
  const doc = root.ownerDocument ?? (root as Document);
  const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const t = node as Text;
    if (!t.data.includes('[')) continue;
    if (t.parentElement?.closest(SKIP)) continue;
    texts.push(t);
  }
  let made = 0;
  for (const t of texts) {
    const found = findCitations(t.data);
    if (found.length === 0) continue;
    const frag = doc.createDocumentFragment();
    let at = 0;
    for (const m of found) {
      if (m.start > at) frag.appendChild(doc.createTextNode(t.data.slice(at, m.start)));
      const group = doc.createElement('span');
      group.className = 'cite-group';
      group.setAttribute('data-marker', t.data.slice(m.start, m.end));
      for (const n of m.numbers) {
        group.appendChild(chipElement(doc, n, resolve(n)));
        made++;
      }
      frag.appendChild(group);
      at = m.end;
    }
    if (at < t.data.length) frag.appendChild(doc.createTextNode(t.data.slice(at)));
    t.replaceWith(frag);
  }
  return made;
}

function chipElement(doc: Document, n: number, target: CiteTarget | undefined): HTMLElement {
  const num = String(n);
  if (target === undefined) {
    const span = doc.createElement('span');
    span.className = `${CITE_CLASS} cite-missing`;
    span.setAttribute('data-cite', num);
    span.setAttribute('title', missingTitle(n));
    span.textContent = num;
    return span;
  }
  const b = doc.createElement('button');
  b.type = 'button';
  b.className = CITE_CLASS;
  b.setAttribute('data-cite', num);
  b.setAttribute('aria-label', chipLabel(n, target.title));
  b.textContent = num;
  return b;
}

/**
 * Writes the chips in `root` (a copy of selected content, changed in place) back as the
 * text they stand for: a marker's group of chips becomes the marker as written ("[3–5]"),
 * or, when only some of its chips are there (a selection that starts or ends inside it),
 * those numbers ("[4, 5]"); any other chip becomes "[n]". Returns how many it replaced.
 */
export function unchipCitations(root: ParentNode): number {
  const doc = (root as Node).ownerDocument ?? (root as Document);
  let made = 0;
  for (const group of Array.from(root.querySelectorAll('.cite-group'))) {
    const numbers = Array.from(group.querySelectorAll(`.${CITE_CLASS}`)).map((c) => c.textContent.trim());
    const marker = group.getAttribute('data-marker') ?? '';
    const whole = parseCitation(marker.slice(1, -1))?.join(',') === numbers.join(',');
    group.replaceWith(doc.createTextNode(whole ? marker : numbers.length > 0 ? `[${numbers.join(', ')}]` : ''));
    made++;
  }
  for (const chip of Array.from(root.querySelectorAll(`.${CITE_CLASS}`))) {
    chip.replaceWith(doc.createTextNode(`[${chip.textContent.trim()}]`));
    made++;
  }
  return made;
}

/**
 * Handles a `copy` event on the page: when the selection holds citation chips, it puts the
 * selection on the clipboard with each chip written as its marker (see unchipCitations),
 * as plain text (laid out like the page's own copy: the browser's innerText of an
 * off-screen copy, or its text content where there is no layout) and as HTML, and cancels
 * the default copy, which would give the bare numbers ("average 1;"). A selection without
 * chips, or an event without clipboard data, is left to the browser. Returns whether it
 * wrote the clipboard.
 */
export function copyCitations(e: ClipboardEvent, sel: Selection | null): boolean {
  if (e.clipboardData === null || sel === null || sel.isCollapsed || sel.rangeCount === 0) return false;
  const doc = sel.anchorNode?.ownerDocument ?? document;
  const box = doc.createElement('div');
  for (let i = 0; i < sel.rangeCount; i++) box.appendChild(sel.getRangeAt(i).cloneContents());
  if (unchipCitations(box) === 0) return false;
  box.setAttribute('aria-hidden', 'true');
  box.style.cssText = 'position:fixed;left:-100000px;top:0;width:800px;white-space:normal';
  doc.body.appendChild(box);
  try {
    const laidOut = (box as { innerText?: unknown }).innerText;
    e.clipboardData.setData('text/plain', typeof laidOut === 'string' ? laidOut : box.textContent);
    e.clipboardData.setData('text/html', box.innerHTML);
  } finally {
    box.remove();
  }
  e.preventDefault();
  return true;
}

/**
 * The number of the chip an event happened on (the element or one inside it), with the
 * chip, or null. Only chips with a data-cite number count.
 */
export function chipOf(target: EventTarget | null): { n: number; el: HTMLElement } | null {
  if (!(target instanceof Element)) return null;
  const el = target.closest<HTMLElement>(`.${CITE_CLASS}[data-cite]`);
  if (el === null) return null;
  const n = Number(el.getAttribute('data-cite'));
  return Number.isInteger(n) && n > 0 ? { n, el } : null;
}

/** One line of an answer's "Sources" list: the number and the rest of the line (Markdown). */
export interface FooterSource {
  n: number;
  /** "[Title](URL) · site · published", or for files "path (p. 3)". */
  text: string;
}

/** An answer split into the model's text and the footer the engine appended. */
export interface AnswerParts {
  /** The model's answer, without the footer. */
  body: string;
  /** The failure line without its "> " ("2 of 5 searches failed: …"), or "". */
  failures: string;
  /** The cited sources listed under "**Sources**", in order. */
  sources: FooterSource[];
}

const SOURCE_LINE_RE = /^\s*[-*]\s+\[(\d{1,4})\]\s*(.*)$/;
const FAILURE_RE = /^>\s?\d+ of \d+ \S+ failed\b/;

/**
 * Splits a stored answer into the model's text and the engine's footer (contract C): after
 * the last line `---` that follows a blank line, only blank lines, quoted failure lines
 * (`> 2 of 5 searches failed: … .`), a `**Sources**` line and `- [n] …` lines. Anything
 * else there (the model's own rule followed by text) means there is no footer, and the
 * whole text is the body. An answer still streaming has no footer yet.
 */
export function splitAnswer(text: string): AnswerParts {
  const none: AnswerParts = { body: text, failures: '', sources: [] };
  const lines = text.split('\n');
  let rule = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]?.trim() === '---' && (i === 0 || lines[i - 1]?.trim() === '')) {
      rule = i;
      break;
    }
  }
  if (rule < 0) return none;
  const failures: string[] = [];
  const sources: FooterSource[] = [];
  let heading = false;
  for (const raw of lines.slice(rule + 1)) {
    const line = raw.trim();
    if (line === '') continue;
    if (FAILURE_RE.test(line) && !heading) {
      failures.push(line.replace(/^>\s?/, '').trim());
      continue;
    }
    if (line === '**Sources**' && !heading) {
      heading = true;
      continue;
    }
    const m = heading ? SOURCE_LINE_RE.exec(raw) : null;
    if (m === null) return none;
    sources.push({ n: Number(m[1]), text: (m[2] ?? '').trim() });
  }
  return { body: lines.slice(0, rule).join('\n').trimEnd(), failures: failures.join(' '), sources };
}

/** One part of an answer's failure line: "2 of 5 searches failed: <error>". */
export interface FailurePart {
  kind: 'search' | 'fetch';
  failed: number;
  total: number;
  /** The first failure's message as the engine wrote it (Markdown escapes removed). */
  error: string;
}

const FAILURE_PART_RE = /(\d+) of (\d+) (searches|search|fetches|fetch) failed: /g;

/**
 * Reads the engine's failure line (AnswerParts.failures: "2 of 5 searches failed: <error>.
 * 1 of 3 fetches failed: <error>.") into its parts, for the page to word in the UI's
 * language; [] when the line is not in that form (the page then shows it as it is).
 */
export function failureParts(line: string): FailurePart[] {
  const matches = [...line.matchAll(FAILURE_PART_RE)];
  if (matches.length === 0 || matches[0]?.index !== 0) return [];
  return matches.map((m, i) => {
    const start = m.index + m[0].length;
    const next = matches[i + 1];
    const end = next?.index ?? line.length;
    const error = line
      .slice(start, end)
      .trim()
      .replace(/\.$/, '')
      .replace(/\\(.)/g, '$1');
    return { kind: m[3]?.startsWith('search') ? 'search' : 'fetch', failed: Number(m[1]), total: Number(m[2]), error };
  });
}

/**
 * The searches and fetches of a run (events.WebTally, the terminal event's `web`): counts
 * and up to three distinct error messages, each naming the provider or URL.
 */
export interface WebTally {
  searches: number;
  searches_failed: number;
  fetches: number;
  fetches_failed: number;
  errors: string[];
}

/** Normalizes a terminal event's `web` data; null when absent. */
export function toWebTally(v: unknown): WebTally | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const x = v as Loose;
  const num = (y: unknown): number => (typeof y === 'number' && Number.isFinite(y) && y > 0 ? Math.floor(y) : 0);
  return {
    searches: num(x.searches),
    searches_failed: num(x.searches_failed),
    fetches: num(x.fetches),
    fetches_failed: num(x.fetches_failed),
    errors: Array.isArray(x.errors) ? x.errors.filter((e): e is string => typeof e === 'string' && e !== '').slice(0, 3) : [],
  };
}

const withFailed = (part: string, failed: number): string => (failed > 0 ? i18n.t('sources:web.failed', { part, failed }) : part);

/**
 * The activity summary's words for a tally, in the UI's language: "5 searches (2 failed) ·
 * 3 pages (1 failed)"; a part with no calls is left out, and "" when there were none at all.
 */
export function webSummary(t: Pick<WebTally, 'searches' | 'searches_failed' | 'fetches' | 'fetches_failed'>): string {
  const parts: string[] = [];
  if (t.searches > 0) parts.push(withFailed(i18n.t('sources:web.searches', { count: t.searches }), t.searches_failed));
  if (t.fetches > 0) parts.push(withFailed(i18n.t('sources:web.pages', { count: t.fetches }), t.fetches_failed));
  return parts.join(' · ');
}

/** Reports whether a run searched and every one of its searches failed. */
export function allSearchesFailed(t: Pick<WebTally, 'searches' | 'searches_failed'> | null | undefined): boolean {
  return t != null && t.searches > 0 && t.searches_failed >= t.searches;
}

/** A rectangle in viewport pixels (the part of DOMRect placeCard reads). */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Where a hover card of `card`'s size goes next to the chip `anchor` in a `view`-sized
 * window (all in px): below the chip, left edges aligned, when it fits; above it when it
 * does not and fits there; else on the side with more room, its height capped to that
 * room (`maxHeight`). It is moved left to stay inside the window, never closer than
 * `margin` to an edge, so it is never clipped.
 */
export function placeCard(anchor: Box, card: { width: number; height: number }, view: { width: number; height: number }, margin = 8): { left: number; top: number; maxHeight: number } {
  const gap = 6;
  const below = view.height - (anchor.top + anchor.height + gap) - margin;
  const above = anchor.top - gap - margin;
  let top: number;
  let maxHeight: number;
  if (card.height <= below || (below >= above && card.height > above)) {
    top = anchor.top + anchor.height + gap;
    maxHeight = Math.min(card.height, Math.max(below, 0));
  } else {
    maxHeight = Math.min(card.height, Math.max(above, 0));
    top = anchor.top - gap - maxHeight;
  }
  const width = Math.min(card.width, view.width - 2 * margin);
  const left = Math.max(margin, Math.min(anchor.left, view.width - margin - width));
  return { left, top: Math.max(margin, top), maxHeight };
}
